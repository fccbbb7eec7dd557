// SPDX-License-Identifier: BSD-3-Clause
/*
 * A hardened pool, start to finish: create it, configure it from a
 * profile string, allocate, copy in through the bounds check, write
 * through hdp_deref (tags are on here), read the statistics, free,
 * destroy. Exits 0 when every step did what the guide says
 * (docs/LIBRARY.md).
 *
 *   cc pool_basics.c $(pkg-config --cflags --libs hdp)
 */
#include <hdp/pool.h>
#include <hdp/profile.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *what)
{
	fprintf(stderr, "pool_basics: %s\n", what);
	return 1;
}

int main(void)
{
	/* Made by the library: the program never depends on its size. */
	struct hdp_harden_config *cfg = hdp_harden_config_new();
	struct hdp_pool *pool;
	struct hdp_pool_stats st;
	char packet[1500], text[4096];
	char *obj;

	if (!cfg)
		return fail("out of memory");
	pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "packets", .obj_size = 2048, .obj_count = 1024,
		.on_violation = HDP_POLICY_REPORT,	/* count and refuse, do not abort */
	});
	if (!pool) {
		fprintf(stderr, "pool_basics: hdp_pool_create: %s\n", strerror(errno));
		return 1;
	}
	/* Protected already (the built-in profile, tags off); now ask for tags on every object. */
	if (hdp_harden_config_declare(cfg, "packets") ||
	    hdp_harden_config_parse_string(cfg, "pool.packets.tag=soft,pool.packets.tag_sample=1",
					   "pool_basics") ||
	    hdp_pool_configure(pool, cfg))
		return fail("the profile was refused (see the log above)");

	obj = hdp_pool_alloc(pool);
	if (!obj)
		return fail("no object");
	memset(packet, 0x5a, sizeof(packet));
	/* A checked copy: inside the object, it goes through. */
	if (hdp_pool_copy_in(pool, obj, packet, sizeof(packet)))
		return fail("a copy inside the object was refused");
	/* The pointer carries a tag: plain accesses go through hdp_deref. */
	((char *)hdp_deref(obj))[0] = 0x01;
	/* Past the object's end: refused and counted, nothing copied. */
	if (hdp_pool_copy_in(pool, obj + 1024, packet, sizeof(packet)) != -EFAULT)
		return fail("a copy past the object's end went through");

	hdp_pool_free(pool, obj);
	hdp_pool_stats_get(pool, &st);
	if (st.in_use != 0 || st.harden.violations[HDP_V_BOUNDS_OBJECT_END] != 1)
		return fail("the statistics do not show one refused copy and nothing in use");
	hdp_pool_stats_text(&st, text, sizeof(text));
	fputs(text, stdout);
	hdp_pool_destroy(pool);
	hdp_harden_config_free(cfg);
	return 0;
}
