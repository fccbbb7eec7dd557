// SPDX-License-Identifier: BSD-3-Clause
/*
 * Threads: two workers allocate, write and free while the main thread
 * switches protections at run time (hdp_pool_set). Each thread has its
 * own cache, so the workers take no lock on a hit; a switch takes effect
 * between bursts. Exits 0 when nothing was reported and every object
 * came back.
 *
 *   cc threads.c $(pkg-config --cflags --libs hdp) -pthread
 */
#include <hdp/pool.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define BURST 32

static atomic_bool stop;

static void *worker(void *arg)
{
	struct hdp_pool *pool = arg;
	void *objs[BURST];

	while (!atomic_load(&stop)) {
		unsigned n = hdp_pool_alloc_burst(pool, objs, BURST);

		for (unsigned i = 0; i < n; i++)
			memset(hdp_deref(objs[i]), 0xa5, 256);
		hdp_pool_free_burst(pool, objs, n);
	}
	/* A thread that is done hands its cache back. */
	hdp_pool_cache_flush(pool);
	return NULL;
}

int main(void)
{
	static const char *const switches[][2] = {
		{ "tag", "soft" }, { "quarantine", "on" }, { "init_check", "off" },
		{ "init_on_free", "used" }, { "init_check", "on" }, { "tag_sample", "4" },
		{ "quarantine", "off" }, { "tag", "off" }, { "init_on_free", "on" },
	};
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "shared", .obj_size = 256, .obj_count = 4096,
		.mem = HDP_MEM_PLAIN, .on_violation = HDP_POLICY_REPORT,
	});
	struct hdp_pool_stats st;
	pthread_t th[2];
	unsigned long long reported = 0;

	if (!pool)
		return 1;
	for (int i = 0; i < 2; i++)
		if (pthread_create(&th[i], NULL, worker, pool))
			return 1;
	for (int round = 0; round < 200; round++) {
		const char *const *s = switches[round % (sizeof(switches) / sizeof(switches[0]))];

		if (hdp_pool_set(pool, s[0], s[1])) {
			fprintf(stderr, "threads: %s=%s refused\n", s[0], s[1]);
			return 1;
		}
		/* Let the workers run a while under each profile. */
		nanosleep(&(struct timespec){ .tv_nsec = 200000 }, NULL);
	}
	atomic_store(&stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	hdp_pool_drain(pool);
	hdp_pool_stats_get(pool, &st);
	for (int k = 0; k < HDP_V_MAX; k++)
		reported += st.harden.violations[k];
	printf("threads: %llu allocations, %llu in use, %llu reported\n",
	       (unsigned long long)st.allocs, (unsigned long long)st.in_use, reported);
	hdp_pool_destroy(pool);
	return st.in_use == 0 && reported == 0 ? 0 : 1;
}
