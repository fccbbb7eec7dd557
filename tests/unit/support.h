/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the unit tests. */
#ifndef HDP_TEST_SUPPORT_H
#define HDP_TEST_SUPPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Route hdp_log() into a buffer that log_contains() searches. */
void capture_logs(void);
bool log_contains(const char *needle);
const char *captured_logs(void);
void clear_logs(void);

/* A "Key: value" line of /proc/meminfo, or -1. */
long meminfo(const char *key);

/* Hugepages neither in use nor promised to a mapping. */
long hugepages_available(void);
/*
 * More hugepages than the kernel could ever grant (all it has, plus the
 * surplus it may add, plus one): what is free changes while other tests
 * run, what exists does not.
 */
long hugepages_beyond_any(void);

/* The KernelPageSize, in KiB, of the mapping holding @addr; -1 if unknown. */
long kernel_page_kib(const void *addr);



struct hdp_pool;

/*
 * A plain-page pool of @count objects of @size bytes (aligned to 16), with
 * the profile @spec (a --harden string, "" for the defaults) applied.
 */
struct hdp_pool *hardened_pool(const char *name, size_t size, unsigned count,
			       unsigned flags, const char *spec);

/* How many bytes of [p, p + n) are not zero. */
size_t nonzero_bytes(const void *p, size_t n);

/* A violation counter of a pool; all of them; a kind by name (-1: none). */
unsigned long long violations(struct hdp_pool *pool, int kind);
unsigned long long all_violations(struct hdp_pool *pool);
int violation_kind(const char *name);

/*
 * Apply @spec to a pool that, like a DPDK mempool, does not call the reuse
 * hooks (hold, drain, pick): what hdp_harden_pool_configure returned.
 */
int configure_without_reuse_hooks(const char *spec);

/*
 * Set @pool's epoch counters, the core's records' or the registered
 * protections', to reach the end of them without 2^32 or 2^31
 * re-enables: the next change that starts one starts @epoch + 1.
 */
void set_epoch(struct hdp_pool *pool, uint64_t epoch);
void set_protections_epoch(struct hdp_pool *pool, uint32_t epoch);
#endif /* HDP_TEST_SUPPORT_H */
