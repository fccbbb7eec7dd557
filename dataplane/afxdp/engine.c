// SPDX-License-Identifier: BSD-3-Clause
/*
 * The AF_XDP engine under hdp-fwd's control loop (control/control.h): the
 * forwarder (fwd.c) made on hugepages it reserves, its workers started
 * and stopped, the lines it says, each tick the MTUs read again and busy
 * polling judged, a reload's profiles applied, every frame back at the
 * end.
 */
#include "afxdp.h"

#include <hdp/log.h>

#include <errno.h>
#include <stdio.h>

#include "config.h"
#include "control/control.h"

struct afxdp_engine {
	struct hdp_control *c;
	struct hdp_fwd *f;
	uint64_t last_rx, last_tx;	/* at the last status line */
	bool forwarded;			/* it ran, and stopped */
};

/*
 * Hugepages for the UMEM: raise the reservation if allowed; else say so
 * later. None for a UMEM on plain pages (MTE).
 */
static void reserve_hugepages(const struct hdp_fwd_cfg *cfg)
{
	unsigned long want = ((unsigned long)cfg->frames * cfg->frame_size + (2ul << 20) - 1) >> 21;
	unsigned long total = 0, free_pages = 0;
	char line[128];
	FILE *fp;

	if (hdp_fwd_umem_on_plain_pages(cfg))
		return;
	fp = fopen("/proc/meminfo", "re");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		sscanf(line, "HugePages_Total: %lu", &total);
		sscanf(line, "HugePages_Free: %lu", &free_pages);
	}
	fclose(fp);
	if (free_pages >= want)
		return;
	fp = fopen("/proc/sys/vm/nr_hugepages", "we");
	if (!fp)
		return;
	fprintf(fp, "%lu\n", total + want - free_pages);
	if (fclose(fp) == 0)
		hdp_log(HDP_LOG_INFO, "reserved %lu more hugepages for the UMEM",
			want - free_pages);
}

static int setup(void *e, struct hdp_control *c)
{
	struct afxdp_engine *a = e;

	a->c = c;
	reserve_hugepages(c->cfg);
	a->f = hdp_fwd_create(c->cfg);
	/*
	 * What the checks before start-up cannot know (a driver without
	 * native XDP, zero copy or busy polling), or an interface gone
	 * since, is still the configuration's.
	 */
	if (!a->f)
		return errno == EINVAL || errno == ENODEV || errno == EOPNOTSUPP ? 2 : 1;
	return 0;
}

static struct hdp_ctl_source source(void *e)
{
	struct afxdp_engine *a = e;

	return hdp_ctl_fwd_source(a->f);
}

static int start(void *e)
{
	struct afxdp_engine *a = e;

	return hdp_fwd_start(a->f) ? 1 : 0;
}

/* The start-up line's word on idle workers: none when they sleep at once. */
static const char *idle_spin_text(const struct hdp_fwd_cfg *cfg, char *buf, size_t len)
{
	if (!cfg->idle_spin_us)
		return "";
	snprintf(buf, len, ", idle spin %u us%s", cfg->idle_spin_us,
		 cfg->busy_poll ? " (no effect: busy polling never sleeps)" : "");
	return buf;
}

static void announce(void *e, char *status, size_t len)
{
	struct afxdp_engine *a = e;
	const struct hdp_fwd_cfg *cfg = a->c->cfg;
	char spin[96];

	printf("hdp-fwd %s: mode %s, %u ports, %u frames of %u bytes%s%s%s\n", HDP_VERSION,
	       hdp_fwd_mode_name(cfg->mode), cfg->nports, cfg->frames, cfg->frame_size,
	       idle_spin_text(cfg, spin, sizeof(spin)), a->c->ctl ? ", control socket " : "",
	       a->c->ctl ? cfg->ctl_path : "");
	for (unsigned i = 0; i < cfg->nports; i++) {
		const struct hdp_port_cfg *p = &cfg->ports[i], *peer = &cfg->ports[p->peer];
		const char *xdp_mode;
		bool zero_copy, multi_buffer;
		uint32_t max_frame;

		hdp_fwd_port_mode(a->f, i, &xdp_mode, &zero_copy);
		hdp_fwd_port_frames(a->f, i, &max_frame, &multi_buffer);
		printf("  %s:%u -> %s:%u (XDP %s, %s%s, frames up to %u bytes%s)\n",
		       p->ifname, p->queue, peer->ifname, peer->queue, xdp_mode,
		       zero_copy ? "zero copy" : "copy mode", cfg->busy_poll ? ", busy polling" : "",
		       max_frame, multi_buffer ? " in chains of frames" : "");
	}
	if (cfg->user[0])
		printf("  running as user %s (uid %u), no capabilities\n", cfg->user, cfg->uid);
	fflush(stdout);
	snprintf(status, len, "forwarding on %u ports, %u workers", cfg->nports, cfg->ncores);
}

/* MTUs changed since the last tick; busy polling the kernel cannot do (status 2). */
static int tick(void *e)
{
	struct afxdp_engine *a = e;
	char why[256];

	hdp_fwd_watch_mtus(a->f);
	if (hdp_fwd_busy_check(a->f, why, sizeof(why))) {
		fprintf(stderr, "hdp-fwd: --busy-poll: %s\n", why);
		return 2;
	}
	return 0;
}

static void status_line(void *e, double uptime, double dt)
{
	struct afxdp_engine *a = e;
	struct hdp_pool_stats st;
	uint64_t rx, tx, drops, viol = 0;

	hdp_fwd_totals(a->f, &rx, &tx, &drops);
	hdp_pool_stats_get(hdp_fwd_pool(a->f), &st);
	for (unsigned k = 0; k < hdp_violation_kinds(); k++)
		viol += st.harden.violations[k];
	printf("[%6.1fs] rx %9.0f pps  tx %9.0f pps  total rx %llu tx %llu drops %llu | umem in use %llu/%llu, violations %llu\n",
	       uptime, (double)(rx - a->last_rx) / dt, (double)(tx - a->last_tx) / dt,
	       (unsigned long long)rx, (unsigned long long)tx,
	       (unsigned long long)drops, (unsigned long long)st.in_use,
	       (unsigned long long)st.obj_count, (unsigned long long)viol);
	fflush(stdout);
	a->last_rx = rx;
	a->last_tx = tx;
}

/* Pool profiles, idle_spin_us, stats_interval and metrics_mode, at once. */
static int apply(void *e, const struct hdp_fwd_cfg *next, const char *cause)
{
	struct afxdp_engine *a = e;
	struct hdp_pool_stats st;
	int ret = hdp_fwd_reconfigure(a->f, a->c->cfg, next);

	if (ret) {
		hdp_log(HDP_LOG_ERR, "%s: %s could not be applied (above): nothing changed",
			cause, a->c->config_file);
		return ret;
	}
	hdp_pool_stats_get(hdp_fwd_pool(a->f), &st);
	hdp_log(HDP_LOG_INFO, "%s: %s read again; pool %s: %s", cause, a->c->config_file,
		HDP_FWD_UMEM_POOL, st.harden.profile_text);
	return 0;
}

static void stop(void *e)
{
	struct afxdp_engine *a = e;

	hdp_fwd_stop(a->f);
	hdp_fwd_join(a->f);
	a->forwarded = true;
}

static void summary(void *e)
{
	struct afxdp_engine *a = e;
	static char text[65536];

	hdp_fwd_stats_text(a->f, text, sizeof(text));
	fputs(text, stdout);
}

/* Sockets and programs gone, every frame back in the pool, or said: after a run, either way. */
static int teardown(void *e, int status)
{
	struct afxdp_engine *a = e;
	unsigned lost = hdp_fwd_destroy(a->f);

	a->f = NULL;
	if (lost) {
		fprintf(stderr, "hdp-fwd: %u frames did not come back to the pool\n", lost);
		return 1;
	}
	if (a->forwarded)
		printf("every frame is back in the pool; XDP programs detached\n");
	return status;
}

static const struct hdp_engine afxdp_engine = {
	.setup = setup,
	.source = source,
	.start = start,
	.announce = announce,
	.tick = tick,
	.status_line = status_line,
	.apply = apply,
	.stop = stop,
	.summary = summary,
	.teardown = teardown,
};

int hdp_afxdp_run(struct hdp_control *c)
{
	static struct afxdp_engine a;

	a = (struct afxdp_engine){ 0 };
	return hdp_control_run(c, &afxdp_engine, &a);
}
