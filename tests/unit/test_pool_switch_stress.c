// SPDX-License-Identifier: BSD-3-Clause
/*
 * Every hardening key switched at random by one thread while others
 * allocate, write inside their extents and free: a correct program, so
 * under on_violation=abort any report is a false one and kills the test.
 * At the end every object is accounted for, and no violation was counted.
 * Then handles held across switches: every ordered pair of every key's
 * values (held_handles.c), and threads that keep handles for several
 * rounds of tag and init_on_free switches and use each after every one.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>
#include <hdp/protection.h>

#include "held_handles.h"
#include "support.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
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

static void *switcher(void *arg)
{
	const struct hdp_protection_key *keys[64];
	unsigned nkeys = held_all_keys(keys, 64);
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

/*
 * A handle held across every ordered pair of every key's values, then
 * back, under a profile: copied into, copied out of and written through
 * after each switch, then freed. A soft-tagged handle held while nothing
 * kept records (tag off, no wiping) meets records of an earlier epoch
 * when they resume: unknown, not tag 0, so its copies pass.
 */
static void walk(const char *base)
{
	struct held_walk w;

	capture_logs();	/* refused switches are logged, and expected */
	held_walk(base, &w, NULL);
	cr_expect_eq(w.failed, 0, "profile '%s': %u of %u pairs went wrong; the first: %s", base,
		     w.failed, w.pairs, w.first);
	cr_expect_gt(w.pairs, w.refused, "profile '%s': every switch was refused", base);
}

Test(pool_switch_stress, handles_held_across_every_pair_under_the_defaults, .timeout = 120)
{
	walk("");
}

Test(pool_switch_stress, handles_held_across_every_pair_with_soft_tags, .timeout = 120)
{
	walk("tag=soft");
}

Test(pool_switch_stress, handles_held_across_every_pair_with_tags_keeping_records_alone,
     .timeout = 120)
{
	walk("tag=soft,init_on_free=off,init_check=off");
}

Test(pool_switch_stress, handles_held_across_every_pair_with_nothing_keeping_records,
     .timeout = 120)
{
	walk("tag=off,init_on_free=off,init_check=off");
}

Test(pool_switch_stress, handles_held_across_every_pair_with_every_protection_on,
     .timeout = 120)
{
	walk("init_on_free=used,tag_sample=2,redzone=on,quarantine=on,quarantine_depth=8,"
	     "shuffle=on");
}

/*
 * Threads holding handles across switches of tag and init_on_free, made
 * by hdp_pool_set and hdp_pool_configure in turn. Round by round: the
 * switcher applies the next switch; each worker renews one of its HOLD
 * batches (so a batch lives HOLD rounds, and some batch was handed out
 * under every state of the last HOLD), copies into, out of and writes
 * through every handle it holds, and says so; only then comes the next
 * switch, while the workers go on copying and churning. The cycle stops
 * every record (tag off, no wiping) and starts them again with handles
 * held that were tagged before: each round is checked, none left to
 * chance.
 */
#define HOLD 8
#define PER 4
#define ROUNDS 1040
#define HELD_WORKERS 3

/* Each step: a key and its value, or (key NULL) a whole profile to configure. */
static const char *const cycle[][2] = {
	{ "tag", "soft" },
	{ "init_on_free", "used" },
	{ "tag", "off" },
	{ "init_on_free", "off" },	/* nothing keeps records */
	{ "tag", "auto" },		/* they resume: a new epoch, tagged handles held */
	{ NULL, "init_check=off,tag=off,init_on_free=off" },
	{ NULL, "init_check=off,tag=soft,tag_sample=2,init_on_free=off" },
	{ "init_on_free", "on" },
	{ "tag", "off" },
	{ NULL, "init_check=off,tag=auto,init_on_free=used" },
	{ "init_on_free", "off" },
	{ "tag", "off" },
	{ NULL, "init_check=off,tag=soft,init_on_free=off" },
};
#define CYCLE (sizeof(cycle) / sizeof(cycle[0]))

static struct hdp_pool *held_pool;
static atomic_uint round_now;		/* ROUNDS + 1: stop */
static atomic_uint round_done[HELD_WORKERS];
static atomic_uint held_errors;

static void use_held(void *const *h, unsigned n)
{
	unsigned char in[32], out[32];

	for (unsigned i = 0; i < n; i++) {
		memset(in, 0x30 + (int)i, sizeof(in));
		if (hdp_pool_copy_in(held_pool, h[i], in, sizeof(in)) ||
		    hdp_pool_copy_out(held_pool, out, h[i], sizeof(out)) ||
		    memcmp(in, out, sizeof(in)))
			atomic_fetch_add(&held_errors, 1);
		memset((char *)hdp_deref(h[i]) + 32, 0x77, 32);
	}
}

static void free_held(void *const *h, unsigned n)
{
	struct hdp_extent ext[PER];

	for (unsigned i = 0; i < n; i++)
		ext[i] = (struct hdp_extent){ 0, 64 };
	if (hdp_pool_free_burst_extent(held_pool, h, ext, n) != n)
		atomic_fetch_add(&held_errors, 1);
}

static void *hold_across_rounds(void *arg)
{
	unsigned id = (unsigned)(uintptr_t)arg, n[HOLD] = { 0 }, seen = 0, r;
	void *h[HOLD][PER], *churn[PER];

	while ((r = atomic_load(&round_now)) <= ROUNDS) {
		unsigned c;

		if (r != seen) {
			/* Renew the batch that has lived HOLD rounds. */
			free_held(h[r % HOLD], n[r % HOLD]);
			n[r % HOLD] = hdp_pool_alloc_burst(held_pool, h[r % HOLD], PER);
		}
		for (unsigned b = 0; b < HOLD; b++)
			use_held(h[b], n[b]);
		/* Bursts of their own, while the next switch is made. */
		c = hdp_pool_alloc_burst(held_pool, churn, PER);
		use_held(churn, c);
		free_held(churn, c);
		if (r != seen) {
			seen = r;
			atomic_store(&round_done[id], r);
		} else {
			sched_yield();	/* the others' turn: two CPUs, four threads */
		}
	}
	for (unsigned b = 0; b < HOLD; b++)
		free_held(h[b], n[b]);
	hdp_pool_cache_flush(held_pool);
	return NULL;
}

static int configure_held(const char *spec)
{
	static struct hdp_harden_config cfg;	/* large; the switcher's alone */

	hdp_harden_config_init(&cfg);
	hdp_harden_config_declare(&cfg, "heldmt");
	if (hdp_harden_config_parse_string(&cfg, spec, "test"))
		return -EINVAL;
	return hdp_pool_configure(held_pool, &cfg);
}

Test(pool_switch_stress, threads_hold_handles_across_tag_and_init_on_free_switches,
     .timeout = 120)
{
	pthread_t w[HELD_WORKERS];
	struct hdp_pool_stats st;
	unsigned not_taken = 0;

	capture_logs();
	held_pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "heldmt", .obj_size = 256, .obj_align = 16, .obj_count = 1024,
		.mem = HDP_MEM_PLAIN,
	});
	cr_assert_not_null(held_pool);
	cr_assert_eq(configure_held("init_check=off,tag=soft,init_on_free=off"), 0, "%s",
		     captured_logs());
	atomic_store(&round_now, 0);
	for (unsigned i = 0; i < HELD_WORKERS; i++) {
		atomic_store(&round_done[i], 0);
		cr_assert_eq(pthread_create(&w[i], NULL, hold_across_rounds, (void *)(uintptr_t)i), 0);
	}
	for (unsigned r = 1; r <= ROUNDS; r++) {
		const char *const *step = cycle[r % CYCLE];

		if (step[0] ? hdp_pool_set(held_pool, step[0], step[1]) : configure_held(step[1]))
			not_taken++;
		atomic_store(&round_now, r);
		for (unsigned i = 0; i < HELD_WORKERS; i++)
			while (atomic_load(&round_done[i]) != r)
				sched_yield();
	}
	atomic_store(&round_now, ROUNDS + 1);
	for (unsigned i = 0; i < HELD_WORKERS; i++)
		pthread_join(w[i], NULL);
	cr_assert_eq(hdp_pool_drain(held_pool), 0, "a double free found at the drain");
	hdp_pool_stats_get(held_pool, &st);
	cr_expect_eq(not_taken, 0, "switches refused: %s", captured_logs());
	cr_expect_eq(atomic_load(&held_errors), 0, "copies through held handles went wrong");
	cr_expect_eq(all_violations(held_pool), 0, "%llu violations counted in a correct program",
		     all_violations(held_pool));
	cr_expect_eq(st.in_use, 0);
	cr_expect_eq(st.allocs, st.frees);
	hdp_pool_destroy(held_pool);
}
