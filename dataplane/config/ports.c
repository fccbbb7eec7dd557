// SPDX-License-Identifier: BSD-3-Clause
/*
 * The ports: named as IF or IF:QUEUE, listed by the ports key or by
 * [port:IF] sections, and what each [port:IF] key does to a port; the
 * keys themselves are rows of hdp-fwd's one key table (keys.c). An
 * interface name must be Linux's and one an INI file can write back.
 */
#include "cfg_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct hdp_port_cfg *cfg_port_add(struct hdp_fwd_cfg *cfg, const char *ifname, uint32_t queue,
				  const char *source, int line)
{
	struct hdp_port_cfg *p;

	for (unsigned i = 0; i < cfg->nports; i++)
		if (strcmp(cfg->ports[i].ifname, ifname) == 0 &&
		    cfg->ports[i].queue == queue)
			return &cfg->ports[i];
	if (cfg->nports == HDP_FWD_PORTS_MAX)
		return NULL;
	p = &cfg->ports[cfg->nports++];
	memset(p, 0, sizeof(*p));
	snprintf(p->ifname, sizeof(p->ifname), "%s", ifname);
	p->queue = queue;
	p->origin = (struct hdp_cfg_origin){ source, line };
	return p;
}

/*
 * Linux's rule for interface names (dev_valid_name), and two more so that
 * --check-config can write the name back: no ']' (it would end a
 * [port:...] header) and no ';' in front (a comment after "peer = ").
 */
static const char *ifname_problem(const char *name)
{
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return "'.' and '..' are not interface names";
	for (const char *c = name; *c; c++) {
		if (*c == '/' || *c == ' ' || (*c >= '\t' && *c <= '\r'))
			return "Linux takes no '/' or space in an interface name";
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			return "a control character cannot be written in an INI file";
		if (*c == ']')
			return "a ']' would end its [port:...] section's name in an INI file";
	}
	if (name[0] == ';')
		return "a ';' at its start would read back as a comment in an INI file";
	return NULL;
}

int cfg_port_spec(const char *spec, char *ifname, uint32_t *queue, char *why, size_t len)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	const char *problem;

	snprintf(why, len, "expected IF[:QUEUE] (QUEUE 0 to 63)");
	if (n == 0 || n >= IF_NAMESIZE) {
		if (n)
			snprintf(why, len, "'%.*s' is longer than an interface name can be "
				 "(%d characters)", (int)n, spec, IF_NAMESIZE - 1);
		return n ? -EDOM : -EINVAL;
	}
	memcpy(ifname, spec, n);
	ifname[n] = '\0';
	*queue = HDP_PORT_ALL_QUEUES;
	if (colon && cfg_u32(colon + 1, 0, 63, queue))
		return -EINVAL;
	problem = ifname_problem(ifname);
	if (problem) {
		snprintf(why, len, "'%s' cannot be an interface name: %s", ifname, problem);
		return -EDOM;
	}
	return 0;
}

const char *hdp_port_name(const struct hdp_port_cfg *p, char *buf, size_t len)
{
	if (p->queue == HDP_PORT_ALL_QUEUES)
		snprintf(buf, len, "%s", p->ifname);
	else
		snprintf(buf, len, "%s:%u", p->ifname, p->queue);
	return buf;
}

int cfg_ports_set(struct hdp_fwd_cfg *cfg, const char *list, const char *source, int line)
{
	char buf[512], *save = NULL, *tok, ifname[IF_NAMESIZE], why[160];
	struct hdp_fwd_cfg next = *cfg;
	uint32_t queue;

	if (strlen(list) >= sizeof(buf))
		return cfg_refuse(source, line, "global", "ports", list, "list too long");
	strcpy(buf, list);
	next.nports = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned before = next.nports;
		int ret = cfg_port_spec(tok, ifname, &queue, why, sizeof(why));

		if (ret == -EINVAL)
			return cfg_refuse(source, line, "global", "ports", list,
					  "expected IF[:QUEUE],IF[:QUEUE]... (queues 0-63)");
		if (ret)
			return cfg_refuse(source, line, "global", "ports", list, why);
		if (!cfg_port_add(&next, ifname, queue, source, line))
			return cfg_refuse(source, line, "global", "ports", list, "too many ports");
		if (next.nports == before)
			return cfg_refuse(source, line, "global", "ports", list,
					  "a port is listed twice");
	}
	/* Keep what [port:IF] sections said about ports still listed; the list names them. */
	for (unsigned i = 0; i < next.nports; i++) {
		for (unsigned j = 0; j < cfg->nports; j++)
			if (strcmp(cfg->ports[j].ifname, next.ports[i].ifname) == 0 &&
			    cfg->ports[j].queue == next.ports[i].queue)
				next.ports[i] = cfg->ports[j];
		next.ports[i].origin = (struct hdp_cfg_origin){ source, line };
	}
	memcpy(cfg->ports, next.ports, sizeof(cfg->ports));
	cfg->nports = next.nports;
	return 0;
}

int hdp_fwd_cfg_set_ports(struct hdp_fwd_cfg *cfg, const char *list, const char *source)
{
	return cfg_ports_set(cfg, list, source, 0);
}

const char *cfg_ports_text(const struct hdp_fwd_cfg *cfg, char *buf, size_t len)
{
	char name[40];
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < cfg->nports && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? "," : "",
					 hdp_port_name(&cfg->ports[i], name, sizeof(name)));
	return buf;
}

int hdp_fwd_port_refuse(const struct hdp_port_cfg *p, const char *fmt, ...)
{
	char why[384], name[40];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	hdp_port_name(p, name, sizeof(name));
	if (!p->origin.source)
		hdp_log(HDP_LOG_ERR, "port %s: %s", name, why);
	else if (p->origin.line > 0)
		hdp_log(HDP_LOG_ERR, "%s:%d: port %s: %s", p->origin.source, p->origin.line,
			name, why);
	else
		hdp_log(HDP_LOG_ERR, "%s: port %s: %s", p->origin.source, name, why);
	return -EINVAL;
}

/*
 * The [port:IF] keys' own functions, for their rows of the key table
 * (keys.c): a value into @p or the reason it is refused into @why; the
 * value as it reads back (NULL: the section does not set it); whether two
 * ports differ in it.
 */
int cfg_peer_set(struct hdp_port_cfg *p, const char *value, char *why, size_t len)
{
	char peer[IF_NAMESIZE];
	uint32_t queue;
	int ret = cfg_port_spec(value, peer, &queue, why, len);

	if (ret) {
		if (ret == -EINVAL)
			snprintf(why, len, "expected IF[:QUEUE]");
		return ret;
	}
	/* Resolved in hdp_fwd_cfg_check(), when every port is known. */
	if (queue == HDP_PORT_ALL_QUEUES)
		snprintf(p->peer_name, sizeof(p->peer_name), "%s", peer);
	else
		snprintf(p->peer_name, sizeof(p->peer_name), "%s:%u", peer, queue);
	return 0;
}

/* Port @i's peer, by name: its index once checked. */
const char *cfg_peer_text(const struct hdp_fwd_cfg *cfg, unsigned i, char *buf, size_t len)
{
	return hdp_port_name(&cfg->ports[cfg->ports[i].peer], buf, len);
}

bool cfg_peer_differs(const struct hdp_port_cfg *a, const struct hdp_port_cfg *b)
{
	return a->peer != b->peer;
}

static int set_mac(uint8_t mac[6], bool *has, const char *value, char *why, size_t len)
{
	if (hdp_mac_parse(value, mac)) {
		snprintf(why, len, "expected aa:bb:cc:dd:ee:ff");
		return -EINVAL;
	}
	*has = true;
	return 0;
}

static const char *mac_text(const uint8_t m[6], char *buf, size_t len)
{
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
	return buf;
}

static bool mac_differs(bool has_a, const uint8_t a[6], bool has_b, const uint8_t b[6])
{
	return has_a != has_b || (has_a && memcmp(a, b, 6));
}

int cfg_src_mac_set(struct hdp_port_cfg *p, const char *value, char *why, size_t len)
{
	return set_mac(p->src_mac, &p->has_src_mac, value, why, len);
}

const char *cfg_src_mac_text(const struct hdp_fwd_cfg *cfg, unsigned i, char *buf, size_t len)
{
	return cfg->ports[i].has_src_mac ? mac_text(cfg->ports[i].src_mac, buf, len) : NULL;
}

bool cfg_src_mac_differs(const struct hdp_port_cfg *a, const struct hdp_port_cfg *b)
{
	return mac_differs(a->has_src_mac, a->src_mac, b->has_src_mac, b->src_mac);
}

int cfg_dst_mac_set(struct hdp_port_cfg *p, const char *value, char *why, size_t len)
{
	return set_mac(p->dst_mac, &p->has_dst_mac, value, why, len);
}

const char *cfg_dst_mac_text(const struct hdp_fwd_cfg *cfg, unsigned i, char *buf, size_t len)
{
	return cfg->ports[i].has_dst_mac ? mac_text(cfg->ports[i].dst_mac, buf, len) : NULL;
}

bool cfg_dst_mac_differs(const struct hdp_port_cfg *a, const struct hdp_port_cfg *b)
{
	return mac_differs(a->has_dst_mac, a->dst_mac, b->has_dst_mac, b->dst_mac);
}
