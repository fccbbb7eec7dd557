/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The guards around every pool's region (mem_map.h): a fault in one is
 * reported as a guard_page violation naming the pool, then the process
 * aborts, as under on_violation=abort (a faulting access cannot be
 * dropped or skipped).
 */
#ifndef HDP_MEMPOOL_GUARD_H
#define HDP_MEMPOOL_GUARD_H

#include <stddef.h>
#include <stdint.h>

struct hdp_harden_pool;

/*
 * Watch the guards of slot @id's region [base, base + len), @guard bytes
 * each side, for @hp (its name and violation counter). Installs the
 * SIGSEGV handler the first time; 0 or a negative errno.
 */
int guard_watch(uint16_t id, struct hdp_harden_pool *hp, uintptr_t base, size_t len,
		size_t guard);
void guard_unwatch(uint16_t id);

#endif /* HDP_MEMPOOL_GUARD_H */
