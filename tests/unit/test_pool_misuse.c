// SPDX-License-Identifier: BSD-3-Clause
#include <criterion/criterion.h>

#include <hdp/log.h>
#include <hdp/pool.h>

#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>

#include "support.h"

static struct hdp_pool *make(const char *name, enum hdp_policy policy,
			     unsigned flags)
{
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = name, .obj_size = 2048, .obj_align = 2048, .obj_count = 64,
		.mem = HDP_MEM_PLAIN, .on_violation = policy, .flags = flags,
	});

	cr_assert_not_null(pool, "%s", strerror(errno));
	return pool;
}

static void expect_create_fails(const struct hdp_pool_params *p, int err,
				const char *message)
{
	clear_logs();
	errno = 0;
	cr_assert_null(hdp_pool_create(p), "pool '%s' was created", p->name);
	cr_assert_eq(errno, err, "errno %d, expected %d", errno, err);
	cr_assert(log_contains(message), "log lacks '%s':\n%s", message,
		  captured_logs());
}

TestSuite(pool_misuse, .init = capture_logs);

Test(pool_misuse, bad_parameters_are_refused_with_a_message_naming_them)
{
	struct hdp_pool_params ok = {
		.name = "p", .obj_size = 64, .obj_count = 8, .mem = HDP_MEM_PLAIN,
	};
	struct hdp_pool_params p;

	p = ok; p.obj_size = 0;
	expect_create_fails(&p, EINVAL, "object size 0 is out of range");
	p = ok; p.obj_size = HDP_POOL_OBJ_SIZE_MAX + 1;
	expect_create_fails(&p, EINVAL, "object size 1048577 is out of range");
	p = ok; p.obj_count = 0;
	expect_create_fails(&p, EINVAL, "object count 0 is out of range");
	p = ok; p.obj_count = UINT32_MAX;
	expect_create_fails(&p, EINVAL, "object count 4294967295 is out of range");
	p = ok; p.obj_align = 48;
	expect_create_fails(&p, EINVAL, "alignment 48 is not a power of two");
	p = ok; p.obj_align = 8192;
	expect_create_fails(&p, EINVAL, "alignment 8192");
	p = ok; p.cache_size = HDP_POOL_CACHE_MAX + 1;
	expect_create_fails(&p, EINVAL, "cache size 1025 is above 1024");
	p = ok; p.reserved[14] = 7;
	expect_create_fails(&p, EINVAL, "reserved[14] is 0x7: the reserved parameters must be zero");
	p = ok; p.cache_size = 5;
	expect_create_fails(&p, EINVAL, "a cache of 5 lets one thread hold 10 of the 8 objects: use at most 4");
	p = ok; p.mem = (enum hdp_mem_kind)99;
	expect_create_fails(&p, EINVAL, "unknown memory kind 99");
	p = ok; p.on_violation = (enum hdp_policy)7;
	expect_create_fails(&p, EINVAL, "unknown violation policy 7");
	p = ok; p.flags = 0x80;
	expect_create_fails(&p, EINVAL, "unknown flags 0x80");
	p = ok; p.obj_size = HDP_POOL_OBJ_SIZE_MAX; p.obj_count = 1u << 20;
	expect_create_fails(&p, E2BIG, "exceed the 16 GiB region limit");
	errno = 0;
	cr_assert_null(hdp_pool_create(NULL));
	cr_assert_eq(errno, EINVAL);
}

Test(pool_misuse, bad_names_are_refused)
{
	static const char *const names[] = {
		"", "a.b", "a,b", "a b", "rx*", "name/with/slash",
		"a-name-that-is-far-too-long-for-hdp",
	};
	struct hdp_pool_params p = { .obj_size = 64, .obj_count = 8,
				     .mem = HDP_MEM_PLAIN };

	for (size_t i = 0; i < HDP_ARRAY_SIZE(names); i++) {
		p.name = names[i];
		expect_create_fails(&p, EINVAL, "is invalid");
	}
	p.name = NULL;
	expect_create_fails(&p, EINVAL, "is invalid");
}

Test(pool_misuse, duplicate_names_are_refused_and_the_first_pool_survives)
{
	struct hdp_pool *first = make("dup", HDP_POLICY_ABORT, 0);
	struct hdp_pool_params p = { .name = "dup", .obj_size = 64, .obj_count = 8,
				     .mem = HDP_MEM_PLAIN };
	void *obj;

	expect_create_fails(&p, EEXIST, "pool 'dup' already exists");
	cr_assert_eq(hdp_pool_find("dup"), first);
	obj = hdp_pool_alloc(first);
	cr_assert_not_null(obj);
	hdp_pool_free(first, obj);
	hdp_pool_destroy(first);
}

Test(pool_misuse, the_pool_table_has_a_limit)
{
	static struct hdp_pool *pools[HDP_POOL_MAX];
	struct hdp_pool_params p = { .obj_size = 64, .obj_count = 1,
				     .mem = HDP_MEM_PLAIN };
	char name[HDP_POOL_NAME_MAX];

	for (int i = 0; i < HDP_POOL_MAX; i++) {
		snprintf(name, sizeof(name), "p%d", i);
		p.name = name;
		pools[i] = hdp_pool_create(&p);
		cr_assert_not_null(pools[i], "pool %d: %s", i, strerror(errno));
	}
	p.name = "one-too-many";
	expect_create_fails(&p, ENOSPC, "already 256 pools");
	hdp_pool_destroy(pools[7]);
	cr_assert_not_null(hdp_pool_create(&p), "a freed slot is reused");
}

/* Under "report": counted, said once, not freed, the pool unharmed. */
static void expect_refused(struct hdp_pool *pool, void *ptr,
			   enum hdp_violation_kind kind, const char *words)
{
	struct hdp_pool_stats before, after;

	hdp_pool_stats_get(pool, &before);
	clear_logs();
	cr_assert_eq(hdp_pool_free_burst(pool, &ptr, 1), 0);
	hdp_pool_stats_get(pool, &after);
	cr_assert_eq(after.harden.violations[kind], before.harden.violations[kind] + 1);
	cr_assert_eq(after.frees, before.frees);
	cr_assert_eq(after.in_use, before.in_use);
	cr_assert(log_contains(words), "log lacks '%s':\n%s", words,
		  captured_logs());
	cr_assert(log_contains("in pool 'victim'"), "%s", captured_logs());
}

Test(pool_misuse, foreign_interior_and_past_end_frees_are_reported)
{
	struct hdp_pool *pool = make("victim", HDP_POLICY_REPORT, 0);
	struct hdp_pool *other = make("other", HDP_POLICY_REPORT, 0);
	char *obj = hdp_pool_alloc(pool);
	struct hdp_pool_region lay;
	int on_stack;

	hdp_pool_region(pool, &lay);
	expect_refused(pool, &on_stack, HDP_V_FREE_FOREIGN,
		       "violation: free_foreign");
	expect_refused(pool, hdp_pool_obj_at(other, 3), HDP_V_FREE_FOREIGN,
		       "belongs to region 'other'");
	expect_refused(pool, obj + 1, HDP_V_FREE_INTERIOR, "free_interior");
	expect_refused(pool, obj + 2047, HDP_V_FREE_INTERIOR, "offset 2047");
	expect_refused(pool, (char *)lay.base + 64 * 2048, HDP_V_FREE_PAST_END,
		       "free_past_end");
	expect_refused(pool, (char *)lay.base - 2048, HDP_V_FREE_FOREIGN,
		       "outside the region");
	expect_refused(pool, NULL, HDP_V_FREE_FOREIGN, "free_foreign");
	/* The good object still frees and the pool is whole. */
	cr_assert_eq(hdp_pool_free_burst(pool, (void **)&obj, 1), 1);
	cr_assert_eq(hdp_pool_drain(pool), 0);
	hdp_pool_destroy(other);
	hdp_pool_destroy(pool);
}

Test(pool_misuse, a_burst_frees_its_good_objects_and_refuses_the_bad)
{
	struct hdp_pool *pool = make("mixed", HDP_POLICY_REPORT, 0);
	void *objs[100];
	int stray;
	struct hdp_pool_stats st;
	unsigned n = 0;

	/* 70 good pointers with 30 bad ones interleaved, past one chunk. */
	for (int i = 0; i < 64; i++)
		cr_assert_not_null(objs[n++] = hdp_pool_alloc(pool));
	for (int i = 0; i < 30; i++)
		objs[n++] = (char *)&stray + i;
	cr_assert_eq(hdp_pool_free_burst(pool, objs, n), 64);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 0);
	cr_assert_eq(st.harden.violations[HDP_V_FREE_FOREIGN], 30);
	hdp_pool_destroy(pool);
}

Test(pool_misuse, a_bulk_free_with_a_bad_pointer_frees_nothing)
{
	struct hdp_pool *pool = make("bulkbad", HDP_POLICY_REPORT, 0);
	void *objs[4];
	struct hdp_pool_stats st;

	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 3), 0);
	objs[3] = (char *)objs[1] + 8;
	cr_assert_eq(hdp_pool_free_bulk(pool, objs, 4), -EINVAL);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 3);
	cr_assert_eq(st.harden.violations[HDP_V_FREE_INTERIOR], 1);
	cr_assert_eq(hdp_pool_free_bulk(pool, objs, 3), 0);
	hdp_pool_destroy(pool);
}

/* With every protection off, the shared stack still refuses an object it holds. */
Test(pool_misuse, a_double_free_is_caught_when_caches_drain)
{
	struct hdp_pool *pool = make("twice", HDP_POLICY_REPORT, 0);
	struct hdp_pool_stats st;
	void *obj;

	cr_assert_eq(hdp_pool_set(pool, "init_check", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "off"), 0);
	cr_assert_eq(hdp_pool_set(pool, "bounds", "off"), 0);
	obj = hdp_pool_alloc(pool);

	hdp_pool_free(pool, obj);
	hdp_pool_free(pool, obj);
	cr_assert_eq(hdp_pool_drain(pool), 1);
	cr_assert(log_contains("violation: double_free in pool 'twice'"), "%s",
		  captured_logs());
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.violations[HDP_V_DOUBLE_FREE], 1);
	cr_assert_eq(st.in_use, 0, "the refused free is not counted");
	cr_assert_eq(st.free_shared, 64, "the object is on the stack once");
	hdp_pool_destroy(pool);
}

Test(pool_misuse, a_double_free_without_caches_is_caught_at_once)
{
	struct hdp_pool *pool = make("twice", HDP_POLICY_REPORT, HDP_POOL_F_NO_CACHE);
	void *obj = hdp_pool_alloc(pool);
	struct hdp_pool_stats st;

	hdp_pool_free(pool, obj);
	hdp_pool_free(pool, obj);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.violations[HDP_V_DOUBLE_FREE], 1);
	cr_assert_eq(st.free_shared, 64);
	cr_assert_eq(st.in_use, 0);
	hdp_pool_destroy(pool);
}

Test(pool_misuse, drop_policy_counts_without_a_word)
{
	struct hdp_pool *pool = make("quiet", HDP_POLICY_DROP, 0);
	int stray;
	void *p = &stray;
	struct hdp_pool_stats st;

	cr_assert_eq(hdp_pool_free_burst(pool, &p, 1), 0);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.violations[HDP_V_FREE_FOREIGN], 1);
	cr_assert_str_eq(captured_logs(), "");
	hdp_pool_destroy(pool);
}

Test(pool_misuse, destroying_a_pool_in_use_reports_the_leak)
{
	struct hdp_pool *pool = make("leaky", HDP_POLICY_ABORT, 0);
	void *objs[3];

	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 3), 0);
	hdp_pool_destroy(pool);
	cr_assert(log_contains("pool 'leaky' destroyed with 3 of 64 objects still in use"),
		  "%s", captured_logs());
}

/* The default policy: one line on stderr, then abort. */
Test(pool_misuse, foreign_free_aborts_by_default, .signal = SIGABRT)
{
	struct hdp_pool *pool = make("strict", HDP_POLICY_ABORT, 0);
	int stray;

	hdp_pool_free(pool, &stray);
}

Test(pool_misuse, interior_free_aborts_by_default, .signal = SIGABRT)
{
	struct hdp_pool *pool = make("strict", HDP_POLICY_ABORT, 0);
	char *obj = hdp_pool_alloc(pool);

	hdp_pool_free(pool, obj + 64);
}

Test(pool_misuse, double_free_aborts_at_drain_by_default, .signal = SIGABRT)
{
	struct hdp_pool *pool = make("strict", HDP_POLICY_ABORT, 0);
	void *obj = hdp_pool_alloc(pool);

	hdp_pool_free(pool, obj);
	hdp_pool_free(pool, obj);
	hdp_pool_drain(pool);
}

Test(pool_misuse, double_free_aborts_when_the_cache_flushes, .signal = SIGABRT)
{
	struct hdp_pool *pool = make("strict", HDP_POLICY_ABORT, 0);
	void *obj = hdp_pool_alloc(pool);

	hdp_pool_free(pool, obj);
	hdp_pool_free(pool, obj);
	hdp_pool_cache_flush(pool);
}
