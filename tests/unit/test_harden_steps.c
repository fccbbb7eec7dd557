// SPDX-License-Identifier: BSD-3-Clause
/*
 * The core's steps in a burst: with init and tag both on, each object is
 * checked, wiped and tagged once each way; copies meet bounds before
 * tags; and a new epoch starts whenever something that keeps records is
 * turned on, whatever else stays on.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>

#include <errno.h>
#include <string.h>

#include "support.h"

TestSuite(harden_steps, .init = capture_logs);

static struct hdp_pool *pool_with(const char *spec, unsigned count)
{
	struct hdp_pool *pool = hardened_pool("steps", 64, count, 0, spec);

	cr_assert_not_null(pool, "%s", captured_logs());
	return pool;
}

/*
 * With init and tag both on, each object is tagged once and wiped once
 * each way. Twice would tag 16, wipe twice on allocation, and on free
 * find its own record already freed (16 double frees). Off, nothing runs.
 */
Test(harden_steps, init_and_tag_run_once_per_object)
{
	struct hdp_pool *pool = pool_with("init_on_alloc=on,init_on_free=on,init_check=on,"
					  "init_check_sample=1,tag=soft,tag_sample=1,"
					  "on_violation=report", 8);
	struct hdp_pool_stats st;
	void *objs[8];

	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 8), 0);
	for (unsigned i = 0; i < 8; i++)
		cr_assert_neq(hdp_tag_of(objs[i]), 0, "handed out tagged: the pass's alias");
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.counters[HDP_C_OBJS_TAGGED], 8);
	cr_assert_eq(st.harden.counters[HDP_C_BYTES_WIPED], 8 * 64);
	cr_assert_eq(hdp_pool_free_burst(pool, objs, 8), 8);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(all_violations(pool), 0, "%s", captured_logs());
	cr_assert_eq(st.harden.counters[HDP_C_BYTES_WIPED], 2 * 8 * 64);
	cr_assert_eq(st.harden.counters[HDP_C_CHECKS], 8, "one double-free check each");
	cr_assert_eq(st.in_use, 0);

	cr_assert_eq(hdp_pool_set(pool, "init_check", "off"), 0, "%s", captured_logs());
	cr_assert_eq(hdp_pool_set(pool, "init_on_alloc", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "tag", "off"), 0);
	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 8), 0);
	cr_assert_eq(hdp_pool_free_burst(pool, objs, 8), 8);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.counters[HDP_C_OBJS_TAGGED], 8, "no pass with both off");
	cr_assert_eq(st.harden.counters[HDP_C_BYTES_WIPED], 2 * 8 * 64);
}

/* A copy meets bounds first, then the tag; each counts its check. */
Test(harden_steps, copies_meet_bounds_then_tags)
{
	struct hdp_pool *pool = pool_with("bounds=on,tag=soft,tag_sample=1,on_violation=report", 4);
	struct hdp_pool_stats st;
	char buf[128] = { 0 };
	void *obj = hdp_pool_alloc(pool), *stale;
	uint64_t before;

	cr_assert_not_null(obj);
	hdp_pool_stats_get(pool, &st);
	before = st.harden.counters[HDP_C_CHECKS];
	cr_assert_eq(hdp_pool_copy_in(pool, obj, buf, 64), 0);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.counters[HDP_C_CHECKS], before + 2, "bounds and tag");

	/* Past the object with the right tag: bounds says so, the tag is not asked. */
	cr_assert_eq(hdp_pool_copy_in(pool, obj, buf, 65), -EFAULT);
	cr_assert_eq(violations(pool, violation_kind("bounds_object_end")), 1);
	cr_assert_eq(violations(pool, violation_kind("tag_mismatch")), 0);

	/* Inside the object with a stale tag: bounds passes it, the tag does not. */
	stale = (void *)((uintptr_t)hdp_untag(obj) |
			 (uintptr_t)(hdp_tag_of(obj) % 15 + 1) << HDP_TAG_SHIFT);
	cr_assert_eq(hdp_pool_copy_out(pool, buf, stale, 16), -EFAULT);
	cr_assert_eq(violations(pool, violation_kind("tag_mismatch")), 1);
	cr_assert_eq(violations(pool, violation_kind("bounds_object_end")), 1);

	/* bounds off: the tag still checks copies. */
	cr_assert_eq(hdp_pool_set(pool, "bounds", "off"), 0);
	cr_assert_eq(hdp_pool_copy_out(pool, buf, stale, 16), -EFAULT);
	cr_assert_eq(violations(pool, violation_kind("tag_mismatch")), 2);
	hdp_pool_free(pool, obj);
}

/*
 * Records resume, a new epoch: the core's after all were off (a new one
 * for the protections too), or any registered protection, whose own
 * starts while the core's, kept all along, stays. Other changes keep both.
 */
Test(harden_steps, turning_on_what_keeps_records_starts_an_epoch)
{
	struct hdp_pool *pool = pool_with("init_on_free=on,tag=off,redzone=off", 4);
	struct hdp_pool_stats st;
	uint64_t e, p;

	hdp_pool_stats_get(pool, &st);
	e = st.harden.epoch;
	p = st.harden.protections_epoch;
	cr_assert_gt(e, 0);
	cr_assert_gt(p, 0);
	cr_assert_eq(hdp_pool_set(pool, "tag_sample", "4"), 0);
	cr_assert_eq(hdp_pool_set(pool, "init_check_sample", "8"), 0);
	hdp_pool_stats_get(pool, &st);
	cr_assert(st.harden.epoch == e && st.harden.protections_epoch == p,
		  "a change that turns nothing on keeps the epochs");
	cr_assert_eq(hdp_pool_set(pool, "redzone", "on"), 0, "%s", captured_logs());
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.protections_epoch, p + 1, "a registered protection turned on");
	cr_assert_eq(st.harden.epoch, e, "the core's records were kept: their epoch stays");
	cr_assert_eq(hdp_pool_set(pool, "redzone", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "init_check", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "off"), 0);
	hdp_pool_stats_get(pool, &st);
	cr_assert(st.harden.epoch == e && st.harden.protections_epoch == p + 1,
		  "turning off keeps them");
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "used"), 0);
	hdp_pool_stats_get(pool, &st);
	cr_assert(st.harden.epoch == e + 1 && st.harden.protections_epoch == p + 2,
		  "the core's records resumed: a new epoch for both");
	hdp_pool_destroy(pool);
}
