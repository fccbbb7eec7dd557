/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The region registry: every memory region hdp has mapped (pool regions,
 * and any other area a caller registers), queried by address. Bounds
 * checks use it to decide which region, and which object, a pointer
 * belongs to.
 */
#ifndef HDP_REGION_H
#define HDP_REGION_H

#include <stddef.h>
#include <stdint.h>

#define HDP_REGION_NAME_MAX 32	/* including the NUL */
#define HDP_REGION_MAX 8192	/* registered at once */

struct hdp_region_info {
	char name[HDP_REGION_NAME_MAX];
	uintptr_t base;
	size_t len;
	size_t obj_stride;	/* 0: not divided into objects */
	uint32_t obj_count;
	int id;
};

/*
 * Register [base, base + len). Regions never overlap: -EEXIST if this one
 * would. -EINVAL for a zero length, a range that wraps, or a name that is
 * empty or too long; -ENOSPC when HDP_REGION_MAX are registered.
 * Returns the region's id (>= 0) on success.
 */
int hdp_region_register(const char *name, const void *base, size_t len,
			size_t obj_stride, uint32_t obj_count);

/* Forget a region by id: 0, or -ENOENT. */
int hdp_region_unregister(int id);

/*
 * Find the region holding @addr and copy its description to @out (which may
 * be NULL to test membership only). 0, or -ENOENT. O(log n) under a read
 * lock: this is the reference lookup, not a fast-path one.
 */
int hdp_region_find(const void *addr, struct hdp_region_info *out);

/* Number of regions registered now. */
unsigned hdp_region_count(void);

#endif /* HDP_REGION_H */
