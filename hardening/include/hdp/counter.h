/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters with one writer and any number of readers: the writer adds with
 * a relaxed load and store (no locked instruction on the fast path), readers
 * load relaxed and see a recent value.
 */
#ifndef HDP_COUNTER_H
#define HDP_COUNTER_H

#include <stdatomic.h>
#include <stdint.h>

typedef _Atomic uint64_t hdp_counter_t;

static inline void hdp_counter_add(hdp_counter_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

static inline uint64_t hdp_counter_read(const hdp_counter_t *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

#endif /* HDP_COUNTER_H */
