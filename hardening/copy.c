// SPDX-License-Identifier: BSD-3-Clause
/*
 * Checked copies into and out of pool memory, one entry for both ways
 * (hdp_harden_pool_copy): bounds (bounds.c: NULL, wrap, region, pool,
 * object), then the tag of every object the range touches (one unknown
 * in this epoch has none to compare with), then third parties' on_copy.
 */
#include "harden_internal.h"
#include "protection_internal.h"

#include <errno.h>
#include <stdio.h>

HDP_COLD static int tag_fail(struct hdp_harden_pool *hp, const void *p, uintptr_t at, size_t n,
			     unsigned mtag)
{
	char detail[96];

	snprintf(detail, sizeof(detail), "pointer tag %u, memory tag %u at byte %zu of the access",
		 hdp_tag_of(p), mtag, (size_t)(at - (uintptr_t)hdp_untag(p)));
	hdp_harden_pool_violation(hp, HDP_V_TAG_MISMATCH, p, n, detail);
	return -EFAULT;
}

/*
 * Every object [p, p + n) touches must carry the pointer's tag. Checked
 * here for both backends, so that drop and report can refuse the copy;
 * under MTE the CPU checks the copy again as it happens. Tags live only
 * in pools of one run of slots.
 */
static int tag_check_copy(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			  struct hdp_harden_view v, const void *p, size_t n)
{
	const struct hdp_layout *l = &hp->layout;
	uintptr_t u = (uintptr_t)hdp_untag(p), last = u + n - 1;
	uint64_t epoch = hdp_epoch_core(v.epoch);
	unsigned ptag = hdp_tag_of(p);

	/* The match-all tag; and a NULL pointer is bounds' to report, not ours. */
	if (ptag == 0 || u < HDP_NULL_ZONE)
		return 0;
	if (tag_mte_state(hp) == TAG_MTE_YES)
		tag_mte_adopt_thread();
	if (t)
		hdp_counter_add(&t->c.n[HDP_C_CHECKS], 1);
	for (uintptr_t a = u; a <= last && a >= u;) {
		unsigned mtag = 0;
		bool known = true;	/* outside the pool, no tag but 0 */

		if (a - l->base < l->span) {
			uint64_t m = atomic_load_explicit(&hp->meta[hdp_layout_div(l, a - l->base)].state,
							  memory_order_relaxed);

			/* Unknown since this epoch began: nothing to compare with, as at free. */
			known = META_EPOCH(m) == epoch && m != 0;
			mtag = known && (m & META_TAGGED) ? META_TAG(m) : 0;
		}
		if (hdp_unlikely(mtag != ptag) && known)
			return tag_fail(hp, p, a, n, mtag);
		/* On to the next object's first byte. */
		a = a - (a - l->base) % l->stride + l->stride;
	}
	return 0;
}

static int check_copy(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, const void *p,
		      size_t n, bool into_pool)
{
	struct hdp_harden_view v = hdp_harden_pool_view(hp);
	unsigned flags = hdp_view_flags(v);
	struct hdp_protection_burst pb;
	struct hdp_protection_slot *s;
	int ret;

	if (n == 0)
		return 0;
	if (flags & HDP_HF_BOUNDS) {
		if (t)
			hdp_counter_add(&t->c.n[HDP_C_CHECKS], 1);
		ret = bounds_check(hp, flags, p, n);
		if (ret)
			return ret;
	}
	if (flags & HDP_HF_TAG) {
		ret = tag_check_copy(hp, t, v, p, n);
		if (ret)
			return ret;
	}
	hdp_for_each_hook(s, hp, hdp_view_protections(v), HDP_HOOK_ON_COPY) {
		hdp_protection_burst_of(s, t, v, &pb);
		ret = s->reg->p->on_copy(&pb, p, n, into_pool);
		if (ret)
			return ret;
	}
	return 0;
}

/* Under MTE the CPU checks the copy again as it happens: keep the tag. */
static inline void *copy_ptr(struct hdp_harden_pool *hp, const void *p)
{
	return tag_mte_state(hp) == TAG_MTE_YES ? (void *)p : hdp_untag(p);
}

int hdp_harden_pool_copy(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void *dst,
			 const void *src, size_t n, bool into_pool)
{
	int ret = check_copy(hp, t, into_pool ? dst : src, n, into_pool);

	if (ret || !n)
		return ret;
	if (into_pool)
		memcpy(copy_ptr(hp, dst), src, n);
	else
		memcpy(dst, copy_ptr(hp, src), n);
	return 0;
}
