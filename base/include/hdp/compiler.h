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

/*
 * What libhdp.so exports: its objects are built with -fvisibility=hidden
 * and a version script (lib/libhdp.map), so only declarations marked
 * HDP_API leave it, each with a symbol version. Everything else binds
 * inside the library: an application's function or variable of the same
 * name (mem_map, bounds_check) is never called in hdp's place.
 */
#define HDP_API __attribute__((visibility("default")))

/* C11's static assertion, in the spelling C++ has for it. */
#ifdef __cplusplus
#define HDP_STATIC_ASSERT static_assert
#else
#define HDP_STATIC_ASSERT _Static_assert
#endif

#endif /* HDP_COMPILER_H */
