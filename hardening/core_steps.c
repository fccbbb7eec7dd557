// SPDX-License-Identifier: BSD-3-Clause
/*
 * The core's steps per object, on the object's record: what init and tag
 * do when a pool hands an object out or takes it back. burst.c calls
 * them once a burst, in its order; each step is a small function that
 * returns at once when its flag is off.
 *
 * Allocation (core_on_alloc), for each object:
 *   1. an MTE tag left from before this epoch is reset (forget_tag);
 *   2. init_check: the object is still zero where its last free wiped it,
 *      or, at one allocation in init_check_sample, whole (known_clean);
 *   3. init_on_alloc: zeroed, unless init_on_free left it zero;
 *   4. tag: if sampled in, a tag that is neither the slot's last nor its
 *      neighbours', set with the zeroing (tag_on_alloc);
 *   5. its record: allocated, clean or not, its tag, this epoch.
 *
 * Free (core_on_free), for each object:
 *   1. a double free or a stale handle is refused (free_is_valid), or as
 *      core_verdicts found before the steps that had to know;
 *   2. init_on_free: the write extent wiped (used), or the whole object
 *      (on: outside the extent read, written only where dirty);
 *   3. a tagged object is retagged 0, so that stale handles fault;
 *   4. its record: free, wiped or not, what was wiped, this epoch.
 *
 * A burst that began before the pool's memory took MTE tags acted on the
 * records alone: before its objects leave it, it gives them their tags in
 * memory as well (catch_up_mte). In a build without MTE that is no code.
 */
#include "harden_internal.h"

#include <stdio.h>

/*
 * One burst: what it acts on, loaded once into locals (stores to the
 * records could otherwise alias the pool's fields and force reloads), the
 * thread's samplers copied in and out, and what it adds to the counters.
 */
struct burst {
	struct hdp_harden_pool *hp;
	struct hdp_harden_tls *t;
	struct hdp_harden_samplers s;	/* in registers */
	struct hdp_obj_meta *meta;
	bool chunked;			/* several chunks: the layout's lookup */
	uintptr_t base;
	uint32_t shift;			/* the layout's stride, as it divides */
	uint64_t magic;
	size_t stride, obj_size;
	uint32_t slots;
	struct hdp_harden_view v;
	uint64_t epoch;			/* the core's, which its records carry */
	unsigned flags;
	bool mte;			/* the memory carries MTE tags (now or from before) */
	bool retagged;			/* a free took a tag back (in the record, or memory) */
	bool cold;			/* whole wipes, not reads (desc.cold_objects) */
	uint64_t wiped, tagged, checks;
};

static inline struct burst burst_begin(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
				       struct hdp_harden_view v)
{
	const struct hdp_layout *l = &hp->layout;

	/*
	 * The kernel keeps the tag check mode per thread: a thread gets the
	 * process's the first time it takes or gives back MTE objects, even
	 * when MTE was switched on after it started (a TLS flag after that).
	 */
	bool mte = tag_mte_state(hp) == TAG_MTE_YES;

	if (mte)
		tag_mte_adopt_thread();
	return (struct burst){
		.hp = hp, .t = t, .v = v, .epoch = hdp_epoch_core(v.epoch),
		.flags = hdp_view_flags(v),
		.s = t ? t->smp : (struct hdp_harden_samplers){ 0 },
		.meta = hp->meta, .chunked = l->chunks != NULL, .base = l->base,
		.shift = l->stride_shift, .magic = l->stride_magic, .stride = l->stride,
		.obj_size = l->obj_size, .slots = l->slots,
		.mte = mte, .cold = hp->cold_objects,
	};
}

/* What the burst did goes to the thread's counters (a free draws no samples). */
static inline void burst_end(struct burst *b, bool sampled)
{
	if (sampled)
		b->t->smp = b->s;
	hdp_counter_add(&b->t->c.n[HDP_C_BYTES_WIPED], b->wiped);
	hdp_counter_add(&b->t->c.n[HDP_C_OBJS_TAGGED], b->tagged);
	hdp_counter_add(&b->t->c.n[HDP_C_CHECKS], b->checks);
}

/* The slot of @obj, which the pool checked is one of its objects. */
static inline uint32_t slot_of(const struct burst *b, const void *obj)
{
	uint32_t idx = 0;
	size_t in_slot;

	if (hdp_unlikely(b->chunked)) {
		hdp_layout_slot_chunked(&b->hp->layout, (uintptr_t)obj, &idx, &in_slot);
		return idx;
	}
	return hdp_layout_div_by(b->shift, b->magic, b->stride, (uintptr_t)obj - b->base);
}

/* The object's record if made in this burst's epoch, else 0 (nothing known). */
static inline uint64_t record(const struct burst *b, uint32_t idx)
{
	uint64_t m = atomic_load_explicit(&b->meta[idx].state, memory_order_relaxed);

	return META_EPOCH(m) == b->epoch ? m : 0;
}

static inline void record_store(const struct burst *b, uint32_t idx, unsigned bits)
{
	atomic_store_explicit(&b->meta[idx].state, b->epoch << META_EPOCH_SHIFT | bits,
			      memory_order_relaxed);
}

static inline unsigned memory_tag(const struct burst *b, uint32_t idx)
{
	uint64_t m = record(b, idx);

	return (m & META_TAGGED) ? META_TAG(m) : 0;
}

/* --- The steps ---------------------------------------------------------- */

/*
 * KASAN's page_alloc sampling, per thread and pool: objects below
 * tag_sample_min are always tagged and do not count (the flag says so,
 * the pool's object size being fixed); above it the first allocation is
 * tagged, then one in every tag_sample. A countdown left from a larger
 * tag_sample restarts, so a smaller one takes effect at once.
 */
static inline bool tag_sampled_in(struct burst *b)
{
	uint32_t n = hdp_view_tag_sample(b->v);

	if (b->flags & HDP_HF_TAG_ALWAYS)
		return true;
	if (b->s.sample_countdown && b->s.sample_countdown < n) {
		b->s.sample_countdown--;
		return false;
	}
	b->s.sample_countdown = n - 1;
	return true;
}

/*
 * init_check's whole-object check: the first allocation, then gaps drawn
 * at random with a mean of init_check_sample. Random, not a fixed
 * countdown: a frame that always comes back at the same place in the
 * reuse cycle must not always fall between two checks.
 */
static inline bool check_whole(struct burst *b)
{
	uint32_t n = hdp_view_check_sample(b->v);

	if (b->s.check_countdown && b->s.check_countdown < 2 * n - 1) {
		b->s.check_countdown--;
		return false;
	}
	/* The random word's high half scaled to the range: no division. */
	b->s.check_countdown = n > 1 ? (uint32_t)((hdp_xorshift(&b->s.rng) >> 32) * (2 * n - 1) >> 32)
				     : 0;
	return true;
}

/*
 * A soft tag in 1..15 (0 is the match-all tag) that is none of @avoid
 * (n <= 3), each allowed one as likely as the others: the r-th of the
 * allowed, r drawn at random, found by stepping over the avoided tags in
 * ascending order. No table, loop or branch: a loop that clears bits runs
 * a random number of times and mispredicts its exit, and counting a mask's
 * bits through a table kept its counts on the stack (perf: most of the
 * allocation steps with every object tagged).
 */
static inline unsigned soft_tag_choose(uint64_t *rng, const unsigned *avoid, unsigned n)
{
	uint32_t ex = 0, e2, e3;
	unsigned a1, a2, a3, count, tag;

	for (unsigned i = 0; i < n; i++)
		ex |= 1u << (avoid[i] & 0xf);
	ex &= 0xfffe;
	/* The avoided tags, lowest first; 16 (never reached) for none. */
	e2 = ex & (ex - 1);
	e3 = e2 & (e2 - 1);
	a1 = (unsigned)__builtin_ctz(ex | 1u << 16);
	a2 = (unsigned)__builtin_ctz(e2 | 1u << 16);
	a3 = (unsigned)__builtin_ctz(e3 | 1u << 16);
	count = 15 - (ex != 0) - (e2 != 0) - (e3 != 0);
	/* The random word's high half scaled to the count: no division. */
	tag = 1 + (unsigned)((hdp_xorshift(rng) >> 32) * count >> 32);
	tag += tag >= a1;
	tag += tag >= a2;
	tag += tag >= a3;
	return tag;
}

/*
 * Give @obj memory tag @tag and zero [start, end). Soft tags live in the
 * record, so only MTE touches the memory's tag.
 */
static inline void set_tag(struct burst *b, void *obj, unsigned tag, size_t start, size_t end)
{
	if (b->mte)
		tag_mte_set(obj, b->obj_size, tag, start, end);
	else if (end > start)
		zero_wipe((char *)obj + start, end - start);
}

/* 1. MTE: a tag left in memory from before this epoch is unknown: reset it. */
static inline void forget_tag(struct burst *b, void *obj, uint64_t m)
{
	if (hdp_unlikely(!m && b->mte))
		tag_mte_set(obj, b->obj_size, 0, 0, 0);
}

/* Found written after free: report, wipe whole; returns the bytes wiped. */
HDP_COLD static size_t report_dirty(struct hdp_harden_pool *hp, void *obj, size_t first_dirty)
{
	char detail[64];

	snprintf(detail, sizeof(detail), "object was written after it was freed, first at byte %zu",
		 first_dirty);
	hdp_harden_pool_violation(hp, HDP_V_WRITE_AFTER_FREE, (char *)obj + first_dirty,
				  hp->layout.obj_size, detail);
	zero_wipe(obj, hp->layout.obj_size);
	return hp->layout.obj_size;
}

/*
 * 2. Is the object all zero as it leaves the pool? Only if its last free
 * wiped it whole (as recorded). init_check verifies the extent that free
 * wiped, or with init_check_extent=head its first line (where a stale
 * handle into a packet writes: its headers), and now and then the whole
 * object, for writes beyond it. What is not read is taken on the
 * record's word, as with init_check off.
 */
static inline bool known_clean(struct burst *b, uint32_t idx, void *obj, uint64_t m)
{
	size_t start = 0, end = b->obj_size, dirty;

	if (!(m & META_WIPED))
		return false;
	if (!(b->flags & HDP_HF_INIT_CHECK))
		return true;
	if (!check_whole(b)) {
		uint64_t w = atomic_load_explicit(&b->meta[idx].wiped, memory_order_relaxed);

		start = (uint32_t)w;
		end = (uint32_t)(w >> 32);
		/*
		 * A head is a packet's: a whole-object wipe (init_on_free=on,
		 * or a frame's first wipe in an epoch) has none, and its first
		 * bytes would be a UMEM frame's headroom. Read all of it.
		 */
		if ((b->flags & HDP_HF_INIT_CHECK_HEAD) && end - start > HDP_CHECK_HEAD_BYTES &&
		    !(start == 0 && end == b->obj_size))
			end = start + HDP_CHECK_HEAD_BYTES;
	}
	b->checks++;
	if (hdp_unlikely(!zero_is_clear_short((char *)obj + start, end - start, &dirty)))
		b->wiped += report_dirty(b->hp, obj, start + dirty);
	return true;
}

/*
 * 4. Tag @obj if sampled in, zeroing its first @zero_len bytes with it
 * (else just zeroing them): the tag, or 0.
 */
static inline unsigned tag_on_alloc(struct burst *b, uint32_t idx, void *obj, uint64_t m,
				    size_t zero_len)
{
	unsigned avoid[3], tag;

	if (!(b->flags & HDP_HF_TAG) || !tag_sampled_in(b)) {
		if (zero_len)
			zero_wipe(obj, zero_len);
		return 0;
	}
	/* Not the slot's previous tag, not the neighbours': catch reuse and overflow. */
	avoid[0] = META_PREV(m);
	avoid[1] = idx > 0 ? memory_tag(b, idx - 1) : 0;
	avoid[2] = idx + 1 < b->slots ? memory_tag(b, idx + 1) : 0;
	tag = b->mte ? tag_mte_choose(obj, avoid, 3) : soft_tag_choose(&b->s.rng, avoid, 3);
	set_tag(b, obj, tag, 0, zero_len);
	b->tagged++;
	return tag;
}

HDP_COLD static void report_bad_free(struct hdp_harden_pool *hp, void *obj, uint64_t m)
{
	char detail[96];

	if (!(m & META_ALLOCATED)) {
		hdp_harden_pool_violation(hp, HDP_V_DOUBLE_FREE, obj, hp->layout.obj_size,
					  "the object is already free");
		return;
	}
	snprintf(detail, sizeof(detail), "pointer tag %u, object tag %u: a stale handle",
		 hdp_tag_of(obj), (m & META_TAGGED) ? META_TAG(m) : 0);
	hdp_harden_pool_violation(hp, HDP_V_INVALID_FREE, obj, hp->layout.obj_size, detail);
}

/* Is a free through @tagged of an object recorded as @m (not 0) a good one? */
static inline bool free_matches(const void *tagged, uint64_t m)
{
	unsigned ptag = hdp_tag_of(tagged), mtag = (m & META_TAGGED) ? META_TAG(m) : 0;

	return (m & META_ALLOCATED) && (!ptag || ptag == mtag);
}

/* 1. Recorded in this epoch, the record is the truth: a bad free is certain. */
static inline bool free_is_valid(struct burst *b, void *tagged, uint64_t m)
{
	if (!m)
		return true;
	b->checks++;
	if (hdp_likely(free_matches(tagged, m)))
		return true;
	report_bad_free(b->hp, tagged, m);
	return false;
}

/* The same, as core_verdicts judged it (@bad) before the steps that had to know. */
static inline bool judged_valid(struct burst *b, void *tagged, uint64_t m, bool bad)
{
	if (!m)
		return true;
	b->checks++;
	if (hdp_likely(!bad))
		return true;
	report_bad_free(b->hp, tagged, m);
	return false;
}

/*
 * 2. The bytes init_on_free writes zeros to: the write extent, if the
 * object was all zero when it was handed out (else the bytes outside it
 * are unknown: the whole object, once); without an extent, all of it.
 */
static inline struct hdp_extent wipe_extent(const struct burst *b, uint64_t m,
					    const struct hdp_extent *ext)
{
	uint32_t size = (uint32_t)b->obj_size;
	struct hdp_extent e = { 0, size };

	if (!(b->flags & HDP_HF_INIT_FREE))
		return (struct hdp_extent){ 0, 0 };
	/*
	 * init_on_free=on for cold objects: reading the bytes outside the
	 * extent from memory costs more than writing zeros over them.
	 */
	if (ext && (m & META_CLEAN) && (!b->cold || (b->flags & HDP_HF_INIT_USED))) {
		e.end = ext->end < size ? ext->end : size;
		e.start = ext->start < e.end ? ext->start : e.end;
	}
	return e;
}

/*
 * init_on_free=on reads each freed object whole (zero_outside), and a
 * frame back from TX was last read one trip through the rings ago, out of
 * the cache. Its first lines, asked for while the object before it is
 * read, start the hardware's stream early; asking for every line filled
 * the CPU's miss buffers and stalled on the asking (perf).
 */
#define PREFETCH_HEAD 256

static inline void prefetch_head(const char *obj, size_t size)
{
	for (size_t off = 0; off < size && off < PREFETCH_HEAD; off += 64)
		__builtin_prefetch(obj + off);
}

/* Zero what is not zero in [p, p + n): a read where nothing was written. */
static inline size_t zero_if_dirty(char *p, size_t n)
{
	size_t dirty;

	if (hdp_likely(zero_is_clear(p, n, &dirty)))
		return 0;
	zero_wipe(p + dirty, n - dirty);
	return n - dirty;
}

/*
 * init_on_free=on promises the whole object is zero after free, whatever
 * was written where. Outside the extent it was zero when handed out, so
 * reading it is enough, and it stays clean in the cache instead of being
 * dirtied: writes go only where something was written.
 */
static inline size_t zero_outside(const struct burst *b, void *obj, struct hdp_extent e)
{
	size_t size = b->obj_size;

	if ((b->flags & HDP_HF_INIT_USED) || (e.start == 0 && e.end == size))
		return 0;
	return zero_if_dirty(obj, e.start) + zero_if_dirty((char *)obj + e.end, size - e.end);
}

/*
 * The pool's memory took MTE tags (tag_mte_attach) while this burst acted
 * on the word before, on the records alone: its @n objects, still its own,
 * get the tags their handles carry (0 once freed) in memory too, after
 * attach tagged the objects held. Not inlined: the burst's hot loop stays
 * as it is. The fence pairs with attach's: either this burst sees the
 * switch here, or attach sees its records.
 */
static __attribute__((noinline)) void catch_up_mte(struct hdp_harden_pool *hp,
						   void *const *objs, unsigned n,
						   uint64_t skip, bool freed)
{
	atomic_thread_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&hp->mte, memory_order_relaxed) == TAG_MTE_NO ||
	    tag_mte_wait(hp) != TAG_MTE_YES)
		return;
	for (unsigned i = 0; i < n; i++)
		if (!(skip >> i & 1))
			tag_mte_set(hdp_untag(objs[i]), hp->layout.obj_size,
				    freed ? 0 : hdp_tag_of(objs[i]), 0, 0);
}

/* --- Allocation --------------------------------------------------------- */

void core_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			  struct hdp_harden_view v, void **objs, unsigned n)
{
	struct burst b = burst_begin(hp, t, v);

	for (unsigned i = 0; i < n; i++) {
		void *obj = objs[i];
		uint32_t idx = slot_of(&b, obj);
		uint64_t m = record(&b, idx);
		size_t zero_len = 0;
		unsigned tag;
		bool clean;

		forget_tag(&b, obj, m);
		clean = known_clean(&b, idx, obj, m);
		/* init_on_free already left it zero: do not wipe twice. */
		if ((b.flags & HDP_HF_INIT_ALLOC) && !clean) {
			zero_len = b.obj_size;
			clean = true;
		}
		tag = tag_on_alloc(&b, idx, obj, m, zero_len);
		b.wiped += zero_len;
		if (tag)
			objs[i] = (void *)((uintptr_t)obj | (uintptr_t)tag << HDP_TAG_SHIFT);
		record_store(&b, idx, META_ALLOCATED | META_PREV(m) << 4 |
			     (clean ? META_CLEAN : 0) | (tag ? META_TAGGED | tag : 0));
	}
	if (tag_mte_built() && hdp_unlikely(!b.mte && b.tagged))
		catch_up_mte(hp, objs, n, 0, false);
	burst_end(&b, true);
}

/* --- Free --------------------------------------------------------------- */

/*
 * The core's free steps over @n objects (n <= 64): the ones it refuses,
 * as bits; the others are checked, wiped and recorded, and go untagged to
 * @out (when not NULL). A template, inlined into its two callers: the
 * burst, and core_free_one with n = 1 (a PMD that frees mbufs one at a
 * time then pays for one object, not a burst's set-up). @idxs: the
 * objects' slots if the caller has them (else NULL); @rec: their records
 * as core_verdicts loaded them, and @verdicts its answer (else the steps
 * load and judge); @never_tagged: the pool never had tags, so no record
 * or pointer carries one.
 */
static inline __attribute__((always_inline)) uint64_t
free_steps(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, struct hdp_harden_view v,
	   void *const *objs, const uint32_t *idxs, const uint64_t *rec, uint64_t verdicts,
	   const struct hdp_extent *ext, unsigned n, bool never_tagged, void **out)
{
	struct burst b = burst_begin(hp, t, v);
	bool whole_reads = (b.flags & (HDP_HF_INIT_FREE | HDP_HF_INIT_USED)) == HDP_HF_INIT_FREE;
	uint64_t refused = 0;
	unsigned kept = 0;

	for (unsigned i = 0; i < n; i++) {
		void *obj = hdp_untag(objs[i]);
		uint32_t idx = idxs ? idxs[i] : slot_of(&b, obj);
		uint64_t m = rec ? rec[i] : record(&b, idx);
		unsigned mtag = !never_tagged && (m & META_TAGGED) ? META_TAG(m) : 0;
		struct hdp_extent e;

		if (whole_reads && i + 1 < n)
			prefetch_head(hdp_untag(objs[i + 1]), b.obj_size);

		if (!never_tagged)
			forget_tag(&b, obj, m);
		if (rec ? !judged_valid(&b, objs[i], m, verdicts >> i & 1)
			: !free_is_valid(&b, objs[i], m)) {
			refused |= UINT64_C(1) << i;
			continue;
		}
		e = wipe_extent(&b, m, ext ? &ext[i] : NULL);
		/* Retag to 0 so stale handles fault; sampled-out ones stay 0. */
		if (mtag) {
			set_tag(&b, obj, 0, e.start, e.end);
			b.retagged = true;
		}
		else if (never_tagged)
			zero_wipe_short((char *)obj + e.start, e.end - e.start);
		else if (e.end > e.start)
			zero_wipe((char *)obj + e.start, e.end - e.start);
		b.wiped += e.end - e.start;
		if (b.flags & HDP_HF_INIT_FREE) {
			b.wiped += zero_outside(&b, obj, e);
			if (!(b.flags & HDP_HF_INIT_USED))
				e = (struct hdp_extent){ 0, (uint32_t)b.obj_size };
		}
		atomic_store_explicit(&b.meta[idx].wiped, e.start | (uint64_t)e.end << 32,
				      memory_order_relaxed);
		record_store(&b, idx, mtag << 4 | ((b.flags & HDP_HF_INIT_FREE) ? META_WIPED : 0));
		if (out)
			out[kept++] = obj;
	}
	if (tag_mte_built() && hdp_unlikely(!b.mte && b.retagged))
		catch_up_mte(hp, objs, n, refused, true);
	burst_end(&b, false);
	return refused;
}

uint64_t core_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		      struct hdp_harden_view v, void *const *objs, const uint64_t *rec,
		      uint64_t verdicts, const struct hdp_extent *ext, unsigned n, void **out)
{
	/* Two copies: the usual one loads and judges each record as it goes. */
	if (hdp_likely(!rec))
		return free_steps(hp, t, v, objs, NULL, NULL, 0, ext, n, false, out);
	return free_steps(hp, t, v, objs, NULL, rec, verdicts, ext, n, false, out);
}

bool core_free_one(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		   struct hdp_harden_view v, void *obj, uint32_t idx,
		   const struct hdp_extent *ext)
{
	if (hdp_likely(!atomic_load_explicit(&hp->tags_seen, memory_order_relaxed)))
		return !free_steps(hp, t, v, &obj, &idx, NULL, 0, ext, 1, true, NULL);
	return !free_steps(hp, t, v, &obj, &idx, NULL, 0, ext, 1, false, NULL);
}

uint64_t core_verdicts(struct hdp_harden_pool *hp, struct hdp_harden_view v,
		       void *const *objs, unsigned n, uint64_t *rec)
{
	struct burst b = burst_begin(hp, NULL, v);
	uint64_t bad = 0;

	for (unsigned i = 0; i < n; i++) {
		rec[i] = record(&b, slot_of(&b, hdp_untag(objs[i])));
		if (rec[i] && !free_matches(objs[i], rec[i]))
			bad |= UINT64_C(1) << i;
	}
	return bad;
}
