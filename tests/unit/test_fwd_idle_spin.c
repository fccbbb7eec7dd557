// SPDX-License-Identifier: BSD-3-Clause
/*
 * The idle spin (idle_spin_us) on a forwarder whose rings live in memory:
 * its counters are in the text, JSON and Prometheus stats like every other
 * port counter, and a reload changes it without a restart. That it spins,
 * and sleeps again, is tests/integration/run-idle-spin's: it takes a
 * worker thread and real sockets.
 */
#include <criterion/criterion.h>

#include <hdp/ctl.h>
#include <hdp/fwd.h>

#include <string.h>

#include "fwd_support.h"
#include "support.h"

static struct hdp_fwd_cfg cfg, next;
static struct hdp_fwd *fwd;
static char reply[1 << 18];

static void make_forwarder(void)
{
	hdp_fwd_cfg_defaults(&cfg);
	fwd = loopback_forwarder(&cfg, "a:0,b:0", NULL);
}

static void drop_forwarder(void)
{
	cr_assert_eq(hdp_fwd_loopback_destroy(fwd), 0);
}

TestSuite(fwd_idle_spin, .init = make_forwarder, .fini = drop_forwarder);

static const char *ask(const char *req)
{
	cr_assert_eq(hdp_ctl_answer(fwd, req, reply, sizeof(reply)), 0, "%s", reply);
	return reply;
}

Test(fwd_idle_spin, the_counters_are_in_text_json_and_prometheus)
{
	static const char *const prom[] = {
		"# TYPE hdp_port_idle_sleeps_total counter\n",
		"hdp_port_idle_sleeps_total{port=\"a\",queue=\"0\"} 0\n",
		"hdp_port_idle_sleeps_total{port=\"b\",queue=\"0\"} 0\n",
		"# TYPE hdp_port_idle_spin_hits_total counter\n",
		"hdp_port_idle_spin_hits_total{port=\"a\",queue=\"0\"} 0\n",
		"hdp_port_idle_spin_hits_total{port=\"b\",queue=\"0\"} 0\n",
	};
	const char *line;

	ask("stats");
	line = strstr(reply, "\nport ");
	cr_assert(line && strstr(line, " wakeups     sleeps  spin_hits\n"), "%s", reply);
	line = strstr(reply, "\na:0 ");
	cr_assert(line && strncmp(strchr(line + 1, '\n') - 22, "          0          0\n",
				  22) == 0, "%s", reply);
	ask("stats json");
	cr_assert(strstr(reply, "\"wakeups\":0,\"idle_sleeps\":0,\"idle_spin_hits\":0,"), "%s",
		  reply);
	ask("stats prometheus");
	for (size_t i = 0; i < HDP_ARRAY_SIZE(prom); i++)
		cr_assert(strstr(reply, prom[i]), "no %s in\n%s", prom[i], reply);
}

Test(fwd_idle_spin, a_reload_changes_it_without_a_restart)
{
	next = cfg;
	cr_assert_eq(hdp_fwd_cfg_set_global(&next, "idle_spin_us", "500", "test.ini", 3), 0);
	cr_assert_null(hdp_fwd_cfg_restart_key(&cfg, &next));
	cr_assert_eq(hdp_fwd_reconfigure(fwd, &cfg, &next), 0, "%s", captured_logs());
	cr_assert_eq(cfg.idle_spin_us, 500);
	/* Busy polling, which makes it moot, is still built in. */
	next.busy_poll = true;
	cr_assert_str_eq(hdp_fwd_cfg_restart_key(&cfg, &next), "busy_poll");
}
