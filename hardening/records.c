// SPDX-License-Identifier: BSD-3-Clause
/*
 * init's and tag's shared pass, the hooks both name (builtin_internal.h):
 * on allocation the write-after-free check, zeroing and tagging; on free
 * the precise double-free check, zeroing and retagging; one pass over the
 * burst, one small step per protection (each returns at once when its
 * flag is off), on one record per object. harden.h states the rule the
 * records keep; dispatch.c says when the pass runs.
 */
#include "builtin_internal.h"
#include "harden_internal.h"

#include <stdio.h>

/*
 * One burst: what it acts on, loaded once into locals (stores to the
 * metadata could otherwise alias the pool's fields and force reloads), the
 * thread's samplers copied in and out, and what it adds to the counters.
 */
struct burst {
	struct hdp_harden_pool *hp;
	struct hdp_harden_tls *t;
	struct hdp_harden_samplers s;	/* in registers */
	struct hdp_obj_meta *meta;
	const struct hdp_harden_chunk *chunks;	/* NULL: one chunk at base */
	uintptr_t base;
	uint32_t shift;			/* log2(stride) or UINT32_MAX */
	uint64_t magic;			/* else the stride's reciprocal, or 0 */
	uint32_t count;
	size_t stride, obj_size;
	uint64_t w;
	unsigned flags;
	bool hardware_tags;	/* the memory carries MTE tags (now or from before) */
	bool cold;		/* whole wipes, not reads (hdp_harden_pool_desc) */
	uint64_t epoch;
	uint64_t wiped, tagged, checks;
};

static inline struct burst burst_begin(struct hdp_harden_pool *hp,
				       struct hdp_harden_tls *t, uint64_t w)
{
	return (struct burst){
		.hp = hp, .t = t, .w = w, .flags = hdp_hw_flags(w),
		.s = t->smp,
		.meta = hp->meta, .chunks = hp->chunks, .base = hp->base,
		.shift = hp->stride_shift, .magic = hp->stride_magic,
		.count = hp->count, .stride = hp->stride, .obj_size = hp->obj_size,
		.hardware_tags = hp->tag_ops && hp->tag_ops->hardware_checks,
		.cold = hp->cold_objects,
		/* After the word: this epoch or a later one (harden.h). */
		.epoch = epoch_now(hp),
	};
}

/* A free burst draws no samples and tags nothing: only what it wiped and checked. */
static inline void burst_end_free(struct burst *b)
{
	hdp_counter_add(&b->t->c.bytes_wiped, b->wiped);
	hdp_counter_add(&b->t->c.checks, b->checks);
}

static inline void burst_end(struct burst *b)
{
	b->t->smp = b->s;
	hdp_counter_add(&b->t->c.bytes_wiped, b->wiped);
	hdp_counter_add(&b->t->c.objs_tagged, b->tagged);
	hdp_counter_add(&b->t->c.checks, b->checks);
}

static inline uint32_t b_index(const struct burst *b, const void *obj)
{
	uint32_t idx = 0;
	size_t in_slot;

	/* Several chunks (a sparse DPDK pool): the caller checked the object is one. */
	if (hdp_unlikely(b->chunks != NULL)) {
		hdp_harden_slot_chunked(b->hp, (uintptr_t)obj, &idx, &in_slot);
		return idx;
	}
	return hdp_harden_div_stride(b->shift, b->magic, b->stride, (uintptr_t)obj - b->base);
}

/* The object's state if recorded in this epoch, else 0 (nothing known). */
static inline uint64_t b_state(const struct burst *b, uint32_t idx)
{
	uint64_t m = atomic_load_explicit(&b->meta[idx].state, memory_order_relaxed);

	return META_EPOCH(m) == b->epoch ? m : 0;
}

static inline void b_store(const struct burst *b, uint32_t idx, unsigned bits)
{
	atomic_store_explicit(&b->meta[idx].state, b->epoch << META_EPOCH_SHIFT | bits,
			      memory_order_relaxed);
}

static inline unsigned b_memory_tag(const struct burst *b, uint32_t idx)
{
	uint64_t m = b_state(b, idx);

	return (m & META_TAGGED) ? META_TAG(m) : 0;
}

/*
 * Give @obj memory tag @tag and zero [start, end). Soft tags live in the
 * metadata, so only MTE needs the backend: no indirect call otherwise.
 */
static inline void set_tag(struct burst *b, void *obj, unsigned tag, size_t start,
			   size_t end)
{
	if (b->hardware_tags)
		b->hp->tag_ops->set_tag(b->hp, obj, tag, start, end);
	else if (end > start)
		zero_wipe((char *)obj + start, end - start);
}

/* MTE: a tag left in memory from before this epoch is unknown: reset it. */
static inline void forget_hardware_tag(struct burst *b, void *obj, uint64_t m)
{
	if (hdp_unlikely(!m && b->hardware_tags))
		b->hp->tag_ops->set_tag(b->hp, obj, 0, 0, 0);
}

/* Found written after free: report, wipe whole; returns the bytes wiped. */
HDP_COLD static size_t report_dirty(struct hdp_harden_pool *hp, void *obj, size_t first_dirty)
{
	char detail[64];

	snprintf(detail, sizeof(detail), "object was written after it was freed, first at byte %zu",
		 first_dirty);
	hdp_harden_violation(hp, HDP_V_WRITE_AFTER_FREE, (char *)obj + first_dirty,
			     hp->obj_size, detail);
	zero_wipe(obj, hp->obj_size);
	return hp->obj_size;
}

/*
 * Is the object all zero as it leaves the pool? Only if its last free
 * wiped it whole (as recorded). init_check verifies the extent that free
 * wiped, and now and then the whole object, for writes beyond it.
 */
static inline bool known_clean(struct burst *b, uint32_t idx, void *obj, uint64_t m)
{
	size_t start = 0, end = b->obj_size, dirty;

	if (!(m & META_WIPED))
		return false;
	if (!(b->flags & HDP_HF_INIT_CHECK))
		return true;
	if (!check_whole_this(&b->s, b->w)) {
		uint64_t v = atomic_load_explicit(&b->meta[idx].wiped, memory_order_relaxed);

		start = (uint32_t)v;
		end = (uint32_t)(v >> 32);
	}
	b->checks++;
	if (hdp_unlikely(!is_clear((char *)obj + start, end - start, &dirty)))
		b->wiped += report_dirty(b->hp, obj, start + dirty);
	return true;
}

/* Tag @obj if sampled in (zeroing its first @zero_len bytes with it). */
static inline unsigned tag_on_alloc(struct burst *b, uint32_t idx, void *obj,
				    uint64_t m, size_t zero_len)
{
	struct hdp_harden_pool *hp = b->hp;
	unsigned avoid[3], tag;

	if (!(b->flags & HDP_HF_TAG) || !tag_sample_this(&b->s, b->w)) {
		if (zero_len)
			zero_wipe(obj, zero_len);
		return 0;
	}
	/* Not the slot's previous tag, not the neighbours': catch reuse and overflow. */
	avoid[0] = META_PREV(m);
	avoid[1] = idx > 0 ? b_memory_tag(b, idx - 1) : 0;
	avoid[2] = idx + 1 < b->count ? b_memory_tag(b, idx + 1) : 0;
	tag = hp->tag_ops->choose ? hp->tag_ops->choose(obj, &b->s.rng, avoid, 3)
				  : hdp_tag_choose(&b->s.rng, avoid, 3);
	set_tag(b, obj, tag, 0, zero_len);
	b->tagged++;
	return tag;
}

/* On allocation: check, zero and tag, and record what was done. */
void hdp_records_on_alloc(const struct hdp_protection_burst *pb, void **objs, unsigned n)
{
	const struct hdp_core_burst *cb = hdp_core_burst_of(pb);
	struct burst b = burst_begin(cb->hp, cb->t, cb->w);

	for (unsigned i = 0; i < n; i++) {
		void *obj = objs[i];
		uint32_t idx = b_index(&b, obj);
		uint64_t m = b_state(&b, idx);
		bool clean;
		size_t zero_len = 0;
		unsigned tag;

		forget_hardware_tag(&b, obj, m);
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
		b_store(&b, idx, META_ALLOCATED | META_PREV(m) << 4 |
			(clean ? META_CLEAN : 0) | (tag ? META_TAGGED | tag : 0));
	}
	burst_end(&b);
}

HDP_COLD static void report_bad_free(struct hdp_harden_pool *hp, void *obj,
				     uint64_t m)
{
	char detail[96];

	if (!(m & META_ALLOCATED)) {
		hdp_harden_violation(hp, HDP_V_DOUBLE_FREE, obj, hp->obj_size,
				     "the object is already free");
		return;
	}
	snprintf(detail, sizeof(detail), "pointer tag %u, object tag %u: a stale handle",
		 hdp_tag_of(obj), (m & META_TAGGED) ? META_TAG(m) : 0);
	hdp_harden_violation(hp, HDP_V_INVALID_FREE, obj, hp->obj_size, detail);
}

/* Recorded in this epoch: we know its state, so a bad free is certain. */
/* Is a free through @tagged of an object recorded as @m (not 0) a good one? */
static inline bool free_matches(const void *tagged, uint64_t m)
{
	unsigned ptag = hdp_tag_of(tagged), mtag = (m & META_TAGGED) ? META_TAG(m) : 0;

	return (m & META_ALLOCATED) && (!ptag || ptag == mtag);
}

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

/*
 * The bytes init_on_free writes zeros to: the write extent, if the object
 * was all zero when it was handed out (else the bytes outside it are
 * unknown: the whole object, once); without an extent, all of it.
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
	return zero_if_dirty(obj, e.start) +
	       zero_if_dirty((char *)obj + e.end, size - e.end);
}

/*
 * The free pass: the objects it refuses (a double free, a stale handle)
 * as bits; the others are checked, wiped and recorded. Inline so that
 * hdp_harden_on_free_one gets its own copy with n = 1: a PMD that frees
 * mbufs one at a time (DPDK's rte_pktmbuf_free) then pays for one object,
 * not for a burst's set-up spilled to the stack. @idxs: the objects'
 * slots if the caller has them (else NULL); @never_tagged: the pool has
 * never had tags, so no record or pointer carries one. n <= 64.
 */
static inline __attribute__((always_inline)) uint64_t
records_free_pass(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
		  void *const *objs, const uint32_t *idxs, const struct hdp_extent *ext,
		  unsigned n, bool never_tagged, void **out, unsigned *kept)
{
	struct burst b = burst_begin(hp, t, w);
	uint64_t refused = 0;

	for (unsigned i = 0; i < n; i++) {
		void *obj = hdp_untag(objs[i]);
		uint32_t idx = idxs ? idxs[i] : b_index(&b, obj);
		uint64_t m = b_state(&b, idx);
		unsigned mtag = !never_tagged && (m & META_TAGGED) ? META_TAG(m) : 0;
		struct hdp_extent e;

		if (!never_tagged)
			forget_hardware_tag(&b, obj, m);
		if (!free_is_valid(&b, objs[i], m)) {
			refused |= UINT64_C(1) << i;
			continue;
		}
		e = wipe_extent(&b, m, ext ? &ext[i] : NULL);
		/* Retag to 0 so stale handles fault; sampled-out ones stay 0. */
		if (mtag)
			set_tag(&b, obj, 0, e.start, e.end);
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
		b_store(&b, idx, mtag << 4 | ((b.flags & HDP_HF_INIT_FREE) ? META_WIPED : 0));
		if (out)
			out[(*kept)++] = obj;
	}
	burst_end_free(&b);
	return refused;
}

uint64_t hdp_records_on_free(const struct hdp_protection_burst *pb, void *const *objs,
			     const struct hdp_extent *ext, unsigned n)
{
	const struct hdp_core_burst *cb = hdp_core_burst_of(pb);

	return records_free_pass(cb->hp, cb->t, cb->w, objs, NULL, ext, n, false, NULL, NULL);
}

unsigned hdp_records_free_into(const struct hdp_protection_burst *pb, void *const *objs,
			       const struct hdp_extent *ext, unsigned n, void **out)
{
	const struct hdp_core_burst *cb = hdp_core_burst_of(pb);
	unsigned kept = 0;

	records_free_pass(cb->hp, cb->t, cb->w, objs, NULL, ext, n, false, out, &kept);
	return kept;
}

/*
 * Which of @n objects the free pass will refuse (free_is_valid), without
 * acting: one record load each, hot again for the pass after.
 */
uint64_t hdp_records_refusals(const struct hdp_protection_burst *pb, void *const *objs,
			      unsigned n)
{
	const struct hdp_core_burst *cb = hdp_core_burst_of(pb);
	struct burst b = burst_begin(cb->hp, cb->t, cb->w);
	uint64_t bad = 0;

	for (unsigned i = 0; i < n; i++) {
		uint64_t m = b_state(&b, b_index(&b, hdp_untag(objs[i])));

		if (m && !free_matches(objs[i], m))
			bad |= UINT64_C(1) << i;
	}
	return bad;
}

/* The protections' path for one object: out of line, so the usual one keeps no arrays. */
static __attribute__((noinline)) bool free_one_dispatched(struct hdp_harden_pool *hp,
							  struct hdp_harden_tls *t, uint64_t w,
							  void *obj, const struct hdp_extent *ext,
							  void **out)
{
	return hdp_harden_on_free(hp, t, w, &obj, ext, out, 1) == 1;
}

/*
 * The dispatcher's free for one object, where the only free hook the word
 * runs is this pass (no registered protection with one is on; of the
 * built-in ones only init and tag have one, and it is this pass:
 * test_protection_builtin checks it): the pass itself, inlined for n = 1.
 */
bool hdp_harden_on_free_one(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
			    void *obj, uint32_t idx, const struct hdp_extent *ext, void **out)
{
	uint64_t refused;

	if (hdp_unlikely(hdp_hw_protections(w) & hp->free_mask))
		return free_one_dispatched(hp, t, w, obj, ext, out);
	if (!(hdp_hw_flags(w) & HDP_HF_RECORDS)) {
		*out = hdp_untag(obj);
		return true;
	}
	if (hdp_likely(!hp->tag_ops))
		refused = records_free_pass(hp, t, w, &obj, &idx, ext, 1, true, NULL, NULL);
	else
		refused = records_free_pass(hp, t, w, &obj, &idx, ext, 1, false, NULL, NULL);
	if (refused)
		return false;
	*out = hdp_untag(obj);
	return true;
}
