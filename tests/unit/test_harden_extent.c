// SPDX-License-Identifier: BSD-3-Clause
/*
 * Write extents: init_on_free=used wipes what was written, init_check
 * verifies what the last free wiped, and one allocation in
 * init_check_sample is checked whole. Whatever the order of frees with
 * long and short extents and of runtime switches, a free object stays
 * all zero and no check reports what was not a write after free.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

TestSuite(harden_extent, .init = capture_logs);

#define FRAME 2048
#define HEADROOM 256

/* A "packet" of @len bytes at the headroom, as AF_XDP copy mode writes it. */
static struct hdp_extent receive(void *obj, uint32_t len, unsigned char fill)
{
	memset((char *)hdp_untag(obj) + HEADROOM, fill, len);
	return (struct hdp_extent){ HEADROOM, HEADROOM + len };
}

static void *alloc_one(struct hdp_pool *pool)
{
	void *obj = hdp_pool_alloc(pool);

	cr_assert_not_null(obj);
	return obj;
}

static void free_one(struct hdp_pool *pool, void *obj, struct hdp_extent ext)
{
	cr_assert_eq(hdp_pool_free_burst_extent(pool, &obj, &ext, 1), 1);
}

/*
 * The reported abort of issue 15: frames written long while wiping was
 * off, then wiped only as far as a short packet once "used" is on, then
 * checked whole. The first "used" free of an object nobody wiped must
 * wipe all of it.
 */
Test(harden_extent, used_after_off_never_reports_what_was_written_while_off)
{
	struct hdp_pool *pool = hardened_pool("umem", FRAME, 8, 0,
		"init_on_free=used,init_check=on,init_check_sample=1,tag=soft,tag_sample=10,"
		"on_violation=report");
	void *objs[8];

	cr_assert_not_null(pool, "%s", captured_logs());
	for (int round = 0; round < 3; round++) {
		cr_assert_eq(hdp_pool_set(pool, "init_check", "off"), 0, "%s", captured_logs());
		cr_assert_eq(hdp_pool_set(pool, "init_on_free", "off"), 0, "%s", captured_logs());
		cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 8), 0);
		for (int i = 0; i < 8; i++)
			free_one(pool, objs[i], receive(objs[i], 1400, 0xa5));
		cr_assert_eq(hdp_pool_set(pool, "init_on_free", "used"), 0);
		cr_assert_eq(hdp_pool_set(pool, "init_check", "on"), 0);
		for (int pass = 0; pass < 2; pass++) {
			cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 8), 0);
			for (int i = 0; i < 8; i++)
				free_one(pool, objs[i], receive(objs[i], 64, 0x5a));
		}
	}
	cr_assert_eq(violations(pool, HDP_V_WRITE_AFTER_FREE), 0, "%s", captured_logs());
	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 8), 0);
	for (int i = 0; i < 8; i++)
		cr_assert_eq(nonzero_bytes(hdp_untag(objs[i]), FRAME), 0);
	hdp_pool_destroy(pool);
}

/*
 * test_meminit's sweep with extents: frames reused by packets of
 * decreasing, then increasing, then random lengths, cached or not, with
 * and without tags: after every free and reallocation not one byte is
 * left, and nothing is reported.
 */
Test(harden_extent, no_byte_survives_reuse_by_longer_and_shorter_packets)
{
	static const char *const specs[] = {
		"init_on_free=used,init_check=on,init_check_sample=1,tag=off",
		"init_on_free=used,init_check=on,init_check_sample=1,tag=soft,tag_sample=3",
		"init_on_free=used,init_check=on,init_check_sample=1,init_on_alloc=on,tag=off",
	};
	static const unsigned flags[] = { 0, HDP_POOL_F_NO_CACHE };
	uint32_t seed = 1;

	for (size_t p = 0; p < HDP_ARRAY_SIZE(specs); p++)
	for (size_t f = 0; f < HDP_ARRAY_SIZE(flags); f++) {
		char spec[200];
		struct hdp_pool *pool;
		void *objs[4];

		snprintf(spec, sizeof(spec), "%s,on_violation=report", specs[p]);
		pool = hardened_pool("sweep", FRAME, 4, flags[f], spec);
		cr_assert_not_null(pool, "%s", captured_logs());
		for (int step = 0; step < 90; step++) {
			uint32_t len = step < 30 ? 1700 - 55 * (uint32_t)step
				     : step < 60 ? 60 + 55 * (uint32_t)(step - 30)
				     : 60 + (seed = seed * 1103515245u + 12345u) % 1700;

			cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 4), 0);
			for (int i = 0; i < 4; i++) {
				cr_assert_eq(nonzero_bytes(hdp_untag(objs[i]), FRAME), 0,
					     "%s, step %d: byte left over", specs[p], step);
				free_one(pool, objs[i], receive(objs[i], len, 0xc3));
			}
		}
		cr_assert_eq(violations(pool, HDP_V_WRITE_AFTER_FREE), 0, "%s: %s", specs[p],
			     captured_logs());
		hdp_pool_destroy(pool);
	}
}

/* One object, cycled until its whole-check countdown is far off. */
static struct hdp_pool *one_frame(const char *spec, void **obj)
{
	struct hdp_pool *pool = hardened_pool("one", FRAME, 1, HDP_POOL_F_NO_CACHE, spec);

	cr_assert_not_null(pool, "%s", captured_logs());
	/* First free wipes whole; the first allocation is checked whole. */
	*obj = alloc_one(pool);
	free_one(pool, *obj, receive(*obj, 100, 1));
	*obj = alloc_one(pool);
	return pool;
}

/*
 * One round of a stale handle: @obj freed after a packet of @len bytes,
 * one byte written at @off, the frame allocated again. Returns the write
 * after free reports so far.
 */
static unsigned long long stale_write_round(struct hdp_pool *pool, void **obj, uint32_t len,
					    size_t off)
{
	free_one(pool, *obj, receive(*obj, len, 7));
	((char *)*obj)[off] = 'x';
	*obj = alloc_one(pool);
	return violations(pool, HDP_V_WRITE_AFTER_FREE);
}

Test(harden_extent, a_write_after_free_inside_the_extent_is_caught_every_time)
{
	void *obj;
	struct hdp_pool *pool = one_frame("init_on_free=used,init_check=on,init_check_sample=65535,"
					  "tag=off,on_violation=report", &obj);

	/* The bug: the last byte of the extent. */
	for (int i = 0; i < 50; i++)
		cr_assert_eq(stale_write_round(pool, &obj, 300, HEADROOM + 299),
			     (unsigned long long)i + 1);
	cr_assert(log_contains("first at byte 555"), "%s", captured_logs());
	hdp_pool_destroy(pool);
}

Test(harden_extent, only_the_extent_is_read_between_whole_checks)
{
	void *obj;
	struct hdp_pool *pool = one_frame("init_on_free=used,init_check=on,init_check_sample=65535,"
					  "tag=off,on_violation=report", &obj);
	struct hdp_pool_stats before, after;

	free_one(pool, obj, receive(obj, 60, 7));
	((char *)obj)[1500] = 'x';	/* beyond the extent: left to the whole check */
	hdp_pool_stats_get(pool, &before);
	obj = alloc_one(pool);
	hdp_pool_stats_get(pool, &after);
	cr_assert_eq(after.harden.counters[HDP_C_CHECKS], before.harden.counters[HDP_C_CHECKS] + 1);
	cr_assert_eq(violations(pool, HDP_V_WRITE_AFTER_FREE), 0,
		     "with a countdown of up to 131068 the next check is not whole");
	hdp_pool_destroy(pool);
}

/*
 * Allocate and free (60-byte packets) until a write after free is
 * reported: how many allocations that took (201: never, in 200).
 */
static int allocs_until_caught(struct hdp_pool *pool, void **obj)
{
	for (int tries = 1; tries <= 200; tries++) {
		*obj = alloc_one(pool);
		if (violations(pool, HDP_V_WRITE_AFTER_FREE))
			return tries;
		free_one(pool, *obj, receive(*obj, 60, 7));
	}
	return 201;
}

/* The sampled whole check finds a write beyond the extent, soon enough. */
Test(harden_extent, a_write_beyond_the_extent_is_caught_by_the_sampled_whole_check)
{
	void *obj;
	struct hdp_pool *pool = one_frame("init_on_free=used,init_check=on,init_check_sample=8,"
					  "tag=off,on_violation=report", &obj);
	int tries;

	free_one(pool, obj, receive(obj, 60, 7));
	((char *)obj)[1500] = 'x';
	tries = allocs_until_caught(pool, &obj);
	/* Gaps are at most 2 * 8 - 1 allocations. */
	cr_assert_leq(tries, 16, "caught after %d allocations", tries);
	cr_assert(log_contains("first at byte 1500"), "%s", captured_logs());
	cr_assert_eq(nonzero_bytes(hdp_untag(obj), FRAME), 0, "wiped whole once found");
	hdp_pool_destroy(pool);
}

Test(harden_extent, init_check_sample_1_checks_every_allocation_whole)
{
	void *obj;
	struct hdp_pool *pool = one_frame("init_on_free=used,init_check=on,init_check_sample=1,"
					  "tag=off,on_violation=report", &obj);

	for (int i = 0; i < 20; i++)
		cr_assert_eq(stale_write_round(pool, &obj, 60, FRAME - 1), (unsigned long long)i + 1);
	hdp_pool_destroy(pool);
}

/* Extents that lie (past the end, backwards) are clamped, not trusted. */
Test(harden_extent, a_bad_extent_is_clamped_to_the_object)
{
	void *obj;
	struct hdp_pool *pool = one_frame("init_on_free=used,init_check=on,init_check_sample=1,"
					  "tag=off,on_violation=report", &obj);

	memset(obj, 0xee, FRAME);
	free_one(pool, obj, (struct hdp_extent){ 0, UINT32_MAX });
	cr_assert_eq(nonzero_bytes(obj, FRAME), 0);
	obj = alloc_one(pool);
	free_one(pool, obj, (struct hdp_extent){ 500, 100 });
	obj = alloc_one(pool);
	cr_assert_eq(violations(pool, HDP_V_WRITE_AFTER_FREE), 0, "%s", captured_logs());
	hdp_pool_destroy(pool);
}

Test(harden_extent, init_on_free_on_ignores_extents)
{
	void *obj;
	struct hdp_pool *pool = one_frame("init_on_free=on,init_check=on,tag=off", &obj);

	memset(obj, 0xee, FRAME);
	free_one(pool, obj, (struct hdp_extent){ 256, 300 });
	cr_assert_eq(nonzero_bytes(obj, FRAME), 0);
	hdp_pool_destroy(pool);
}

/*
 * The check finds a single written byte wherever it is, for every extent
 * length from 1 to 130 bytes (the short, vector and whole-loop paths), and
 * names its offset (reports are rate limited: a few are read back).
 */
Test(harden_extent, every_byte_of_every_short_extent_is_checked)
{
	static const uint32_t named[][2] = { { 1, 0 }, { 15, 14 }, { 16, 9 }, { 17, 16 },
					     { 64, 63 }, { 130, 100 } };
	void *obj;
	struct hdp_pool *pool = one_frame("init_on_free=used,init_check=on,init_check_sample=65535,"
					  "tag=off,on_violation=drop", &obj);
	unsigned long long found = 0;
	char needle[64];

	for (uint32_t len = 1; len <= 130; len++) {
		for (uint32_t pos = 0; pos < len; pos++) {
			free_one(pool, obj, (struct hdp_extent){ HEADROOM + 3, HEADROOM + 3 + len });
			((char *)obj)[HEADROOM + 3 + pos] = 1;
			obj = alloc_one(pool);
			cr_assert_eq(violations(pool, HDP_V_WRITE_AFTER_FREE), ++found,
				     "length %u, byte %u: missed", len, pos);
		}
	}
	cr_assert_eq(hdp_pool_set(pool, "on_violation", "report"), 0);
	for (size_t i = 0; i < HDP_ARRAY_SIZE(named); i++) {
		free_one(pool, obj, (struct hdp_extent){ HEADROOM + 3, HEADROOM + 3 + named[i][0] });
		((char *)obj)[HEADROOM + 3 + named[i][1]] = 1;
		clear_logs();
		obj = alloc_one(pool);
		snprintf(needle, sizeof(needle), "first at byte %u\n", HEADROOM + 3 + named[i][1]);
		cr_assert(log_contains(needle), "%s", captured_logs());
	}
	hdp_pool_destroy(pool);
}

/*
 * init_check_extent=head: between whole checks, only the extent's first
 * 64 bytes are read, where a stale handle into a packet writes (its
 * headers). A write there is found at every allocation, as with all.
 */
Test(harden_extent, head_finds_a_write_into_the_head_every_time)
{
	void *obj;
	struct hdp_pool *pool = one_frame("init_on_free=used,init_check=on,init_check_sample=65535,"
					  "init_check_extent=head,tag=off,on_violation=report", &obj);

	for (int i = 0; i < 50; i++)
		cr_assert_eq(stale_write_round(pool, &obj, 1500,
					       HEADROOM + (i & 1 ? 0 : HDP_CHECK_HEAD_BYTES - 1)),
			     (unsigned long long)i + 1, "%s", captured_logs());
	hdp_pool_destroy(pool);
}

/* Past the head it is the sampled whole check's, until all is set again. */
Test(harden_extent, head_leaves_the_rest_of_the_extent_to_the_whole_check)
{
	void *obj;
	struct hdp_pool *pool = one_frame("init_on_free=used,init_check=on,init_check_sample=65535,"
					  "init_check_extent=head,tag=off,on_violation=report", &obj);
	struct hdp_pool_stats before, after;

	free_one(pool, obj, receive(obj, 1500, 7));
	((char *)obj)[HEADROOM + HDP_CHECK_HEAD_BYTES] = 'x';	/* the first byte past the head */
	hdp_pool_stats_get(pool, &before);
	obj = alloc_one(pool);
	hdp_pool_stats_get(pool, &after);
	cr_assert_eq(after.harden.counters[HDP_C_CHECKS], before.harden.counters[HDP_C_CHECKS] + 1);
	cr_assert_eq(violations(pool, HDP_V_WRITE_AFTER_FREE), 0,
		     "with a countdown of up to 131068 the next check is not whole");
	/* Switched at run time (hdp-ctl set): the whole extent is read again. */
	cr_assert_eq(hdp_pool_set(pool, "init_check_extent", "all"), 0, "%s", captured_logs());
	cr_assert_eq(stale_write_round(pool, &obj, 1500, HEADROOM + 1499), 1, "%s",
		     captured_logs());
	cr_assert(log_contains("first at byte 1755"), "%s", captured_logs());
	cr_assert_eq(hdp_pool_set(pool, "init_check_extent", "tail"), -EINVAL);
	hdp_pool_destroy(pool);
}

Test(harden_extent, head_still_has_the_sampled_whole_check)
{
	void *obj;
	struct hdp_pool *pool = one_frame("init_on_free=used,init_check=on,init_check_sample=8,"
					  "init_check_extent=head,tag=off,on_violation=report", &obj);
	int tries;

	free_one(pool, obj, receive(obj, 1500, 7));
	((char *)obj)[HEADROOM + 1000] = 'x';
	tries = allocs_until_caught(pool, &obj);
	cr_assert_leq(tries, 16, "caught after %d allocations", tries);
	cr_assert(log_contains("first at byte 1256"), "%s", captured_logs());
	hdp_pool_destroy(pool);
}

/*
 * A whole-object wipe has no packet head: under init_on_free=on the
 * extent recorded is the whole frame, whose first 64 bytes are headroom.
 * head then reads all of it, and a write into the packet is found.
 */
Test(harden_extent, head_reads_a_whole_object_wipe_whole)
{
	void *obj;
	struct hdp_pool *pool = one_frame("init_on_free=on,init_check=on,init_check_sample=65535,"
					  "init_check_extent=head,tag=off,on_violation=report", &obj);

	/* The packet's headers, past the headroom. */
	for (int i = 0; i < 20; i++)
		cr_assert_eq(stale_write_round(pool, &obj, 1500, HEADROOM + 10),
			     (unsigned long long)i + 1, "%s", captured_logs());
	/* Switched to used at run time, the same frame's next wipe is its packet's extent. */
	cr_assert_eq(hdp_pool_set(pool, "init_on_free", "used"), 0, "%s", captured_logs());
	cr_assert_eq(stale_write_round(pool, &obj, 1500, HEADROOM + 10), 21, "%s",
		     captured_logs());
	hdp_pool_destroy(pool);
}
