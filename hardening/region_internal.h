/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the registry and its two indexes. */
#ifndef HDP_HARDENING_REGION_INTERNAL_H
#define HDP_HARDENING_REGION_INTERNAL_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hdp/compiler.h>
#include <hdp/region.h>

#define REGION_VA_BITS 48
#define REGION_NONE (-1)

/* Slots hold the regions; both indexes refer to slots by number. */
extern struct hdp_region region_slots[HDP_REGION_MAX];
extern bool region_slot_used[HDP_REGION_MAX];

static inline uintptr_t region_untag(uintptr_t addr)
{
	/* The top byte carries a tag (arm64 TBI, MTE, soft tags): ignore it. */
	return addr & (((uintptr_t)1 << 56) - 1);
}

/* AVL tree keyed by base; the caller holds the registry lock. */
void region_tree_insert(int slot);
void region_tree_remove(int slot);
int region_tree_find(uintptr_t addr);		/* slot or REGION_NONE */
int region_tree_first_overlap(uintptr_t base, size_t len);

/* Granule index; writers hold the registry lock, readers hold nothing. */
#define GRANULE_SHIFT 21
#define LEAF_BITS 14
#define TOP_BITS (REGION_VA_BITS - GRANULE_SHIFT - LEAF_BITS)
#define LEAF_SIZE (1u << LEAF_BITS)
#define ENTRY_EMPTY 0
#define ENTRY_SHARED 0xffff

typedef _Atomic uint16_t region_entry_t;
extern _Atomic(region_entry_t *) region_fast_top[1u << TOP_BITS];

int region_fast_update(uintptr_t base, size_t len);	/* 0 or -ENOMEM */

/* Inline, so the bounds check pays two dependent loads and no call. */
static inline int region_fast_find(uintptr_t addr, bool *shared)
{
	uintptr_t g = addr >> GRANULE_SHIFT;
	region_entry_t *leaf;
	uint16_t e;

	*shared = false;
	if (addr >> REGION_VA_BITS)
		return REGION_NONE;
	leaf = atomic_load_explicit(&region_fast_top[g >> LEAF_BITS],
				    memory_order_acquire);
	if (!leaf)
		return REGION_NONE;
	e = atomic_load_explicit(&leaf[g & (LEAF_SIZE - 1)], memory_order_acquire);
	if (e == ENTRY_EMPTY)
		return REGION_NONE;
	if (e == ENTRY_SHARED) {
		*shared = true;
		return REGION_NONE;
	}
	return e - 1;
}

static inline const struct hdp_region *region_lookup_fast_inline(uintptr_t addr)
{
	const struct hdp_region *r;
	bool shared;
	int s;

	addr = region_untag(addr);
	s = region_fast_find(addr, &shared);
	if (hdp_unlikely(shared))
		return hdp_region_lookup_tree(addr);
	if (s == REGION_NONE)
		return NULL;
	r = &region_slots[s];
	return addr - r->base < r->len ? r : NULL;
}

#endif /* HDP_HARDENING_REGION_INTERNAL_H */
