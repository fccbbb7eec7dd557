// SPDX-License-Identifier: BSD-3-Clause
/*
 * The hdp mempool driver with one memory chunk over 4 GiB, as TAP: every
 * object, the ones past 4 GiB too, goes back to the pool as itself, and a
 * pointer into one past 4 GiB is still an interior free. The first round
 * kept object offsets in 32 bits, so a valid object past 4 GiB looked like
 * an interior pointer. Plain pages (--no-huge): only the objects' headers
 * are ever touched, so the 4.2 GiB cost a few MiB of memory.
 */
#include <hdp/dpdk.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mempool.h>

#include "tap.h"

#define OBJ_SIZE (1u << 20)
#define OBJS 4200u		/* 4.1 GiB of objects */


int main(void)
{
	char *eal[] = { "test_dpdk_big_chunk", "-l", "0", "--no-huge", "-m", "4500", "--no-pci",
			"--iova-mode=va", "--no-telemetry", "--log-level=lib.eal:error", NULL };
	static void *objs[OBJS];
	struct hdp_dpdk_pool_stats st;
	struct rte_mempool *mp;
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	unsigned past = 0;
	void *far = NULL;

	if (getuid() != 0) {
		printf("1..0 # SKIP needs root (EAL)\n");
		return 0;
	}
	/* No wiping: it would touch all 4 GiB. The index is what is tested. */
	setenv("HDP_HARDEN", "init_on_free=off,init_check=off,on_violation=report", 1);
	if (rte_eal_init(10, eal) < 0) {
		printf("1..0 # SKIP EAL cannot start with 4.5 GB of plain memory here: %s\n",
		       rte_strerror(rte_errno));
		return 0;
	}
	printf("1..4\n");
	mp = rte_mempool_create_empty("big_0", OBJS, OBJ_SIZE - 64, 0, 0, SOCKET_ID_ANY, 0);
	if (mp && (rte_mempool_set_ops_byname(mp, HDP_DPDK_OPS_NAME, NULL) ||
		   rte_mempool_populate_default(mp) != (int)OBJS)) {
		rte_mempool_free(mp);
		mp = NULL;
	}
	ok(mp != NULL, "a pool of 4200 objects of 1 MiB in one chunk, on the hdp ops");
	if (!mp)
		return 1;
	ok(rte_mempool_get_bulk(mp, objs, OBJS) == 0, "every object taken out");
	for (unsigned i = 0; i < OBJS; i++) {
		lo = (uintptr_t)objs[i] < lo ? (uintptr_t)objs[i] : lo;
		hi = (uintptr_t)objs[i] > hi ? (uintptr_t)objs[i] : hi;
	}
	for (unsigned i = 0; i < OBJS; i++) {
		if ((uintptr_t)objs[i] - lo >= (UINT64_C(1) << 32)) {
			past++;
			far = objs[i];
		}
	}
	printf("# objects span %.2f GiB, %u of them past 4 GiB from the first\n",
	       (double)(hi - lo) / (1 << 30), past);
	rte_mempool_put_bulk(mp, objs, OBJS);
	hdp_dpdk_pool_stats_get(mp, &st);
	ok(past > 0 && st.bad_frees == 0 && rte_mempool_avail_count(mp) == OBJS,
	   "every object went back as itself, those past 4 GiB too");
	/* Refused before it reaches the ring: the pool is unchanged. */
	if (far)
		rte_mempool_put(mp, (char *)far + 64);
	hdp_dpdk_pool_stats_get(mp, &st);
	ok(far && st.bad_frees == 1 && rte_mempool_avail_count(mp) == OBJS,
	   "a pointer into an object past 4 GiB is an interior free, refused");
	rte_mempool_free(mp);
	rte_eal_cleanup();
	return failed != 0;
}
