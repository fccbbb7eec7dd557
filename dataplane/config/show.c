// SPDX-License-Identifier: BSD-3-Clause
/*
 * The effective configuration, as hdp-fwd --check-config prints it: every
 * setting after the built-in defaults, the file and the command line, in
 * the file's own syntax, so that what is printed reads back as the same
 * configuration. What a file cannot say (the workers' share of the ports,
 * exclusions from zeroing) is given as comments.
 *
 * Every line goes through one writer that keeps it within what hdp's INI
 * reader takes: a key's value must fit as it is (hdp_ini_value_fits(); the
 * parser refuses the values that do not, so this only catches a mistake),
 * a comment is cut to fit, since it says nothing the reader keeps.
 */
#include <hdp/fwd.h>
#include <hdp/log.h>
#include <hdp/profile.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct ini_out {
	FILE *f;
	int errors;
};

/* A comment line, cut to what the reader takes. */
static void HDP_PRINTF(2, 3) note(struct ini_out *o, const char *fmt, ...)
{
	char line[HDP_INI_LINE_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* A file name may hold a newline: it must not start a line of its own. */
	for (char *c = line; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	fprintf(o->f, "%s\n", line);
}

/* "key = value", with @comment after it if the line has room for it. */
static void kv_note(struct ini_out *o, const char *key, const char *value,
		    const char *comment)
{
	char why[200];

	if (!hdp_ini_value_fits(key, value, why, sizeof(why))) {
		hdp_log(HDP_LOG_ERR, "cannot print key '%s', value '%s' so that it reads back: %s",
			key, value, why);
		o->errors++;
		return;
	}
	if (comment && strlen(key) + strlen(value) + 11 + strlen(comment) <= HDP_INI_LINE_MAX)
		fprintf(o->f, "%s = %s        %s\n", key, value, comment);
	else
		fprintf(o->f, "%s = %s\n", key, value);
}

static void kv(struct ini_out *o, const char *key, const char *value)
{
	kv_note(o, key, value, NULL);
}

static void HDP_PRINTF(3, 4) kvf(struct ini_out *o, const char *key, const char *fmt, ...)
{
	char value[HDP_INI_LINE_MAX + 1];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(value, sizeof(value), fmt, ap);
	va_end(ap);
	kv(o, key, value);
}

static void show_mac(struct ini_out *o, const char *key, const uint8_t m[6])
{
	kvf(o, key, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/*
 * The port list, when it fits a line. Else the [port:...] sections below
 * say it: each names its port, in this order, and its peer.
 */
static void show_port_list(const struct hdp_fwd_cfg *c, struct ini_out *o)
{
	char list[HDP_FWD_PORTS_MAX * 40], name[40], why[200];
	size_t used = 0;

	list[0] = '\0';
	for (unsigned i = 0; i < c->nports; i++)
		used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", i ? "," : "",
					 hdp_port_name(&c->ports[i], name, sizeof(name)));
	if (hdp_ini_value_fits("ports", list, why, sizeof(why)))
		kv(o, "ports", list);
	else
		note(o, "; ports: the [port:...] sections below, in order (the list is longer "
		     "than an INI line)");
}

/* idle_spin_us, with what it does here: a spin busy polling makes moot says so. */
static void show_idle_spin(const struct hdp_fwd_cfg *c, struct ini_out *o)
{
	char us[16];

	snprintf(us, sizeof(us), "%u", c->idle_spin_us);
	kv_note(o, "idle_spin_us", us,
		!c->idle_spin_us ? "; off: an idle worker sleeps in poll() at once"
		: c->busy_poll ? "; no effect: busy polling never sleeps"
		: "; an idle worker spins this long before it sleeps");
}

static void show_global(const struct hdp_fwd_cfg *c, struct ini_out *o)
{
	char cores[HDP_FWD_CORES_MAX * 6], max_frame[16];
	size_t used = 0;

	fprintf(o->f, "[global]\n");
	kv(o, "mode", hdp_fwd_mode_name(c->mode));
	show_port_list(c, o);
	if (c->ncores == 1 && c->cores[0] < 0) {
		note(o, "; cores: one worker, not pinned");
	} else {
		for (unsigned i = 0; i < c->ncores; i++)
			used += (size_t)snprintf(cores + used, sizeof(cores) - used, "%s%d",
						 i ? "," : "", c->cores[i]);
		kv(o, "cores", cores);
	}
	kvf(o, "frames", "%u", c->frames);
	kvf(o, "frame_size", "%u", c->frame_size);
	kv(o, "max_frame", hdp_fwd_max_frame_text(c, max_frame, sizeof(max_frame)));
	kvf(o, "batch", "%u", c->batch);
	kvf(o, "ring_size", "%u", c->ring_size);
	kvf(o, "fill_size", "%u", c->fill_size);
	fprintf(o->f, "mbuf_cache = %u        ; DPDK ports only%s\n", c->mbuf_cache,
		c->mbuf_cache ? "" : ": none");
	kvf(o, "stats_interval", "%u", c->stats_interval);
	kvf(o, "duration", "%u", c->duration);
	kv(o, "busy_poll", c->busy_poll ? "on" : "off");
	kvf(o, "busy_budget", "%u", c->busy_budget);
	show_idle_spin(c, o);
	kv_note(o, "tag_check", hdp_tag_check_name(c->tag_check),
		hdp_tag_mte_available() ? "; MTE's tag check mode, the whole process's"
					: "; no MTE here: no effect");
	kv_note(o, "ctl_socket", c->ctl_path, c->ctl_path[0] ? NULL : "; none");
	if (c->huge_dir[0])
		kv(o, "huge_dir", c->huge_dir);
	if (c->user[0])
		kv(o, "user", c->user);
	kv(o, "xdp_mode", hdp_xdp_mode_name(c->xdp_mode));
	kv(o, "zero_copy", hdp_zero_copy_name(c->zero_copy));
	if (c->metrics_path[0]) {
		kv(o, "metrics_file", c->metrics_path);
		kvf(o, "metrics_mode", "%04o", c->metrics_mode);
	}
}

static void show_ports(const struct hdp_fwd_cfg *c, struct ini_out *o)
{
	for (unsigned i = 0; i < c->nports; i++) {
		const struct hdp_port_cfg *p = &c->ports[i];
		const struct hdp_port_cfg *peer = &c->ports[p->peer];
		unsigned worker = hdp_fwd_port_worker(i, c->ncores);
		char name[40], peer_name[40];

		fprintf(o->f, "\n[port:%s]\n", hdp_port_name(p, name, sizeof(name)));
		kv(o, "peer", hdp_port_name(peer, peer_name, sizeof(peer_name)));
		if (p->has_src_mac)
			show_mac(o, "src_mac", p->src_mac);
		if (p->has_dst_mac)
			show_mac(o, "dst_mac", p->dst_mac);
		if (p->queue == HDP_PORT_ALL_QUEUES)
			note(o, "; every RX queue of %s, each paired with the same queue of "
			     "%s; workers take them in turn", p->ifname, peer->ifname);
		else if (c->cores[worker] >= 0)
			note(o, "; received by worker %u, on CPU %d", worker, c->cores[worker]);
		else
			note(o, "; received by worker %u, not pinned", worker);
	}
}

/* "key=value,key=value" as one line per key. */
static void show_profile(struct ini_out *o, const struct hdp_profile *p)
{
	char buf[HDP_PROFILE_TEXT_MAX], *save = NULL;

	hdp_profile_format(p, buf, sizeof(buf));
	for (char *kv_text = strtok_r(buf, ",", &save); kv_text;
	     kv_text = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv_text, '=');

		if (eq) {
			*eq = '\0';
			kv(o, kv_text, eq + 1);
		}
	}
}

static void show_pool(const struct hdp_fwd_cfg *c, const char *name, struct ini_out *o)
{
	struct hdp_profile p;
	char why[128];
	uint32_t excluded = hdp_harden_config_excluded(&c->harden, name, why, sizeof(why));

	hdp_harden_config_resolve(&c->harden, name, &p);
	fprintf(o->f, "\n[pool:%s]\n", name);
	show_profile(o, &p);
	if (excluded)
		note(o, "; excluded from%s%s%s (%s): off for this pool whatever the keys say",
		     excluded & HDP_KEY_INIT_ON_ALLOC ? " init_on_alloc" : "",
		     excluded & HDP_KEY_INIT_ON_FREE ? " init_on_free" : "",
		     excluded & HDP_KEY_INIT_CHECK ? " init_check" : "", why);
	/* head narrows the check of a used wipe; any other is read all (core.c). */
	if (!(excluded & HDP_KEY_INIT_CHECK) && p.init_check &&
	    p.init_check_extent == HDP_CHECK_EXTENT_HEAD) {
		enum hdp_init_free wipe = excluded & HDP_KEY_INIT_ON_FREE ? HDP_INIT_FREE_OFF
									 : p.init_on_free;

		if (wipe != HDP_INIT_FREE_USED)
			note(o, "; init_check_extent = head does nothing here: it narrows the "
			     "check of an init_on_free = used wipe, and this pool's init_on_free "
			     "is %s", wipe == HDP_INIT_FREE_ON ? "on (checked whole)" :
			     "off in effect (nothing wiped, so nothing checked)");
	}
}

void hdp_fwd_cfg_exclude_text(const struct hdp_fwd_cfg *c, char *buf, size_t len)
{
	const struct hdp_exclude *ex = c->harden.string.exclude.set ? &c->harden.string.exclude
							       : &c->harden.file.exclude;
	size_t used = (size_t)snprintf(buf, len, "%s",
				       ex->set && ex->no_builtin ? "none" : "default");

	for (unsigned i = 0; ex->set && i < ex->n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, ",%s", ex->names[i]);
}

/* The exclusion list in force (the command line's, else the file's). */
static void show_exclude(const struct hdp_fwd_cfg *c, struct ini_out *o)
{
	char text[HDP_EXCLUDE_MAX * 34 + 16];

	hdp_fwd_cfg_exclude_text(c, text, sizeof(text));
	fprintf(o->f, "\n[pool:default]\n");
	kv(o, "init_exclude", text);
}

int hdp_fwd_cfg_show(const struct hdp_fwd_cfg *c, const char *file, FILE *out)
{
	struct ini_out o = { .f = out };

	note(&o, "; hdp-fwd's effective configuration: built-in defaults%s%s, "
	     "then the command line", file ? ", then " : "", file ? file : "");
	show_global(c, &o);
	show_ports(c, &o);
	show_exclude(c, &o);
	for (unsigned i = 0; i < c->harden.nknown; i++)
		show_pool(c, c->harden.known[i], &o);
	return o.errors ? -EINVAL : 0;
}
