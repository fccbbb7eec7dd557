/* SPDX-License-Identifier: BSD-3-Clause */
/* Shared by the registry and its two indexes. */
#ifndef HDP_HARDENING_REGION_INTERNAL_H
#define HDP_HARDENING_REGION_INTERNAL_H

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
int region_fast_update(uintptr_t base, size_t len);	/* 0 or -ENOMEM */
int region_fast_find(uintptr_t addr, bool *shared);	/* slot or REGION_NONE */

#endif /* HDP_HARDENING_REGION_INTERNAL_H */
