/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The guards around every pool's region (mem_map.h), and the guard gaps
 * between its runs of objects (hdp_pool_params.guard_gap): a fault in one
 * is reported as a guard_page violation naming the pool, then the process
 * aborts, as under on_violation=abort (a faulting access cannot be
 * dropped or skipped).
 */
#ifndef HDP_MEMPOOL_GUARD_H
#define HDP_MEMPOOL_GUARD_H

#include <stddef.h>
#include <stdint.h>

struct hdp_harden_pool;

/* Where a pool's guards are: around its region, and its guard gaps. */
struct guard_layout {
	uintptr_t base;
	size_t len;		/* the region */
	size_t guard;		/* bytes of guard each side of it */
	size_t stride;
	uint32_t gap_period;	/* objects + gap slots; 0: no gaps */
	uint32_t gap_objs;
};

/*
 * Watch slot @id's guards for @hp (its name and violation counter).
 * Installs the SIGSEGV handler the first time; 0 or a negative errno.
 */
int guard_watch(uint16_t id, struct hdp_harden_pool *hp, const struct guard_layout *g);
void guard_unwatch(uint16_t id);

#endif /* HDP_MEMPOOL_GUARD_H */
