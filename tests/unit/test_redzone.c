// SPDX-License-Identifier: BSD-3-Clause
/*
 * redzone: a write past the end of a frame's data is caught at its free,
 * over the window and not beyond, with zeros or the canary; and no switch
 * of any key, in any order, with frames of mixed lengths, makes it report
 * what did not happen.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>
#include <hdp/protection.h>

#include <stdio.h>
#include <string.h>

#include "support.h"

#define SIZE 2048
#define COUNT 32

static struct hdp_pool *pool_with(const char *spec)
{
	char full[256];
	struct hdp_pool *pool;

	snprintf(full, sizeof(full), "on_violation=report%s%s", *spec ? "," : "", spec);
	pool = hardened_pool("rz", SIZE, COUNT, 0, full);
	cr_assert_not_null(pool, "%s", full);
	return pool;
}

/*
 * Every frame once: data of a length that differs frame by frame and round
 * by round at offset 0 or 256 (a headroom), freed in bursts of mixed size
 * with its extent. @past >= 0: frame 0 also gets a byte changed @past
 * bytes past its end.
 */
static struct hdp_extent frame_extent(unsigned i, unsigned round)
{
	static const uint32_t lens[] = { 60, 1500, 64, 1790, 128, 1, 700, 14 };
	uint32_t start = (i + round) % 3 ? 256 : 0;

	return (struct hdp_extent){ start, start + lens[(i * 3 + round) % HDP_ARRAY_SIZE(lens)] };
}

static void round_of_lives(struct hdp_pool *pool, unsigned round, int past)
{
	void *objs[COUNT];
	struct hdp_extent ext[COUNT];
	unsigned done = 0;

	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, COUNT), 0);
	for (unsigned i = 0; i < COUNT; i++) {
		unsigned char *p = hdp_deref(objs[i]);

		ext[i] = frame_extent(i, round);
		memset(p + ext[i].start, 0x5a + (int)i, ext[i].end - ext[i].start);
		if (i == 0 && past >= 0)
			p[ext[i].end + (uint32_t)past] ^= 0xff;
	}
	for (unsigned step = 1 + round % 5; done < COUNT; step = step * 2 + 1) {
		unsigned k = COUNT - done < step ? COUNT - done : step;

		cr_assert_eq(hdp_pool_free_burst_extent(pool, objs + done, ext + done, k), k);
		done += k;
	}
}

static void window_catches(const char *spec, int at, bool caught)
{
	struct hdp_pool *pool = pool_with(spec);

	/* Arm every frame, then the write. */
	round_of_lives(pool, 0, -1);
	round_of_lives(pool, 1, -1);
	cr_assert_eq(all_violations(pool), 0, "%s: a false report", spec);
	round_of_lives(pool, 2, at);
	cr_assert_eq(violations(pool, violation_kind("redzone_overwritten")), caught ? 1u : 0u,
		     "%s: a byte %d past the end", spec, at + 1);
	cr_assert_eq(all_violations(pool), caught ? 1u : 0u, "%s", spec);
	hdp_pool_destroy(pool);
}

Test(redzone, zeros_catch_the_window_and_not_beyond)
{
	window_catches("redzone=on", 0, true);
	window_catches("redzone=on", 63, true);
	window_catches("redzone=on", 64, false);
	window_catches("redzone=on,redzone_bytes=128", 64, true);
	window_catches("redzone=on,init_on_free=used", 0, true);
	window_catches("redzone=on,init_on_free=used", 63, true);
	window_catches("redzone=off", 0, false);
	/* Windows that are not whole words: the tail read overlapping, or bytewise. */
	window_catches("redzone=on,redzone_bytes=13", 12, true);
	window_catches("redzone=on,redzone_bytes=13", 13, false);
	window_catches("redzone=on,redzone_bytes=5", 4, true);
	window_catches("redzone=on,redzone_bytes=5", 5, false);
}

Test(redzone, the_canary_catches_where_nothing_zeroes)
{
	window_catches("redzone=on,init_on_free=off", 0, true);
	window_catches("redzone=on,init_on_free=off", 63, true);
	window_catches("redzone=on,init_on_free=off", 64, false);
	window_catches("redzone=on,init_on_free=off,tag=off", 5, true);
	window_catches("redzone=on,init_on_free=off,redzone_bytes=13", 12, true);
	window_catches("redzone=on,init_on_free=off,redzone_bytes=13", 13, false);
	window_catches("redzone=on,init_on_free=off,redzone_bytes=3", 2, true);
	/* init_on_alloc zeroes the canary away: zeros are expected then. */
	window_catches("redzone=on,init_on_free=off,init_on_alloc=on", 0, true);
}

Test(redzone, counts_what_it_checked)
{
	struct hdp_pool *pool = pool_with("redzone=on,redzone_bytes=16");
	struct hdp_pool_stats st;
	const struct hdp_protection *rz = hdp_protection_find("redzone");
	unsigned i_rz = 0;
	uint64_t window = 0;
	void *obj;

	cr_assert_not_null(rz);
	round_of_lives(pool, 0, -1);
	round_of_lives(pool, 1, -1);
	/* Freed without an extent: where the data ended is unknown. */
	obj = hdp_pool_alloc(pool);
	hdp_pool_free(pool, obj);
	hdp_pool_stats_get(pool, &st);
	while (hdp_protection_get(i_rz) != rz)
		i_rz++;
	cr_assert_eq(hdp_protection_counter(&st.harden, i_rz, 0), COUNT, "checks");
	/* The window ends with the object: a frame's data may end 2 bytes before. */
	for (unsigned i = 0; i < COUNT; i++)
		window += SIZE - frame_extent(i, 1).end < 16 ? SIZE - frame_extent(i, 1).end : 16;
	cr_assert_lt(window, COUNT * 16, "the test covers a short window");
	cr_assert_eq(hdp_protection_counter(&st.harden, i_rz, 1), window, "bytes");
	cr_assert_eq(hdp_protection_counter(&st.harden, i_rz, 2), COUNT + 1, "unchecked");
	hdp_pool_destroy(pool);
}

/* A double free and a stale handle are the tags' to report: hands off. */
Test(redzone, leaves_refused_frees_alone)
{
	struct hdp_pool *pool = pool_with("redzone=on,init_on_free=off,tag=soft,tag_sample=1");
	struct hdp_extent small = { 0, 100 }, big = { 0, 1000 };
	unsigned char *stale, *fresh, *p;

	stale = hdp_pool_alloc(pool);
	cr_assert_eq(hdp_pool_free_burst_extent(pool, (void **)&stale, &small, 1), 1);
	cr_assert_eq(hdp_pool_free_burst_extent(pool, (void **)&stale, &small, 1), 0);
	cr_assert_eq(violations(pool, HDP_V_DOUBLE_FREE), 1);
	fresh = hdp_pool_alloc(pool);
	cr_assert_eq(hdp_untag(fresh), hdp_untag(stale), "the slot is reused");
	p = hdp_deref(fresh);
	memset(p, 0x11, 1000);
	cr_assert_eq(hdp_pool_free_burst_extent(pool, (void **)&stale, &small, 1), 0);
	cr_assert_eq(violations(pool, HDP_V_INVALID_FREE), 1);
	cr_assert_eq(violations(pool, violation_kind("redzone_overwritten")), 0);
	for (unsigned i = 0; i < 1000; i++)
		cr_assert_eq(p[i], 0x11, "the new owner's byte %u was touched", i);
	cr_assert_eq(hdp_pool_free_burst_extent(pool, (void **)&fresh, &big, 1), 1);
	hdp_pool_destroy(pool);
}

/*
 * Every ordered pair of switches a user makes at run time, each between
 * rounds of frames of mixed lengths: no report at all, and afterwards a
 * real write past the end is still caught.
 */
Test(redzone, no_switch_sequence_gives_a_false_report)
{
	static const char *const sw[][2] = {
		{ "redzone", "on" }, { "redzone", "off" },
		{ "init_on_free", "used" }, { "init_on_free", "off" }, { "init_on_free", "on" },
		{ "init_on_alloc", "on" }, { "init_on_alloc", "off" },
		{ "redzone_bytes", "8" }, { "redzone_bytes", "300" },
		{ "tag", "off" }, { "tag", "soft" },
	};
	const unsigned n = HDP_ARRAY_SIZE(sw);

	for (unsigned a = 0; a < n; a++) {
		for (unsigned b = 0; b < n; b++) {
			/* init_check off: else init_on_free=off is refused while it is on. */
			struct hdp_pool *pool = pool_with("redzone=on,init_check=off");
			unsigned round = 0;

			round_of_lives(pool, round++, -1);
			cr_assert_eq(hdp_pool_set(pool, sw[a][0], sw[a][1]), 0);
			round_of_lives(pool, round++, -1);
			round_of_lives(pool, round++, -1);
			cr_assert_eq(hdp_pool_set(pool, sw[b][0], sw[b][1]), 0);
			round_of_lives(pool, round++, -1);
			round_of_lives(pool, round++, -1);
			cr_assert_eq(all_violations(pool), 0, "%s=%s then %s=%s: a false report",
				     sw[a][0], sw[a][1], sw[b][0], sw[b][1]);
			/* On again (a new generation if it was off), armed, then the bug. */
			cr_assert_eq(hdp_pool_set(pool, "redzone", "on"), 0);
			cr_assert_eq(hdp_pool_set(pool, "redzone_bytes", "64"), 0);
			round_of_lives(pool, round++, -1);
			round_of_lives(pool, round++, 3);
			cr_assert_eq(violations(pool, violation_kind("redzone_overwritten")), 1,
				     "%s=%s then %s=%s: the write past the end was missed",
				     sw[a][0], sw[a][1], sw[b][0], sw[b][1]);
			cr_assert_eq(all_violations(pool), 1);
			hdp_pool_destroy(pool);
		}
	}
}
