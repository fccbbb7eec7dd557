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

/*
 * Watch slot @id's guards for @hp: the @guard bytes each side of its
 * region of @len bytes (at its layout's base), and the layout's guard
 * gaps. Installs the SIGSEGV handler the first time; 0 or a negative
 * errno.
 */
int guard_watch(uint16_t id, struct hdp_harden_pool *hp, size_t len, size_t guard);
void guard_unwatch(uint16_t id);

#endif /* HDP_MEMPOOL_GUARD_H */
