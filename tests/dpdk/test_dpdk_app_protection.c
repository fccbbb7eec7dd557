// SPDX-License-Identifier: BSD-3-Clause
/*
 * An application's own protection, registered through libhdp
 * (hdp/protection.h), on a DPDK mempool with hdp's ops, as TAP: the
 * driver shares libhdp's registry, so HDP_HARDEN may turn the
 * application's key on, and its hooks see every allocation and free of
 * the pool (no lcore cache: each one reaches the driver). Needs root and
 * hugepages (EAL); says why it skips otherwise.
 */
#include <hdp/dpdk.h>
#include <hdp/protection.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "tap.h"

#define MBUFS 10

static unsigned seen_allocs, seen_frees;

static void count_allocs(const struct hdp_protection_burst *b, void **objs, unsigned count)
{
	(void)b;
	(void)objs;
	seen_allocs += count;
}

static uint64_t count_frees(const struct hdp_protection_burst *b, void *const *objs,
			    const struct hdp_extent *ext, unsigned count)
{
	(void)b;
	(void)objs;
	(void)ext;
	seen_frees += count;
	return 0;
}

static const struct hdp_protection_key app_keys[] = {
	{ "appwatch", HDP_VALUE_BOOL, .def = 0, .doc = "count the pool's allocations and frees" },
};

static const struct hdp_protection appwatch = {
	.name = "appwatch", .doc = "the application's own",
	.keys = app_keys, .nkeys = 1, .on_alloc = count_allocs, .on_free = count_frees,
};

int main(void)
{
	char *eal[] = { "test_dpdk_app_protection", "-l", "0", "--no-pci", "--no-telemetry",
			"--in-memory", "--log-level=lib.eal:error" };
	struct hdp_dpdk_pool_stats st;
	struct rte_mbuf *m[MBUFS];
	struct rte_mempool *mp;
	int registered, got;

	if (getuid() != 0) {
		printf("1..0 # SKIP needs root (EAL and hugepages)\n");
		return 0;
	}
	/* Before anything else of hdp's: the registry is read once, at first use. */
	registered = hdp_protection_register(&appwatch);
	setenv("HDP_HARDEN", "appwatch=on,on_violation=report", 1);
	if (rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])), eal) < 0) {
		printf("1..0 # SKIP EAL cannot start here: %s\n", rte_strerror(rte_errno));
		return 0;
	}
	printf("1..5\n");
	ok(registered == 0, "the application registers its protection through libhdp");
	mp = rte_pktmbuf_pool_create_by_ops("app_0", 1023, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0,
					    HDP_DPDK_OPS_NAME);
	ok(mp != NULL, "a DPDK mbuf pool with hdp's ops takes HDP_HARDEN's appwatch=on");
	if (!mp) {
		printf("# %s\n", rte_strerror(rte_errno));
		return 1;
	}
	got = rte_pktmbuf_alloc_bulk(mp, m, MBUFS);
	ok(got == 0 && seen_allocs == MBUFS,
	   "the application's on_alloc runs on the DPDK pool's allocations");
	if (got == 0)
		rte_pktmbuf_free_bulk(m, MBUFS);
	ok(seen_frees == MBUFS, "and its on_free on the frees");
	hdp_dpdk_pool_stats_get(mp, &st);
	ok(st.allocs == MBUFS && st.frees == MBUFS,
	   "the driver counted the same allocations and frees");
	printf("# appwatch saw %u allocations and %u frees\n", seen_allocs, seen_frees);
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return failed ? 1 : 0;
}
