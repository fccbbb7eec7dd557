/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp's hardened pools for DPDK applications.
 *
 * librte_mempool_hdp.so registers the mempool ops "hdp": load it with EAL's
 * `-d` and pick it with `--mbuf-pool-ops-name hdp`. Each pool's profile
 * comes by its DPDK name (mb_pool_0, ...) from HDP_CONFIG (an INI file:
 * [pool:default], [pool:NAME]) and HDP_HARDEN (a --harden string), with
 * the keys, exclusion lists and `none` of docs/HARDENING.md. A bad profile
 * makes pool creation fail; a pool is never made unhardened by mistake.
 * A pool's quarantine (quarantine=on, quarantine_depth=N), set at start or
 * while it runs like every other key, is hdp's one quarantine: each
 * lcore's FIFO of the objects it freed, in front of the pool's ring; one
 * is handed out again only after N later frees of that lcore (a stated
 * reuse distance; the ring alone recycles through the whole pool, every
 * object cold), and that lcore's next allocations take the ones past
 * their wait first. A pool smaller than 2 x (N + 192) x (lcores + 1)
 * objects gets shallower quarantines, said in the log.
 *
 * The driver sees an object only when it crosses DPDK's per-lcore cache.
 * With cache_size 0 every alloc and free runs the hooks; applications that
 * keep a cache get per-object zeroing with the calls below, which apply
 * the pool's init_on_alloc / init_on_free to each mbuf's data room before
 * the cache (any pool; pools of other ops are passed through untouched).
 */
#ifndef HDP_DPDK_H
#define HDP_DPDK_H

#include <stddef.h>
#include <stdint.h>

struct hdp_harden_config;
struct hdp_harden_stats;
struct rte_mbuf;
struct rte_mempool;

#define HDP_DPDK_OPS_NAME "hdp"

/*
 * The driver's own functions, the only ones it exports; hdp's hardening it
 * takes from libhdp.so (or from a program that exports hdp's functions, as
 * hdp-fwd does), so that an application's protections reach its pools.
 */
#define HDP_DPDK_API __attribute__((visibility("default")))

/*
 * Profiles from the application instead of the environment (hdp-fwd's
 * own configuration). Before the first hdp pool is made: 0, -EBUSY after,
 * -EINVAL if @cfg does not validate.
 */
HDP_DPDK_API int hdp_dpdk_use_config(const struct hdp_harden_config *cfg);

HDP_DPDK_API struct rte_mbuf *hdp_dpdk_mbuf_alloc(struct rte_mempool *mp);
HDP_DPDK_API int hdp_dpdk_mbuf_alloc_bulk(struct rte_mempool *mp, struct rte_mbuf **mbufs,
			     unsigned count);
HDP_DPDK_API void hdp_dpdk_mbuf_free(struct rte_mbuf *m);
HDP_DPDK_API void hdp_dpdk_mbuf_free_bulk(struct rte_mbuf **mbufs, unsigned count);

struct hdp_dpdk_pool_stats {
	uint64_t allocs;		/* objects the driver handed out */
	uint64_t frees;			/* objects it took back */
	uint64_t rejected;		/* frees refused (double, foreign) */
	uint64_t in_pool;		/* free objects in the driver (ring and queues) */
	uint64_t held;			/* of which held in the lcores' quarantines */
	uint64_t held_cut_short;	/* held objects allocations took before their wait */
	unsigned quarantine_depth;	/* of each lcore's quarantine, in effect (0: off) */
	uint64_t bytes_wiped;
	uint64_t checks;
	uint64_t violations;		/* all kinds */
	uint64_t double_frees;
	uint64_t bad_frees;		/* foreign, interior, past the end */
	uint64_t writes_after_free;
	unsigned flags;			/* enum hdp_hflag, effective */
	int is_mbuf;
	uint64_t area_off, area_len;	/* what is hardened in each object */
	char exclude[128];
	unsigned chunks;		/* memory chunks DPDK populated it with */
	int spanned;			/* several, close enough to index as one span */
	char profile[512];		/* the effective profile, as keys */
};

/* Counters and effective profile of @mp: 0, or -ENOENT (not an hdp pool). */
HDP_DPDK_API int hdp_dpdk_pool_stats_get(const struct rte_mempool *mp, struct hdp_dpdk_pool_stats *st);

/*
 * @mp's hardening state and counters as hdp's own pools report theirs
 * (hdp/harden.h: every protection's counters, every violation kind): 0,
 * -ENOENT (not an hdp pool) or -EAGAIN (not fully populated yet).
 */
HDP_DPDK_API int hdp_dpdk_pool_harden_stats(const struct rte_mempool *mp,
					    struct hdp_harden_stats *out);

/*
 * @mp's protections (docs/HARDENING.md) and their counters, formatted into
 * @buf: as JSON, the member "protections":{"NAME":{"on":...,COUNTER:N,...}}
 * (as in hdp-ctl pools --json of hdp's own pools); as text, one line each,
 * "  NAME: on; COUNTER N, ...". 0, -ENOENT (not an hdp pool) or -ENOSPC
 * (@buf too short; it then holds as much as fits).
 */
HDP_DPDK_API int hdp_dpdk_pool_protections(const struct rte_mempool *mp, int json, char *buf,
					   size_t len);

/*
 * Change one profile key of @mp while it runs (the keys of
 * docs/HARDENING.md, the quarantine's too; tag only to off): applied with
 * the next bulk call through the driver. 0, -ENOENT (not an hdp pool) or -EINVAL, with the
 * reason in @why.
 */
HDP_DPDK_API int hdp_dpdk_pool_set(struct rte_mempool *mp, const char *key, const char *value,
				   char *why, size_t why_len);

/*
 * @mp's mbufs are lent to a kernel that writes them where their data_len
 * does not say: DPDK's net_af_xdp, whose fill ring they sit on. The kernel
 * copies a packet into a buffer before it looks for room on the RX ring
 * and, when there is none, keeps the written buffer for its next packet,
 * perhaps a shorter one (with zero copy, the NIC writes where it likes).
 * From then on init_on_free=used and redzone take the whole data room as
 * an mbuf's extent. Call it before the port is set up (its queues take
 * mbufs then). 0, or -ENOENT (not an hdp pool).
 */
HDP_DPDK_API int hdp_dpdk_pool_lent_to_kernel(struct rte_mempool *mp);

/*
 * Take back every object of @mp that is in neither the pool nor an lcore's
 * default cache, freed as if written all over (init_on_free wipes whole
 * data rooms): for an application whose device keeps objects when it
 * closes (net_af_xdp leaves the mbufs of its rings). Only when nothing
 * else can hold or free one: every port closed, every lcore done, every
 * cache of the application's own (rte_mempool_cache_create) flushed.
 * How many came back, or -ENOENT (not an hdp pool), -EAGAIN (not fully
 * populated), -ENOMEM.
 */
HDP_DPDK_API int hdp_dpdk_pool_reclaim(struct rte_mempool *mp);

#endif /* HDP_DPDK_H */
