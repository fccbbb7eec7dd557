// SPDX-License-Identifier: BSD-3-Clause
#include <criterion/criterion.h>

#include <hdp/pool.h>

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

static struct hdp_pool *make(const char *name, size_t size, size_t align,
			     uint32_t count, unsigned flags)
{
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = name, .obj_size = size, .obj_align = align,
		.obj_count = count, .mem = HDP_MEM_PLAIN, .flags = flags,
	});

	cr_assert_not_null(pool, "pool %s: %s", name, strerror(errno));
	return pool;
}

static int cmp_ptr(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return (x > y) - (x < y);
}

/* Every object distinct, aligned, inside the objects area, fully writable. */
static void check_objects(struct hdp_pool *pool, void **objs, unsigned n)
{
	struct hdp_pool_region lay;
	const struct hdp_layout *slots;
	void **sorted = malloc(sizeof(void *) * n);

	hdp_pool_region(pool, &lay);
	slots = hdp_pool_slots(pool);
	memcpy(sorted, objs, sizeof(void *) * n);
	qsort(sorted, n, sizeof(void *), cmp_ptr);
	for (unsigned i = 0; i < n; i++) {
		uintptr_t off = (uintptr_t)sorted[i] - (uintptr_t)lay.base;

		cr_assert_lt(off, (uintptr_t)slots->stride * slots->slots);
		cr_assert_eq(off % slots->stride, 0);
		if (i)
			cr_assert_neq(sorted[i], sorted[i - 1], "object handed out twice");
		memset(sorted[i], 0x5a, slots->obj_size);
	}
	free(sorted);
}

Test(pool_alloc, layout_follows_size_and_alignment)
{
	struct hdp_pool *pool = make("frames", 2048, 2048, 1000, 0);
	struct hdp_pool_region lay;
	const struct hdp_layout *slots;

	hdp_pool_region(pool, &lay);
	slots = hdp_pool_slots(pool);
	cr_assert_eq(slots->obj_size, 2048);
	cr_assert_eq(slots->stride, 2048);
	cr_assert_eq(slots->slots, 1000);
	cr_assert_eq((uintptr_t)lay.base % lay.page_size, 0);
	cr_assert_eq(lay.len % lay.page_size, 0);
	cr_assert_geq(lay.len, 2048 * 1000);
	cr_assert_str_eq(hdp_pool_name(pool), "frames");
	hdp_pool_destroy(pool);
}

Test(pool_alloc, odd_sizes_round_up_to_the_alignment)
{
	struct hdp_pool *pool = make("odd", 100, 8, 10, 0);
	struct hdp_pool_region lay;
	const struct hdp_layout *slots;

	hdp_pool_region(pool, &lay);
	slots = hdp_pool_slots(pool);
	cr_assert_eq(slots->stride, 104);
	hdp_pool_destroy(pool);
	pool = make("odd2", 100, 0, 10, 0);
	hdp_pool_region(pool, &lay);
	slots = hdp_pool_slots(pool);
	cr_assert_eq(slots->stride, 128, "default alignment is a cache line");
	hdp_pool_destroy(pool);
}

Test(pool_alloc, burst_hands_out_distinct_objects_until_empty)
{
	struct hdp_pool *pool = make("burst", 64, 0, 100, 0);
	void *objs[128];
	struct hdp_pool_stats st;

	cr_assert_eq(hdp_pool_alloc_burst(pool, objs, 60), 60);
	cr_assert_eq(hdp_pool_alloc_burst(pool, objs + 60, 60), 40,
		     "a burst gets what is left");
	cr_assert_eq(hdp_pool_alloc_burst(pool, objs + 100, 1), 0);
	check_objects(pool, objs, 100);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 100);
	cr_assert_eq(st.allocs, 100);
	cr_assert_eq(st.alloc_fails, 2);
	cr_assert_eq(hdp_pool_free_burst(pool, objs, 100), 100);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 0);
	cr_assert_eq(st.frees, 100);
	hdp_pool_destroy(pool);
}

Test(pool_alloc, bulk_is_all_or_nothing)
{
	struct hdp_pool *pool = make("bulk", 64, 0, 100, 0);
	void *objs[128];
	struct hdp_pool_stats st;

	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 101), -ENOMEM);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 0);
	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 70), 0);
	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs + 70, 31), -ENOMEM);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 70);
	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs + 70, 30), 0);
	check_objects(pool, objs, 100);
	cr_assert_eq(hdp_pool_free_bulk(pool, objs, 100), 0);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 0);
	hdp_pool_destroy(pool);
}

Test(pool_alloc, freed_objects_come_back)
{
	struct hdp_pool *pool = make("reuse", 256, 0, 50, 0);
	void *a[50], *b[50];

	for (int round = 0; round < 5; round++) {
		cr_assert_eq(hdp_pool_alloc_bulk(pool, a, 50), 0);
		cr_assert_eq(hdp_pool_free_burst(pool, a, 50), 50);
	}
	cr_assert_eq(hdp_pool_alloc_bulk(pool, b, 50), 0);
	check_objects(pool, b, 50);
	hdp_pool_free_burst(pool, b, 50);
	hdp_pool_destroy(pool);
}

Test(pool_alloc, the_thread_cache_serves_repeat_requests)
{
	struct hdp_pool *pool = make("cached", 64, 0, 4096, 0);
	void *objs[32];
	struct hdp_pool_stats st;

	for (int i = 0; i < 100; i++) {
		cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 32), 0);
		hdp_pool_free_burst(pool, objs, 32);
	}
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.allocs, 3200);
	cr_assert_eq(st.cache_misses, 32, "only the first burst refills");
	cr_assert_eq(st.cache_hits, 3200 - 32);
	cr_assert_eq(st.caches, 1);
	cr_assert_gt(st.free_cached, 0);
	cr_assert_eq(st.free_shared + st.free_cached, 4096);
	hdp_pool_cache_flush(pool);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.free_shared, 4096);
	cr_assert_eq(st.free_cached, 0);
	hdp_pool_destroy(pool);
}

Test(pool_alloc, no_cache_pools_always_use_the_shared_stack)
{
	struct hdp_pool *pool = make("uncached", 64, 0, 100, HDP_POOL_F_NO_CACHE);
	void *objs[10];
	struct hdp_pool_stats st;

	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 10), 0);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.free_shared, 90);
	hdp_pool_free_burst(pool, objs, 10);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.free_shared, 100);
	cr_assert_eq(st.cache_hits, 0);
	cr_assert_eq(st.cache_misses, 10);
	hdp_pool_destroy(pool);
}

Test(pool_alloc, bursts_larger_than_the_cache_bypass_it)
{
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "big", .obj_size = 64, .obj_count = 1000, .cache_size = 8,
		.mem = HDP_MEM_PLAIN,
	});
	void *objs[1000];
	struct hdp_pool_stats st;

	cr_assert_not_null(pool);
	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 3), 0);
	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs + 3, 997), 0);
	check_objects(pool, objs, 1000);
	cr_assert_eq(hdp_pool_free_burst(pool, objs, 1000), 1000);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 0);
	cr_assert_leq(st.free_cached, 16);
	cr_assert_eq(st.free_shared + st.free_cached, 1000);
	hdp_pool_destroy(pool);
}

static int collect(struct hdp_pool *pool, void *ctx)
{
	char *names = ctx;

	strcat(names, hdp_pool_name(pool));
	strcat(names, " ");
	return 0;
}

Test(pool_alloc, pools_are_found_by_name_and_listed_in_creation_order)
{
	struct hdp_pool *b = make("b-pool", 64, 0, 1, 0);
	struct hdp_pool *a = make("a-pool", 64, 0, 1, 0);
	char names[256] = "";

	cr_assert_eq(hdp_pool_find("a-pool"), a);
	cr_assert_eq(hdp_pool_find("b-pool"), b);
	cr_assert_null(hdp_pool_find("c-pool"));
	hdp_pool_foreach(collect, names);
	cr_assert_str_eq(names, "b-pool a-pool ");
	hdp_pool_destroy(b);
	cr_assert_null(hdp_pool_find("b-pool"));
	hdp_pool_destroy(a);
}

Test(pool_alloc, object_index_round_trips)
{
	struct hdp_pool *pool = make("index", 100, 4, 77, 0);

	for (uint32_t i = 0; i < 77; i++)
		cr_assert_eq(hdp_pool_obj_index(pool, hdp_pool_obj_at(pool, i)), i);
	hdp_pool_destroy(pool);
}

Test(pool_alloc, stats_print_as_json_and_text)
{
	struct hdp_pool *pool = make("printed", 64, 0, 10, 0);
	struct hdp_pool_stats st;
	void *obj = hdp_pool_alloc(pool);
	char buf[2048], tiny[16];
	int n;

	hdp_pool_stats_get(pool, &st);
	n = hdp_pool_stats_json(&st, buf, sizeof(buf));
	cr_assert_lt(n, (int)sizeof(buf));
	cr_assert(strstr(buf, "\"name\":\"printed\""));
	cr_assert(strstr(buf, "\"in_use\":1,"));
	cr_assert(strstr(buf, "\"mem\":\"plain\""));
	cr_assert(strstr(buf, "\"double_free\":0,"), "%s", buf);
	/* Unconfigured: the built-in profile, tags off. */
	cr_assert(strstr(buf, "\"harden\":{\"profile\":\"bounds=on,"), "%s", buf);
	cr_assert(strstr(buf, ",tag=off,"), "%s", buf);
	cr_assert(strstr(buf, "\"tag_mismatch\":0,"), "%s", buf);
	/* The registered protections: their state, counters and kinds. */
	cr_assert(strstr(buf, "\"held\":0,"), "%s", buf);
	cr_assert(strstr(buf, "\"protections\":{\"quarantine\":{\"on\":false,\"quarantined\":0},"
			      "\"redzone\":{\"on\":false,\"redzone_checks\":0,"), "%s", buf);
	cr_assert(strstr(buf, "\"redzone_overwritten\":0}}}"), "%s", buf);
	cr_assert_eq(buf[n - 1], '}');
	/* A short buffer still reports the full length, like snprintf. */
	cr_assert_eq(hdp_pool_stats_json(&st, tiny, sizeof(tiny)), n);
	cr_assert_eq(strlen(tiny), sizeof(tiny) - 1);
	hdp_pool_stats_text(&st, buf, sizeof(buf));
	cr_assert(strstr(buf, "pool printed: 10 objects of 64 bytes"), "%s", buf);
	cr_assert(strstr(buf, "in use 1"), "%s", buf);
	hdp_pool_free(pool, obj);
	hdp_pool_destroy(pool);
}

/* Every size and alignment pools are made with, cached and not. */
Test(pool_alloc, sweep_of_sizes_alignments_and_cache_modes)
{
	static const size_t sizes[] = { 1, 8, 63, 64, 65, 100, 1500, 2048, 4096, 9000 };
	static const size_t aligns[] = { 0, 1, 8, 2048, 4096 };
	static const unsigned flags[] = { 0, HDP_POOL_F_NO_CACHE };
	void *objs[37];

	for (size_t s = 0; s < HDP_ARRAY_SIZE(sizes); s++)
	for (size_t a = 0; a < HDP_ARRAY_SIZE(aligns); a++)
	for (size_t f = 0; f < HDP_ARRAY_SIZE(flags); f++) {
		struct hdp_pool *pool = make("sweep", sizes[s], aligns[a], 37, flags[f]);
		struct hdp_pool_stats st;

		cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 37), 0,
			     "size %zu align %zu", sizes[s], aligns[a]);
		check_objects(pool, objs, 37);
		cr_assert_eq(hdp_pool_free_burst(pool, objs, 37), 37);
		hdp_pool_stats_get(pool, &st);
		cr_assert_eq(st.in_use, 0);
		cr_assert_eq(st.free_shared + st.free_cached, 37);
		hdp_pool_destroy(pool);
	}
}
