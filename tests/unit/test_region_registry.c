// SPDX-License-Identifier: BSD-3-Clause
#include <criterion/criterion.h>

#include <hdp/pool.h>
#include <hdp/region.h>

#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

/* Addresses nobody else uses: a reserved, inaccessible stretch of VA. */
static char *arena;
static const size_t arena_len = 64 << 20;

static void setup(void)
{
	arena = mmap(NULL, arena_len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(arena, MAP_FAILED);
}

static void teardown(void)
{
	munmap(arena, arena_len);
}

TestSuite(region_registry, .init = setup, .fini = teardown);

static int reg(const char *name, const void *base, size_t len)
{
	return hdp_region_register(&(struct hdp_region_desc){
		.name = name, .base = base, .len = len,
	});
}

Test(region_registry, lookup_at_the_edges_of_a_region)
{
	char *base = arena + 4096;
	struct hdp_region info;
	int id = reg("r1", base, 8192);

	cr_assert_geq(id, 0);
	cr_assert_eq(hdp_region_find(base, &info), 0);
	cr_assert_str_eq(info.name, "r1");
	cr_assert_eq(info.base, (uintptr_t)base);
	cr_assert_eq(info.len, 8192);
	cr_assert_eq(info.id, id);
	cr_assert_eq(hdp_region_find(base + 8191, NULL), 0);
	cr_assert_eq(hdp_region_find(base - 1, NULL), -ENOENT);
	cr_assert_eq(hdp_region_find(base + 8192, NULL), -ENOENT);
	cr_assert_eq(hdp_region_find(NULL, NULL), -ENOENT);
	cr_assert_eq(hdp_region_find((void *)UINTPTR_MAX, NULL), -ENOENT);
}

Test(region_registry, adjacent_regions_each_own_their_bytes)
{
	struct hdp_region info;

	cr_assert_geq(reg("left", arena, 4096), 0);
	cr_assert_geq(reg("right", arena + 4096, 4096), 0);
	cr_assert_eq(hdp_region_find(arena + 4095, &info), 0);
	cr_assert_str_eq(info.name, "left");
	cr_assert_eq(hdp_region_find(arena + 4096, &info), 0);
	cr_assert_str_eq(info.name, "right");
	cr_assert_eq(hdp_region_count(), 2);
}

Test(region_registry, overlaps_are_refused)
{
	char *b = arena + (1 << 20);

	cr_assert_geq(reg("mid", b, 8192), 0);
	cr_assert_eq(reg("x", b - 4096, 8192), -EEXIST);
	cr_assert_eq(reg("x", b + 4096, 8192), -EEXIST);
	cr_assert_eq(reg("x", b + 1, 1), -EEXIST);
	cr_assert_eq(reg("x", b - 4096, 16384), -EEXIST);
	cr_assert_eq(reg("x", b, 8192), -EEXIST);
	cr_assert_geq(reg("below", b - 4096, 4096), 0);
	cr_assert_geq(reg("above", b + 8192, 4096), 0);
	cr_assert_eq(hdp_region_count(), 3);
}

Test(region_registry, bad_arguments_are_refused)
{
	cr_assert_eq(reg("z", arena, 0), -EINVAL);
	cr_assert_eq(reg("z", NULL, 4096), -EINVAL);
	cr_assert_eq(reg("wrap", (void *)(UINTPTR_MAX - 100), 4096), -EINVAL);
	cr_assert_eq(reg("", arena, 4096), -EINVAL);
	cr_assert_eq(reg(NULL, arena, 4096), -EINVAL);
	cr_assert_eq(reg("a-name-that-is-far-too-long-for-hdp", arena, 4096), -EINVAL);
	cr_assert_eq(hdp_region_count(), 0);
}

Test(region_registry, unregister_forgets_the_region)
{
	int id = reg("gone", arena, 4096);

	cr_assert_geq(id, 0);
	cr_assert_eq(hdp_region_unregister(id), 0);
	cr_assert_eq(hdp_region_find(arena, NULL), -ENOENT);
	cr_assert_eq(hdp_region_unregister(id), -ENOENT);
	/* The range is free again. */
	cr_assert_geq(reg("again", arena, 4096), 0);
}

/* Many regions with gaps: every lookup agrees with a linear scan. */
Test(region_registry, many_regions_agree_with_a_linear_scan)
{
	enum { N = 1000 };
	static int ids[N];
	char name[HDP_REGION_NAME_MAX];
	unsigned seed = 1;

	/* Register in a scrambled order: region i covers [i*64K, i*64K + 16K). */
	for (unsigned k = 0; k < N; k++) {
		unsigned i = (k * 617) % N;

		snprintf(name, sizeof(name), "r%u", i);
		ids[i] = reg(name, arena + (size_t)i * 65536, 16384);
		cr_assert_geq(ids[i], 0, "region %u", i);
	}
	cr_assert_eq(hdp_region_count(), N);
	for (unsigned t = 0; t < 20000; t++) {
		size_t off, i;
		struct hdp_region info;
		int ret;

		seed = seed * 1103515245u + 12345u;
		off = (seed >> 4) % ((size_t)N * 65536);
		i = off / 65536;
		ret = hdp_region_find(arena + off, &info);
		if (off % 65536 < 16384) {
			cr_assert_eq(ret, 0, "offset %zu", off);
			cr_assert_eq(info.id, ids[i]);
		} else {
			cr_assert_eq(ret, -ENOENT, "offset %zu", off);
		}
	}
}

Test(region_registry, pools_register_and_unregister_their_regions)
{
	struct hdp_pool_region lay;
	struct hdp_region info;
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "registered", .obj_size = 100, .obj_count = 10,
		.mem = HDP_MEM_PLAIN,
	});

	cr_assert_not_null(pool);
	hdp_pool_region(pool, &lay);
	cr_assert_eq(hdp_region_find((char *)lay.base + lay.len - 1, &info), 0);
	cr_assert_str_eq(info.name, "registered");
	cr_assert_eq(info.owner, hdp_pool_harden(pool));
	cr_assert_eq(hdp_pool_slots(pool)->stride, 128);
	cr_assert_eq(hdp_pool_slots(pool)->slots, 10);
	cr_assert_eq(info.id, lay.id);
	hdp_pool_destroy(pool);
	cr_assert_eq(hdp_region_find(lay.base, NULL), -ENOENT);
}
