/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The region registry: every memory region hdp has mapped (pool regions,
 * and any other area a caller registers), queried by address. Bounds
 * checks use it to decide which region a pointer belongs to, and so whose
 * it is; the owner's slot layout (hdp/layout.h) says which object.
 *
 * Two lookups answer the same question:
 *  - tree: a balanced search tree under a read lock, as the kernel's
 *    find_vmap_area(); O(log n), and every lookup writes the lock's line;
 *  - fast: a two-level table indexed by the address's 2 MiB granule;
 *    O(1) whatever the number of regions, no lock, no shared write. A
 *    granule shared by two regions falls back to the tree; pools align
 *    their regions to 2 MiB so theirs never are.
 */
#ifndef HDP_REGION_H
#define HDP_REGION_H

#include <stddef.h>
#include <stdint.h>

#include <hdp/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HDP_REGION_NAME_MAX 32	/* including the NUL */
#define HDP_REGION_MAX 8192	/* registered at once */
#define HDP_REGION_GRANULE ((uintptr_t)2 << 20)

struct hdp_region_desc {
	const char *name;	/* 1..31 characters */
	const void *base;
	size_t len;
	void *owner;		/* e.g. the pool's hardening state; may be NULL */
};

/* A registered region. Read-only; valid until the region is unregistered. */
struct hdp_region {
	uintptr_t base;
	size_t len;
	int id;
	void *owner;
	char name[HDP_REGION_NAME_MAX];
};

enum hdp_region_lookup {
	HDP_LOOKUP_FAST = 0,
	HDP_LOOKUP_TREE,
};

/*
 * Register a region. Regions never overlap: -EEXIST if this one would.
 * -EINVAL for a zero length, a range that wraps or lies above the 48-bit
 * address space, or a bad name; -ENOSPC when HDP_REGION_MAX are registered;
 * -ENOMEM if the fast index cannot grow. Returns the region's id (>= 0).
 */
HDP_API int hdp_region_register(const struct hdp_region_desc *desc);

/* Forget a region by id: 0, or -ENOENT. */
HDP_API int hdp_region_unregister(int id);

/* The region holding @addr, or NULL. Tags in the top byte are ignored. */
HDP_API const struct hdp_region *hdp_region_lookup(uintptr_t addr,
						   enum hdp_region_lookup how);
HDP_API const struct hdp_region *hdp_region_lookup_tree(uintptr_t addr);
HDP_API const struct hdp_region *hdp_region_lookup_fast(uintptr_t addr);

/* Copy the region holding @addr to @out (may be NULL): 0, or -ENOENT. */
HDP_API int hdp_region_find(const void *addr, struct hdp_region *out);

/* Number of regions registered now. */
HDP_API unsigned hdp_region_count(void);

#ifdef __cplusplus
}
#endif

#endif /* HDP_REGION_H */
