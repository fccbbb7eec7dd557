// SPDX-License-Identifier: BSD-3-Clause
/*
 * An application against the shared libhdp that happens to define
 * functions and variables with the names of hdp's internals, as any
 * program may: none of them may be called or written by libhdp, which
 * binds its internal calls inside itself. Ours abort if called; the
 * variables keep a pattern libhdp must not touch. A pool is created,
 * configured from a string, copied into (a copy past the end refused),
 * allocated from and freed to (a double free counted). Exit 0 when all
 * hold.
 */
#include <hdp/pool.h>
#include <hdp/profile.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALLED(name) do {                                                     \
		fprintf(stderr, "interpose: libhdp called the application's " name "()\n"); \
		abort();                                                      \
	} while (0)

/* Names hdp uses inside libhdp, in the application's own meaning. */
int mem_map(void);
int mem_unmap(void);
int bounds_check(void);
int zero_is_clear(void);
int pool_stack_pop(void);
int pool_table_insert(void);
int core_on_alloc(void);
int core_on_free(void);
int quarantine_hold(void);
int region_tree_insert(void);
int guard_watch(void);

int mem_map(void) { CALLED("mem_map"); }
int mem_unmap(void) { CALLED("mem_unmap"); }
int bounds_check(void) { CALLED("bounds_check"); }
int zero_is_clear(void) { CALLED("zero_is_clear"); }
int pool_stack_pop(void) { CALLED("pool_stack_pop"); }
int pool_table_insert(void) { CALLED("pool_table_insert"); }
int core_on_alloc(void) { CALLED("core_on_alloc"); }
int core_on_free(void) { CALLED("core_on_free"); }
int quarantine_hold(void) { CALLED("quarantine_hold"); }
int region_tree_insert(void) { CALLED("region_tree_insert"); }
int guard_watch(void) { CALLED("guard_watch"); }

#define PATTERN 0xa5
unsigned char region_slots[4096], region_fast_top[4096], region_slot_used[4096];

static int untouched(const char *name, const unsigned char *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (v[i] != PATTERN) {
			fprintf(stderr, "interpose: libhdp wrote the application's %s[%zu]\n",
				name, i);
			return 0;
		}
	}
	return 1;
}

static int fail(const char *what)
{
	fprintf(stderr, "interpose: %s\n", what);
	return 1;
}

int main(void)
{
	static struct hdp_harden_config cfg;
	struct hdp_pool_stats st;
	char src[256] = { 1 };
	struct hdp_pool *pool;
	void *objs[8];
	int ok;

	memset(region_slots, PATTERN, sizeof(region_slots));
	memset(region_fast_top, PATTERN, sizeof(region_fast_top));
	memset(region_slot_used, PATTERN, sizeof(region_slot_used));

	pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "interposed", .obj_size = 64, .obj_count = 256,
		.mem = HDP_MEM_PLAIN, .on_violation = HDP_POLICY_REPORT,
	});
	if (!pool) {
		perror("interpose: hdp_pool_create");
		return 1;
	}
	hdp_harden_config_init(&cfg);
	if (hdp_harden_config_declare(&cfg, "interposed") ||
	    hdp_harden_config_parse_string(&cfg, "bounds=on,init_on_free=on,"
					   "on_violation=report", "interpose") ||
	    hdp_pool_configure(pool, &cfg))
		return fail("the profile was refused");
	if (hdp_pool_alloc_bulk(pool, objs, 8))
		return fail("hdp_pool_alloc_bulk of 8 failed");
	if (hdp_pool_copy_in(pool, objs[0], src, 64))
		return fail("a copy of 64 bytes into a 64-byte object was refused");
	if (hdp_pool_copy_in(pool, objs[1], src, sizeof(src)) == 0)
		return fail("a copy of 256 bytes into a 64-byte object was not refused");
	hdp_pool_free_burst(pool, objs, 8);
	hdp_pool_free(pool, objs[0]);
	hdp_pool_stats_get(pool, &st);
	printf("interpose: allocs %llu, frees %llu, double_free %llu, bounds_object_end %llu\n",
	       (unsigned long long)st.allocs, (unsigned long long)st.frees,
	       (unsigned long long)st.harden.violations[HDP_V_DOUBLE_FREE],
	       (unsigned long long)st.harden.violations[HDP_V_BOUNDS_OBJECT_END]);
	ok = st.allocs == 8 && st.frees == 8 && st.in_use == 0 &&
	     st.harden.violations[HDP_V_DOUBLE_FREE] == 1 &&
	     st.harden.violations[HDP_V_BOUNDS_OBJECT_END] == 1;
	hdp_pool_destroy(pool);
	ok = ok && untouched("region_slots", region_slots, sizeof(region_slots)) &&
	     untouched("region_fast_top", region_fast_top, sizeof(region_fast_top)) &&
	     untouched("region_slot_used", region_slot_used, sizeof(region_slot_used));
	return ok ? 0 : fail("the pool's figures are not what was done");
}
