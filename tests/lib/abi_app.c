// SPDX-License-Identifier: BSD-3-Clause
/*
 * An application built once, against this tree's headers, and run by
 * tests/lib/abi-grown against this libhdp.so.1 and against one built from
 * a copy of the tree whose lists are each a line longer. What it reads
 * the way an application compiled before a change does: profile fields
 * and key bits, counters and violation kinds by their enum numbers, and
 * the size of the stats struct the library fills. Each is checked against
 * what the library says by name, so a field or number that moved under it
 * is a failure, not a wrong figure printed.
 *
 * usage: abi_app [--grown]   (--grown: the library must know the probe key)
 */
#include <hdp/harden.h>
#include <hdp/pool.h>
#include <hdp/profile.h>
#include <hdp/violation.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The key the grown copy of the tree adds at the end of hdp's own. */
#define PROBE_KEY "shuffle_abi_probe"

static int failures;

static void check(int ok, const char *what)
{
	if (!ok) {
		fprintf(stderr, "abi_app: %s\n", what);
		failures++;
	}
}

struct by_name {
	const char *name;
	uint64_t value;
	int seen;
};

static void find(void *ctx, const char *name, uint64_t value, const char *text)
{
	struct by_name *want = ctx;

	(void)text;
	if (strcmp(name, want->name) == 0) {
		want->value = value;
		want->seen = 1;
	}
}

/* The figure the library reports under @name equals the one read at @by_enum. */
static void same(const struct hdp_harden_stats *h, const char *name, uint64_t by_enum)
{
	struct by_name want = { .name = name };
	char what[160];

	hdp_harden_stats_each(h, find, &want);
	snprintf(what, sizeof(what), "%s: the library reports %llu, the enum reads %llu%s", name,
		 (unsigned long long)want.value, (unsigned long long)by_enum,
		 want.seen ? "" : " (no such figure)");
	check(want.seen && want.value == by_enum, what);
}

static void profile_field(const struct hdp_profile *p, const char *key, uint32_t field)
{
	uint32_t v = UINT32_MAX;
	char what[160];

	snprintf(what, sizeof(what), "profile key %s: the library reads %u, the field %u", key,
		 hdp_profile_value(p, key, &v) ? UINT32_MAX : v, field);
	check(hdp_profile_value(p, key, &v) == 0 && v == field, what);
}

int main(int argc, char **argv)
{
	int grown = argc > 1 && strcmp(argv[1], "--grown") == 0;
	struct hdp_harden_config *cfg = hdp_harden_config_new();
	/* Room after the stats: a library that writes more than this build's size is caught. */
	struct {
		struct hdp_pool_stats st;
		unsigned char after[512];
	} w;
	const struct hdp_profile *p = &w.st.harden.profile;
	struct hdp_pool *pool;
	void *objs[16];
	uint32_t probe;

	pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "abi", .obj_size = 256, .obj_count = 128,
		.mem = HDP_MEM_PLAIN, .on_violation = HDP_POLICY_REPORT,
	});
	if (!cfg || !pool) {
		perror("abi_app: set-up");
		return 1;
	}
	if (hdp_harden_config_declare(cfg, "abi") ||
	    hdp_harden_config_parse_string(cfg, "pool.abi.tag=off,pool.abi.init_on_free=used,"
					   "pool.abi.quarantine=on,pool.abi.quarantine_depth=4,"
					   "pool.abi.redzone=on,pool.abi.redzone_bytes=32,"
					   "pool.abi.shuffle=on", "abi_app") ||
	    hdp_pool_configure(pool, cfg)) {
		fprintf(stderr, "abi_app: the profile was refused\n");
		return 1;
	}
	hdp_harden_config_free(cfg);

	/* Frees that go through quarantine, redzone checks and shuffled reuse. */
	for (int round = 0; round < 40; round++) {
		struct hdp_extent ext[16];
		unsigned n = hdp_pool_alloc_burst(pool, objs, 16);

		for (unsigned i = 0; i < n; i++) {
			memset(hdp_deref(objs[i]), 0x5a, 100);
			ext[i] = (struct hdp_extent){ 0, 100 };
		}
		/* Once, a write past the extent, inside the redzone: reported at free. */
		if (round == 30 && n)
			((unsigned char *)hdp_deref(objs[0]))[110] = 1;
		hdp_pool_free_burst_extent(pool, objs, ext, n);
	}

	memset(w.after, 0xa5, sizeof(w.after));
	hdp_pool_stats_get(pool, &w.st);
	for (size_t i = 0; i < sizeof(w.after); i++)
		if (w.after[i] != 0xa5) {
			check(0, "hdp_pool_stats_get wrote past this build's struct hdp_pool_stats");
			break;
		}

	/* The profile's fields and key bits where this build put them. */
	check(p->quarantine && p->shuffle && p->redzone, "the profile's fields: a protection off");
	profile_field(p, "quarantine_depth", p->quarantine_depth);
	profile_field(p, "redzone_bytes", p->redzone_bytes);
	profile_field(p, "shuffle", p->shuffle);
	check(p->quarantine_depth == 4 && p->redzone_bytes == 32, "the profile's values");
	check((p->set & (HDP_KEY_QUARANTINE_DEPTH | HDP_KEY_REDZONE_BYTES | HDP_KEY_SHUFFLE)) ==
		      (HDP_KEY_QUARANTINE_DEPTH | HDP_KEY_REDZONE_BYTES | HDP_KEY_SHUFFLE),
	      "the profile's set bits: a key set is not marked where this build looks");
	check(hdp_profile_value(p, PROBE_KEY, &probe) == (grown ? 0 : -ENOENT),
	      grown ? "the grown library does not know " PROBE_KEY
		    : "this library knows " PROBE_KEY);

	/* Counters and kinds by this build's numbers, against their names. */
	same(&w.st.harden, "quarantined", w.st.harden.counters[HDP_C_QUARANTINED]);
	same(&w.st.harden, "redzone_checks", w.st.harden.counters[HDP_C_REDZONE_CHECKS]);
	same(&w.st.harden, "shuffled", w.st.harden.counters[HDP_C_SHUFFLED]);
	same(&w.st.harden, "redzone_overwritten",
	     w.st.harden.violations[HDP_V_REDZONE_OVERWRITTEN]);
	check(strcmp(hdp_violation_name(HDP_V_REDZONE_OVERWRITTEN), "redzone_overwritten") == 0,
	      "hdp_violation_name: this build's redzone_overwritten is another kind there");
	check(w.st.harden.counters[HDP_C_QUARANTINED] > 0 &&
		      w.st.harden.counters[HDP_C_REDZONE_CHECKS] > 0 &&
		      w.st.harden.counters[HDP_C_SHUFFLED] > 0,
	      "quarantine, redzone or shuffle counted nothing");
	check(w.st.harden.violations[HDP_V_REDZONE_OVERWRITTEN] == 1,
	      "the write past the extent was not reported once");

	printf("abi_app: %s (quarantined %llu, redzone checks %llu, shuffled %llu, "
	       "redzone_overwritten %llu)\n", failures ? "FAILED" : "ok",
	       (unsigned long long)w.st.harden.counters[HDP_C_QUARANTINED],
	       (unsigned long long)w.st.harden.counters[HDP_C_REDZONE_CHECKS],
	       (unsigned long long)w.st.harden.counters[HDP_C_SHUFFLED],
	       (unsigned long long)w.st.harden.violations[HDP_V_REDZONE_OVERWRITTEN]);
	hdp_pool_destroy(pool);
	return failures ? 1 : 0;
}
