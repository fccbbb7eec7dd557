// SPDX-License-Identifier: BSD-3-Clause
/*
 * An application built against an installed hdp, with nothing but
 * `pkg-config --cflags --libs hdp` (the shared libhdp): a protection of
 * its own registered, listed beside hdp's and run on its pool; a hardened
 * pool configured from a profile string, a checked copy past an object's
 * end refused, and a double free caught and counted. Exit 0 when all hold.
 */
#include <hdp/pool.h>
#include <hdp/profile.h>
#include <hdp/protection.h>

#include <stdio.h>
#include <string.h>

static unsigned seen_allocs;

static void count_allocs(const struct hdp_protection_burst *b, void **objs, unsigned n)
{
	(void)b;
	(void)objs;
	seen_allocs += n;
}

static const struct hdp_protection_key app_keys[] = {
	{ "appcount", HDP_VALUE_BOOL, .def = 0, .doc = "count allocations" },
};

static const struct hdp_protection appcount = {
	.name = "appcount", .doc = "the application's own",
	.keys = app_keys, .nkeys = 1, .on_alloc = count_allocs,
};

int main(void)
{
	static struct hdp_harden_config cfg;
	/* Before anything else of hdp's: the registry is read once, at first use. */
	int registered = hdp_protection_register(&appcount);
	struct hdp_pool *pool = registered ? NULL : hdp_pool_create(&(struct hdp_pool_params){
		.name = "app", .obj_size = 2048, .obj_align = 2048, .obj_count = 64,
		.mem = HDP_MEM_PLAIN, .on_violation = HDP_POLICY_REPORT,
		.flags = HDP_POOL_F_NO_CACHE,
	});
	char src[4096] = { 1 };
	struct hdp_pool_stats st;
	void *obj;

	if (registered) {
		fprintf(stderr, "app: hdp_protection_register refused it: %s\n",
			strerror(-registered));
		return 1;
	}
	if (!pool) {
		perror("app: hdp_pool_create");
		return 1;
	}
	if (hdp_protection_find("appcount") != &appcount) {
		fprintf(stderr, "app: its own protection is not in the registry (%u there)\n",
			hdp_protection_count_registered());
		return 1;
	}
	hdp_harden_config_init(&cfg);
	hdp_harden_config_declare(&cfg, "app");
	if (hdp_harden_config_parse_string(&cfg, "bounds=on,init_on_free=used,"
					   "on_violation=report,appcount=on", "app") ||
	    hdp_pool_configure(pool, &cfg)) {
		fprintf(stderr, "app: the profile was refused\n");
		return 1;
	}
	obj = hdp_pool_alloc(pool);
	if (!obj)
		return 1;
	if (hdp_pool_copy_in(pool, obj, src, 64) != 0 ||
	    hdp_pool_copy_in(pool, obj, src, sizeof(src)) == 0) {
		fprintf(stderr, "app: the copy past the object's end was not refused\n");
		return 1;
	}
	hdp_pool_free(pool, obj);
	hdp_pool_free(pool, obj);
	hdp_pool_stats_get(pool, &st);
	printf("app: appcount saw %u allocations, double_free %llu, bounds_object_end %llu\n",
	       seen_allocs,
	       (unsigned long long)st.harden.violations[HDP_V_DOUBLE_FREE],
	       (unsigned long long)st.harden.violations[HDP_V_BOUNDS_OBJECT_END]);
	hdp_pool_destroy(pool);
	return seen_allocs == 1 && st.harden.violations[HDP_V_DOUBLE_FREE] == 1 &&
	       st.harden.violations[HDP_V_BOUNDS_OBJECT_END] == 1 ? 0 : 1;
}
