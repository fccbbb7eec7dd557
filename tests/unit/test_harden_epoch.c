// SPDX-License-Identifier: BSD-3-Clause
/*
 * Epochs: a record is trusted only in the epoch that made it, and an epoch
 * is never used twice. The 16-bit epochs of the first round came back
 * after 65,535 re-enables and trusted records from the first one.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>

#include <errno.h>
#include <signal.h>

#include "support.h"

TestSuite(harden_epoch, .init = capture_logs);

/* The reported abort: a record of "free" outliving 65,535 re-enables. */
Test(harden_epoch, records_from_an_old_epoch_never_come_back)
{
	struct hdp_pool *pool = hardened_pool("umem", 64, 2, HDP_POOL_F_NO_CACHE,
					      "init_on_free=off,tag=soft,tag_sample=1");
	struct hdp_pool_stats st;
	void *a, *b;

	cr_assert_not_null(pool, "%s", captured_logs());
	a = hdp_pool_alloc(pool);
	hdp_pool_free(pool, a);		/* recorded: free, in epoch 1 */
	for (int i = 0; i < 65535; i++) {
		cr_assert_eq(hdp_pool_set(pool, "tag", "off"), 0);
		if (i == 0) {
			/* Unrecorded while off: allocated and kept. */
			b = hdp_pool_alloc(pool);
			cr_assert_eq(hdp_untag(b), hdp_untag(a));
		}
		cr_assert_eq(hdp_pool_set(pool, "tag", "soft"), 0);
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
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "init_check", "off"), 0);
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
