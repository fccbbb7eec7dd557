// SPDX-License-Identifier: BSD-3-Clause
/*
 * quarantine: a freed object comes back only after quarantine_depth more
 * frees of its thread; what is held is counted as free, given back on a
 * flush, a drain, a thread's exit, at run time when the depth shrinks or
 * it is turned off; a double free of a held object is refused.
 */
#include <criterion/criterion.h>

#include <hdp/harden.h>
#include <hdp/pool.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

#define COUNT 64

static struct hdp_pool *pool_with(const char *spec)
{
	char full[256];
	struct hdp_pool *pool;

	snprintf(full, sizeof(full), "on_violation=report,%s", spec);
	pool = hardened_pool("q", 256, COUNT, 0, full);
	cr_assert_not_null(pool, "%s", full);
	return pool;
}

static struct hdp_pool_stats stats(struct hdp_pool *pool)
{
	struct hdp_pool_stats st;

	hdp_pool_stats_get(pool, &st);
	/* Every object is somewhere, once. */
	cr_assert_eq(st.in_use + st.free_shared + st.free_cached + st.held, st.obj_count,
		     "in use %llu + shared %llu + cached %llu + held %llu != %llu",
		     (unsigned long long)st.in_use, (unsigned long long)st.free_shared,
		     (unsigned long long)st.free_cached, (unsigned long long)st.held,
		     (unsigned long long)st.obj_count);
	return st;
}

TestSuite(quarantine, .init = capture_logs);

Test(quarantine, an_object_comes_back_after_depth_frees)
{
	struct hdp_pool *pool = pool_with("quarantine=on,quarantine_depth=8");
	void *first = hdp_pool_alloc(pool), *x;
	unsigned back = 0;

	hdp_pool_free(pool, first);
	cr_assert_eq(stats(pool).held, 1);
	for (unsigned i = 1; i <= 12 && !back; i++) {
		x = hdp_pool_alloc(pool);
		if (hdp_untag(x) == hdp_untag(first))
			back = i;
		hdp_pool_free(pool, x);
	}
	/* Freed, then 8 more frees in front of it: the 9th allocation may have it. */
	cr_assert_eq(back, 9, "came back at allocation %u", back);
	cr_assert_eq(stats(pool).held, 8);
	cr_assert_eq(stats(pool).in_use, 0);
	hdp_pool_destroy(pool);
}

Test(quarantine, without_it_the_last_freed_is_the_next_allocated)
{
	struct hdp_pool *pool = pool_with("quarantine=off");
	void *first = hdp_pool_alloc(pool);

	hdp_pool_free(pool, first);
	cr_assert_eq(hdp_untag(hdp_pool_alloc(pool)), hdp_untag(first));
	hdp_pool_destroy(pool);
}

Test(quarantine, flush_and_drain_give_back_what_is_held)
{
	struct hdp_pool *pool = pool_with("quarantine=on,quarantine_depth=16");
	void *objs[20];

	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 20), 0);
	cr_assert_eq(hdp_pool_free_burst(pool, objs, 20), 20);
	cr_assert_eq(stats(pool).held, 16);
	hdp_pool_cache_flush(pool);
	cr_assert_eq(stats(pool).held, 0);
	cr_assert_eq(stats(pool).free_shared, COUNT);

	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 20), 0);
	cr_assert_eq(hdp_pool_free_burst(pool, objs, 20), 20);
	cr_assert_eq(hdp_pool_drain(pool), 0);
	cr_assert_eq(stats(pool).held, 0);
	cr_assert_eq(stats(pool).free_shared, COUNT);
	/* Every object can still be had. */
	void *all[COUNT];

	cr_assert_eq(hdp_pool_alloc_bulk(pool, all, COUNT), 0);
	cr_assert_eq(hdp_pool_free_burst(pool, all, COUNT), COUNT);
	hdp_pool_destroy(pool);
	cr_assert(!log_contains("still in use"), "%s", captured_logs());
}

Test(quarantine, a_smaller_depth_or_off_empties_it_at_run_time)
{
	struct hdp_pool *pool = pool_with("quarantine=on,quarantine_depth=24");
	void *objs[30], *x;

	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 30), 0);
	cr_assert_eq(hdp_pool_free_burst(pool, objs, 30), 30);
	cr_assert_eq(stats(pool).held, 24);
	cr_assert_eq(hdp_pool_set(pool, "quarantine_depth", "4"), 0);
	x = hdp_pool_alloc(pool);
	hdp_pool_free(pool, x);
	cr_assert_eq(stats(pool).held, 4, "the excess went back with the next free");
	cr_assert_eq(hdp_pool_set(pool, "quarantine", "off"), 0);
	x = hdp_pool_alloc(pool);
	hdp_pool_free(pool, x);
	cr_assert_eq(stats(pool).held, 0, "turned off: given back with the next free");
	cr_assert_eq(hdp_pool_set(pool, "quarantine", "on"), 0);
	x = hdp_pool_alloc(pool);
	hdp_pool_free(pool, x);
	cr_assert_eq(stats(pool).held, 1);
	hdp_pool_destroy(pool);
}

/*
 * A pool with nothing left but what this thread holds: the allocation gets
 * the oldest held objects early (counted) instead of failing; a forwarder
 * whose frees wait on its allocations would otherwise stall for good.
 */
Test(quarantine, an_allocation_with_nothing_else_left_cuts_the_wait_short)
{
	struct hdp_pool *pool = pool_with("quarantine=on,quarantine_depth=32");
	void *all[COUNT], *first;
	struct hdp_pool_stats st;

	cr_assert_eq(hdp_pool_alloc_bulk(pool, all, COUNT), 0);
	first = hdp_untag(all[0]);
	cr_assert_eq(hdp_pool_free_burst(pool, all, COUNT), COUNT);
	st = stats(pool);
	cr_assert_eq(st.held, 32);
	cr_assert_eq(st.held_cut_short, 0);

	/* 32 free in the cache and the stack, 32 held: all 64 can still be had. */
	cr_assert_eq(hdp_pool_alloc_bulk(pool, all, COUNT), 0);
	st = stats(pool);
	cr_assert_eq(st.in_use, COUNT);
	cr_assert_eq(st.held, 0);
	cr_assert_eq(st.held_cut_short, 32);
	/* The oldest held object, the first freed, was among them. */
	bool seen = false;

	for (unsigned i = 0; i < COUNT; i++)
		seen |= hdp_untag(all[i]) == first;
	cr_assert(seen);
	cr_assert_eq(hdp_pool_free_burst(pool, all, COUNT), COUNT);

	/* One at a time, as a forwarder refills: never a failure. */
	for (unsigned round = 0; round < 4; round++) {
		for (unsigned i = 0; i < COUNT; i++)
			cr_assert_not_null(all[i] = hdp_pool_alloc(pool), "allocation %u", i);
		for (unsigned i = 0; i < COUNT; i++)
			hdp_pool_free(pool, all[i]);
	}
	st = stats(pool);
	cr_assert_eq(st.alloc_fails, 0);
	hdp_pool_destroy(pool);
}

Test(quarantine, refuses_a_depth_over_half_the_pool)
{
	struct hdp_pool *pool = pool_with("quarantine=off");

	cr_assert_eq(hdp_pool_set(pool, "quarantine_depth", "33"), 0);
	cr_assert_eq(hdp_pool_set(pool, "quarantine", "on"), -EINVAL);
	cr_assert(log_contains("quarantine_depth 33 is more than half of the pool's 64 objects: "
			       "at most 32"), "%s", captured_logs());
	cr_assert_eq(hdp_pool_set(pool, "quarantine_depth", "32"), 0);
	cr_assert_eq(hdp_pool_set(pool, "quarantine", "on"), 0);
	hdp_pool_destroy(pool);
}

/*
 * A pool that runs its own quarantine from these keys (a DPDK mempool: its
 * reuse queues) takes them, under the same rule: at most half the pool.
 */
Test(quarantine, a_pool_with_its_own_quarantine_takes_the_keys_under_the_same_rule)
{
	cr_assert_eq(configure_without_reuse_hooks("quarantine=on,quarantine_depth=4"), 0,
		     "%s", captured_logs());
	cr_assert_eq(configure_without_reuse_hooks("quarantine=on,quarantine_depth=33"),
		     -EINVAL);
	cr_assert(log_contains("is more than half of the pool's"), "%s", captured_logs());
}

Test(quarantine, a_double_free_of_a_held_object_is_refused)
{
	struct hdp_pool *pool = pool_with("quarantine=on,quarantine_depth=8,tag=soft");
	void *obj = hdp_pool_alloc(pool);

	hdp_pool_free(pool, obj);
	cr_assert_eq(hdp_pool_free_burst(pool, &obj, 1), 0);
	cr_assert_eq(violations(pool, HDP_V_DOUBLE_FREE), 1);
	cr_assert_eq(stats(pool).held, 1, "held once, not twice");
	hdp_pool_destroy(pool);
}

static void *churn(void *arg)
{
	struct hdp_pool *pool = arg;
	void *objs[8];

	for (int i = 0; i < 100; i++) {
		cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 8), 0);
		cr_assert_eq(hdp_pool_free_burst(pool, objs, 8), 8);
	}
	return NULL;
}

Test(quarantine, a_thread_that_exits_gives_back_what_it_held)
{
	struct hdp_pool *pool = pool_with("quarantine=on,quarantine_depth=12");
	pthread_t th[2];

	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, churn, pool), 0);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	cr_assert_eq(stats(pool).held, 0);
	cr_assert_eq(stats(pool).in_use, 0);
	cr_assert_eq(all_violations(pool), 0);
	hdp_pool_destroy(pool);
}

/*
 * Every ordered pair of runtime switches between rounds of frees in bursts
 * of mixed size: no violation, every object accounted for, all of them
 * still allocatable at the end.
 */
Test(quarantine, no_switch_sequence_loses_an_object)
{
	static const char *const sw[][2] = {
		{ "quarantine", "on" }, { "quarantine", "off" },
		{ "quarantine_depth", "1" }, { "quarantine_depth", "30" },
		{ "init_on_free", "used" }, { "init_on_free", "off" }, { "init_on_free", "on" },
		{ "tag", "off" }, { "tag", "soft" }, { "redzone", "on" },
	};
	const unsigned n = HDP_ARRAY_SIZE(sw);

	for (unsigned a = 0; a < n; a++) {
		for (unsigned b = 0; b < n; b++) {
			/* init_check off: else init_on_free=off is refused while it is on. */
			struct hdp_pool *pool =
				pool_with("quarantine=on,quarantine_depth=10,init_check=off");
			void *objs[COUNT];

			for (unsigned r = 0; r < 6; r++) {
				unsigned k = 5 + r * 5, done = 0;	/* with 30 held, 34 are left */

				if (r == 2)
					cr_assert_eq(hdp_pool_set(pool, sw[a][0], sw[a][1]), 0);
				if (r == 4)
					cr_assert_eq(hdp_pool_set(pool, sw[b][0], sw[b][1]), 0);
				cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, k), 0);
				for (unsigned step = 1; done < k; step += 2) {
					unsigned m = k - done < step ? k - done : step;

					cr_assert_eq(hdp_pool_free_burst(pool, objs + done, m), m);
					done += m;
				}
				(void)stats(pool);
			}
			cr_assert_eq(all_violations(pool), 0, "%s=%s then %s=%s",
				     sw[a][0], sw[a][1], sw[b][0], sw[b][1]);
			hdp_pool_cache_flush(pool);
			cr_assert_eq(stats(pool).held, 0);
			cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, COUNT), 0);
			cr_assert_eq(hdp_pool_free_burst(pool, objs, COUNT), COUNT);
			hdp_pool_destroy(pool);
		}
	}
}
