// SPDX-License-Identifier: BSD-3-Clause
/*
 * The burst hooks a pool calls on allocation and free: the write-after-free
 * check, zeroing, tagging and the precise double-free check, in one pass
 * over the burst.
 */
#include "harden_internal.h"

#include <stdio.h>

static void neighbour_tags(struct hdp_harden_pool *hp, uint32_t idx,
			   uint32_t epoch, unsigned *avoid)
{
	avoid[1] = idx > 0 ? memory_tag(hp, idx - 1, epoch) : 0;
	avoid[2] = idx + 1 < hp->count ? memory_tag(hp, idx + 1, epoch) : 0;
}

HDP_COLD static void report_dirty(struct hdp_harden_pool *hp, void *obj,
				  size_t first_dirty)
{
	char detail[64];

	snprintf(detail, sizeof(detail), "object was written after it was freed, first at byte %zu",
		 first_dirty);
	hdp_harden_violation(hp, HDP_V_WRITE_AFTER_FREE, (char *)obj + first_dirty,
			     hp->obj_size, detail);
}

void hdp_harden_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			 uint64_t w, void **objs, unsigned n)
{
	unsigned flags = hdp_hw_flags(w);
	uint32_t epoch = hdp_hw_epoch(w);
	uint64_t wiped = 0, tagged = 0, checks = 0;

	for (unsigned i = 0; i < n; i++) {
		void *obj = objs[i];
		uint32_t idx = obj_index(hp, (uintptr_t)obj);
		uint32_t m = meta_now(hp, idx, epoch);
		size_t zero_len = 0, dirty;
		unsigned avoid[3], tag = 0;

		/* Hardware tags left from before this epoch: start from tag 0. */
		if (!m && hp->tag_ops && hp->tag_ops->hardware_checks)
			hp->tag_ops->set_tag(hp, obj, 0, 0);
		if ((flags & HDP_HF_INIT_CHECK) && (m & META_WIPED)) {
			checks++;
			if (hdp_unlikely(!zero_is_clear(obj, hp->obj_size, &dirty))) {
				report_dirty(hp, obj, dirty);
				zero_wipe(obj, hp->obj_size);
				wiped += hp->obj_size;
			}
		}
		/* init_on_free already left it zero: do not wipe twice. */
		if ((flags & HDP_HF_INIT_ALLOC) && !(m & META_WIPED))
			zero_len = hp->obj_size;
		if ((flags & HDP_HF_TAG) && tag_sample_this(t, w, hp->obj_size)) {
			avoid[0] = META_PREV(m);
			neighbour_tags(hp, idx, epoch, avoid);
			tag = hp->tag_ops->choose
			    ? hp->tag_ops->choose(obj, &t->rng, avoid, 3)
			    : hdp_tag_choose(&t->rng, avoid, 3);
			hp->tag_ops->set_tag(hp, obj, tag, zero_len);
			objs[i] = (void *)((uintptr_t)obj | (uintptr_t)tag << HDP_TAG_SHIFT);
			tagged++;
		} else if (zero_len) {
			zero_wipe(obj, zero_len);
		}
		wiped += zero_len;
		meta_store(hp, idx, epoch << 16 | META_ALLOCATED | META_PREV(m) << 4 |
			   (tag ? META_TAGGED | tag : 0));
	}
	hdp_counter_add(&t->c.bytes_wiped, wiped);
	hdp_counter_add(&t->c.objs_tagged, tagged);
	hdp_counter_add(&t->c.checks, checks);
}

HDP_COLD static void report_bad_free(struct hdp_harden_pool *hp, void *obj,
				     uint32_t m)
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

unsigned hdp_harden_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			    uint64_t w, void *const *objs, const uint32_t *used,
			    void **out, unsigned n)
{
	unsigned flags = hdp_hw_flags(w), kept = 0;
	uint32_t epoch = hdp_hw_epoch(w);
	uint64_t wiped = 0, checks = 0;

	for (unsigned i = 0; i < n; i++) {
		void *obj = hdp_untag(objs[i]);
		unsigned ptag = hdp_tag_of(objs[i]);
		uint32_t idx = obj_index(hp, (uintptr_t)obj);
		uint32_t m = meta_now(hp, idx, epoch);
		unsigned mtag = (m & META_TAGGED) ? META_TAG(m) : 0;
		size_t wipe = 0;

		if (!m && hp->tag_ops && hp->tag_ops->hardware_checks)
			hp->tag_ops->set_tag(hp, obj, 0, 0);
		/* Recorded in this epoch: we know its state, so check it. */
		if (m) {
			checks++;
			if (hdp_unlikely(!(m & META_ALLOCATED) ||
					 (ptag && ptag != mtag))) {
				report_bad_free(hp, objs[i], m);
				continue;
			}
		}
		if (flags & HDP_HF_INIT_FREE) {
			wipe = hp->obj_size;
			if ((flags & HDP_HF_INIT_USED) && used && used[i] < wipe)
				wipe = used[i];
		}
		/* Retag to 0 so stale handles fault; sampled-out ones stay 0. */
		if (mtag)
			hp->tag_ops->set_tag(hp, obj, 0, wipe);
		else if (wipe)
			zero_wipe(obj, wipe);
		wiped += wipe;
		meta_store(hp, idx, epoch << 16 | mtag << 4 |
			   ((flags & HDP_HF_INIT_FREE) ? META_WIPED : 0));
		out[kept++] = obj;
	}
	hdp_counter_add(&t->c.bytes_wiped, wiped);
	hdp_counter_add(&t->c.checks, checks);
	return kept;
}
