// SPDX-License-Identifier: BSD-3-Clause
/*
 * A pool's report, text and JSON: what a pool without a profile says, and
 * that every protection, counter and violation kind the descriptions name
 * is in it.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>
#include <hdp/protection.h>

#include <stdio.h>
#include <string.h>

#include "support.h"

TestSuite(pool_stats, .init = capture_logs);

static void report(struct hdp_pool *pool, char *text, size_t tlen, char *json, size_t jlen)
{
	struct hdp_pool_stats st;

	hdp_pool_stats_get(pool, &st);
	cr_assert_lt((size_t)hdp_pool_stats_text(&st, text, tlen), tlen);
	cr_assert_lt((size_t)hdp_pool_stats_json(&st, json, jlen), jlen);
}

/* Nobody configured it: the built-in profile but tags, and the creator's policy. */
Test(pool_stats, a_pool_nobody_configured_says_what_it_has)
{
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "bare", .obj_size = 64, .obj_count = 16, .mem = HDP_MEM_PLAIN,
		.on_violation = HDP_POLICY_DROP,
	});
	char text[4096], json[8192];

	cr_assert_not_null(pool);
	report(pool, text, sizeof(text), json, sizeof(json));
	cr_assert(strstr(text, "  profile: bounds=on,"), "%s", text);
	cr_assert(strstr(text, ",tag=off,"), "%s", text);
	cr_assert(strstr(text, ",on_violation=drop"), "%s", text);
	cr_assert_null(strstr(text, " in 0"), "%s", text);
	cr_assert(strstr(json, "\"profile\":\"bounds=on,"), "%s", json);
	hdp_pool_destroy(pool);
}

/* Every counter and kind of every protection, core and registered, by name. */
Test(pool_stats, every_description_reaches_the_report)
{
	struct hdp_pool *pool = hardened_pool("reported", 64, 16, 0, "");
	char text[8192], json[16384], want[64];

	cr_assert_not_null(pool, "%s", captured_logs());
	report(pool, text, sizeof(text), json, sizeof(json));
	for (unsigned i = 0; i < hdp_protection_core_count(); i++) {
		const struct hdp_protection *p = hdp_protection_core_get(i);

		for (unsigned c = 0; c < p->ncounters; c++) {
			snprintf(want, sizeof(want), "\"%s\":", p->counters[c].name);
			cr_assert(strstr(json, want), "%s lacks %s", json, want);
			cr_assert(strstr(text, p->counters[c].name), "%s lacks %s", text,
				  p->counters[c].name);
		}
		for (unsigned k = 0; k < p->nviolations; k++) {
			snprintf(want, sizeof(want), "\"%s\":0", p->violations[k].name);
			cr_assert(strstr(json, want), "%s lacks %s", json, want);
		}
	}
	for (unsigned i = 0; i < hdp_protection_count_registered(); i++) {
		const struct hdp_protection *p = hdp_protection_get(i);

		snprintf(want, sizeof(want), "\"%s\":{\"on\":false", p->name);
		cr_assert(strstr(json, want), "%s lacks %s", json, want);
		snprintf(want, sizeof(want), "  %s: off", p->name);
		cr_assert(strstr(text, want), "%s lacks %s", text, want);
	}
	hdp_pool_destroy(pool);
}
