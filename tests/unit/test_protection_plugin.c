// SPDX-License-Identifier: BSD-3-Clause
/*
 * A protection written outside hardening/, against hdp's public headers
 * only, registered by this test before hdp uses its registry: its keys parse and format,
 * its hooks run once per burst, its counters and violation kind show in
 * the pool's stats, it can refuse frees and copies, it follows runtime
 * switches, and its state is freed with the pool.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>
#include <hdp/protection.h>
#include <hdp/strbuf.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

enum { K_ON, K_MODE, K_LIMIT };
enum { C_ALLOCS, C_FREES, C_COPIES };

static const char *const modes[] = { "count", "refuse", NULL };

/* What the hooks saw, for the tests (single-threaded). */
static struct {
	unsigned alloc_bursts, free_bursts, last_n, attaches, detaches;
	uint64_t last_epoch;
	uint32_t last_limit;
} seen;

struct tally_state {
	unsigned magic;
};

static int tally_attach(struct hdp_protection_pool *pp, const uint32_t *values,
			const char **why)
{
	if (values[K_LIMIT] > pp->obj_size) {
		*why = "tally_limit is larger than the pool's objects";
		return -EINVAL;
	}
	if (!pp->state) {
		struct tally_state *s = malloc(sizeof(*s));

		if (!s)
			return -ENOMEM;
		s->magic = 0x7a11;
		pp->state = s;
		seen.attaches++;
	}
	return 0;
}

static void tally_detach(struct hdp_protection_pool *pp)
{
	free(pp->state);
	pp->state = NULL;
	seen.detaches++;
}

static void tally_on_alloc(const struct hdp_protection_burst *b, void **objs, unsigned n)
{
	struct tally_state *s = b->pool->state;

	(void)objs;
	cr_assert_eq(s->magic, 0x7a11);
	seen.alloc_bursts++;
	seen.last_n = n;
	seen.last_epoch = b->epoch;
	seen.last_limit = b->values[K_LIMIT];
	hdp_protection_count(b, C_ALLOCS, n);
}

/* mode=refuse: an object whose first byte is 0x77 is "marked" and stays out. */
static uint64_t tally_on_free(const struct hdp_protection_burst *b, void *const *objs,
			      const struct hdp_extent *ext, unsigned n)
{
	uint64_t refused = 0;

	(void)ext;
	seen.free_bursts++;
	seen.last_n = n;
	hdp_protection_count(b, C_FREES, n);
	for (unsigned i = 0; b->values[K_MODE] == 1 && i < n; i++) {
		const unsigned char *p = hdp_deref(objs[i]);

		if (!(b->refused >> i & 1) && p[0] == 0x77) {
			hdp_protection_violation(b, 0, p, b->pool->obj_size, "marked");
			refused |= UINT64_C(1) << i;
		}
	}
	return refused;
}

static int tally_on_copy(const struct hdp_protection_burst *b, const void *p, size_t n,
			 bool into_pool)
{
	hdp_protection_count(b, C_COPIES, 1);
	if (into_pool && n > b->values[K_LIMIT]) {
		hdp_protection_violation(b, 0, p, n, "copy over the limit");
		return -EFAULT;
	}
	return 0;
}

static const struct hdp_protection_key tally_keys[] = {
	[K_ON] = { "tally", HDP_VALUE_BOOL, .def = 0, .doc = "count" },
	[K_MODE] = { "tally_mode", HDP_VALUE_CHOICE, .choices = modes, .def = 0,
		     .doc = "count, or refuse marked objects" },
	[K_LIMIT] = { "tally_limit", HDP_VALUE_UINT, .min = 1, .max = 1000, .def = 100,
		      .doc = "longest copy in" },
};

static const struct hdp_protection_name tally_counters[] = {
	[C_ALLOCS] = { "tally_allocs", "objects allocated" },
	[C_FREES] = { "tally_frees", "objects offered back" },
	[C_COPIES] = { "tally_copies", "checked copies" },
};

static const struct hdp_protection_name tally_violations[] = {
	{ "tally_marked", "a marked object or an over-long copy" },
};

static const struct hdp_protection tally = {
	.name = "tally",
	.doc = "a test's protection",
	.keys = tally_keys, .nkeys = 3,
	.counters = tally_counters, .ncounters = 3,
	.violations = tally_violations, .nviolations = 1,
	.attach = tally_attach, .detach = tally_detach,
	.on_alloc = tally_on_alloc, .on_free = tally_on_free, .on_copy = tally_on_copy,
};

/*
 * Descriptions that break the rules, each refused at registration with
 * the reason, none of them read past what was checked.
 */
static const struct hdp_protection_key ok_key[] = {
	{ "shaky", HDP_VALUE_BOOL, .def = 0, .doc = "" },
};
static const struct hdp_protection_key later_key[] = {
	{ "shaky_later", HDP_VALUE_BOOL, .doc = "", .reserved[1] = "set" },
};
static const struct hdp_protection_key clash_key[] = {
	{ "tag", HDP_VALUE_BOOL, .def = 0, .doc = "clashes with a core key" },
};
static const char *const ambiguous[] = { "a,b=c", "d", NULL };
static const struct hdp_protection_key ambiguous_key[] = {
	{ "shaky", HDP_VALUE_CHOICE, .choices = ambiguous, .def = 0, .doc = "" },
};
static const struct hdp_protection_name one_counter[] = { { "ok", "" } };

static const struct {
	struct hdp_protection p;
	const char *why;
} bad[] = {
	{ { .name = NULL, .keys = ok_key, .nkeys = 1 }, "its name is not" },
	{ { .name = "clash", .keys = clash_key, .nkeys = 1 }, "one of its keys is another's" },
	{ { .name = "nulls", .keys = ok_key, .nkeys = 1, .counters = NULL, .ncounters = 1 },
	  "counters given as NULL" },
	{ { .name = "wraps", .keys = ok_key, .nkeys = 1, .counters = one_counter,
	    .ncounters = 0xFFFFFFFFu }, "more than 16 counters" },
	{ { .name = "ambiguous", .keys = ambiguous_key, .nkeys = 1 },
	  "a choice that is not 1-31 of [a-z0-9_-]" },
	{ { .name = "tally", .keys = ok_key, .nkeys = 1 }, "another protection has its name" },
	{ { .name = "nokeys", .keys = NULL, .nkeys = 1 }, "it needs 1 to 8 keys" },
	{ { .name = "later", .keys = ok_key, .nkeys = 1, .reserved[7] = (void *)ok_key },
	  "its reserved fields are not NULL" },
	{ { .name = "laterkey", .keys = later_key, .nkeys = 1 },
	  "a key whose reserved fields are not NULL" },
};

static unsigned tally_index(void)
{
	for (unsigned i = 0; i < hdp_protection_count_registered(); i++)
		if (hdp_protection_get(i) == &tally)
			return i;
	cr_assert_fail("tally is not registered");
	return 0;
}

static void setup(void)
{
	static bool registered;

	memset(&seen, 0, sizeof(seen));
	capture_logs();
	/* Each test runs in a process of its own, the registry unused so far. */
	if (!registered)
		cr_assert_eq(hdp_protection_register(&tally), 0, "%s", captured_logs());
	registered = true;
}

TestSuite(protection_plugin, .init = setup);

Test(protection_plugin, registers_and_is_found_with_hdp_own)
{
	cr_assert_eq(hdp_protection_find("tally"), &tally);
	cr_assert_not_null(hdp_protection_find("redzone"));
	cr_assert_geq(violation_kind("tally_marked"), HDP_V__COUNT);
	(void)tally_index();
}

Test(protection_plugin, bad_descriptions_are_refused_with_the_reason)
{
	cr_assert_eq(hdp_protection_register(NULL), -EINVAL);
	cr_assert(log_contains("its description is NULL"), "%s", captured_logs());
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		clear_logs();
		cr_assert_eq(hdp_protection_register(&bad[i].p), -EINVAL, "case %zu", i);
		cr_assert(log_contains("is not registered"), "case %zu: %s", i, captured_logs());
		cr_assert(log_contains(bad[i].why), "case %zu: %s", i, captured_logs());
	}
	cr_assert_null(hdp_protection_find("clash"));
	cr_assert_null(hdp_protection_find("ambiguous"));
}

Test(protection_plugin, registering_once_the_registry_is_in_use_is_refused)
{
	static const struct hdp_protection late = { .name = "late", .keys = ok_key, .nkeys = 1 };

	(void)hdp_protection_count_registered();	/* in use from here on */
	cr_assert_eq(hdp_protection_register(&late), -EBUSY);
	cr_assert(log_contains("protection 'late' is not registered: too late"), "%s",
		  captured_logs());
	cr_assert_null(hdp_protection_find("late"));
}

Test(protection_plugin, keys_parse_format_and_refuse_with_the_reason)
{
	static struct hdp_harden_config cfg;
	struct hdp_profile p;
	char buf[512];

	hdp_harden_config_init(&cfg);
	cr_assert_eq(hdp_harden_config_parse_string(&cfg, "tally=on,tally_mode=refuse", "t"), 0);
	hdp_harden_config_resolve(&cfg, NULL, &p);
	hdp_profile_format(&p, buf, sizeof(buf));
	cr_assert(strstr(buf, ",tally=on,tally_mode=refuse,tally_limit=100"), "%s", buf);

	cr_assert_eq(hdp_harden_config_parse_string(&cfg, "tally_limit=0", "t"), -EINVAL);
	cr_assert(log_contains("tally_limit"), "%s", captured_logs());
	cr_assert(log_contains("expected a whole number from 1 to 1000"), "%s", captured_logs());
	cr_assert_eq(hdp_harden_config_parse_string(&cfg, "tally_mode=loud", "t"), -EINVAL);
	cr_assert(log_contains("expected count or refuse"), "%s", captured_logs());
	cr_assert_eq(hdp_harden_config_parse_string(&cfg, "tally=maybe", "t"), -EINVAL);
	cr_assert(log_contains("expected on or off"), "%s", captured_logs());
}

Test(protection_plugin, hooks_run_once_per_burst_and_count)
{
	struct hdp_pool *pool = hardened_pool("tallied", 256, 64, 0, "tally=on");
	struct hdp_pool_stats st;
	void *objs[40];
	char json[4096];

	cr_assert_not_null(pool);
	cr_assert(hdp_protection_on(hdp_pool_harden(pool), tally_index()));
	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 40), 0);
	cr_assert_eq(seen.alloc_bursts, 1);
	cr_assert_eq(seen.last_n, 40);
	cr_assert_gt(seen.last_epoch, 0);
	cr_assert_eq(seen.last_limit, 100);
	cr_assert_eq(hdp_pool_free_burst(pool, objs, 40), 40);
	cr_assert_eq(seen.free_bursts, 1);

	hdp_pool_stats_get(pool, &st);
	hdp_pool_stats_json(&st, json, sizeof(json));
	cr_assert(strstr(json, "\"tally\":{\"on\":true,\"tally_allocs\":40,\"tally_frees\":40,"
			       "\"tally_copies\":0}"), "%s", json);
	hdp_pool_destroy(pool);
	cr_assert_eq(seen.attaches, 1);
	cr_assert_eq(seen.detaches, 1);
}

Test(protection_plugin, a_free_hook_refuses_and_the_policy_applies)
{
	struct hdp_pool *pool = hardened_pool("refusing", 256, 16, 0,
					      "tally=on,tally_mode=refuse,on_violation=report");
	int kind = violation_kind("tally_marked");
	struct hdp_pool_stats st;
	void *objs[3];

	cr_assert_not_null(pool);
	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 3), 0);
	((unsigned char *)hdp_deref(objs[1]))[0] = 0x77;
	/* Two go back; the marked one stays with its owner. */
	cr_assert_eq(hdp_pool_free_burst(pool, objs, 3), 2);
	cr_assert_eq(violations(pool, kind), 1);
	cr_assert(log_contains("tally_marked"), "%s", captured_logs());
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 1);
	((unsigned char *)hdp_deref(objs[1]))[0] = 0;
	cr_assert_eq(hdp_pool_free_burst(pool, &objs[1], 1), 1);
	hdp_pool_destroy(pool);
}

Test(protection_plugin, a_copy_hook_refuses_a_copy)
{
	struct hdp_pool *pool = hardened_pool("copying", 256, 16, 0,
					      "tally=on,tally_limit=32,on_violation=drop");
	char src[64] = { 1 };
	void *obj;

	cr_assert_not_null(pool);
	obj = hdp_pool_alloc(pool);
	cr_assert_eq(hdp_pool_copy_in(pool, obj, src, 32), 0);
	cr_assert_eq(hdp_pool_copy_in(pool, obj, src, 33), -EFAULT);
	cr_assert_eq(violations(pool, violation_kind("tally_marked")), 1);
	hdp_pool_free(pool, obj);
	hdp_pool_destroy(pool);
}

Test(protection_plugin, runtime_switches_take_effect_between_bursts)
{
	struct hdp_pool *pool = hardened_pool("switched", 256, 16, 0, "tally=off");
	uint64_t first;
	void *obj;

	cr_assert_not_null(pool);
	obj = hdp_pool_alloc(pool);
	hdp_pool_free(pool, obj);
	cr_assert_eq(seen.alloc_bursts, 0);

	cr_assert_eq(hdp_pool_set(pool, "tally", "on"), 0);
	obj = hdp_pool_alloc(pool);
	cr_assert_eq(seen.alloc_bursts, 1);
	first = seen.last_epoch;
	cr_assert_eq(hdp_pool_set(pool, "tally_limit", "7"), 0);
	hdp_pool_free(pool, obj);
	obj = hdp_pool_alloc(pool);
	cr_assert_eq(seen.last_limit, 7);
	cr_assert_eq(seen.last_epoch, first, "a value change is not a new epoch");

	cr_assert_eq(hdp_pool_set(pool, "tally", "off"), 0);
	hdp_pool_free(pool, obj);
	cr_assert_eq(seen.free_bursts, 1);
	cr_assert_eq(hdp_pool_set(pool, "tally", "on"), 0);
	obj = hdp_pool_alloc(pool);
	cr_assert_eq(seen.last_epoch, first + 1, "turned on again: a new epoch");
	hdp_pool_free(pool, obj);

	/* attach refuses: the profile stays as it was, the reason logged. */
	cr_assert_eq(hdp_pool_set(pool, "tally_limit", "999"), -EINVAL);
	cr_assert(log_contains("larger than the pool's objects"), "%s", captured_logs());
	obj = hdp_pool_alloc(pool);
	cr_assert_eq(seen.last_limit, 7);
	hdp_pool_free(pool, obj);
	hdp_pool_destroy(pool);
	cr_assert_eq(seen.detaches, 1);
}
