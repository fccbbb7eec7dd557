// SPDX-License-Identifier: BSD-3-Clause
/*
 * The O(1) region lookup: a two-level table over the 48-bit address space
 * in 2 MiB granules, like a page table with two levels. Each entry names
 * the one region that covers its granule, or says that several do (then
 * the tree decides). Leaves are allocated on first use and kept: a reader
 * never sees one disappear, so readers take no lock.
 */
#include "region_internal.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>

_Atomic(region_entry_t *) region_fast_top[1u << TOP_BITS];
#define top region_fast_top

static region_entry_t *leaf_for(uintptr_t granule, bool create)
{
	size_t t = granule >> LEAF_BITS;
	region_entry_t *leaf = atomic_load_explicit(&top[t], memory_order_acquire);

	if (!leaf && create) {
		leaf = calloc(LEAF_SIZE, sizeof(*leaf));
		if (leaf)
			atomic_store_explicit(&top[t], leaf, memory_order_release);
	}
	return leaf;
}

/* Which regions cover granule @g? Registry lock held. */
static uint16_t entry_for(uintptr_t g)
{
	uintptr_t lo = g << GRANULE_SHIFT, hi = lo + HDP_REGION_GRANULE;
	int first = region_tree_first_overlap(lo, HDP_REGION_GRANULE);
	const struct hdp_region *r;

	if (first == REGION_NONE)
		return ENTRY_EMPTY;
	r = &region_slots[first];
	/* Another region in the granule, before or after this one? */
	if ((r->base > lo && region_tree_first_overlap(lo, r->base - lo) != REGION_NONE) ||
	    (r->base + r->len < hi &&
	     region_tree_first_overlap(r->base + r->len, hi - r->base - r->len) != REGION_NONE))
		return ENTRY_SHARED;
	return (uint16_t)(first + 1);
}

int region_fast_update(uintptr_t base, size_t len)
{
	uintptr_t g0 = base >> GRANULE_SHIFT;
	uintptr_t g1 = (base + len - 1) >> GRANULE_SHIFT;

	for (uintptr_t g = g0; g <= g1; g++) {
		uint16_t e = entry_for(g);
		region_entry_t *leaf = leaf_for(g, e != ENTRY_EMPTY);

		if (!leaf) {
			if (e != ENTRY_EMPTY)
				return -ENOMEM;
			continue;
		}
		/* Release: a reader that sees the slot number sees the slot. */
		atomic_store_explicit(&leaf[g & (LEAF_SIZE - 1)], e,
				      memory_order_release);
	}
	return 0;
}
