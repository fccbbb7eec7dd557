// SPDX-License-Identifier: BSD-3-Clause
/*
 * Bounds checks on copies into and out of pool memory: the analogue of
 * hardened usercopy's check_object_size(), in the kernel's order: a zero
 * length passes; NULL and wrapping ranges are violations; the range must
 * lie inside one registered region, that region must be the pool's, and
 * the range must stay inside one object (tag.c checks the pointer's tag
 * after this, dispatch.c runs both). And the check of a descriptor's
 * address and length, which is bounds' own call.
 */
#include "harden_internal.h"
#include "protection_internal.h"
#include "region_internal.h"
#include "builtin_internal.h"

#include <hdp/region.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int fail(struct hdp_harden_pool *hp, enum hdp_violation_kind kind,
		const void *addr, size_t n, const char *detail)
{
	hdp_harden_violation(hp, kind, addr, n, detail);
	return -EFAULT;
}

HDP_COLD static int region_fail(struct hdp_harden_pool *hp,
				enum hdp_violation_kind kind, const void *addr,
				size_t n, const struct hdp_region *r)
{
	char detail[96];

	if (kind == HDP_V_BOUNDS_OTHER_POOL)
		snprintf(detail, sizeof(detail), "lands in region '%s'", r->name);
	else if (kind == HDP_V_BOUNDS_OBJECT_END)
		snprintf(detail, sizeof(detail), "%zu bytes from byte %zu of a %zu-byte object",
			 n, (size_t)((uintptr_t)hdp_untag(addr) - r->base) % r->obj_stride,
			 r->obj_size);
	else
		snprintf(detail, sizeof(detail), "%zu bytes from %zu bytes before the end of region '%s'",
			 n, (size_t)(r->base + r->len - (uintptr_t)hdp_untag(addr)),
			 r->name);
	return fail(hp, kind, addr, n, detail);
}

static int check_bounds(struct hdp_harden_pool *hp, uint64_t w, const void *p,
			size_t n)
{
	uintptr_t u = (uintptr_t)hdp_untag(p);
	const struct hdp_region *r;
	uintptr_t off;

	if (hdp_unlikely(u < HDP_NULL_ZONE))
		return fail(hp, HDP_V_BOUNDS_NULL, p, n, NULL);
	if (hdp_unlikely(u + n < u || (u + n - 1) >> HDP_TAG_SHIFT))
		return fail(hp, HDP_V_BOUNDS_WRAP, p, n, NULL);
	r = (hdp_hw_flags(w) & HDP_HF_BOUNDS_TREE) ? hdp_region_lookup_tree(u)
						    : region_lookup_fast_inline(u);
	if (hdp_unlikely(!r))
		return fail(hp, HDP_V_BOUNDS_NO_REGION, p, n, NULL);
	if (hdp_unlikely(n > r->base + r->len - u))
		return region_fail(hp, HDP_V_BOUNDS_REGION_END, p, n, r);
	if (hdp_unlikely(r->owner != hp))
		return region_fail(hp, HDP_V_BOUNDS_OTHER_POOL, p, n, r);
	if (r->obj_stride) {
		/* Pools have power-of-two strides more often than not: no divide. */
		off = u - r->base;
		off = (r->obj_stride & (r->obj_stride - 1)) ? off % r->obj_stride
							    : off & (r->obj_stride - 1);
		if (hdp_unlikely(off + n > r->obj_size))
			return region_fail(hp, HDP_V_BOUNDS_OBJECT_END, p, n, r);
	}
	return 0;
}

/* bounds' copy hook: the range must be inside one object of this pool. */
int hdp_bounds_on_copy(const struct hdp_protection_burst *pb, const void *p, size_t n,
		       bool into_pool)
{
	const struct hdp_core_burst *cb = hdp_core_burst_of(pb);

	(void)into_pool;
	if (cb->t)
		hdp_counter_add(&cb->t->c.checks, 1);
	return check_bounds(cb->hp, cb->w, p, n);
}

int hdp_harden_desc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		    uint64_t addr, uint32_t len, void **out)
{
	uint64_t w = hdp_harden_word(hp);
	char detail[96];

	if (hdp_hw_flags(w) & HDP_HF_BOUNDS) {
		if (t)
			hdp_counter_add(&t->c.checks, 1);
		if (hdp_unlikely(addr >= hp->objs_len)) {
			snprintf(detail, sizeof(detail), "address %llu, the pool holds %zu bytes",
				 (unsigned long long)addr, hp->objs_len);
			return fail(hp, HDP_V_DESC_OUTSIDE, (void *)(hp->base + (uintptr_t)addr),
				    len, detail);
		}
		if (hdp_unlikely(addr % hp->stride + len > hp->obj_size)) {
			snprintf(detail, sizeof(detail), "%u bytes from byte %llu of a %zu-byte chunk",
				 len, (unsigned long long)(addr % hp->stride), hp->obj_size);
			return fail(hp, HDP_V_DESC_PAST_CHUNK,
				    (void *)(hp->base + (uintptr_t)addr), len, detail);
		}
	}
	*out = (void *)(hp->base + (uintptr_t)addr);
	return 0;
}

/* bounds on the one interface (builtin_internal.h): its keys, kinds and hook. */
static const char *const lookup_choices[] = { "fast", "tree", NULL };

static const struct hdp_protection_key bounds_keys[] = {
	{ "bounds", HDP_PKEY_BOOL, .def = 1,
	  .doc = "check every copy into and out of pool memory and every descriptor; "
		 "off is the kernel seed's bypass" },
	{ "bounds_lookup", HDP_PKEY_CHOICE, .choices = lookup_choices, .def = HDP_LOOKUP_FAST,
	  .doc = "how a copy finds its region: an O(1) granule table (fast), or a "
		 "balanced tree under a lock, as the kernel's find_vmap_area (tree)" },
};

static const struct hdp_protection_name bounds_violations[] = {
	{ "bounds_null", "a copy with a NULL or near-NULL pointer" },
	{ "bounds_wrap", "a copy whose range wraps around the address space" },
	{ "bounds_no_region", "a copy into or out of no registered region" },
	{ "bounds_other_pool", "a copy that lands in another pool's region" },
	{ "bounds_region_end", "a copy that runs past the end of its region" },
	{ "bounds_object_end", "a copy that runs past the end of its object" },
	{ "desc_outside", "a descriptor whose address is outside the pool" },
	{ "desc_past_chunk", "a descriptor whose length runs past its chunk" },
};

static const struct hdp_protection bounds_protection = {
	.name = "bounds",
	.doc = "bounds checks on copies into and out of pool memory (hardened usercopy)",
	.keys = bounds_keys,
	.nkeys = HDP_ARRAY_SIZE(bounds_keys),
	.violations = bounds_violations,
	.nviolations = HDP_ARRAY_SIZE(bounds_violations),
	.on_copy = hdp_bounds_on_copy,
};

static const struct hdp_builtin_field bounds_fields[] = {
	HDP_BUILTIN_FIELD(HDP_KEY_BOUNDS, bounds),
	HDP_BUILTIN_FIELD(HDP_KEY_BOUNDS_LOOKUP, bounds_lookup),
};

static unsigned bounds_flags(const struct hdp_profile *p, uint32_t excluded, size_t obj_size)
{
	(void)excluded;
	(void)obj_size;
	if (!p->bounds)
		return 0;
	return HDP_HF_BOUNDS | (p->bounds_lookup == HDP_LOOKUP_TREE ? HDP_HF_BOUNDS_TREE : 0);
}

const struct hdp_builtin hdp_builtin_bounds = {
	.desc = &bounds_protection,
	.fields = bounds_fields,
	.on_flags = HDP_HF_BOUNDS,
	.flags = bounds_flags,
};
