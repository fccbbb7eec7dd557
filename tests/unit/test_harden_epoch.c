// SPDX-License-Identifier: BSD-3-Clause
/*
 * Epochs: a record is trusted only in the epoch that made it, and an epoch
 * is never used twice; the core's records and the protections' each have
 * theirs. The 16-bit epochs of the first round came back
 * after 65,535 re-enables and trusted records from the first one.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>

#include "support.h"

TestSuite(harden_epoch, .init = capture_logs);

/*
 * The reported abort: a record of "free" outliving 65,535 re-enables.
 * Wiping is what stops and resumes the records here: tag off keeps them
 * on a CPU with MTE, once tags were handed out (harden.h).
 */
Test(harden_epoch, records_from_an_old_epoch_never_come_back)
{
	struct hdp_pool *pool = hardened_pool("umem", 64, 2, HDP_POOL_F_NO_CACHE,
					      "init_on_free=on,init_check=off,tag=off");
	struct hdp_pool_stats st;
	void *a, *b;

	cr_assert_not_null(pool, "%s", captured_logs());
	a = hdp_pool_alloc(pool);
	hdp_pool_free(pool, a);		/* recorded: free, in epoch 1 */
	for (int i = 0; i < 65535; i++) {
		cr_assert_eq(hdp_pool_set(pool, "init_on_free", "off"), 0);
		if (i == 0) {
			/* Unrecorded while off: allocated and kept. */
			b = hdp_pool_alloc(pool);
			cr_assert_eq(hdp_untag(b), hdp_untag(a));
		}
		cr_assert_eq(hdp_pool_set(pool, "init_on_free", "on"), 0);
	}
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.epoch, 65536);
	/* Freed now, it must not look like the free recorded 65,535 epochs ago. */
	hdp_pool_free(pool, b);
	cr_assert_eq(violations(pool, HDP_V_DOUBLE_FREE), 0);
	hdp_pool_destroy(pool);
}

Test(harden_epoch, the_last_epoch_refuses_to_turn_the_hooks_on_again)
{
	struct hdp_pool *pool = hardened_pool("umem", 64, 2, 0, "init_on_free=on,tag=off");
	struct hdp_pool_stats st;
	void *obj;

	cr_assert_not_null(pool, "%s", captured_logs());
	cr_assert_eq(hdp_pool_set(pool, "init_check", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "off"), 0);
	set_epoch(pool, HDP_EPOCH_MAX - 1);
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "on"), 0);	/* the last one */
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "on"), -EOVERFLOW);
	cr_assert(log_contains("every epoch has been used"), "%s", captured_logs());
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.epoch, HDP_EPOCH_MAX);
	cr_assert_eq(st.harden.flags & HDP_HF_HOOKS, 0, "nothing half applied");
	/* Changes that keep the hooks off still work. */
	cr_assert_eq(hdp_pool_set(pool, "bounds", "off"), 0);
	obj = hdp_pool_alloc(pool);
	hdp_pool_free(pool, obj);
	hdp_pool_destroy(pool);
}

/* A double free is still precise across any number of switches. */
Test(harden_epoch, a_double_free_after_many_switches_is_still_caught, .signal = SIGABRT)
{
	struct hdp_pool *pool = hardened_pool("umem", 64, 2, HDP_POOL_F_NO_CACHE,
					      "init_on_free=off,tag=soft,tag_sample=1");
	void *a;

	for (int i = 0; i < 1000; i++) {
		hdp_pool_set(pool, "tag", "off");
		hdp_pool_set(pool, "tag", "soft");
	}
	a = hdp_pool_alloc(pool);
	hdp_pool_free(pool, a);
	hdp_pool_free(pool, a);
}

/*
 * A registered protection turned on starts the protections' epoch, not
 * the core's: the core's records were kept all along. (One shared epoch
 * made every record unknown: a live tagged handle's copies were refused
 * as tag_mismatch, and a double free across the switch was taken for a
 * first free, which put one object in the cache twice.)
 */
static void copy_through_a_live_handle_after(const char *key)
{
	struct hdp_pool *pool = hardened_pool("live", 256, 1024, 0,
					      "on_violation=report,tag=soft,tag_sample=1,"
					      "init_on_free=on");
	char buf[16] = { 0 };
	void *a;

	cr_assert_not_null(pool, "%s", captured_logs());
	a = hdp_pool_alloc(pool);
	cr_assert_neq(hdp_tag_of(a), 0);
	cr_assert_eq(hdp_pool_copy_in(pool, a, buf, sizeof(buf)), 0);
	cr_assert_eq(hdp_pool_set(pool, key, "on"), 0, "%s", captured_logs());
	cr_expect_eq(hdp_pool_copy_in(pool, a, buf, sizeof(buf)), 0,
		     "%s on: a good copy through a live handle refused", key);
	cr_expect_eq(hdp_pool_copy_out(pool, buf, a, sizeof(buf)), 0, "%s on", key);
	hdp_pool_free(pool, a);
	cr_expect_eq(all_violations(pool), 0, "%s on: %s", key, captured_logs());
	hdp_pool_destroy(pool);
}

Test(harden_epoch, a_live_handle_copies_after_shuffle_goes_on)
{
	copy_through_a_live_handle_after("shuffle");
}

Test(harden_epoch, a_live_handle_copies_after_quarantine_goes_on)
{
	copy_through_a_live_handle_after("quarantine");
}

Test(harden_epoch, a_live_handle_copies_after_redzone_goes_on)
{
	copy_through_a_live_handle_after("redzone");
}

Test(harden_epoch, a_double_free_across_a_protection_turned_on_is_caught)
{
	struct hdp_pool *pool = hardened_pool("twice", 256, 64, 0,
					      "on_violation=report,tag=soft,tag_sample=1,"
					      "init_on_free=on");
	void *a, *x, *y;

	cr_assert_not_null(pool, "%s", captured_logs());
	a = hdp_pool_alloc(pool);
	hdp_pool_free(pool, a);
	cr_assert_eq(hdp_pool_set(pool, "shuffle", "on"), 0);
	hdp_pool_free(pool, a);
	cr_expect_eq(violations(pool, HDP_V_DOUBLE_FREE), 1, "%s", captured_logs());
	cr_assert_eq(hdp_pool_set(pool, "shuffle", "off"), 0);
	x = hdp_pool_alloc(pool);
	y = hdp_pool_alloc(pool);
	cr_expect_neq(hdp_untag(x), hdp_untag(y), "one object handed out twice");
	hdp_pool_free(pool, x);
	hdp_pool_free(pool, y);
	hdp_pool_destroy(pool);
}

/* Threads copying through handles they hold while redzone goes on and off. */
static struct hdp_pool *holders_pool;
static atomic_bool holders_stop;
static atomic_uint holders_refused;

static void *hold_and_copy(void *arg)
{
	char buf[16] = { 0 };
	void *objs[8];

	(void)arg;
	while (!atomic_load(&holders_stop)) {
		unsigned n = hdp_pool_alloc_burst(holders_pool, objs, 8);

		for (int r = 0; r < 20; r++)
			for (unsigned i = 0; i < n; i++)
				if (hdp_pool_copy_in(holders_pool, objs[i], buf, sizeof(buf)))
					atomic_fetch_add(&holders_refused, 1);
		hdp_pool_free_burst(holders_pool, objs, n);
	}
	hdp_pool_cache_flush(holders_pool);
	return NULL;
}

Test(harden_epoch, copies_through_held_handles_while_a_protection_toggles, .timeout = 60)
{
	pthread_t t[2];

	holders_pool = hardened_pool("held", 256, 1024, 0,
				     "on_violation=report,tag=soft,tag_sample=1,init_on_free=on");
	cr_assert_not_null(holders_pool, "%s", captured_logs());
	for (int i = 0; i < 2; i++)
		cr_assert_eq(pthread_create(&t[i], NULL, hold_and_copy, NULL), 0);
	for (int i = 0; i < 2000; i++)
		hdp_pool_set(holders_pool, "redzone", i & 1 ? "off" : "on");
	atomic_store(&holders_stop, true);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	cr_expect_eq(holders_refused, 0, "%u good copies refused", holders_refused);
	cr_expect_eq(all_violations(holders_pool), 0, "%s", captured_logs());
	hdp_pool_destroy(holders_pool);
}

/*
 * The protections' epoch is 31 bits, as redzone's records keep it, and is
 * never reused: at its last, turning a protection on again is refused.
 * (Folded from 48 bits, it came back after 2^31 - 1 re-enables, and an
 * arm from then was trusted: a false redzone_overwritten.)
 */
Test(harden_epoch, the_protections_last_epoch_refuses_rather_than_wraps)
{
	struct hdp_pool *pool = hardened_pool("rz", 2048, 4, HDP_POOL_F_NO_CACHE,
					      "on_violation=report,tag=off,init_on_free=on,"
					      "redzone=off");
	struct hdp_pool_stats st;

	cr_assert_not_null(pool, "%s", captured_logs());
	set_protections_epoch(pool, (uint32_t)HDP_PROT_EPOCH_MAX - 1);
	cr_assert_eq(hdp_pool_set(pool, "redzone", "on"), 0, "%s", captured_logs());
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.protections_epoch, HDP_PROT_EPOCH_MAX);
	cr_assert_eq(hdp_pool_set(pool, "redzone", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "redzone", "on"), -EOVERFLOW);
	cr_assert(log_contains("every epoch has been used"), "%s", captured_logs());
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.protections_epoch, HDP_PROT_EPOCH_MAX, "never wrapped");
	cr_assert_eq(hdp_pool_set(pool, "tag_sample", "3"), 0, "what needs no epoch still works");
	hdp_pool_destroy(pool);
}
