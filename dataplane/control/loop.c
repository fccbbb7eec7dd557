// SPDX-License-Identifier: BSD-3-Clause
/*
 * The control loop (control.h): what hdp-fwd does around its engine's
 * forwarding, once for both engines. Set-up and teardown are one ladder,
 * each label undoing what was made before it; the duties between bursts
 * are one tick.
 */
#include "control.h"
#include "clock.h"

#include <hdp/log.h>
#include <hdp/metrics_file.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

/* Set by the signal handlers; one control loop runs in a process. */
static volatile sig_atomic_t stop_requested, reload_requested;

static void on_stop(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void on_sighup(int sig)
{
	(void)sig;
	reload_requested = 1;
}

/* From now on, set-up included: a signal then is acted on once forwarding runs. */
static void catch_signals(void)
{
	struct sigaction sa = { .sa_handler = on_stop };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_sighup;
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * SIGHUP or hdp-ctl reload (@cause, for the messages): the file again,
 * with the same command line on top, checked whole, then what the engine
 * may change applied, whole or not at all. Messages go to hdp's log,
 * which is stderr (the journal under systemd) and, for hdp-ctl reload,
 * the reply as well. systemd hears of it (Type=notify) either way.
 */
static int reload(struct hdp_control *c, const char *cause)
{
	static struct hdp_fwd_cfg next;
	int ret;

	hdp_sd_notify("RELOADING=1");
	ret = c->reread(cause, c->cfg, &next);
	if (!ret)
		ret = c->engine->apply(c->e, &next, cause);
	/* The file shows what changed (profiles, interval) at once. */
	if (!ret)
		hdp_metrics_file_reconfigure(c->metrics, c->cfg);
	hdp_sd_notify("READY=1");
	return ret;
}

/* "reload" on the control socket: the control loop's, whatever the engine. */
static int ctl_reload(void *ctx)
{
	return reload(ctx, "reload");
}

/* hdp_ctl_open_source()'s errno: is it the path the configuration gave? */
static bool ctl_path_error(int err)
{
	return err == EADDRINUSE || err == EEXIST || err == ENOENT || err == ENOTDIR ||
	       err == ENAMETOOLONG || err == EROFS || err == EPERM || err == ELOOP;
}

/*
 * The control socket, once the engine is set up (its existence is what
 * waiting clients look for), handed to the user hdp-fwd becomes. 0, or
 * the exit status.
 */
static int open_ctl(struct hdp_control *c, const struct hdp_ctl_source *src)
{
	if (!c->cfg->ctl_path[0])
		return 0;
	c->ctl = hdp_ctl_open_source(c->cfg->ctl_path, src);
	if (!c->ctl)
		return ctl_path_error(errno) ? 2 : 1;
	return hdp_fwd_ctl_hand_over(c->cfg, c->ctl) ? 1 : 0;
}

/*
 * As the user it runs as: a file it cannot write is said at once, a
 * configuration error (preflight asked the same as that user, as root).
 * 0, or the exit status.
 */
static int open_metrics(struct hdp_control *c, const struct hdp_ctl_source *src)
{
	if (!c->cfg->metrics_path[0])
		return 0;
	c->metrics = hdp_metrics_file_open(c->cfg, src);
	return c->metrics && hdp_metrics_file_write(c->metrics) == 0 ? 0 : 2;
}

/* Type=notify: the service is up once the engine forwards. */
static void tell_ready(const char *status)
{
	char state[192];
	int ret;

	snprintf(state, sizeof(state), "READY=1\nSTATUS=%s", status);
	ret = hdp_sd_notify(state);
	if (ret)
		fprintf(stderr, "hdp-fwd: cannot tell the service manager it is ready "
			"(NOTIFY_SOCKET): %s\n", strerror(-ret));
}

/* The status line when its interval is over; a reload may change the interval. */
static void status_due(struct hdp_control *c)
{
	double t = hdp_now_s();

	if (c->cfg->stats_interval != c->interval) {
		c->interval = c->cfg->stats_interval;
		c->next_stats = t + c->interval;
	}
	if (c->interval && t >= c->next_stats) {
		c->engine->status_line(c->e, t - c->start, t - c->last_stats);
		c->last_stats = t;
		c->next_stats += c->interval;
	}
}

bool hdp_control_tick(struct hdp_control *c, int wait_ms)
{
	int ret;

	if (stop_requested ||
	    (c->cfg->duration && hdp_now_s() - c->start >= c->cfg->duration))
		return false;
	/* Never longer than @wait_ms, whatever the clients do. */
	if (c->ctl)
		hdp_ctl_run(c->ctl, wait_ms);
	else if (wait_ms)
		poll(NULL, 0, wait_ms);
	ret = c->engine->tick ? c->engine->tick(c->e) : 0;
	if (ret) {
		c->status = ret;
		return false;
	}
	if (reload_requested) {
		reload_requested = 0;
		reload(c, "SIGHUP");
	}
	status_due(c);
	hdp_metrics_file_tick(c->metrics);
	return true;
}

double hdp_control_uptime(const struct hdp_control *c)
{
	return hdp_now_s() - c->start;
}

/* Forwarding: the engine's run, or ticks on this thread while its workers forward. */
static int forward(struct hdp_control *c)
{
	char status[160];

	c->engine->announce(c->e, status, sizeof(status));
	tell_ready(status);
	c->start = c->last_stats = hdp_now_s();
	c->interval = c->cfg->stats_interval;
	c->next_stats = c->start + c->interval;
	if (c->engine->run)
		c->engine->run(c->e);
	else
		while (hdp_control_tick(c, HDP_CONTROL_TICK_MS))
			;
	hdp_sd_notify("STOPPING=1");
	c->engine->stop(c->e);
	printf("--- summary after %.1f s\n", hdp_now_s() - c->start);
	c->engine->summary(c->e);
	fflush(stdout);
	return c->status;
}

int hdp_control_run(struct hdp_control *c, const struct hdp_engine *engine, void *e)
{
	struct hdp_ctl_source src;
	int ret;

	c->engine = engine;
	c->e = e;
	c->start = hdp_now_s();
	catch_signals();
	ret = engine->setup(e, c);
	if (ret)
		return ret;
	src = engine->source(e);
	src.reload = ctl_reload;
	src.reload_ctx = c;
	ret = open_ctl(c, &src);
	if (ret)
		goto close_ctl;
	/* Set-up is over: nothing from here on needs a privilege. */
	if (!c->keep_caps && hdp_fwd_drop_privileges(c->cfg)) {
		ret = 1;
		goto close_ctl;
	}
	ret = open_metrics(c, &src);
	if (ret)
		goto close_metrics;
	if (stop_requested) {
		printf("hdp-fwd: stopped during set-up\n");
		goto close_metrics;
	}
	ret = engine->start(e);
	if (ret)
		goto close_metrics;
	ret = forward(c);
close_metrics:
	hdp_metrics_file_close(c->metrics);
	c->metrics = NULL;
close_ctl:
	hdp_ctl_close(c->ctl);
	c->ctl = NULL;
	return engine->teardown(e, ret);
}
