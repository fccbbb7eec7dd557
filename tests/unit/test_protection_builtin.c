// SPDX-License-Identifier: BSD-3-Clause
/*
 * bounds, init and tag on the one interface: their descriptions carry
 * their hooks, the pool runs them from there, a pass two of them share
 * runs once a burst, and copies meet bounds before tags.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>
#include <hdp/protection.h>

#include <errno.h>
#include <string.h>

#include "support.h"

TestSuite(protection_builtin, .init = capture_logs);

static const struct hdp_protection *builtin(const char *name)
{
	for (unsigned i = 0; i < hdp_protection_builtin_count(); i++)
		if (strcmp(hdp_protection_builtin_get(i)->name, name) == 0)
			return hdp_protection_builtin_get(i);
	cr_assert_fail("no built-in protection %s", name);
	return NULL;
}

/*
 * What each one hooks. init and tag name one alloc and one free hook:
 * the records pass. hdp_harden_on_free_one, the DPDK one-mbuf free,
 * inlines that pass when no registered free hook is on, so no other
 * built-in may have a free hook.
 */
Test(protection_builtin, the_descriptions_carry_their_hooks)
{
	const struct hdp_protection *bounds = builtin("bounds"), *init = builtin("init"),
				    *tag = builtin("tag");

	cr_assert_not_null(bounds->on_copy);
	cr_assert_null(bounds->on_alloc);
	cr_assert_null(bounds->on_free);
	cr_assert_not_null(init->on_alloc);
	cr_assert_not_null(init->on_free);
	cr_assert_null(init->on_copy);
	cr_assert_not_null(tag->on_copy);
	cr_assert(tag->on_copy != bounds->on_copy);
	cr_assert(tag->on_alloc == init->on_alloc, "one shared pass");
	cr_assert(tag->on_free == init->on_free, "one shared pass");
	for (unsigned i = 0; i < hdp_protection_builtin_count(); i++) {
		const struct hdp_protection *p = hdp_protection_builtin_get(i);

		cr_assert(!p->on_free || p->on_free == init->on_free, "%s", p->name);
		cr_assert_null(p->hold, "%s", p->name);
		cr_assert_null(p->pick, "%s", p->name);
	}
}

static struct hdp_pool *pool_with(const char *spec, unsigned count)
{
	struct hdp_pool *pool = hardened_pool("builtin", 64, count, 0, spec);

	cr_assert_not_null(pool, "%s", captured_logs());
	return pool;
}

/*
 * With init and tag both on, the pass runs once a burst: each object is
 * tagged once and wiped once each way. Twice would tag 16, wipe twice on
 * allocation, and on free find its own record already freed (16 double
 * frees). Off, nothing runs.
 */
Test(protection_builtin, a_shared_pass_runs_once_a_burst)
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
	cr_assert_eq(st.harden.objs_tagged, 8);
	cr_assert_eq(st.harden.bytes_wiped, 8 * 64);
	cr_assert_eq(hdp_pool_free_burst(pool, objs, 8), 8);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(all_violations(pool), 0, "%s", captured_logs());
	cr_assert_eq(st.harden.bytes_wiped, 2 * 8 * 64);
	cr_assert_eq(st.harden.checks, 8, "one double-free check each");
	cr_assert_eq(st.in_use, 0);

	cr_assert_eq(hdp_pool_set(pool, "init_check", "off"), 0, "%s", captured_logs());
	cr_assert_eq(hdp_pool_set(pool, "init_on_alloc", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "tag", "off"), 0);
	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 8), 0);
	cr_assert_eq(hdp_pool_free_burst(pool, objs, 8), 8);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.objs_tagged, 8, "no pass with both off");
	cr_assert_eq(st.harden.bytes_wiped, 2 * 8 * 64);
}

/* A copy meets bounds first, then the tag; each counts its check. */
Test(protection_builtin, copies_meet_bounds_then_tags)
{
	struct hdp_pool *pool = pool_with("bounds=on,tag=soft,tag_sample=1,on_violation=report", 4);
	struct hdp_pool_stats st;
	char buf[128] = { 0 };
	void *obj = hdp_pool_alloc(pool), *stale;
	uint64_t before;

	cr_assert_not_null(obj);
	hdp_pool_stats_get(pool, &st);
	before = st.harden.checks;
	cr_assert_eq(hdp_pool_copy_in(pool, obj, buf, 64), 0);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.checks, before + 2, "bounds and tag");

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
