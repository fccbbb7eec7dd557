// SPDX-License-Identifier: BSD-3-Clause
/* init_on_alloc / init_on_free / init_check, after lib/test_meminit.c. */
#include <criterion/criterion.h>

#include <hdp/pool.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

TestSuite(harden_zero, .init = capture_logs);

/* Allocate one object, or fail the test. */
static void *must_alloc(struct hdp_pool *pool)
{
	void *obj;

	cr_assert_not_null(pool, "%s", captured_logs());
	obj = hdp_pool_alloc(pool);
	cr_assert_not_null(obj);
	return obj;
}

/*
 * Garbage written, freed, allocated again: not one non-zero byte, for
 * every object size the pools use, cached or not, whichever of
 * init_on_alloc and init_on_free does the work; and an excluded pool keeps
 * every byte.
 */
Test(harden_zero, garbage_never_survives_free_and_reallocation)
{
	static const size_t sizes[] = { 1, 8, 15, 16, 64, 100, 256, 1500, 2048, 4096, 9000 };
	static const char *const specs[] = {
		"init_on_free=on,tag=off",
		"init_on_free=off,init_on_alloc=on,tag=off",
		"init_on_free=on,init_on_alloc=on,tag=off",
		"init_on_free=on,tag=soft",
		"init_on_free=used,init_on_alloc=on,tag=soft",
	};
	static const char *const names[] = { "meminit", "excluded" };
	static const unsigned flags[] = { 0, HDP_POOL_F_NO_CACHE };
	char spec[160];
	void *objs[8];

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
	for (size_t p = 0; p < sizeof(specs) / sizeof(specs[0]); p++)
	for (size_t e = 0; e < 2; e++)
	for (size_t f = 0; f < 2; f++) {
		struct hdp_pool *pool;
		size_t want;

		snprintf(spec, sizeof(spec), "%s,init_exclude=excl*", specs[p]);
		pool = hardened_pool(names[e], sizes[s], 8, flags[f], spec);
		cr_assert_not_null(pool, "%s", captured_logs());
		for (int round = 0; round < 3; round++) {
			cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 8), 0);
			/* Fresh memory is zero; after that, only wiping makes it so. */
			want = e && round ? sizes[s] : 0;
			for (int i = 0; i < 8; i++) {
				cr_assert_eq(nonzero_bytes(hdp_untag(objs[i]), sizes[s]), want,
					     "%s, size %zu, %s, round %d", names[e],
					     sizes[s], specs[p], round);
				memset(hdp_untag(objs[i]), 0xa5, sizes[s]);
			}
			hdp_pool_free_burst(pool, objs, 8);
		}
		hdp_pool_destroy(pool);
	}
}

Test(harden_zero, freed_memory_reads_back_as_zero)
{
	struct hdp_pool *pool = hardened_pool("onfree", 512, 4, 0, "tag=off");
	char *obj = must_alloc(pool);
	struct hdp_pool_stats st;

	memset(obj, 0x77, 512);
	hdp_pool_free(pool, obj);
	cr_assert_eq(nonzero_bytes(obj, 512), 0);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.counters[HDP_C_BYTES_WIPED], 512);
	hdp_pool_destroy(pool);
}

Test(harden_zero, allocation_does_not_wipe_what_free_already_wiped)
{
	struct hdp_pool *pool = hardened_pool("once", 512, 4, 0,
					      "init_on_alloc=on,tag=off");
	void *obj = must_alloc(pool);	/* never wiped before: alloc wipes */
	struct hdp_pool_stats st;

	hdp_pool_free(pool, obj);		/* free wipes */
	obj = must_alloc(pool);		/* already zero: no second wipe */
	hdp_pool_free(pool, obj);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.counters[HDP_C_BYTES_WIPED], 3 * 512);
	hdp_pool_destroy(pool);
}

Test(harden_zero, used_wipes_only_the_extent_written)
{
	struct hdp_pool *pool = hardened_pool("frames", 2048, 1, HDP_POOL_F_NO_CACHE,
					      "init_on_free=used,init_check=off,tag=off");
	unsigned char *obj = must_alloc(pool);
	struct hdp_extent ext = { 256, 356 };
	struct hdp_pool_stats st;

	/* Never wiped before: its first free wipes it whole, once. */
	hdp_pool_free(pool, obj);
	cr_assert_eq(must_alloc(pool), obj);
	memset(obj + 256, 0x11, 100);
	obj[1000] = 0x22;	/* written outside what the pool was told */
	obj[100] = 0x33;
	cr_assert_eq(hdp_pool_free_burst_extent(pool, (void **)&obj, &ext, 1), 1);
	cr_assert_eq(nonzero_bytes(obj + 256, 100), 0);
	cr_assert_eq(obj[1000], 0x22, "bytes past the extent are not touched");
	cr_assert_eq(obj[100], 0x33, "bytes before the extent are not touched");
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.counters[HDP_C_BYTES_WIPED], 2048 + 100);
	hdp_pool_destroy(pool);
}

Test(harden_zero, a_write_after_free_is_found_at_the_next_allocation)
{
	struct hdp_pool *pool = hardened_pool("uaf", 256, 1, 0,
					      "tag=off,on_violation=report");
	char *obj = must_alloc(pool), *again;

	hdp_pool_free(pool, obj);
	obj[200] = 'x';		/* the bug */
	again = must_alloc(pool);
	cr_assert_eq(again, obj);
	cr_assert_eq(violations(pool, HDP_V_WRITE_AFTER_FREE), 1);
	cr_assert(log_contains("violation: write_after_free in pool 'uaf'"), "%s",
		  captured_logs());
	cr_assert(log_contains("first at byte 200"), "%s", captured_logs());
	cr_assert_eq(nonzero_bytes(again, 256), 0, "handed out wiped again");
	hdp_pool_free(pool, again);
	hdp_pool_destroy(pool);
}

/*
 * The whole check at allocation finds a stray byte wherever it is, in the
 * vector rounds, the 64-byte round after them and every kind of tail
 * (sizes 2048, 300 and 200 cover them all), and names its offset.
 */
Test(harden_zero, a_stray_byte_is_found_at_every_offset_and_named)
{
	static const size_t sizes[] = { 2048, 300, 200 };
	static const size_t named[] = { 0, 127, 128, 191, 255, 287, 299 };
	char needle[48];

	for (unsigned s = 0; s < HDP_ARRAY_SIZE(sizes); s++) {
		struct hdp_pool *pool = hardened_pool("stray", sizes[s], 1, HDP_POOL_F_NO_CACHE,
			"init_on_free=on,init_check=on,init_check_sample=1,tag=off,on_violation=drop");
		unsigned long long seen = 0;

		for (size_t k = 0; k < sizes[s]; k++) {
			unsigned char *obj = must_alloc(pool);

			hdp_pool_free(pool, obj);
			obj[k] = 0x80;	/* the bug */
			cr_assert_eq(must_alloc(pool), obj);
			cr_assert_eq(violations(pool, HDP_V_WRITE_AFTER_FREE), ++seen,
				     "size %zu: the byte at %zu went unseen", sizes[s], k);
			cr_assert_eq(nonzero_bytes(obj, sizes[s]), 0);
			hdp_pool_free(pool, obj);
		}
		hdp_pool_destroy(pool);
	}
	/* Reported, under report: the offset of the byte, not of its round. */
	struct hdp_pool *pool = hardened_pool("stray", 300, 1, HDP_POOL_F_NO_CACHE,
		"init_on_free=on,init_check=on,init_check_sample=1,tag=off,on_violation=report");

	for (unsigned i = 0; i < HDP_ARRAY_SIZE(named); i++) {
		unsigned char *obj = must_alloc(pool);

		hdp_pool_free(pool, obj);
		obj[named[i]] = 1;
		hdp_pool_free(pool, must_alloc(pool));
		snprintf(needle, sizeof(needle), "first at byte %zu\n", named[i]);
		cr_assert(log_contains(needle), "%s not in:\n%s", needle, captured_logs());
	}
	hdp_pool_destroy(pool);
}

Test(harden_zero, write_after_free_aborts_by_default, .signal = SIGABRT)
{
	struct hdp_pool *pool = hardened_pool("uaf", 256, 1, 0, "tag=off");
	char *obj = must_alloc(pool);

	hdp_pool_free(pool, obj);
	obj[0] = 1;
	hdp_pool_alloc(pool);
}

Test(harden_zero, without_init_check_a_write_after_free_goes_unseen)
{
	struct hdp_pool *pool = hardened_pool("uaf", 256, 1, 0,
					      "tag=off,init_check=off,on_violation=report");
	char *obj = must_alloc(pool);

	hdp_pool_free(pool, obj);
	obj[0] = 1;
	hdp_pool_alloc(pool);
	cr_assert_eq(violations(pool, HDP_V_WRITE_AFTER_FREE), 0);
}

Test(harden_zero, an_excluded_pool_is_not_wiped)
{
	struct hdp_pool *pool = hardened_pool("cache-1", 64, 2, 0,
					      "init_exclude=cache-*,tag=off");
	unsigned char *obj = must_alloc(pool);
	struct hdp_pool_stats st;

	memset(obj, 0x33, 64);
	hdp_pool_free(pool, obj);
	cr_assert_eq(obj[0], 0x33);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.counters[HDP_C_BYTES_WIPED], 0);
	cr_assert_str_eq(st.harden.exclude, "init_exclude 'cache-*'");
	hdp_pool_destroy(pool);
}

/* umem is built-in excluded from init_on_alloc; "none" brings it back. */
static uint64_t wiped_by_alloc(const char *spec)
{
	struct hdp_pool *pool = hardened_pool("umem", 2048, 2, 0, spec);
	struct hdp_pool_stats st;
	void *obj;

	cr_assert_not_null(pool, "%s", captured_logs());
	obj = must_alloc(pool);
	hdp_pool_stats_get(pool, &st);
	hdp_pool_free(pool, obj);
	hdp_pool_destroy(pool);
	return st.harden.counters[HDP_C_BYTES_WIPED];
}

Test(harden_zero, none_removes_the_builtin_exclusions)
{
	cr_assert_eq(wiped_by_alloc("init_on_alloc=on,init_on_free=off,tag=off"), 0);
	cr_assert_eq(wiped_by_alloc("init_on_alloc=on,init_on_free=off,tag=off,init_exclude=none"),
		     2048);
}

Test(harden_zero, switching_init_check_on_later_trusts_nothing_older)
{
	struct hdp_pool *pool = hardened_pool("late", 128, 1, HDP_POOL_F_NO_CACHE,
					      "bounds=off,init_on_free=off,init_check=off,tag=off,on_violation=report");
	char *obj = must_alloc(pool);

	cr_assert_not_null(pool);
	hdp_pool_free(pool, obj);
	obj[5] = 1;	/* freed while nothing wiped it: not a finding */
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "on"), 0);
	cr_assert_eq(hdp_pool_set(pool, "init_check", "on"), 0);
	obj = must_alloc(pool);
	cr_assert_eq(violations(pool, HDP_V_WRITE_AFTER_FREE), 0);
	hdp_pool_free(pool, obj);	/* now wiped */
	obj[5] = 1;
	hdp_pool_alloc(pool);
	cr_assert_eq(violations(pool, HDP_V_WRITE_AFTER_FREE), 1);
}
