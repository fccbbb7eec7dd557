// SPDX-License-Identifier: BSD-3-Clause
/*
 * shuffle: a thread's cache hands objects out in a random order, over a
 * cache topped up to choose from; nothing is lost or handed out twice; it
 * switches at run time, its per-thread state goes with the thread; a pool
 * that cannot run it refuses it.
 */
#include <criterion/criterion.h>

#include <hdp/harden.h>
#include <hdp/pool.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

#define COUNT 512

static struct hdp_pool *pool_with(const char *spec)
{
	struct hdp_pool *pool = hardened_pool("shuffled", 128, COUNT, 0, spec);

	cr_assert_not_null(pool, "%s", spec);
	return pool;
}

/* Of @rounds "free one, allocate one", how often the one freed comes back. */
static unsigned same_again(struct hdp_pool *pool, unsigned rounds)
{
	unsigned same = 0;

	for (unsigned i = 0; i < rounds; i++) {
		void *a = hdp_pool_alloc(pool), *b;

		hdp_pool_free(pool, a);
		b = hdp_pool_alloc(pool);
		same += hdp_untag(b) == hdp_untag(a);
		hdp_pool_free(pool, b);
	}
	return same;
}

TestSuite(shuffle, .init = capture_logs);

Test(shuffle, the_next_object_is_not_the_last_freed)
{
	struct hdp_pool *off = pool_with("shuffle=off"), *on;

	cr_assert_eq(same_again(off, 1000), 1000, "a stack: always the same one");
	hdp_pool_destroy(off);
	on = pool_with("shuffle=on");
	/* A cache of 64 (an eighth of the pool) topped up: about 1 in 64. */
	cr_assert_lt(same_again(on, 1000), 100);
	hdp_pool_destroy(on);
}

Test(shuffle, most_of_the_cache_gets_a_turn_first)
{
	struct hdp_pool *pool = pool_with("shuffle=on");
	static bool first[COUNT];
	unsigned distinct = 0;

	for (int i = 0; i < 2000; i++) {
		void *a = hdp_pool_alloc(pool);

		first[hdp_pool_obj_index(pool, hdp_untag(a))] = true;
		hdp_pool_free(pool, a);
	}
	for (int i = 0; i < COUNT; i++)
		distinct += first[i];
	cr_assert_gt(distinct, 48, "only %u objects ever came first", distinct);
	hdp_pool_destroy(pool);
}

Test(shuffle, nothing_is_lost_or_handed_out_twice)
{
	struct hdp_pool *pool = pool_with("shuffle=on");
	static void *objs[COUNT];
	static bool seen[COUNT];
	unsigned got = 0;
	struct hdp_pool_stats st;

	for (unsigned k = 1; got < COUNT; k = k % 37 + 3) {
		unsigned want = COUNT - got < k ? COUNT - got : k;

		cr_assert_eq(hdp_pool_alloc_bulk(pool, objs + got, want), 0);
		got += want;
	}
	for (unsigned i = 0; i < COUNT; i++) {
		uint32_t idx = hdp_pool_obj_index(pool, hdp_untag(objs[i]));

		cr_assert(!seen[idx], "object %u handed out twice", idx);
		seen[idx] = true;
	}
	cr_assert_eq(hdp_pool_alloc(pool), NULL);
	cr_assert_eq(hdp_pool_free_burst(pool, objs, COUNT), COUNT);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 0);
	cr_assert_eq(st.harden.violations[HDP_V_DOUBLE_FREE], 0);
	hdp_pool_destroy(pool);
}

Test(shuffle, switches_at_run_time)
{
	struct hdp_pool *pool = pool_with("shuffle=off");

	cr_assert_eq(same_again(pool, 100), 100);
	cr_assert_eq(hdp_pool_set(pool, "shuffle", "on"), 0);
	cr_assert_lt(same_again(pool, 1000), 100);
	cr_assert_eq(hdp_pool_set(pool, "shuffle", "off"), 0);
	cr_assert_eq(same_again(pool, 100), 100);
	hdp_pool_destroy(pool);
}

static void *churn(void *arg)
{
	same_again(arg, 200);
	return NULL;
}

Test(shuffle, threads_come_and_go)
{
	struct hdp_pool *pool = pool_with("shuffle=on,quarantine=on,quarantine_depth=16");
	pthread_t th[4];
	struct hdp_pool_stats st;

	for (int i = 0; i < 4; i++)
		cr_assert_eq(pthread_create(&th[i], NULL, churn, pool), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 0);
	cr_assert_eq(st.held, 0);
	hdp_pool_destroy(pool);
}

Test(shuffle, refused_where_the_pool_does_not_run_it)
{
	cr_assert_eq(configure_without_reuse_hooks("shuffle=on"), -EINVAL);
	cr_assert(log_contains("in its own order"), "%s", captured_logs());
}
