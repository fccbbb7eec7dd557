/* SPDX-License-Identifier: BSD-3-Clause */
/* Compiler annotations shared by every hdp module. */
#ifndef HDP_COMPILER_H
#define HDP_COMPILER_H

#define hdp_likely(x)   __builtin_expect(!!(x), 1)
#define hdp_unlikely(x) __builtin_expect(!!(x), 0)

#define HDP_COLD         __attribute__((cold, noinline))
#define HDP_NORETURN     __attribute__((noreturn))
#define HDP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define HDP_CACHE_LINE   64
#define HDP_CACHE_ALIGNED __attribute__((aligned(HDP_CACHE_LINE)))

#define HDP_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif /* HDP_COMPILER_H */
