// SPDX-License-Identifier: BSD-3-Clause
/*
 * Every hardening key switched at random by one thread while others
 * allocate, write inside their extents and free: a correct program, so
 * under on_violation=abort any report is a false one and kills the test.
 * At the end every object is accounted for, and no violation was counted.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>
#include <hdp/protection.h>

#include "support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define OBJS 1024
#define OBJ_SIZE 256
#define WORKERS 3
#define SECONDS 2

static struct hdp_pool *pool;
static atomic_bool stop;
static atomic_uchar held[OBJS];
static atomic_uint twice;
static atomic_ulong switches, refused;

static uint32_t next_rand(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static void *worker(void *arg)
{
	uint64_t seed = (uintptr_t)arg;
	struct hdp_extent ext[64];
	void *objs[64];

	while (!atomic_load(&stop)) {
		unsigned want = 1 + next_rand(&seed) % 64, got;

		got = hdp_pool_alloc_burst(pool, objs, want);
		for (unsigned i = 0; i < got; i++) {
			uint32_t idx = hdp_pool_obj_index(pool, hdp_untag(objs[i]));
			uint32_t start = next_rand(&seed) % OBJ_SIZE;
			uint32_t end = start + next_rand(&seed) % (OBJ_SIZE - start + 1);

			if (atomic_exchange(&held[idx], 1))
				atomic_fetch_add(&twice, 1);
			memset((char *)hdp_deref(objs[i]) + start, 0xa5, end - start);
			ext[i] = (struct hdp_extent){ start, end };
		}
		for (unsigned i = 0; i < got; i++)
			atomic_store(&held[hdp_pool_obj_index(pool, hdp_untag(objs[i]))], 0);
		if (hdp_pool_free_burst_extent(pool, objs, ext, got) != got)
			atomic_fetch_add(&twice, 1);
	}
	hdp_pool_cache_flush(pool);
	return NULL;
}

/* A value @k takes, small ones more often than not (depths, samples). */
static void random_value(const struct hdp_protection_key *k, uint64_t *seed, char *buf,
			 size_t len)
{
	uint32_t span, n = 0;

	switch (k->type) {
	case HDP_VALUE_BOOL:
		snprintf(buf, len, "%s", next_rand(seed) & 1 ? "on" : "off");
		return;
	case HDP_VALUE_CHOICE:
		while (k->choices[n])
			n++;
		snprintf(buf, len, "%s", k->choices[next_rand(seed) % n]);
		return;
	case HDP_VALUE_UINT:
	case HDP_VALUE_SIZE:
		span = k->max - k->min;
		span = next_rand(seed) & 1 ? (span < 16 ? span : 16) : span;
		snprintf(buf, len, "%u", k->min + (span == UINT32_MAX ? next_rand(seed)
								    : next_rand(seed) % (span + 1)));
		return;
	}
}

/* Every key of every protection, on_violation aside (it stays abort). */
static unsigned all_keys(const struct hdp_protection_key **keys, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < hdp_protection_core_count(); i++) {
		const struct hdp_protection *p = hdp_protection_core_get(i);

		for (unsigned k = 0; k < p->nkeys && n < max; k++)
			keys[n++] = &p->keys[k];
	}
	for (unsigned i = 0; i < hdp_protection_count_registered(); i++) {
		const struct hdp_protection *p = hdp_protection_get(i);

		for (unsigned k = 0; k < p->nkeys && n < max; k++)
			keys[n++] = &p->keys[k];
	}
	return n;
}

static void *switcher(void *arg)
{
	const struct hdp_protection_key *keys[64];
	unsigned nkeys = all_keys(keys, 64);
	uint64_t seed = (uintptr_t)arg;
	char value[32];

	(void)arg;
	while (!atomic_load(&stop)) {
		const struct hdp_protection_key *k = keys[next_rand(&seed) % nkeys];

		random_value(k, &seed, value, sizeof(value));
		if (hdp_pool_set(pool, k->name, value))
			atomic_fetch_add(&refused, 1);
		atomic_fetch_add(&switches, 1);
	}
	return NULL;
}

static void run(unsigned cache_size, unsigned flags, const char *spec)
{
	pthread_t w[WORKERS], s;
	struct hdp_pool_stats st;

	pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "stress", .obj_size = OBJ_SIZE, .obj_align = 16, .obj_count = OBJS,
		.cache_size = cache_size, .flags = flags, .mem = HDP_MEM_PLAIN,
	});
	cr_assert_not_null(pool);
	{
		struct hdp_harden_config cfg;

		hdp_harden_config_init(&cfg);
		hdp_harden_config_declare(&cfg, "stress");
		cr_assert_eq(hdp_harden_config_parse_string(&cfg, spec, "test"), 0);
		cr_assert_eq(hdp_pool_configure(pool, &cfg), 0);
	}
	capture_logs();	/* refused values are logged, and expected */
	atomic_store(&stop, false);
	for (int i = 0; i < WORKERS; i++)
		cr_assert_eq(pthread_create(&w[i], NULL, worker, (void *)(uintptr_t)(i + 1)), 0);
	cr_assert_eq(pthread_create(&s, NULL, switcher, (void *)(uintptr_t)0x5eed), 0);
	nanosleep(&(struct timespec){ .tv_sec = SECONDS }, NULL);
	atomic_store(&stop, true);
	for (int i = 0; i < WORKERS; i++)
		pthread_join(w[i], NULL);
	pthread_join(s, NULL);
	/* Whatever a protection still holds comes back too. */
	hdp_pool_set(pool, "quarantine", "off");
	cr_assert_eq(hdp_pool_drain(pool), 0, "a double free found at the drain");

	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(twice, 0, "an object was handed to two holders at once");
	cr_assert_eq(all_violations(pool), 0, "%llu violations counted in a correct program",
		     all_violations(pool));
	cr_assert_eq(st.in_use, 0);
	cr_assert_eq(st.allocs, st.frees);
	cr_assert_eq(st.free_shared + st.free_cached + st.harden.held, OBJS,
		     "%llu shared, %llu cached, %llu held of %u",
		     (unsigned long long)st.free_shared, (unsigned long long)st.free_cached,
		     (unsigned long long)st.harden.held, OBJS);
	cr_assert_gt(atomic_load(&switches), atomic_load(&refused),
		     "most switches were taken");
	hdp_pool_destroy(pool);
}

Test(pool_switch_stress, every_key_switched_under_default_caches, .timeout = 60)
{
	run(0, 0, "");
}

Test(pool_switch_stress, every_key_switched_under_small_caches, .timeout = 60)
{
	run(4, 0, "init_on_free=used,quarantine=on,quarantine_depth=16");
}

Test(pool_switch_stress, every_key_switched_without_caches, .timeout = 60)
{
	run(0, HDP_POOL_F_NO_CACHE, "tag=soft,tag_sample=2");
}
