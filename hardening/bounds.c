// SPDX-License-Identifier: BSD-3-Clause
/*
 * Bounds checks on copies into and out of pool memory: the analogue of
 * hardened usercopy's check_object_size(), in the kernel's order: a zero
 * length passes (the caller's); NULL and wrapping ranges are violations;
 * the range must lie inside one registered region, that region must be
 * the pool's, and the range must stay inside one object, as the pool's
 * slot layout says (the kernel asks the allocator, __check_heap_object).
 * And the check of a descriptor's address and length.
 */
#include "harden_internal.h"
#include "region_internal.h"

#include <errno.h>
#include <stdio.h>

static int fail(struct hdp_harden_pool *hp, enum hdp_violation_kind kind, const void *addr,
		size_t n, const char *detail)
{
	hdp_harden_pool_violation(hp, kind, addr, n, detail);
	return -EFAULT;
}

HDP_COLD static int region_fail(struct hdp_harden_pool *hp, enum hdp_violation_kind kind,
				const void *addr, size_t n, const struct hdp_region *r,
				size_t in_slot, bool gap)
{
	char detail[96];

	if (kind == HDP_V_BOUNDS_OTHER_POOL)
		snprintf(detail, sizeof(detail), "lands in region '%s'", r->name);
	else if (kind == HDP_V_BOUNDS_OBJECT_END && gap)
		snprintf(detail, sizeof(detail), "%zu bytes into a guard gap, not an object", n);
	else if (kind == HDP_V_BOUNDS_OBJECT_END)
		snprintf(detail, sizeof(detail), "%zu bytes from byte %zu of a %zu-byte object",
			 n, in_slot, hp->layout.obj_size);
	else
		snprintf(detail, sizeof(detail), "%zu bytes from %zu bytes before the end of region '%s'",
			 n, (size_t)(r->base + r->len - (uintptr_t)hdp_untag(addr)), r->name);
	return fail(hp, kind, addr, n, detail);
}

int bounds_check(struct hdp_harden_pool *hp, unsigned flags, const void *p, size_t n)
{
	uintptr_t u = (uintptr_t)hdp_untag(p);
	const struct hdp_region *r;
	size_t in_slot;
	uint32_t idx;

	if (hdp_unlikely(u < HDP_NULL_ZONE))
		return fail(hp, HDP_V_BOUNDS_NULL, p, n, NULL);
	if (hdp_unlikely(u + n < u || (u + n - 1) >> HDP_TAG_SHIFT))
		return fail(hp, HDP_V_BOUNDS_WRAP, p, n, NULL);
	r = (flags & HDP_HF_BOUNDS_TREE) ? hdp_region_lookup_tree(u) : region_lookup_fast_inline(u);
	if (hdp_unlikely(!r))
		return fail(hp, HDP_V_BOUNDS_NO_REGION, p, n, NULL);
	if (hdp_unlikely(n > r->base + r->len - u))
		return region_fail(hp, HDP_V_BOUNDS_REGION_END, p, n, r, 0, false);
	if (hdp_unlikely(r->owner != hp))
		return region_fail(hp, HDP_V_BOUNDS_OTHER_POOL, p, n, r, 0, false);
	/* In the pool's region but in no slot (its tail): no object either. */
	if (hdp_unlikely(!hdp_layout_slot(&hp->layout, u, &idx, &in_slot)))
		return region_fail(hp, HDP_V_BOUNDS_OBJECT_END, p, n, r, 0, true);
	if (hdp_unlikely(in_slot + n > hp->layout.obj_size || hdp_layout_is_gap(&hp->layout, idx)))
		return region_fail(hp, HDP_V_BOUNDS_OBJECT_END, p, n, r, in_slot,
				   hdp_layout_is_gap(&hp->layout, idx));
	return 0;
}

int hdp_harden_pool_desc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t addr,
			 uint32_t len, void **out)
{
	struct hdp_harden_view v = hdp_harden_pool_view(hp);
	const struct hdp_layout *l = &hp->layout;
	char detail[96];

	if ((hdp_view_flags(v) & HDP_HF_BOUNDS) && !hdp_layout_holds(l, addr, len)) {
		if (t)
			hdp_counter_add(&t->c.n[HDP_C_CHECKS], 1);
		if (addr >= l->span) {
			snprintf(detail, sizeof(detail), "address %llu, the pool holds %zu bytes",
				 (unsigned long long)addr, l->span);
			return fail(hp, HDP_V_DESC_OUTSIDE, (void *)(l->base + (uintptr_t)addr),
				    len, detail);
		}
		snprintf(detail, sizeof(detail), "%u bytes from byte %llu of a %zu-byte chunk",
			 len, (unsigned long long)(addr % l->stride), l->obj_size);
		return fail(hp, HDP_V_DESC_PAST_CHUNK, (void *)(l->base + (uintptr_t)addr), len,
			    detail);
	}
	if ((hdp_view_flags(v) & HDP_HF_BOUNDS) && t)
		hdp_counter_add(&t->c.n[HDP_C_CHECKS], 1);
	*out = (void *)(l->base + (uintptr_t)addr);
	return 0;
}

int hdp_harden_pool_desc_refuse(struct hdp_harden_pool *hp, enum hdp_violation_kind kind,
				uint64_t addr, uint32_t len, const char *detail)
{
	if (hdp_view_flags(hdp_harden_pool_view(hp)) & HDP_HF_BOUNDS)
		return fail(hp, kind, (void *)(hp->layout.base + (uintptr_t)addr), len, detail);
	return -EFAULT;
}
