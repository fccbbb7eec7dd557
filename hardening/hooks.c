// SPDX-License-Identifier: BSD-3-Clause
/*
 * The burst hooks a pool calls on allocation and free: the write-after-free
 * check, zeroing, tagging and the precise double-free check, in one pass
 * over the burst, one small step per protection (each returns at once when
 * its flag is off). harden.h states the rule the records keep.
 */
#include "harden_internal.h"

#include <stdio.h>

/* One burst: what it acts on (loaded once) and what it adds to the counters. */
struct burst {
	struct hdp_harden_pool *hp;
	struct hdp_harden_tls *t;
	uint64_t w;
	unsigned flags;
	uint64_t epoch;
	uint64_t wiped, tagged, checks;
};

static inline struct burst burst_begin(struct hdp_harden_pool *hp,
				       struct hdp_harden_tls *t, uint64_t w)
{
	return (struct burst){
		.hp = hp, .t = t, .w = w, .flags = hdp_hw_flags(w),
		/* After the word: this epoch or a later one (harden.h). */
		.epoch = epoch_now(hp),
	};
}

static inline void burst_end(struct burst *b)
{
	hdp_counter_add(&b->t->c.bytes_wiped, b->wiped);
	hdp_counter_add(&b->t->c.objs_tagged, b->tagged);
	hdp_counter_add(&b->t->c.checks, b->checks);
}

/*
 * Give @obj memory tag @tag and zero [start, end). Soft tags live in the
 * metadata, so only MTE needs the backend: no indirect call otherwise.
 */
static inline void set_tag(struct burst *b, void *obj, unsigned tag, size_t start,
			   size_t end)
{
	const struct hdp_tag_ops *ops = b->hp->tag_ops;

	if (ops && ops->hardware_checks)
		ops->set_tag(b->hp, obj, tag, start, end);
	else if (end > start)
		zero_wipe((char *)obj + start, end - start);
}

/* MTE: a tag left in memory from before this epoch is unknown: reset it. */
static inline void forget_hardware_tag(struct burst *b, void *obj, uint64_t m)
{
	const struct hdp_tag_ops *ops = b->hp->tag_ops;

	if (!m && ops && ops->hardware_checks)
		ops->set_tag(b->hp, obj, 0, 0, 0);
}

HDP_COLD static void report_dirty(struct burst *b, void *obj, size_t first_dirty)
{
	char detail[64];

	snprintf(detail, sizeof(detail), "object was written after it was freed, first at byte %zu",
		 first_dirty);
	hdp_harden_violation(b->hp, HDP_V_WRITE_AFTER_FREE, (char *)obj + first_dirty,
			     b->hp->obj_size, detail);
	zero_wipe(obj, b->hp->obj_size);
	b->wiped += b->hp->obj_size;
}

/*
 * Is the object all zero as it leaves the pool? Only if its last free
 * wiped it whole (as recorded). init_check verifies the extent that free
 * wiped, and now and then the whole object, for writes beyond it.
 */
static inline bool known_clean(struct burst *b, uint32_t idx, void *obj, uint64_t m)
{
	struct hdp_obj_meta *meta = &b->hp->meta[idx];
	size_t start = 0, end = b->hp->obj_size, dirty;

	if (!(m & META_WIPED))
		return false;
	if (!(b->flags & HDP_HF_INIT_CHECK))
		return true;
	if (!check_whole_this(b->t, b->w)) {
		start = atomic_load_explicit(&meta->wiped_start, memory_order_relaxed);
		end = atomic_load_explicit(&meta->wiped_end, memory_order_relaxed);
	}
	b->checks++;
	if (hdp_unlikely(!zero_is_clear((char *)obj + start, end - start, &dirty)))
		report_dirty(b, obj, start + dirty);
	return true;
}

/* Tag @obj if sampled in (zeroing its first @zero_len bytes with it). */
static inline unsigned tag_on_alloc(struct burst *b, uint32_t idx, void *obj,
				    uint64_t m, size_t zero_len)
{
	struct hdp_harden_pool *hp = b->hp;
	unsigned avoid[3], tag;

	if (!(b->flags & HDP_HF_TAG) || !tag_sample_this(b->t, b->w)) {
		if (zero_len)
			zero_wipe(obj, zero_len);
		return 0;
	}
	/* Not the slot's previous tag, not the neighbours': catch reuse and overflow. */
	avoid[0] = META_PREV(m);
	avoid[1] = idx > 0 ? memory_tag(hp, idx - 1, b->epoch) : 0;
	avoid[2] = idx + 1 < hp->count ? memory_tag(hp, idx + 1, b->epoch) : 0;
	tag = hp->tag_ops->choose ? hp->tag_ops->choose(obj, &b->t->rng, avoid, 3)
				  : hdp_tag_choose(&b->t->rng, avoid, 3);
	set_tag(b, obj, tag, 0, zero_len);
	b->tagged++;
	return tag;
}

void hdp_harden_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			 uint64_t w, void **objs, unsigned n)
{
	struct burst b = burst_begin(hp, t, w);

	for (unsigned i = 0; i < n; i++) {
		void *obj = objs[i];
		uint32_t idx = obj_index(hp, (uintptr_t)obj);
		uint64_t m = meta_now(hp, idx, b.epoch);
		bool clean;
		size_t zero_len = 0;
		unsigned tag;

		forget_hardware_tag(&b, obj, m);
		clean = known_clean(&b, idx, obj, m);
		/* init_on_free already left it zero: do not wipe twice. */
		if ((b.flags & HDP_HF_INIT_ALLOC) && !clean) {
			zero_len = hp->obj_size;
			clean = true;
		}
		tag = tag_on_alloc(&b, idx, obj, m, zero_len);
		b.wiped += zero_len;
		if (tag)
			objs[i] = (void *)((uintptr_t)obj | (uintptr_t)tag << HDP_TAG_SHIFT);
		meta_store(hp, idx, b.epoch, META_ALLOCATED | META_PREV(m) << 4 |
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
static inline bool free_is_valid(struct burst *b, void *tagged, uint64_t m)
{
	unsigned ptag = hdp_tag_of(tagged), mtag = (m & META_TAGGED) ? META_TAG(m) : 0;

	if (!m)
		return true;
	b->checks++;
	if (hdp_likely((m & META_ALLOCATED) && (!ptag || ptag == mtag)))
		return true;
	report_bad_free(b->hp, tagged, m);
	return false;
}

/*
 * What init_on_free wipes: the write extent, if the object was all zero
 * when it was handed out (else the bytes outside it are unknown: the
 * whole object, once); without an extent or under init_on_free=on, all.
 */
static inline struct hdp_extent wipe_extent(const struct burst *b, uint64_t m,
					    const struct hdp_extent *ext)
{
	uint32_t size = (uint32_t)b->hp->obj_size;
	struct hdp_extent e = { 0, size };

	if (!(b->flags & HDP_HF_INIT_FREE))
		return (struct hdp_extent){ 0, 0 };
	if ((b->flags & HDP_HF_INIT_USED) && ext && (m & META_CLEAN)) {
		e.end = ext->end < size ? ext->end : size;
		e.start = ext->start < e.end ? ext->start : e.end;
	}
	return e;
}

unsigned hdp_harden_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			    uint64_t w, void *const *objs, const struct hdp_extent *ext,
			    void **out, unsigned n)
{
	struct burst b = burst_begin(hp, t, w);
	unsigned kept = 0;

	for (unsigned i = 0; i < n; i++) {
		void *obj = hdp_untag(objs[i]);
		uint32_t idx = obj_index(hp, (uintptr_t)obj);
		uint64_t m = meta_now(hp, idx, b.epoch);
		unsigned mtag = (m & META_TAGGED) ? META_TAG(m) : 0;
		struct hdp_extent e;

		forget_hardware_tag(&b, obj, m);
		if (!free_is_valid(&b, objs[i], m))
			continue;
		e = wipe_extent(&b, m, ext ? &ext[i] : NULL);
		/* Retag to 0 so stale handles fault; sampled-out ones stay 0. */
		if (mtag)
			set_tag(&b, obj, 0, e.start, e.end);
		else if (e.end > e.start)
			zero_wipe((char *)obj + e.start, e.end - e.start);
		b.wiped += e.end - e.start;
		atomic_store_explicit(&hp->meta[idx].wiped_start, e.start, memory_order_relaxed);
		atomic_store_explicit(&hp->meta[idx].wiped_end, e.end, memory_order_relaxed);
		meta_store(hp, idx, b.epoch, mtag << 4 |
			   ((b.flags & HDP_HF_INIT_FREE) ? META_WIPED : 0));
		out[kept++] = obj;
	}
	burst_end(&b);
	return kept;
}
