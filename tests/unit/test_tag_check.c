// SPDX-License-Identifier: BSD-3-Clause
/*
 * The tag check mode's words and wishes, on any CPU: the three names, a
 * request beating the environment, a bad HDP_TAG_CHECK said and taken as
 * sync, and nothing in force where no MTE pool turned MTE on. What the
 * CPU gives in each mode is tests/mte's, on the arm64 lane.
 */
#include <criterion/criterion.h>

#include <hdp/log.h>
#include <hdp/strbuf.h>
#include <hdp/tag.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char logged[512];
static struct hdp_strbuf log_buf;

static void capture(void *ctx, enum hdp_log_level level, const char *msg)
{
	(void)level;
	hdp_strbuf_printf(ctx, "%s\n", msg);
}

static void setup(void)
{
	log_buf = hdp_strbuf_init(logged, sizeof(logged));
	hdp_log_set_sink(capture, &log_buf);
	unsetenv("HDP_TAG_CHECK");
}

TestSuite(tag_check, .init = setup);

Test(tag_check, three_modes_by_name_and_nothing_else)
{
	static const char *const good[] = { "sync", "async", "asymm" };
	static const char *const bad[] = { "", "SYNC", "asym", "sync ", "none", "1" };
	enum hdp_tag_check m;

	for (unsigned i = 0; i < 3; i++) {
		cr_assert_eq(hdp_tag_check_parse(good[i], &m), 0, "%s", good[i]);
		cr_assert_str_eq(hdp_tag_check_name(m), good[i]);
	}
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_eq(hdp_tag_check_parse(bad[i], &m), -1, "'%s'", bad[i]);
	cr_assert_eq(hdp_tag_check_parse(NULL, &m), -1);
	cr_assert_str_eq(hdp_tag_check_name(HDP_TAG_CHECK_NONE), "none");
}

Test(tag_check, sync_unless_asked)
{
	cr_assert_eq(hdp_tag_check_wanted(), HDP_TAG_CHECK_SYNC);
}

Test(tag_check, the_environment_asks_when_the_program_does_not)
{
	setenv("HDP_TAG_CHECK", "async", 1);
	cr_assert_eq(hdp_tag_check_wanted(), HDP_TAG_CHECK_ASYNC);
	cr_assert_eq(hdp_tag_check_request(HDP_TAG_CHECK_ASYMM), 0);
	cr_assert_eq(hdp_tag_check_wanted(), HDP_TAG_CHECK_ASYMM, "a request beats the environment");
}

Test(tag_check, a_bad_environment_is_said_and_taken_as_sync)
{
	setenv("HDP_TAG_CHECK", "fast", 1);
	cr_assert_eq(hdp_tag_check_wanted(), HDP_TAG_CHECK_SYNC);
	cr_assert(strstr(logged, "HDP_TAG_CHECK='fast'") && strstr(logged, "sync, async or asymm"),
		  "logged: %s", logged);
}

Test(tag_check, a_request_outside_the_three_is_refused)
{
	cr_assert_eq(hdp_tag_check_request(HDP_TAG_CHECK_NONE), -EINVAL);
	cr_assert_eq(hdp_tag_check_request((enum hdp_tag_check)42), -EINVAL);
}

Test(tag_check, nothing_in_force_without_mte)
{
	const char *why = "unset";

	if (hdp_tag_mte_available())
		cr_skip("this CPU has MTE: tests/mte covers it");
	cr_assert_eq(hdp_tag_check_in_force(&why), -1);
	cr_assert_str_eq(why, "");
}
