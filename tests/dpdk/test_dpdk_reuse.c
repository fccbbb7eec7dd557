// SPDX-License-Identifier: BSD-3-Clause
/*
 * The driver's per-lcore reuse queues, as TAP, on two lcores: a freed
 * object comes back only after `depth` later frees of its lcore and then
 * in the order it was freed; the pool's count includes what the queues
 * hold; a double free of a queued object is refused; an allocation that
 * needs queued objects gets them (counted as cut short) instead of
 * failing; objects freed on another lcore reach this one through the
 * ring, at most depth + slack staying in that lcore's queue; a non-EAL
 * thread's frees wait in the queue those threads share; small pools
 * get shallower queues; the depth is the pool's quarantine_depth (its
 * profile: HDP_HARDEN, per pool too), and quarantine=off means none (each
 * free straight to the ring, FIFO through the pool). Modes (argv[1]):
 * none (quarantine 1024 deep), "--depth N" (N deep; 0: quarantine off),
 * "--refused" (a depth out of range: pools must not be made).
 * Plain pages (--no-huge): no hugepage needed. Needs root (EAL).
 */
#include <hdp/dpdk.h>

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#include "tap.h"

#define OBJS 8192u
#define ELT 256u
#define SLACK 192u	/* HDP_REUSE_SLACK + HDP_REUSE_PUT_MAX */

static void *objs[OBJS];

static struct rte_mempool *pool(const char *name, unsigned count)
{
	struct rte_mempool *mp = rte_mempool_create_empty(name, count, ELT, 0, 0, SOCKET_ID_ANY, 0);

	if (!mp)
		return NULL;
	if (rte_mempool_set_ops_byname(mp, HDP_DPDK_OPS_NAME, NULL) ||
	    rte_mempool_populate_default(mp) < 0) {
		rte_mempool_free(mp);
		return NULL;
	}
	return mp;
}

static struct hdp_dpdk_pool_stats stats(struct rte_mempool *mp)
{
	struct hdp_dpdk_pool_stats st;

	memset(&st, 0, sizeof(st));
	hdp_dpdk_pool_stats_get(mp, &st);
	return st;
}

/*
 * Free @x, then cycle one object at a time (get one, put it back) until
 * @x comes out again: the number of frees after @x's by then, or
 * UINT32_MAX if it did not come out within @limit cycles.
 */
static uint32_t frees_until_back(struct rte_mempool *mp, void *x, uint32_t limit)
{
	rte_mempool_put(mp, x);
	for (uint32_t c = 0; c < limit; c++) {
		void *o;

		if (rte_mempool_get(mp, &o))
			return UINT32_MAX;
		if (o == x)
			return c;
		rte_mempool_put(mp, o);
	}
	return UINT32_MAX;
}

/* Free two in a row, cycle until both are out again: in the order freed? */
static bool fifo(struct rte_mempool *mp)
{
	void *x, *y, *o;
	bool x_out = false, in_order = false;

	if (rte_mempool_get(mp, &x) || rte_mempool_get(mp, &y))
		return false;
	rte_mempool_put(mp, x);
	rte_mempool_put(mp, y);
	for (uint32_t c = 0; c < 4 * OBJS && !rte_mempool_get(mp, &o); c++) {
		if (o == y) {
			in_order = x_out;
			break;
		}
		if (o == x)
			x_out = true;
		else
			rte_mempool_put(mp, o);
	}
	if (x_out)
		rte_mempool_put(mp, x);
	rte_mempool_put(mp, y);
	return in_order;
}

/* Everything out in bulks of 64 (and the rest): how many came. */
static unsigned take_all(struct rte_mempool *mp, unsigned want)
{
	unsigned got = 0;

	while (got < want) {
		unsigned k = want - got < 64 ? want - got : 64;

		if (rte_mempool_get_bulk(mp, objs + got, k))
			break;
		got += k;
	}
	return got;
}

/* On the second lcore: free what the main lcore took. */
static int free_remote(void *arg)
{
	struct rte_mempool *mp = arg;

	for (unsigned i = 0; i < OBJS; i++)
		rte_mempool_put(mp, objs[i]);
	return 0;
}

/* A thread EAL did not make: frees what the main lcore took, under the shared entry. */
static void *free_foreign(void *arg)
{
	struct rte_mempool *mp = arg;

	for (unsigned i = 0; i < 50; i++)
		rte_mempool_put(mp, objs[i]);
	return NULL;
}

static void with_queues(struct rte_mempool *mp, unsigned depth)
{
	struct hdp_dpdk_pool_stats st = stats(mp);
	uint32_t back, hidden;
	uint64_t queued;
	void *x;
	char what[160];
	unsigned got;

	snprintf(what, sizeof(what), "reuse queues %u deep (stats say %u)", depth,
		 st.quarantine_depth);
	ok(st.quarantine_depth == depth, what);

	rte_mempool_get(mp, &x);
	back = frees_until_back(mp, x, 4 * OBJS);
	snprintf(what, sizeof(what), "a freed object comes back after %u later frees: "
		 "no sooner than %u, no later than %u", back, depth, depth + SLACK);
	ok(back >= depth && back <= depth + SLACK, what);
	rte_mempool_put(mp, x);
	st = stats(mp);
	snprintf(what, sizeof(what), "the pool counts its queued objects: %u free of %u, "
		 "%llu in queues", rte_mempool_avail_count(mp), mp->size,
		 (unsigned long long)st.held);
	ok(rte_mempool_avail_count(mp) == mp->size && st.held > 0 &&
	   st.in_pool == mp->size, what);

	ok(fifo(mp), "of two objects freed in a row, the first comes back first");

	rte_mempool_get(mp, &x);
	rte_mempool_put(mp, x);
	rte_mempool_put(mp, x);
	st = stats(mp);
	ok(st.double_frees == 1 && rte_mempool_avail_count(mp) == mp->size,
	   "a double free of an object waiting in the queue is refused; the pool holds it once");

	got = take_all(mp, mp->size);
	st = stats(mp);
	snprintf(what, sizeof(what), "every object can be allocated (%u of %u), the queue's "
		 "before their wait (cut short %llu times)", got, mp->size,
		 (unsigned long long)st.held_cut_short);
	ok(got == mp->size && st.held_cut_short >= 1, what);
	for (unsigned i = 0; i < got; i++)
		rte_mempool_put(mp, objs[i]);
	ok(rte_mempool_avail_count(mp) == mp->size, "and all of them go back");

	/* Freed on lcore 1, wanted on lcore 0: through the ring, beyond the queue. */
	got = take_all(mp, mp->size);
	rte_eal_remote_launch(free_remote, mp, rte_get_next_lcore(-1, 1, 0));
	rte_eal_mp_wait_lcore();
	st = stats(mp);
	hidden = (uint32_t)st.held;
	snprintf(what, sizeof(what), "objects freed on another lcore: %u wait in its queue "
		 "(at most %u), all counted free", hidden, depth + SLACK);
	ok(got == mp->size && hidden >= depth && hidden <= depth + SLACK &&
	   rte_mempool_avail_count(mp) == mp->size, what);
	got = take_all(mp, mp->size - hidden);
	ok(got == mp->size - hidden, "the rest reach this lcore through the ring");
	for (unsigned i = 0; i < got; i++)
		rte_mempool_put(mp, objs[i]);

	got = take_all(mp, 50);
	queued = stats(mp).held;
	{
		pthread_t t;

		ok(got == 50 && pthread_create(&t, NULL, free_foreign, mp) == 0 &&
		   pthread_join(t, NULL) == 0 && stats(mp).held == queued + 50 &&
		   rte_mempool_avail_count(mp) == mp->size,
		   "a non-EAL thread's frees wait in the shared queue, counted free");
	}
}

/*
 * The profile: reports, not aborts; the quarantine as the mode says for
 * every pool; and per pool, the ones the last checks make.
 */
static void set_profile(const char *quarantine)
{
	char spec[512];

	snprintf(spec, sizeof(spec), "init_on_free=on,init_check=on,on_violation=report,%s,"
		 "pool.reuse_small.quarantine=on,pool.reuse_small.quarantine_depth=250,"
		 "pool.reuse_deep.quarantine=on,pool.reuse_deep.quarantine_depth=400,"
		 "pool.reuse_64.quarantine=on,pool.reuse_64.quarantine_depth=64,"
		 "pool.reuse_none.quarantine=off", quarantine);
	setenv("HDP_HARDEN", spec, 1);
}

int main(int argc, char **argv)
{
	char *eal[] = { "test_dpdk_reuse", "-l", "0-1", "--no-pci", "--no-huge", "-m", "256",
			"--no-telemetry", "--log-level=lib.eal:error" };
	struct rte_mempool *mp, *small, *deep, *tuned, *none;
	bool refused_mode = argc > 1 && strcmp(argv[1], "--refused") == 0;
	unsigned depth = argc > 2 && strcmp(argv[1], "--depth") == 0 ? (unsigned)atoi(argv[2])
								      : 1024;
	char what[160], quarantine[64];

	if (getuid() != 0) {
		printf("1..0 # SKIP needs root (EAL)\n");
		return 0;
	}
	if (refused_mode)
		snprintf(quarantine, sizeof(quarantine), "quarantine=on,quarantine_depth=70000");
	else if (depth)
		snprintf(quarantine, sizeof(quarantine), "quarantine=on,quarantine_depth=%u", depth);
	else
		snprintf(quarantine, sizeof(quarantine), "quarantine=off");
	set_profile(quarantine);
	if (rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])), eal) < 0) {
		printf("1..0 # SKIP EAL cannot start here: %s\n", rte_strerror(rte_errno));
		return 0;
	}
	if (rte_lcore_count() < 2) {
		printf("1..0 # SKIP needs two lcores\n");
		return 0;
	}
	if (refused_mode) {
		printf("1..1\n");
		mp = pool("reuse_bad", OBJS);
		snprintf(what, sizeof(what), "%s: the pool is not made", quarantine);
		ok(mp == NULL, what);
		return failed ? 1 : 0;
	}
	printf("1..%u\n", depth ? 16u : 9u);
	mp = pool("reuse_0", OBJS);
	ok(mp != NULL, "a pool of 8192 objects on two lcores");
	if (!mp)
		return 1;
	if (depth) {
		with_queues(mp, depth);
	} else {
		void *x;
		uint32_t back;
		struct hdp_dpdk_pool_stats st = stats(mp);

		ok(st.quarantine_depth == 0 && st.held == 0, "quarantine off: no reuse queue");
		rte_mempool_get(mp, &x);
		back = frees_until_back(mp, x, 2 * OBJS);
		snprintf(what, sizeof(what), "each free straight to the ring: an object comes "
			 "back after the whole pool (%u later frees)", back);
		ok(back == OBJS - 1, what);
		rte_mempool_put(mp, x);
		ok(rte_mempool_avail_count(mp) == OBJS, "all objects free");
	}

	/* 600 objects for 3 queues: too few for 250 + slack each. */
	small = pool("reuse_small", 600);
	ok(small && stats(small).quarantine_depth == 0,
	   "a pool too small to share among the lcores' queues gets none (said in the log)");
	deep = pool("reuse_deep", 600);
	ok(deep == NULL, "a quarantine deeper than half the pool is refused: no pool");
	tuned = pool("reuse_64", OBJS);
	ok(tuned && stats(tuned).quarantine_depth == 64,
	   "a pool whose own profile says quarantine_depth=64 has queues 64 deep");
	none = pool("reuse_none", OBJS);
	ok(none && stats(none).quarantine_depth == 0, "and one whose says quarantine=off, none");
	snprintf(what, sizeof(what), "no violation%s (report policy)",
		 depth ? " but the double free" : "");
	ok(stats(mp).violations == (depth ? 1u : 0u), what);
	rte_mempool_free(mp);
	rte_mempool_free(small);
	rte_mempool_free(tuned);
	rte_mempool_free(none);
	rte_eal_cleanup();
	return failed ? 1 : 0;
}
