// SPDX-License-Identifier: BSD-3-Clause
/*
 * The control socket's answers, on a real forwarder whose rings live in
 * memory: requests are parsed word for word, every key obeys the same
 * dependency rule as at start-up, what "pools" shows is what is in force,
 * and names are escaped in JSON.
 */
#include <criterion/criterion.h>

#include <hdp/ctl.h>
#include <hdp/fwd.h>
#include <hdp/log.h>

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "fwd_support.h"
#include "support.h"

static struct hdp_fwd_cfg cfg;
static struct hdp_fwd *fwd;
static char reply[65536];

static void make_forwarder(void)
{
	hdp_fwd_cfg_defaults(&cfg);
	fwd = loopback_forwarder(&cfg, "a\"q,b\\r", NULL);
}

static void drop_forwarder(void)
{
	cr_assert_eq(hdp_fwd_loopback_destroy(fwd), 0);
}

TestSuite(fwd_ctl, .init = make_forwarder, .fini = drop_forwarder);

static int ask(const char *req)
{
	return hdp_ctl_answer(fwd, req, reply, sizeof(reply));
}

Test(fwd_ctl, requests_are_parsed_word_for_word)
{
	static const char *const refused[] = {
		"setumem tag soft", "set  umem tag soft", "set umem tag soft ",
		" stats", "stats  json", "statsjson", "set umem tag", "set umem tag soft x",
		"pools json x", "", "set\tumem tag soft",
	};

	for (size_t i = 0; i < HDP_ARRAY_SIZE(refused); i++) {
		cr_assert_neq(ask(refused[i]), 0, "'%s' was accepted", refused[i]);
		cr_assert(strncmp(reply, "error: ", 7) == 0, "'%s': %s", refused[i], reply);
	}
	cr_assert_eq(ask("set umem tag soft"), 0, "%s", reply);
	cr_assert_str_eq(reply, "ok: pool umem: tag=soft\n");
}

/* One rule, in one place: the key that needs another cannot lose it. */
Test(fwd_ctl, a_key_cannot_be_switched_away_from_under_one_that_needs_it)
{
	cr_assert_eq(ask("set umem init_check on"), 0, "%s", reply);
	cr_assert_neq(ask("set umem init_on_free off"), 0);
	cr_assert(strstr(reply, "init_check=on needs init_on_free=on or used"), "%s", reply);
	ask("pools");
	cr_assert(strstr(reply, "init_on_free=on,init_check=on"), "%s", reply);
	cr_assert_eq(ask("set umem init_check off"), 0, "%s", reply);
	cr_assert_eq(ask("set umem init_on_free off"), 0, "%s", reply);
	cr_assert_neq(ask("set umem init_check on"), 0);
	ask("pools");
	cr_assert(strstr(reply, "init_on_free=off,init_check=off"), "%s", reply);
}

Test(fwd_ctl, pools_shows_only_what_is_in_force)
{
	cr_assert_eq(ask("set umem bounds_lookup tree"), 0, "%s", reply);
	cr_assert_eq(ask("set umem bounds off"), 0, "%s", reply);
	ask("pools");
	cr_assert_null(strstr(reply, "bounds_tree"), "%s", reply);
	cr_assert_eq(ask("set umem bounds on"), 0, "%s", reply);
	ask("pools");
	cr_assert(strstr(reply, "bounds,bounds_tree"), "%s", reply);
}

Test(fwd_ctl, interface_names_are_escaped_in_json)
{
	cr_assert_eq(ask("stats json"), 0, "%s", reply);
	cr_assert(strstr(reply, "\"ifname\":\"a\\\"q\""), "%s", reply);
	cr_assert(strstr(reply, "\"ifname\":\"b\\\\r\""), "%s", reply);
}

static void *report_from_a_worker(void *arg)
{
	struct hdp_pool_region lay;

	/* An interior free under on_violation=report, from another thread. */
	hdp_pool_region(arg, &lay);
	hdp_pool_free(arg, (char *)lay.base + 1);
	return NULL;
}

static void set_while_a_worker_reports(struct hdp_pool *pool)
{
	pthread_t t;

	pthread_create(&t, NULL, report_from_a_worker, pool);
	ask("set umem tag_sample 10");
	pthread_join(t, NULL);
}

/* A worker's report goes to the log, never into a control reply. */
Test(fwd_ctl, a_violation_report_never_lands_in_a_reply)
{
	struct hdp_pool *pool = hdp_fwd_pool(fwd);

	cr_assert_eq(ask("set umem on_violation report"), 0, "%s", reply);
	for (int i = 0; i < 200; i++) {
		set_while_a_worker_reports(pool);
		cr_assert_str_eq(reply, "ok: pool umem: tag_sample=10\n");
	}
	cr_assert(log_contains("violation: free_interior in pool 'umem'"), "%s", captured_logs());
}

/* "reload" with a source of its own: what the forwarder logs, and its verdict. */
static int reload_says_refused(void *ctx)
{
	(void)ctx;
	hdp_log(HDP_LOG_ERR, "edge.ini:5: pool 'umem', key 'tag_sample', value '0'");
	hdp_log(HDP_LOG_ERR, "reload: edge.ini refused (errors above): nothing changed");
	return -EINVAL;
}

static int reload_warns_then_applies(void *ctx)
{
	(void)ctx;
	hdp_log(HDP_LOG_WARN, "4096 frames cannot keep the rings full");
	hdp_log(HDP_LOG_INFO, "reload: edge.ini read again");
	return 0;
}

static int ask_reload(int (*reload)(void *ctx))
{
	struct hdp_ctl_source src = hdp_ctl_fwd_source(fwd);

	src.reload = reload;
	return hdp_ctl_answer_source(&src, "reload", reply, sizeof(reply));
}

Test(fwd_ctl, a_reload_answers_its_verdict_first_and_logs_what_it_says)
{
	cr_assert_neq(ask_reload(reload_says_refused), 0);
	cr_assert_str_eq(reply, "error: reload refused, nothing changed\n"
				"error: edge.ini:5: pool 'umem', key 'tag_sample', value '0'\n"
				"error: reload: edge.ini refused (errors above): nothing changed\n");
	/* The journal keeps it too: a reload asked over the socket is no secret. */
	cr_assert(log_contains("edge.ini:5: pool 'umem', key 'tag_sample', value '0'"), "%s",
		  captured_logs());

	/* A warning on the way is no refusal: the first word is the verdict. */
	cr_assert_eq(ask_reload(reload_warns_then_applies), 0, "%s", reply);
	cr_assert_str_eq(reply, "ok: reloaded\n"
				"warning: 4096 frames cannot keep the rings full\n"
				"info: reload: edge.ini read again\n");
	cr_assert(log_contains("reload: edge.ini read again"), "%s", captured_logs());

	/* The library's own forwarder has no file to read: it says so. */
	cr_assert_neq(ask("reload"), 0);
	cr_assert(strstr(reply, "error: this forwarder does not reload") == reply, "%s", reply);
}
