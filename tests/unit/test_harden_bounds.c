// SPDX-License-Identifier: BSD-3-Clause
/* Bounds checks on copies and descriptors: LKDTM's usercopy cases, and more. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <hdp/pool.h>
#include <hdp/region.h>

#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "support.h"

TestSuite(harden_bounds, .init = capture_logs);

static char src[8192];

/* Two pools, so a copy can land in the wrong one. */
static struct hdp_pool *pool, *other;

static void make_pools(const char *spec)
{
	pool = hardened_pool("frames", 2000, 8, 0, spec);
	other = hardened_pool("other", 64, 8, 0, spec);
	cr_assert_not_null(pool, "%s", captured_logs());
	cr_assert_not_null(other, "%s", captured_logs());
}

static void expect(int ret, enum hdp_violation_kind kind, const char *words)
{
	cr_assert_eq(ret, -EFAULT, "the copy was allowed");
	cr_assert_eq(violations(pool, kind), 1, "%s", captured_logs());
	cr_assert(log_contains(hdp_violation_name(kind)), "%s", captured_logs());
	if (words)
		cr_assert(log_contains(words), "log lacks '%s': %s", words,
			  captured_logs());
}

#define CHECKED "tag=off,on_violation=report"

Test(harden_bounds, a_copy_inside_one_object_passes)
{
	char *obj;

	make_pools(CHECKED);
	obj = hdp_pool_alloc(pool);
	cr_assert_eq(hdp_pool_copy_in(pool, obj, src, 2000), 0);
	cr_assert_eq(hdp_pool_copy_out(pool, src, obj + 1000, 1000), 0);
	cr_assert_eq(hdp_pool_copy_in(pool, NULL, src, 0), 0, "zero length passes first");
}

Test(harden_bounds, copy_into_an_object_past_its_end_by_one_byte)
{
	make_pools(CHECKED);
	expect(hdp_pool_copy_in(pool, hdp_pool_alloc(pool), src, 2001),
	       HDP_V_BOUNDS_OBJECT_END, "2001 bytes from byte 0 of a 2000-byte object");
}

Test(harden_bounds, copy_into_an_object_past_its_end_by_a_granule)
{
	char *obj;

	make_pools(CHECKED);
	obj = hdp_pool_alloc(pool);
	expect(hdp_pool_copy_in(pool, obj + 1000, src, 1016), HDP_V_BOUNDS_OBJECT_END,
	       NULL);
}

Test(harden_bounds, copy_out_of_an_object_past_its_end)
{
	make_pools(CHECKED);
	expect(hdp_pool_copy_out(pool, src, hdp_pool_alloc(pool), 2048),
	       HDP_V_BOUNDS_OBJECT_END, NULL);
}

Test(harden_bounds, copy_spanning_two_objects)
{
	struct hdp_pool_region lay;
	const struct hdp_layout *slots;

	make_pools(CHECKED);
	hdp_pool_region(pool, &lay);
	slots = hdp_pool_slots(pool);
	expect(hdp_pool_copy_in(pool, (char *)lay.base + slots->stride - 8, src, 16),
	       HDP_V_BOUNDS_OBJECT_END, NULL);
}

Test(harden_bounds, copy_past_the_end_of_the_region)
{
	struct hdp_pool_region lay;

	make_pools(CHECKED);
	hdp_pool_region(pool, &lay);
	expect(hdp_pool_copy_in(pool, (char *)lay.base + lay.len - 4, src, 8),
	       HDP_V_BOUNDS_REGION_END, "4 bytes before the end of region 'frames'");
}

Test(harden_bounds, copy_from_a_pointer_in_no_region)
{
	char local[16];

	make_pools(CHECKED);
	expect(hdp_pool_copy_out(pool, src, local, 16), HDP_V_BOUNDS_NO_REGION, NULL);
}

Test(harden_bounds, copy_into_another_pools_memory)
{
	make_pools(CHECKED);
	expect(hdp_pool_copy_in(pool, hdp_pool_alloc(other), src, 8),
	       HDP_V_BOUNDS_OTHER_POOL, "lands in region 'other'");
}

Test(harden_bounds, null_and_wrapped_pointers)
{
	make_pools(CHECKED);
	expect(hdp_pool_copy_in(pool, NULL, src, 1), HDP_V_BOUNDS_NULL, NULL);
	cr_assert_eq(hdp_pool_copy_in(pool, (void *)16, src, 1), -EFAULT);
	cr_assert_eq(violations(pool, HDP_V_BOUNDS_NULL), 2);
	cr_assert_eq(hdp_pool_copy_out(pool, src, (void *)(UINTPTR_MAX >> 8), 4096),
		     -EFAULT);
	cr_assert_eq(violations(pool, HDP_V_BOUNDS_WRAP), 1);
}

Test(harden_bounds, an_rx_descriptor_outside_the_umem)
{
	void *p = NULL;

	make_pools(CHECKED);
	expect(hdp_pool_desc_to_ptr(pool, 8 * 2000 + 64, 60, &p), HDP_V_DESC_OUTSIDE,
	       NULL);
	cr_assert_null(p);
}

Test(harden_bounds, an_rx_descriptor_running_past_its_chunk)
{
	void *p = NULL;
	struct hdp_pool_region lay;
	const struct hdp_layout *slots;

	make_pools(CHECKED);
	hdp_pool_region(pool, &lay);
	slots = hdp_pool_slots(pool);
	cr_assert_eq(hdp_pool_desc_to_ptr(pool, slots->stride + 256, 1744, &p), 0);
	cr_assert_eq(p, (char *)lay.base + slots->stride + 256);
	expect(hdp_pool_desc_to_ptr(pool, slots->stride + 256, 1745, &p),
	       HDP_V_DESC_PAST_CHUNK, "1745 bytes from byte 256 of a 2000-byte chunk");
}

/* With bounds=off the same mistakes go through: the seed's bypass. */
Test(harden_bounds, bounds_off_misses_them)
{
	struct hdp_pool_region lay;
	const struct hdp_layout *slots;
	void *p;

	make_pools("bounds=off,tag=off,on_violation=report");
	hdp_pool_region(pool, &lay);
	slots = hdp_pool_slots(pool);
	cr_assert_eq(hdp_pool_copy_in(pool, hdp_pool_alloc(pool), src, 2001), 0);
	cr_assert_eq(hdp_pool_copy_in(pool, (char *)lay.base + slots->stride - 8, src, 16), 0);
	cr_assert_eq(hdp_pool_copy_in(pool, hdp_pool_alloc(other), src, 8), 0);
	cr_assert_eq(hdp_pool_desc_to_ptr(pool, slots->stride + 256, 1745, &p), 0);
	for (int k = 0; k < HDP_V__COUNT; k++)
		cr_assert_eq(violations(pool, k), 0);
}

Test(harden_bounds, the_tree_lookup_gives_the_same_verdicts)
{
	make_pools("bounds_lookup=tree," CHECKED);
	cr_assert_eq(hdp_pool_copy_in(pool, hdp_pool_alloc(pool), src, 2000), 0);
	expect(hdp_pool_copy_in(pool, hdp_pool_alloc(pool), src, 2001),
	       HDP_V_BOUNDS_OBJECT_END, NULL);
}

Test(harden_bounds, an_object_overrun_aborts_by_default, .signal = SIGABRT)
{
	make_pools("tag=off");
	hdp_pool_copy_in(pool, hdp_pool_alloc(pool), src, 2001);
}

Test(harden_bounds, a_bad_descriptor_aborts_by_default, .signal = SIGABRT)
{
	void *p;

	make_pools("tag=off");
	hdp_pool_desc_to_ptr(pool, UINT64_MAX, 60, &p);
}

Test(harden_bounds, checks_are_counted)
{
	struct hdp_pool_stats st;
	void *obj;

	make_pools(CHECKED);
	obj = hdp_pool_alloc(pool);
	for (int i = 0; i < 10; i++)
		hdp_pool_copy_in(pool, obj, src, 64);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.harden.counters[HDP_C_CHECKS], 10);
}

/*
 * The two lookups agree everywhere, including granules shared by several
 * small regions (where the fast index defers to the tree).
 */
Test(harden_bounds, fast_and_tree_lookups_agree)
{
	size_t len = 64 << 20;
	char *arena = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned seed = 7;
	char name[32];

	cr_assert_neq(arena, MAP_FAILED);
	/* Big aligned regions, small ones packed into shared granules, gaps. */
	for (int i = 0; i < 300; i++) {
		size_t off = (size_t)i * 200 * 1024, size = (i % 3 == 0) ? 150 * 1024 : 8192;

		snprintf(name, sizeof(name), "r%d", i);
		cr_assert_geq(hdp_region_register(&(struct hdp_region_desc){
			.name = name, .base = arena + off, .len = size,
		}), 0);
	}
	for (int t = 0; t < 200000; t++) {
		uintptr_t a;

		seed = seed * 1103515245u + 12345u;
		a = (uintptr_t)arena + ((size_t)seed * 7919u) % len;
		cr_assert_eq(hdp_region_lookup_fast(a), hdp_region_lookup_tree(a),
			     "address offset %zu", (size_t)(a - (uintptr_t)arena));
	}
	munmap(arena, len);
}

/* An object ends at its size, not at its stride: padding is not its. */
Test(harden_bounds, copy_into_the_padding_after_an_object)
{
	struct hdp_pool *small = hardened_pool("padded", 100, 8, 0, CHECKED);
	struct hdp_pool_region lay;
	const struct hdp_layout *slots;
	char *obj;

	cr_assert_not_null(small, "%s", captured_logs());
	hdp_pool_region(small, &lay);
	slots = hdp_pool_slots(small);
	cr_assert_eq(slots->stride, 112);
	obj = hdp_pool_alloc(small);
	cr_assert_eq(hdp_pool_copy_in(small, obj, src, 100), 0);
	cr_assert_eq(hdp_pool_copy_in(small, obj, src, 101), -EFAULT);
	cr_assert_eq(violations(small, HDP_V_BOUNDS_OBJECT_END), 1);
}
