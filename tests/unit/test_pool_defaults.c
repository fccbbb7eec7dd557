// SPDX-License-Identifier: BSD-3-Clause
/*
 * A pool is protected from its creation: what it has before anything
 * configures it (the built-in profile but tags, its creator's policy),
 * what a configuration that does not name the policy leaves, and a
 * change at run time that would turn another key off, refused.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>
#include <hdp/profile.h>
#include <hdp/tag.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

TestSuite(pool_defaults, .init = capture_logs);

static struct hdp_pool *bare(const char *name, enum hdp_policy policy)
{
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = name, .obj_size = 64, .obj_count = 32, .mem = HDP_MEM_PLAIN,
		.on_violation = policy,
	});

	cr_assert_not_null(pool, "%s", captured_logs());
	return pool;
}

static enum hdp_policy policy_of(struct hdp_pool *pool)
{
	struct hdp_pool_stats st;

	hdp_pool_stats_get(pool, &st);
	return st.harden.on_violation;
}

Test(pool_defaults, a_copy_past_an_object_is_refused_before_any_configuration)
{
	struct hdp_pool *pool = bare("unset", HDP_POLICY_DROP);
	char src[256] = { 0 };
	void *obj = hdp_pool_alloc(pool);

	cr_assert_not_null(obj);
	cr_assert_eq(hdp_pool_copy_in(pool, obj, src, sizeof(src)), -EFAULT);
	cr_assert_eq(violations(pool, HDP_V_BOUNDS_OBJECT_END), 1, "%s", captured_logs());
	cr_assert_eq(hdp_pool_copy_in(pool, obj, src, 64), 0);
	hdp_pool_free(pool, obj);
	hdp_pool_destroy(pool);
}

Test(pool_defaults, handles_are_plain_until_tags_are_asked_for)
{
	struct hdp_pool *pool = bare("plain", HDP_POLICY_DROP);
	char *obj = hdp_pool_alloc(pool);

	cr_assert_not_null(obj);
	cr_assert_eq(hdp_tag_of(obj), 0, "an unconfigured pool hands out untagged pointers");
	obj[0] = 1;	/* a plain write, no hdp_deref */
	hdp_pool_free(pool, obj);
	hdp_pool_destroy(pool);
}

Test(pool_defaults, freed_objects_are_wiped_before_any_configuration)
{
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "wiped", .obj_size = 64, .obj_count = 32, .mem = HDP_MEM_PLAIN,
		.on_violation = HDP_POLICY_DROP, .flags = HDP_POOL_F_NO_CACHE,
	});
	char *obj;

	cr_assert_not_null(pool);
	obj = hdp_pool_alloc(pool);
	memset(obj, 0xab, 64);
	hdp_pool_free(pool, obj);
	cr_assert_eq(nonzero_bytes(obj, 64), 0, "init_on_free is on by default");
	hdp_pool_destroy(pool);
}

Test(pool_defaults, setting_one_key_leaves_the_others_on)
{
	struct hdp_pool *pool = bare("one_key", HDP_POLICY_DROP);
	char src[256] = { 0 };
	void *obj;

	cr_assert_eq(hdp_pool_set(pool, "tag", "off"), 0);
	obj = hdp_pool_alloc(pool);
	cr_assert_eq(hdp_pool_copy_in(pool, obj, src, sizeof(src)), -EFAULT,
		     "bounds stays on, its default");
	hdp_pool_free(pool, obj);
	hdp_pool_destroy(pool);
}

Test(pool_defaults, a_configuration_that_names_no_policy_keeps_the_creators)
{
	struct hdp_pool *pool = bare("kept", HDP_POLICY_DROP);
	struct hdp_harden_config *cfg = malloc(sizeof(*cfg));

	cr_assert_not_null(cfg);
	hdp_harden_config_init(cfg);
	cr_assert_eq(hdp_harden_config_declare(cfg, "kept"), 0);
	cr_assert_eq(hdp_pool_configure(pool, cfg), 0, "%s", captured_logs());
	cr_assert_eq(policy_of(pool), HDP_POLICY_DROP);
	cr_assert_eq(hdp_harden_config_parse_string(cfg, "pool.kept.on_violation=report", "test"), 0,
		     "%s", captured_logs());
	cr_assert_eq(hdp_pool_configure(pool, cfg), 0);
	cr_assert_eq(policy_of(pool), HDP_POLICY_REPORT, "one that names it decides");
	free(cfg);
	hdp_pool_destroy(pool);
}

Test(pool_defaults, a_set_that_would_turn_another_key_off_is_refused)
{
	struct hdp_pool *pool = bare("refused", HDP_POLICY_DROP);

	clear_logs();
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "off"), -EINVAL);
	cr_assert(log_contains("init_check=on needs init_on_free=on or used"), "%s",
		  captured_logs());
	cr_assert_eq(hdp_pool_set(pool, "init_check", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "off"), 0, "%s", captured_logs());
	/* Turning a need on lets what follows it come back on. */
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "used"), 0);
	hdp_pool_destroy(pool);
}

Test(pool_defaults, a_refused_free_says_so)
{
	struct hdp_pool *pool = bare("told", HDP_POLICY_REPORT);
	char *obj = hdp_pool_alloc(pool);

	cr_assert_eq(hdp_pool_free(pool, obj + 8), -EINVAL, "an interior pointer");
	cr_assert_eq(hdp_pool_free(pool, obj), 0);
	cr_assert_eq(hdp_pool_free(pool, obj), -EINVAL, "a double free");
	hdp_pool_destroy(pool);
}
