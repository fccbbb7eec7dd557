/* SPDX-License-Identifier: BSD-3-Clause */
/* Mapping a pool's region: hugepages of three kinds, or plain pages. */
#ifndef HDP_MEMPOOL_MEM_MAP_H
#define HDP_MEMPOOL_MEM_MAP_H

#include <stdbool.h>
#include <stddef.h>

#include <hdp/pool.h>

/*
 * Every region has a guard of inaccessible address space on each side (no
 * memory behind it): MEM_GUARD, or a hugepage where those are larger, so
 * that the region itself starts at a hugepage and region-granule boundary.
 */
#define MEM_GUARD ((size_t)2 << 20)

struct mem_mapping {
	void *base;
	size_t len;		/* a multiple of page_size */
	size_t page_size;
	size_t guard;		/* bytes of guard before base and after base + len */
	enum hdp_mem_kind kind;	/* what was actually mapped */
	bool fallback;		/* hugepages were wanted, plain pages mapped */
};

/*
 * Map at least @want bytes as @kind (AUTO means HUGE_ANON), between two
 * guards of MEM_GUARD. When a hugepage
 * kind fails for want of free hugepages and @allow_fallback is set, map
 * plain pages instead and log one warning naming @who. Returns 0 or a
 * negative errno; bad huge_dir values are logged and never fall back.
 */
int mem_map(size_t want, enum hdp_mem_kind kind, const char *huge_dir,
	    bool allow_fallback, const char *who, struct mem_mapping *out);

void mem_unmap(struct mem_mapping *m);

/* The default hugepage size (Hugepagesize in /proc/meminfo), or 2 MiB. */
size_t mem_huge_page_size(void);

#endif /* HDP_MEMPOOL_MEM_MAP_H */
