// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-fwd's configuration file: its sections ([global], whose keys are
 * keys.c's, [port:IF], ports.c's, and [pool:NAME], hardening's), and the
 * checks of the configuration as a whole once it is read.
 */
#include "cfg_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A section opens (its header's line): its name is judged here, once. */
static int section_opens(struct hdp_fwd_cfg *cfg, const char *section, const char *file,
			 int line)
{
	char ifname[IF_NAMESIZE], why[160];
	uint32_t queue;
	int ret;

	if (strcmp(section, "global") == 0)
		return 0;
	if (strncmp(section, "port:", 5) == 0) {
		ret = cfg_port_spec(section + 5, ifname, &queue, why, sizeof(why));
		if (ret == -EINVAL) {
			hdp_log(HDP_LOG_ERR, "%s:%d: section [%s]: it should read [port:IF] or "
				"[port:IF:QUEUE] (QUEUE 0 to 63)", file, line, section);
			return -EINVAL;
		}
		if (ret) {
			hdp_log(HDP_LOG_ERR, "%s:%d: section [%s]: %s", file, line, section, why);
			return -EINVAL;
		}
		/* A port section with no keys still names a port. */
		if (!cfg_port_add(cfg, ifname, queue, file, line)) {
			hdp_log(HDP_LOG_ERR, "%s:%d: section [%s]: more than %d ports", file,
				line, section, HDP_FWD_PORTS_MAX);
			return -EINVAL;
		}
		return 0;
	}
	hdp_log(HDP_LOG_ERR, "%s:%d: section [%s] is unknown: use [global], [port:IF] or [pool:NAME]",
		file, line, section);
	return -EINVAL;
}

static int other_section(void *ctx, const char *section, const char *key,
			 const char *value, const char *file, int line)
{
	struct hdp_fwd_cfg *cfg = ctx;

	if (!key)
		return section_opens(cfg, section, file, line);
	if (strcmp(section, "global") == 0)
		return hdp_fwd_cfg_set_global(cfg, key, value, file, line);
	if (strncmp(section, "port:", 5) == 0)
		return cfg_port_key_set(cfg, section, key, value, file, line);
	hdp_log(HDP_LOG_ERR, "%s:%d: key '%s' outside any section: put it under [global], "
		"[port:IF] or [pool:NAME]", file, line, key);
	return -EINVAL;
}

int hdp_fwd_cfg_load(struct hdp_fwd_cfg *cfg, const char *path)
{
	struct hdp_fwd_cfg *next = malloc(sizeof(*next));
	int ret;

	if (!next)
		return -ENOMEM;
	*next = *cfg;
	ret = hdp_harden_config_load_file(&next->harden, path, other_section, next);
	if (!ret)
		*cfg = *next;
	free(next);
	return ret;
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

/*
 * init_exclude is hardening's, and may come from --harden longer than an
 * INI line: refused here, since --check-config could not print it.
 */
static bool exclude_unprintable(const struct hdp_fwd_cfg *cfg)
{
	char text[HDP_EXCLUDE_MAX * 34 + 16], why[200];

	hdp_fwd_cfg_exclude_text(cfg, text, sizeof(text));
	if (hdp_ini_value_fits("init_exclude", text, why, sizeof(why)))
		return false;
	hdp_log(HDP_LOG_ERR, "[pool:default] key 'init_exclude', value '%.60s%s': %s", text,
		strlen(text) > 60 ? "..." : "", why);
	return true;
}

int hdp_fwd_cfg_check(struct hdp_fwd_cfg *cfg)
{
	if (cfg->nports < 2) {
		hdp_log(HDP_LOG_ERR, "hdp-fwd needs at least two ports (--ports IF,IF or [port:IF] sections)");
		return -EINVAL;
	}
	for (unsigned i = 0; i < cfg->nports; i++) {
		struct hdp_port_cfg *p = &cfg->ports[i];
		char name[40];

		p->peer = p->peer_name[0] ? -1 : (int)(i ^ 1);	/* pairs in listed order */
		for (unsigned j = 0; p->peer_name[0] && j < cfg->nports; j++)
			if (strcmp(hdp_port_name(&cfg->ports[j], name, sizeof(name)),
				   p->peer_name) == 0)
				p->peer = (int)j;
		if (p->peer < 0 || p->peer >= (int)cfg->nports || p->peer == (int)i) {
			hdp_log(HDP_LOG_ERR, "port %s has no peer: list ports in pairs or set peer in [port:%s]",
				hdp_port_name(p, name, sizeof(name)), p->ifname);
			return -EINVAL;
		}
	}
	/* Each port is some port's output exactly once: TX rings have one producer. */
	for (unsigned i = 0; i < cfg->nports; i++) {
		unsigned users = 0;

		for (unsigned j = 0; j < cfg->nports; j++)
			users += cfg->ports[j].peer == (int)i;
		if (users != 1) {
			char name[40];

			hdp_log(HDP_LOG_ERR, "port %s is the output of %u ports; each port must be the output of exactly one",
				hdp_port_name(&cfg->ports[i], name, sizeof(name)), users);
			return -EINVAL;
		}
	}
	if (cfg->mode == HDP_FWD_L2) {
		for (unsigned i = 0; i < cfg->nports; i++) {
			if (!cfg->ports[i].has_dst_mac) {
				hdp_log(HDP_LOG_ERR, "mode l2: [port:%s] needs dst_mac (the next hop of frames leaving it)",
					cfg->ports[i].ifname);
				return -EINVAL;
			}
		}
	}
	if (exclude_unprintable(cfg))
		return -EINVAL;
	return hdp_harden_config_validate(&cfg->harden);
}
