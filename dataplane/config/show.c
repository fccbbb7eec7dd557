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
#include "cfg_internal.h"

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

/* Every [global] key the table says is printed, in its order. */
static void show_global(const struct hdp_fwd_cfg *c, struct ini_out *o)
{
	char value[HDP_FWD_PORTS_MAX * 40];

	fprintf(o->f, "[global]\n");
	for (unsigned k = 0; k < HDP_FWD_KEY__COUNT; k++) {
		const char *text, *comment;

		if (!cfg_key_shown(c, (enum hdp_fwd_key)k))
			continue;
		text = cfg_key_text(c, (enum hdp_fwd_key)k, value, sizeof(value));
		comment = cfg_key_note(c, (enum hdp_fwd_key)k);
		if (text)
			kv_note(o, cfg_key_name((enum hdp_fwd_key)k), text, comment);
		else if (comment)
			note(o, "%s", comment);
	}
}

static void show_ports(const struct hdp_fwd_cfg *c, struct ini_out *o)
{
	for (unsigned i = 0; i < c->nports; i++) {
		const struct hdp_port_cfg *p = &c->ports[i];
		const struct hdp_port_cfg *peer = &c->ports[p->peer];
		unsigned worker = hdp_fwd_port_worker(i, c->ncores);
		char name[40], value[40];

		fprintf(o->f, "\n[port:%s]\n", hdp_port_name(p, name, sizeof(name)));
		for (unsigned k = 0; k < cfg_port_keys(); k++) {
			const char *text = cfg_port_key_text(c, i, k, value, sizeof(value));

			if (text)
				kv(o, cfg_port_key_name(k), text);
		}
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
