// SPDX-License-Identifier: BSD-3-Clause
#include <criterion/criterion.h>

#include <hdp/pool.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#define OBJS 4096
#define THREADS 8
#define ROUNDS 20000

static struct hdp_pool *pool;
/* One flag per object: set while some thread holds it. */
static atomic_uchar held[OBJS];
/* Failures seen on worker threads (Criterion asserts only on its own). */
static atomic_uint twice;
/* Rounds each churning thread makes: ROUNDS, fewer for threads that come and go. */
static int churn_rounds = ROUNDS;

static void *churn(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	void *objs[64];

	for (int r = 0; r < churn_rounds; r++) {
		unsigned want, got;

		seed = seed * 1103515245u + 12345u;
		want = 1 + (seed >> 16) % 64;
		got = hdp_pool_alloc_burst(pool, objs, want);
		for (unsigned i = 0; i < got; i++) {
			uint32_t idx = hdp_pool_obj_index(pool, objs[i]);

			if (atomic_exchange(&held[idx], 1))
				atomic_fetch_add(&twice, 1);
			/* Scribble on it: a shared object would be torn. */
			memset(objs[i], (int)(idx & 0xff), 64);
		}
		for (unsigned i = 0; i < got; i++) {
			uint32_t idx = hdp_pool_obj_index(pool, objs[i]);
			unsigned char *bytes = objs[i];

			if (bytes[0] != (idx & 0xff) || bytes[63] != (idx & 0xff))
				atomic_fetch_add(&twice, 1);
			atomic_store(&held[idx], 0);
		}
		if (hdp_pool_free_burst(pool, objs, got) != got)
			atomic_fetch_add(&twice, 1);
	}
	return NULL;
}

static void run_threads(void *(*fn)(void *), int n)
{
	pthread_t t[THREADS];

	for (int i = 0; i < n; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, fn, (void *)(uintptr_t)(i + 1)), 0);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
}

static void make_pool(unsigned cache_size, unsigned flags)
{
	pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "shared", .obj_size = 64, .obj_count = OBJS,
		.cache_size = cache_size, .flags = flags, .mem = HDP_MEM_PLAIN,
	});
	cr_assert_not_null(pool, "%s", strerror(errno));
}

static void expect_everything_home(void)
{
	struct hdp_pool_stats st;

	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(twice, 0, "an object was handed to two holders at once");
	cr_assert_eq(st.in_use, 0);
	cr_assert_eq(st.caches, 0, "exited threads leave no cache behind");
	cr_assert_eq(st.free_shared, OBJS, "exited threads gave their objects back");
	cr_assert_eq(st.allocs, st.frees);
	cr_assert_gt(st.allocs, (uint64_t)THREADS * churn_rounds);
}

Test(pool_threads, no_object_is_held_twice_and_none_is_lost)
{
	make_pool(0, 0);	/* default cache size */
	run_threads(churn, THREADS);
	expect_everything_home();
	hdp_pool_destroy(pool);
}

Test(pool_threads, small_caches_flush_and_refill_under_contention)
{
	make_pool(4, 0);
	run_threads(churn, THREADS);
	expect_everything_home();
	hdp_pool_destroy(pool);
}

Test(pool_threads, the_shared_stack_alone_is_safe_under_contention)
{
	make_pool(0, HDP_POOL_F_NO_CACHE);
	run_threads(churn, THREADS);
	expect_everything_home();
	hdp_pool_destroy(pool);
}

/* A pool smaller than the threads' appetite: bursts come back short. */
Test(pool_threads, exhaustion_under_contention_loses_nothing)
{
	pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "scarce", .obj_size = 64, .obj_count = 200, .cache_size = 32,
		.mem = HDP_MEM_PLAIN,
	});
	cr_assert_not_null(pool);
	run_threads(churn, THREADS);
	{
		struct hdp_pool_stats st;

		hdp_pool_stats_get(pool, &st);
		cr_assert_eq(twice, 0);
		cr_assert_eq(st.in_use, 0);
		cr_assert_eq(st.free_shared, 200);
	}
	hdp_pool_destroy(pool);
}

static void *alloc_and_leave(void *arg)
{
	void *objs[10];

	(void)arg;
	if (hdp_pool_alloc_bulk(pool, objs, 10) == 0)
		hdp_pool_free_burst(pool, objs, 10);
	return NULL;
}

Test(pool_threads, an_exiting_thread_returns_its_cache)
{
	pthread_t t;
	struct hdp_pool_stats st;

	make_pool(64, 0);
	cr_assert_eq(pthread_create(&t, NULL, alloc_and_leave, NULL), 0);
	pthread_join(t, NULL);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.free_shared, OBJS);
	cr_assert_eq(st.caches, 0);
	cr_assert_eq(st.allocs, 10);
	cr_assert_eq(st.frees, 10);
	hdp_pool_destroy(pool);
}

/*
 * Threads one after another, each freeing into a quarantine and wiping:
 * each takes the cache the last one left, gives back what it held when it
 * exits, and what every one of them did stays in the pool's figures.
 */
Test(pool_threads, threads_one_after_another_share_a_cache_and_keep_their_counts)
{
	struct hdp_pool_stats st;
	const int n = 50;

	make_pool(64, 0);
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "on"), 0);
	cr_assert_eq(hdp_pool_set(pool, "quarantine", "on"), 0);
	for (int i = 0; i < n; i++) {
		pthread_t t;

		cr_assert_eq(pthread_create(&t, NULL, alloc_and_leave, NULL), 0);
		pthread_join(t, NULL);
		hdp_pool_stats_get(pool, &st);
		cr_assert_eq(st.caches, 0, "thread %d left its cache in use", i);
		cr_assert_eq(st.held, 0, "thread %d left objects in its quarantine", i);
		cr_assert_eq(st.free_shared, OBJS);
	}
	cr_assert_eq(st.allocs, 10 * n);
	cr_assert_eq(st.frees, 10 * n);
	cr_assert_eq(st.harden.counters[HDP_C_BYTES_WIPED], (uint64_t)10 * n * 64,
		     "every thread's wipes counted, exited or not");
	/* Then several at once: each has a cache of its own, and none is lost. */
	run_threads(churn, THREADS);
	expect_everything_home();
	hdp_pool_destroy(pool);
}

/*
 * Threads that start while others exit, wave after wave: a cache left by
 * one is taken by one new thread at most, and nothing is lost.
 */
Test(pool_threads, threads_starting_while_others_exit_never_share_a_cache)
{
	pthread_t waves[2][THREADS];
	struct hdp_pool_stats st;

	churn_rounds = 200;
	make_pool(32, 0);
	cr_assert_eq(hdp_pool_set(pool, "quarantine", "on"), 0);
	for (int i = 0; i < THREADS; i++)
		cr_assert_eq(pthread_create(&waves[0][i], NULL, churn, (void *)(uintptr_t)(i + 1)), 0);
	for (int w = 1; w < 20; w++) {
		pthread_t *last = waves[(w - 1) % 2], *next = waves[w % 2];

		/* Each new thread starts as one of the last wave exits. */
		for (int i = 0; i < THREADS; i++) {
			void *seed = (void *)(uintptr_t)(w * THREADS + i + 1);

			cr_assert_eq(pthread_create(&next[i], NULL, churn, seed), 0);
			pthread_join(last[i], NULL);
		}
	}
	for (int i = 0; i < THREADS; i++)
		pthread_join(waves[19 % 2][i], NULL);
	expect_everything_home();
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.held, 0);
	hdp_pool_destroy(pool);
	churn_rounds = ROUNDS;		/* for a run of every test in one process */
}

static pthread_barrier_t cached, destroyed;

static void *hold_cache_past_destroy(void *arg)
{
	void *obj;

	(void)arg;
	obj = hdp_pool_alloc(pool);
	hdp_pool_free(pool, obj);
	pthread_barrier_wait(&cached);
	pthread_barrier_wait(&destroyed);
	return NULL;	/* exits with a cache of a pool that is gone */
}

Test(pool_threads, a_thread_may_outlive_a_pool_it_used)
{
	pthread_t t;

	pthread_barrier_init(&cached, NULL, 2);
	pthread_barrier_init(&destroyed, NULL, 2);
	make_pool(64, 0);
	cr_assert_eq(pthread_create(&t, NULL, hold_cache_past_destroy, NULL), 0);
	pthread_barrier_wait(&cached);
	hdp_pool_destroy(pool);
	/* A new pool in the same slot must not inherit the old cache. */
	make_pool(64, 0);
	pthread_barrier_wait(&destroyed);
	pthread_join(t, NULL);
	{
		struct hdp_pool_stats st;

		hdp_pool_stats_get(pool, &st);
		cr_assert_eq(st.free_shared, OBJS);
		cr_assert_eq(st.caches, 0);
	}
	hdp_pool_destroy(pool);
}

static atomic_uint empty_handed;

static void *take_one_at_a_time(void *arg)
{
	struct hdp_pool *small = arg;

	for (int i = 0; i < 10000; i++) {
		void *obj = hdp_pool_alloc(small);

		if (!obj) {
			atomic_fetch_add(&empty_handed, 1);
			continue;
		}
		hdp_pool_free(small, obj);
	}
	return NULL;
}

/* The default cache shrinks with the pool: no thread hoards a small one. */
Test(pool_threads, a_small_pool_is_not_hoarded_by_one_thread)
{
	struct hdp_pool *small = hdp_pool_create(&(struct hdp_pool_params){
		.name = "small", .obj_size = 64, .obj_count = 64, .mem = HDP_MEM_PLAIN,
	});
	pthread_t t[4];

	cr_assert_not_null(small);
	for (int i = 0; i < 4; i++)
		pthread_create(&t[i], NULL, take_one_at_a_time, small);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	cr_assert_eq(empty_handed, 0, "%u allocations found the pool empty",
		     empty_handed);
	hdp_pool_destroy(small);
}
