// SPDX-License-Identifier: BSD-3-Clause
/* Sampled tagging with the soft backend: KASAN's tag-mode cases. */
#include <criterion/criterion.h>

#include <hdp/pool.h>

#include <errno.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

#include "support.h"

TestSuite(harden_tag, .init = capture_logs);

#define SOFT "tag=soft,on_violation=report"

static struct hdp_pool *tagged(const char *extra, unsigned count)
{
	char spec[256];
	struct hdp_pool *pool;

	snprintf(spec, sizeof(spec), SOFT "%s%s", *extra ? "," : "", extra);
	pool = hardened_pool("tagged", 64, count, 0, spec);
	cr_assert_not_null(pool, "%s", captured_logs());
	return pool;
}

static void expect_mismatch(struct hdp_pool *pool, int ret, unsigned long long n)
{
	cr_assert_eq(ret, -EFAULT);
	cr_assert_eq(violations(pool, HDP_V_TAG_MISMATCH), n, "%s", captured_logs());
	cr_assert(log_contains("violation: tag_mismatch in pool 'tagged'"), "%s",
		  captured_logs());
}

Test(harden_tag, the_match_all_tag_is_never_handed_out)
{
	struct hdp_pool *pool = tagged("", 3);

	for (int i = 0; i < 5000; i++) {
		void *obj = hdp_pool_alloc(pool);

		cr_assert_neq(hdp_tag_of(obj), 0);
		hdp_pool_free(pool, obj);
	}
}

Test(harden_tag, a_slot_never_gets_its_previous_or_a_neighbours_tag)
{
	struct hdp_pool *pool = tagged("", 3);
	void *objs[3];

	for (int round = 0; round < 2000; round++) {
		unsigned before;

		cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 3), 0);
		for (int i = 0; i < 3; i++)
			for (int j = 0; j < 3; j++)
				if (hdp_untag(objs[i]) == (char *)hdp_untag(objs[j]) + 64)
					cr_assert_neq(hdp_tag_of(objs[i]), hdp_tag_of(objs[j]),
						      "neighbours share tag %u", hdp_tag_of(objs[i]));
		before = hdp_tag_of(objs[0]);
		hdp_pool_free(pool, objs[0]);
		objs[0] = hdp_pool_alloc(pool);
		cr_assert_neq(hdp_tag_of(objs[0]), before, "slot reused its tag");
		hdp_pool_free_burst(pool, objs, 3);
	}
}

/*
 * One object alone: each allocation must avoid 0 and the tag its last one
 * had, and every other tag is as likely as the rest (14 of them): each
 * comes up, and none far more often than the others.
 */
Test(harden_tag, every_allowed_tag_is_as_likely_as_the_others)
{
	struct hdp_pool *pool = tagged("", 1);
	unsigned seen[16] = { 0 }, prev = 0, rounds = 28000;

	for (unsigned i = 0; i < rounds; i++) {
		void *obj = hdp_pool_alloc(pool);
		unsigned tag = hdp_tag_of(obj);

		cr_assert(tag != 0 && tag != prev, "tag %u after %u", tag, prev);
		seen[tag]++;
		prev = tag;
		hdp_pool_free(pool, obj);
	}
	/* 2000 expected each; a uniform draw stays within 20 % of it. */
	for (unsigned t = 1; t < 16; t++)
		cr_assert(seen[t] > rounds / 15 * 8 / 10 && seen[t] < rounds / 14 * 12 / 10,
			  "tag %u came up %u times in %u", t, seen[t], rounds);
}

Test(harden_tag, read_after_free_is_caught)
{
	struct hdp_pool *pool = tagged("", 4);
	char *obj = hdp_pool_alloc(pool), buf[8];

	cr_assert_eq(hdp_pool_copy_out(pool, buf, obj, 8), 0);
	hdp_pool_free(pool, obj);
	expect_mismatch(pool, hdp_pool_copy_out(pool, buf, obj, 8), 1);
	cr_assert(log_contains("memory tag 0"), "%s", captured_logs());
}

Test(harden_tag, write_after_free_is_caught)
{
	struct hdp_pool *pool = tagged("", 4);
	char *obj = hdp_pool_alloc(pool);

	hdp_pool_free(pool, obj);
	expect_mismatch(pool, hdp_pool_copy_in(pool, obj, "boom", 4), 1);
	cr_assert_eq(((char *)hdp_untag(obj))[0], 0, "nothing was written");
}

Test(harden_tag, an_old_handle_still_faults_after_the_slot_is_reused)
{
	struct hdp_pool *pool = tagged("", 1);
	char *old = hdp_pool_alloc(pool), *reused, buf[4];

	hdp_pool_free(pool, old);
	reused = hdp_pool_alloc(pool);
	cr_assert_eq(hdp_untag(reused), hdp_untag(old));
	expect_mismatch(pool, hdp_pool_copy_out(pool, buf, old, 4), 1);
	hdp_pool_free(pool, reused);
	expect_mismatch(pool, hdp_pool_copy_out(pool, buf, old, 4), 2);
}

Test(harden_tag, overflow_into_the_right_neighbour_is_caught)
{
	struct hdp_pool *pool = tagged("bounds=off", 4);
	void *objs[2];
	char *left;

	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 2), 0);
	left = hdp_untag(objs[0]) < hdp_untag(objs[1]) ? objs[0] : objs[1];
	cr_assert_eq(hdp_pool_copy_in(pool, left + 60, "1234", 4), 0);
	expect_mismatch(pool, hdp_pool_copy_in(pool, left + 60, "12345", 5), 1);
	cr_assert(log_contains("at byte 4 of the access"), "%s", captured_logs());
}

Test(harden_tag, underflow_into_the_left_neighbour_is_caught)
{
	struct hdp_pool *pool = tagged("bounds=off", 4);
	void *objs[2];
	char *right;

	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 2), 0);
	right = hdp_untag(objs[0]) > hdp_untag(objs[1]) ? objs[0] : objs[1];
	expect_mismatch(pool, hdp_pool_copy_in(pool, right - 1, "xy", 2), 1);
}

Test(harden_tag, a_double_free_is_caught_at_once)
{
	struct hdp_pool *pool = tagged("", 4);
	void *obj = hdp_pool_alloc(pool);
	struct hdp_pool_stats st;

	cr_assert_eq(hdp_pool_free_burst(pool, &obj, 1), 1);
	cr_assert_eq(hdp_pool_free_burst(pool, &obj, 1), 0);
	cr_assert_eq(violations(pool, HDP_V_DOUBLE_FREE), 1);
	cr_assert(log_contains("the object is already free"), "%s", captured_logs());
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 0);
	cr_assert_eq(hdp_pool_drain(pool), 0, "nothing reached the free stack twice");
}

Test(harden_tag, freeing_through_a_stale_handle_is_an_invalid_free)
{
	struct hdp_pool *pool = tagged("", 1);
	void *old = hdp_pool_alloc(pool), *now;

	hdp_pool_free(pool, old);
	now = hdp_pool_alloc(pool);
	cr_assert_eq(hdp_pool_free_burst(pool, &old, 1), 0);
	cr_assert_eq(violations(pool, HDP_V_INVALID_FREE), 1);
	cr_assert(log_contains("a stale handle"), "%s", captured_logs());
	cr_assert_eq(hdp_pool_free_burst(pool, &now, 1), 1, "the owner still frees it");
}

Test(harden_tag, an_interior_or_foreign_free_stays_a_free_violation)
{
	struct hdp_pool *pool = tagged("", 2);
	char *obj = hdp_pool_alloc(pool);
	void *inner = obj + 8;
	int stray;
	void *foreign = &stray;

	cr_assert_eq(hdp_pool_free_burst(pool, &inner, 1), 0);
	cr_assert_eq(hdp_pool_free_burst(pool, &foreign, 1), 0);
	cr_assert_eq(violations(pool, HDP_V_FREE_INTERIOR), 1);
	cr_assert_eq(violations(pool, HDP_V_FREE_FOREIGN), 1);
}

Test(harden_tag, read_after_free_aborts_by_default, .signal = SIGABRT)
{
	struct hdp_pool *pool = hardened_pool("tagged", 64, 4, 0, "tag=soft");
	char *obj = hdp_pool_alloc(pool), buf[8];

	hdp_pool_free(pool, obj);
	hdp_pool_copy_out(pool, buf, obj, 8);
}

Test(harden_tag, without_tags_stale_handles_go_unseen)
{
	struct hdp_pool *pool = hardened_pool("tagged", 64, 4, 0,
					      "tag=off,init_check=off,on_violation=report");
	char *obj = hdp_pool_alloc(pool), buf[8];

	cr_assert_eq(hdp_tag_of(obj), 0);
	hdp_pool_free(pool, obj);
	cr_assert_eq(hdp_pool_copy_out(pool, buf, obj, 8), 0);
	cr_assert_eq(violations(pool, HDP_V_TAG_MISMATCH), 0);
}

/* KASAN's sampling: the first allocation is tagged, then one in every N. */
Test(harden_tag, sampling_tags_the_first_then_one_in_n)
{
	struct hdp_pool *pool = tagged("tag_sample=4", 64);
	void *objs[64];
	struct hdp_pool_stats st;

	for (int i = 0; i < 64; i++) {
		objs[i] = hdp_pool_alloc(pool);
		cr_assert_eq(hdp_tag_of(objs[i]) != 0, i % 4 == 0, "allocation %d", i);
	}
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.counters[HDP_C_OBJS_TAGGED], 16);
	hdp_pool_free_burst(pool, objs, 64);
}

Test(harden_tag, objects_below_tag_sample_min_are_always_tagged)
{
	struct hdp_pool *pool = tagged("tag_sample=1000,tag_sample_min=128", 16);

	for (int i = 0; i < 16; i++)
		cr_assert_neq(hdp_tag_of(hdp_pool_alloc(pool)), 0);
}

Test(harden_tag, a_sampled_out_object_is_never_checked)
{
	struct hdp_pool *pool = tagged("tag_sample=1000,init_check=off", 4);
	char *first = hdp_pool_alloc(pool), *second = hdp_pool_alloc(pool), buf[4];

	cr_assert_neq(hdp_tag_of(first), 0);
	cr_assert_eq(hdp_tag_of(second), 0, "sampled out: the match-all tag");
	hdp_pool_free(pool, second);
	cr_assert_eq(hdp_pool_copy_out(pool, buf, second, 4), 0);
	cr_assert_eq(violations(pool, HDP_V_TAG_MISMATCH), 0);
}

struct sample_run {
	struct hdp_pool *pool;
	unsigned tagged;
};

static void *count_tagged(void *arg)
{
	struct sample_run *r = arg;

	for (int i = 0; i < 10000; i++) {
		void *obj = hdp_pool_alloc(r->pool);

		r->tagged += hdp_tag_of(obj) != 0;
		hdp_pool_free(r->pool, obj);
	}
	return NULL;
}

Test(harden_tag, each_thread_samples_on_its_own)
{
	struct hdp_pool *pool = tagged("tag_sample=10", 64);
	struct sample_run runs[4];
	pthread_t t[4];

	for (int i = 0; i < 4; i++) {
		runs[i] = (struct sample_run){ .pool = pool };
		pthread_create(&t[i], NULL, count_tagged, &runs[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		cr_assert_eq(runs[i].tagged, 1000, "thread %d tagged %u", i, runs[i].tagged);
	}
}

static atomic_bool stop;
static atomic_uint bad;

static void *churn(void *arg)
{
	struct hdp_pool *pool = arg;
	void *objs[32];
	char buf[16];

	while (!atomic_load(&stop)) {
		unsigned n = hdp_pool_alloc_burst(pool, objs, 32);

		for (unsigned i = 0; i < n; i++) {
			if (hdp_pool_copy_in(pool, objs[i], "0123456789abcdef", 16) ||
			    hdp_pool_copy_out(pool, buf, objs[i], 16) ||
			    memcmp(buf, "0123456789abcdef", 16))
				atomic_fetch_add(&bad, 1);
		}
		if (hdp_pool_free_burst(pool, objs, n) != n)
			atomic_fetch_add(&bad, 1);
	}
	return NULL;
}

/* Protections switched while threads allocate: no false finding, no loss. */
Test(harden_tag, runtime_switches_under_concurrent_allocation)
{
	static const char *const keys[][2] = {
		{ "tag", "off" }, { "tag", "soft" }, { "init_on_free", "off" },
		{ "init_on_free", "on" }, { "bounds", "off" }, { "bounds", "on" },
		{ "tag_sample", "3" }, { "bounds_lookup", "tree" },
		{ "init_on_alloc", "on" }, { "bounds_lookup", "fast" },
	};
	struct hdp_pool *pool = hardened_pool("switched", 64, 2048, 0,
					      "init_check=off,on_violation=report");
	struct hdp_pool_stats st;
	pthread_t t[3];

	cr_assert_not_null(pool, "%s", captured_logs());
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, churn, pool);
	for (int i = 0; i < 300; i++)
		cr_assert_eq(hdp_pool_set(pool, keys[i % 10][0], keys[i % 10][1]), 0);
	atomic_store(&stop, true);
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(bad, 0, "%s", captured_logs());
	cr_assert_eq(st.in_use, 0);
	/* tag_sample=3 and init_on_alloc=on change the word only once. */
	cr_assert_geq(st.harden.changes, 30 * 8);
	for (int k = 0; k < HDP_V__COUNT; k++)
		cr_assert_eq(st.harden.violations[k], 0, "%s: %s",
			     hdp_violation_name((enum hdp_violation_kind)k), captured_logs());
	cr_assert_eq(hdp_pool_set(pool, "tag_sample", "0"), -EINVAL);
	cr_assert(log_contains("pool 'switched': key 'tag_sample', value '0'"), "%s",
		  captured_logs());
}

/* Tracking alone (here: init_on_free) makes double frees precise too. */
Test(harden_tag, a_double_free_is_caught_at_once_without_tags)
{
	struct hdp_pool *pool = hardened_pool("untagged", 64, 64, 0,
					      "tag=off,on_violation=report");
	void *obj;

	cr_assert_not_null(pool);
	obj = hdp_pool_alloc(pool);
	cr_assert_eq(hdp_tag_of(obj), 0);
	cr_assert_eq(hdp_pool_free_burst(pool, &obj, 1), 1);
	cr_assert_eq(hdp_pool_free_burst(pool, &obj, 1), 0);
	cr_assert_eq(violations(pool, HDP_V_DOUBLE_FREE), 1);
}
