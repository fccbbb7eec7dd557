/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counters with one writer and any number of readers: the writer adds with
 * a relaxed load and store (no locked instruction on the fast path), readers
 * load relaxed and see a recent value.
 *
 * C sees a C11 atomic; C++ (which has no _Atomic before C++23) the plain
 * 64-bit word it is in memory, read and written with the compiler's
 * __atomic built-ins: the same size, alignment and accesses.
 */
#ifndef HDP_COUNTER_H
#define HDP_COUNTER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {

typedef uint64_t hdp_counter_t;

static inline void hdp_counter_add(hdp_counter_t *c, uint64_t n)
{
	__atomic_store_n(c, __atomic_load_n(c, __ATOMIC_RELAXED) + n, __ATOMIC_RELAXED);
}

static inline uint64_t hdp_counter_read(const hdp_counter_t *c)
{
	return __atomic_load_n(c, __ATOMIC_RELAXED);
}

}
#else
#include <stdatomic.h>

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
#endif

#endif /* HDP_COUNTER_H */
