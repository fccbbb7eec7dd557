// SPDX-License-Identifier: BSD-3-Clause
/*
 * The effective configuration, as hdp-fwd --check-config prints it: every
 * setting after the built-in defaults, the file and the command line, in
 * the file's own syntax, so that what is printed reads back as the same
 * configuration. What a file cannot say (the workers' share of the ports,
 * exclusions from zeroing) is given as comments.
 */
#include <hdp/fwd.h>
#include <hdp/profile.h>

#include <stdio.h>
#include <string.h>

static void show_mac(FILE *out, const char *key, const uint8_t m[6])
{
	fprintf(out, "%s = %02x:%02x:%02x:%02x:%02x:%02x\n", key, m[0], m[1], m[2], m[3],
		m[4], m[5]);
}

static void show_global(const struct hdp_fwd_cfg *c, FILE *out)
{
	char name[40];

	fprintf(out, "[global]\nmode = %s\nports = ", hdp_fwd_mode_name(c->mode));

	for (unsigned i = 0; i < c->nports; i++)
		fprintf(out, "%s%s", i ? "," : "", hdp_port_name(&c->ports[i], name, sizeof(name)));
	fprintf(out, "\n");
	if (c->ncores == 1 && c->cores[0] < 0) {
		fprintf(out, "; cores: one worker, not pinned\n");
	} else {
		fprintf(out, "cores = ");
		for (unsigned i = 0; i < c->ncores; i++)
			fprintf(out, "%s%d", i ? "," : "", c->cores[i]);
		fprintf(out, "\n");
	}
	fprintf(out, "frames = %u\nframe_size = %u\nbatch = %u\nring_size = %u\nfill_size = %u\n",
		c->frames, c->frame_size, c->batch, c->ring_size, c->fill_size);
	fprintf(out, "mbuf_cache = %u%s\n", c->mbuf_cache,
		c->mbuf_cache ? "        ; DPDK ports only" : "        ; DPDK ports only: none");
	if (c->mbuf_reuse >= 0)
		fprintf(out, "mbuf_reuse = %d        ; DPDK ports only\n", c->mbuf_reuse);
	else
		fprintf(out, "; mbuf_reuse: the driver's (HDP_DPDK_REUSE_DEPTH, else 1024)\n");
	fprintf(out, "stats_interval = %u\nduration = %u\nbusy_poll = %s\nbusy_budget = %u\n",
		c->stats_interval, c->duration, c->busy_poll ? "on" : "off", c->busy_budget);
	fprintf(out, "ctl_socket = %s%s\n", c->ctl_path,
		c->ctl_path[0] ? "" : "        ; none");
	if (c->huge_dir[0])
		fprintf(out, "huge_dir = %s\n", c->huge_dir);
	if (c->user[0])
		fprintf(out, "user = %s\n", c->user);
	fprintf(out, "xdp_mode = %s\nzero_copy = %s\n", hdp_xdp_mode_name(c->xdp_mode),
		hdp_zero_copy_name(c->zero_copy));
	if (c->metrics_path[0])
		fprintf(out, "metrics_file = %s\nmetrics_mode = %04o\n", c->metrics_path,
			c->metrics_mode);
}

static void show_ports(const struct hdp_fwd_cfg *c, FILE *out)
{
	for (unsigned i = 0; i < c->nports; i++) {
		const struct hdp_port_cfg *p = &c->ports[i];
		const struct hdp_port_cfg *peer = &c->ports[p->peer];
		unsigned worker = hdp_fwd_port_worker(i, c->ncores);

		char name[40], peer_name[40];

		fprintf(out, "\n[port:%s]\npeer = %s\n", hdp_port_name(p, name, sizeof(name)),
			hdp_port_name(peer, peer_name, sizeof(peer_name)));
		if (p->has_src_mac)
			show_mac(out, "src_mac", p->src_mac);
		if (p->has_dst_mac)
			show_mac(out, "dst_mac", p->dst_mac);
		if (p->queue == HDP_PORT_ALL_QUEUES)
			fprintf(out, "; every RX queue of %s, each paired with the same queue of "
				"%s; workers take them in turn\n", p->ifname, peer->ifname);
		else if (c->cores[worker] >= 0)
			fprintf(out, "; received by worker %u, on CPU %d\n", worker,
				c->cores[worker]);
		else
			fprintf(out, "; received by worker %u, not pinned\n", worker);
	}
}

/* "key=value,key=value" as one line per key. */
static void show_profile(FILE *out, const struct hdp_profile *p)
{
	char buf[512], *save = NULL;

	hdp_profile_format(p, buf, sizeof(buf));
	for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');

		if (eq) {
			*eq = '\0';
			fprintf(out, "%s = %s\n", kv, eq + 1);
		}
	}
}

static void show_pool(const struct hdp_fwd_cfg *c, const char *name, FILE *out)
{
	struct hdp_profile p;
	char why[128];
	uint32_t excluded = hdp_harden_config_excluded(&c->harden, name, why, sizeof(why));

	hdp_harden_config_resolve(&c->harden, name, &p);
	fprintf(out, "\n[pool:%s]\n", name);
	show_profile(out, &p);
	if (excluded)
		fprintf(out, "; excluded from%s%s%s (%s): off for this pool whatever the keys say\n",
			excluded & HDP_KEY_INIT_ON_ALLOC ? " init_on_alloc" : "",
			excluded & HDP_KEY_INIT_ON_FREE ? " init_on_free" : "",
			excluded & HDP_KEY_INIT_CHECK ? " init_check" : "", why);
}

/* The exclusion list in force (the command line's, else the file's). */
static void show_exclude(const struct hdp_fwd_cfg *c, FILE *out)
{
	const struct hdp_exclude *ex = c->harden.string.exclude.set ? &c->harden.string.exclude
							       : &c->harden.file.exclude;

	fprintf(out, "\n[pool:default]\ninit_exclude = %s",
		ex->set && ex->no_builtin ? "none" : "default");
	for (unsigned i = 0; ex->set && i < ex->n; i++)
		fprintf(out, ",%s", ex->names[i]);
	fprintf(out, "\n");
}

void hdp_fwd_cfg_show(const struct hdp_fwd_cfg *c, const char *file, FILE *out)
{
	fprintf(out, "; hdp-fwd's effective configuration: built-in defaults%s%s, "
		"then the command line\n", file ? ", then " : "", file ? file : "");
	show_global(c, out);
	show_ports(c, out);
	show_exclude(c, out);
	for (unsigned i = 0; i < c->harden.nknown; i++)
		show_pool(c, c->harden.known[i], out);
}
