// SPDX-License-Identifier: BSD-3-Clause
/* hdp-fwd's configuration: [global], [port:IF], and the pools' profiles. */
#include <hdp/fwd.h>
#include <hdp/log.h>

#include <errno.h>
#include <pwd.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void hdp_fwd_cfg_defaults(struct hdp_fwd_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = HDP_FWD_IO;
	cfg->ncores = 1;
	cfg->cores[0] = -1;
	cfg->frames = 8192;
	cfg->frame_size = 2048;
	cfg->batch = 64;
	cfg->ring_size = 2048;
	cfg->fill_size = 2048;
	cfg->stats_interval = 1;
	cfg->busy_budget = 64;
	/* The environment's wish or sync: a file without the key means that. */
	if (hdp_tag_check_parse(getenv("HDP_TAG_CHECK"), &cfg->tag_check))
		cfg->tag_check = HDP_TAG_CHECK_SYNC;
	cfg->metrics_mode = 0644;	/* node_exporter reads it as another user */
	hdp_harden_config_init(&cfg->harden);
	hdp_harden_config_declare(&cfg->harden, HDP_FWD_UMEM_POOL);
}

static const char *const mode_names[] = { "io", "macswap", "l2" };
/* Indexed by enum hdp_xdp_mode and enum hdp_zero_copy. */
static const char *const xdp_mode_names[] = { "auto", "native", "generic" };
static const char *const zero_copy_names[] = { "auto", "on", "off" };

const char *hdp_xdp_mode_name(enum hdp_xdp_mode m)
{
	return (unsigned)m < HDP_ARRAY_SIZE(xdp_mode_names) ? xdp_mode_names[m] : "?";
}

const char *hdp_zero_copy_name(enum hdp_zero_copy z)
{
	return (unsigned)z < HDP_ARRAY_SIZE(zero_copy_names) ? zero_copy_names[z] : "?";
}

/* @value's index in @names, or -1. */
static int choice(const char *value, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(value, names[i]) == 0)
			return (int)i;
	return -1;
}

const char *hdp_fwd_mode_name(enum hdp_fwd_mode mode)
{
	return (unsigned)mode < 3 ? mode_names[mode] : "?";
}

int hdp_fwd_mode_parse(const char *name, enum hdp_fwd_mode *out)
{
	for (int i = 0; i < 3; i++) {
		if (strcmp(name, mode_names[i]) == 0) {
			*out = (enum hdp_fwd_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

static int bad(const char *source, int line, const char *section,
	       const char *key, const char *value, const char *why)
{
	if (line > 0)
		hdp_log(HDP_LOG_ERR, "%s:%d: [%s] key '%s', value '%s': %s", source,
			line, section, key, value, why);
	else
		hdp_log(HDP_LOG_ERR, "%s '%s': %s", source, value, why);
	return -EINVAL;
}

/* Decimal digits only: strtoul would also take a sign and leading spaces. */
static int parse_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long n;

	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n < lo || n > hi)
		return -EINVAL;
	*out = (uint32_t)n;
	return 0;
}

/*
 * The user hdp-fwd becomes once set up: a name from the user database
 * (its primary group goes with it) or a numeric uid, never root.
 */
static int set_user(struct hdp_fwd_cfg *cfg, const char *value, const char *source,
		    int line)
{
	struct passwd *pw;
	uint32_t id;

	if (strlen(value) >= sizeof(cfg->user))
		return bad(source, line, "global", "user", value, "name too long");
	pw = getpwnam(value);
	if (pw) {
		cfg->uid = (uint32_t)pw->pw_uid;
		cfg->gid = (uint32_t)pw->pw_gid;
	} else if (parse_u32(value, 0, 0x7fffffff, &id) == 0) {
		cfg->uid = cfg->gid = id;
	} else {
		return bad(source, line, "global", "user", value,
			   "no such user (a name from the user database, or a number)");
	}
	if (cfg->uid == 0)
		return bad(source, line, "global", "user", value,
			   "that is root: nothing would be given up");
	strcpy(cfg->user, value);
	return 0;
}

/*
 * The metrics file's mode, octal: the owner reads and writes it, group and
 * others may only read it. A file anyone else may write could be made to
 * say anything (hdp_pool_violations_total 0) until the next interval.
 */
static int set_metrics_mode(struct hdp_fwd_cfg *cfg, const char *value, const char *source,
			    int line)
{
	size_t len = strlen(value);
	unsigned long m;

	if (len < 3 || len > 4 || strspn(value, "01234567") != len)
		return bad(source, line, "global", "metrics_mode", value,
			   "expected an octal mode such as 0644");
	m = strtoul(value, NULL, 8);
	if ((m & ~0644ul) || (m & 0600) != 0600)
		return bad(source, line, "global", "metrics_mode", value,
			   "expected 0600, 0640, 0604 or 0644: read and write for the owner, "
			   "read only for group and others");
	cfg->metrics_mode = (unsigned)m;
	return 0;
}

static int set_ports(struct hdp_fwd_cfg *cfg, const char *list, const char *source,
		     int line);
static int set_cores(struct hdp_fwd_cfg *cfg, const char *list, const char *source,
		     int line);

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* The keys whose values are text: what --check-config prints of them must read back. */
static bool text_key(const char *key)
{
	return strcmp(key, "ctl_socket") == 0 || strcmp(key, "huge_dir") == 0 ||
	       strcmp(key, "user") == 0 || strcmp(key, "metrics_file") == 0;
}

static int set_global(struct hdp_fwd_cfg *cfg, const char *key, const char *value,
		      const char *source, int line)
{
	char why[200];
	uint32_t n;

	if (text_key(key) && !hdp_ini_value_fits(key, value, why, sizeof(why)))
		return bad(source, line, "global", key, value, why);
	if (strcmp(key, "mode") == 0) {
		if (hdp_fwd_mode_parse(value, &cfg->mode))
			return bad(source, line, "global", key, value,
				   "expected io, macswap or l2");
	} else if (strcmp(key, "cores") == 0) {
		return set_cores(cfg, value, source, line);
	} else if (strcmp(key, "ports") == 0) {
		return set_ports(cfg, value, source, line);
	} else if (strcmp(key, "frames") == 0) {
		if (parse_u32(value, 256, 1u << 20, &cfg->frames))
			return bad(source, line, "global", key, value,
				   "expected 256 to 1048576 frames");
	} else if (strcmp(key, "frame_size") == 0) {
		if (parse_u32(value, 2048, 4096, &n) || (n != 2048 && n != 4096))
			return bad(source, line, "global", key, value,
				   "AF_XDP chunks are 2048 or 4096 bytes");
		cfg->frame_size = n;
	} else if (strcmp(key, "max_frame") == 0) {
		if (strcmp(value, "auto") == 0)
			cfg->max_frame = 0;
		else if (parse_u32(value, HDP_FWD_MAX_FRAME_MIN, HDP_FWD_MAX_FRAME_MAX,
				   &cfg->max_frame))
			return bad(source, line, "global", key, value,
				   "expected auto (what the interfaces' MTUs let in) or bytes "
				   "from 86 to 65553 (Ethernet header and a VLAN tag included, "
				   "FCS not: MTU 68 to 65535)");
	} else if (strcmp(key, "batch") == 0) {
		if (parse_u32(value, 1, HDP_FWD_BATCH_MAX, &cfg->batch))
			return bad(source, line, "global", key, value,
				   "expected 1 to 256");
	} else if (strcmp(key, "ring_size") == 0 || strcmp(key, "fill_size") == 0) {
		if (parse_u32(value, 64, 65536, &n) || !pow2(n))
			return bad(source, line, "global", key, value,
				   "expected a power of two from 64 to 65536");
		*(key[0] == 'r' ? &cfg->ring_size : &cfg->fill_size) = n;
	} else if (strcmp(key, "mbuf_cache") == 0) {
		/* RTE_MEMPOOL_CACHE_MAX_SIZE, without DPDK's header here. */
		if (parse_u32(value, 0, 512, &cfg->mbuf_cache))
			return bad(source, line, "global", key, value,
				   "expected 0 (no cache: every mbuf through the hooks) to 512");
	} else if (strcmp(key, "mbuf_reuse") == 0) {
		/* The reuse queues are the mbufs pool's quarantine now: one setting. */
		return bad(source, line, "global", key, value,
			   "the mbufs pool's reuse queues are its quarantine: set quarantine = on "
			   "and quarantine_depth = N in [pool:mbufs]");
	} else if (strcmp(key, "stats_interval") == 0) {
		if (parse_u32(value, 0, 3600, &n))
			return bad(source, line, "global", key, value,
				   "expected seconds from 0 (off) to 3600");
		cfg->stats_interval = n;
	} else if (strcmp(key, "duration") == 0) {
		if (parse_u32(value, 0, 86400 * 365, &n))
			return bad(source, line, "global", key, value,
				   "expected seconds (0: until a signal)");
		cfg->duration = n;
	} else if (strcmp(key, "busy_poll") == 0) {
		if (strcmp(value, "on") && strcmp(value, "off"))
			return bad(source, line, "global", key, value, "expected on or off");
		cfg->busy_poll = value[1] == 'n';
	} else if (strcmp(key, "busy_budget") == 0) {
		if (parse_u32(value, 1, 1024, &cfg->busy_budget))
			return bad(source, line, "global", key, value, "expected 1 to 1024");
	} else if (strcmp(key, "idle_spin_us") == 0) {
		if (parse_u32(value, 0, 1000000, &cfg->idle_spin_us))
			return bad(source, line, "global", key, value,
				   "expected microseconds from 0 (off: sleep at once) to 1000000");
	} else if (strcmp(key, "tag_check") == 0) {
		if (hdp_tag_check_parse(value, &cfg->tag_check))
			return bad(source, line, "global", key, value,
				   "expected sync, async or asymm (MTE's tag check mode, for the "
				   "whole process)");
	} else if (strcmp(key, "ctl_socket") == 0) {
		if (strlen(value) >= sizeof(cfg->ctl_path))
			return bad(source, line, "global", key, value, "path too long");
		strcpy(cfg->ctl_path, value);
	} else if (strcmp(key, "huge_dir") == 0) {
		if (strlen(value) >= sizeof(cfg->huge_dir))
			return bad(source, line, "global", key, value, "path too long");
		strcpy(cfg->huge_dir, value);
	} else if (strcmp(key, "user") == 0) {
		return set_user(cfg, value, source, line);
	} else if (strcmp(key, "xdp_mode") == 0) {
		int m = choice(value, xdp_mode_names, HDP_ARRAY_SIZE(xdp_mode_names));

		if (m < 0)
			return bad(source, line, "global", key, value,
				   "expected auto, native or generic");
		cfg->xdp_mode = (enum hdp_xdp_mode)m;
	} else if (strcmp(key, "zero_copy") == 0) {
		int z = choice(value, zero_copy_names, HDP_ARRAY_SIZE(zero_copy_names));

		if (z < 0)
			return bad(source, line, "global", key, value, "expected auto, on or off");
		cfg->zero_copy = (enum hdp_zero_copy)z;
	} else if (strcmp(key, "metrics_file") == 0) {
		if (strlen(value) >= sizeof(cfg->metrics_path))
			return bad(source, line, "global", key, value, "path too long");
		if (value[0] && value[0] != '/')
			return bad(source, line, "global", key, value, "expected an absolute path");
		strcpy(cfg->metrics_path, value);
	} else if (strcmp(key, "metrics_mode") == 0) {
		return set_metrics_mode(cfg, value, source, line);
	} else {
		snprintf(why, sizeof(why), "unknown key (see hdp-fwd --help)");
		return bad(source, line, "global", key, value, why);
	}
	return 0;
}

/* Indexed by enum hdp_fwd_key. */
static const char *const tracked_keys[HDP_FWD_KEYS_TRACKED] = {
	[HDP_FWD_KEY_FRAMES] = "frames",
	[HDP_FWD_KEY_CTL_SOCKET] = "ctl_socket",
	[HDP_FWD_KEY_HUGE_DIR] = "huge_dir",
	[HDP_FWD_KEY_METRICS_FILE] = "metrics_file",
	[HDP_FWD_KEY_USER] = "user",
	[HDP_FWD_KEY_MAX_FRAME] = "max_frame",
};

int hdp_fwd_cfg_set_global(struct hdp_fwd_cfg *cfg, const char *key,
			   const char *value, const char *source, int line)
{
	int ret = set_global(cfg, key, value, source, line);

	for (unsigned k = 0; !ret && k < HDP_FWD_KEYS_TRACKED; k++)
		if (strcmp(key, tracked_keys[k]) == 0)
			cfg->origin[k] = (struct hdp_cfg_origin){ source, line };
	return ret;
}

int hdp_fwd_cfg_refuse(const struct hdp_fwd_cfg *cfg, enum hdp_fwd_key key,
		       const char *fmt, ...)
{
	const struct hdp_cfg_origin *o = &cfg->origin[key];
	char why[384], frames[16], max_frame[16];
	const char *value = frames;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	snprintf(frames, sizeof(frames), "%u", cfg->frames);
	if (key == HDP_FWD_KEY_CTL_SOCKET)
		value = cfg->ctl_path;
	else if (key == HDP_FWD_KEY_HUGE_DIR)
		value = cfg->huge_dir;
	else if (key == HDP_FWD_KEY_METRICS_FILE)
		value = cfg->metrics_path;
	else if (key == HDP_FWD_KEY_USER)
		value = cfg->user;
	else if (key == HDP_FWD_KEY_MAX_FRAME)
		value = hdp_fwd_max_frame_text(cfg, max_frame, sizeof(max_frame));
	if (!o->source) {
		hdp_log(HDP_LOG_ERR, "[global] key '%s', value '%s' (the default): %s",
			tracked_keys[key], value, why);
		return -EINVAL;
	}
	return bad(o->source, o->line, "global", tracked_keys[key], value, why);
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

/* The port @ifname:@queue, added (named at @source:@line) if it is new. */
static struct hdp_port_cfg *add_port(struct hdp_fwd_cfg *cfg, const char *ifname,
				     uint32_t queue, const char *source, int line)
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

/*
 * "IF" or "IF:QUEUE" into its parts: 0, -EINVAL (not that form) or
 * -EDOM (not an interface name), with the reason in @why.
 */
static int parse_port(const char *spec, char *ifname, uint32_t *queue, char *why, size_t len)
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
	if (colon && parse_u32(colon + 1, 0, 63, queue))
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

static int set_ports(struct hdp_fwd_cfg *cfg, const char *list, const char *source,
		     int line)
{
	char buf[512], *save = NULL, *tok, ifname[IF_NAMESIZE], why[160];
	struct hdp_fwd_cfg next = *cfg;
	uint32_t queue;

	if (strlen(list) >= sizeof(buf))
		return bad(source, line, "global", "ports", list, "list too long");
	strcpy(buf, list);
	next.nports = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned before = next.nports;
		int ret = parse_port(tok, ifname, &queue, why, sizeof(why));

		if (ret == -EINVAL)
			return bad(source, line, "global", "ports", list,
				   "expected IF[:QUEUE],IF[:QUEUE]... (queues 0-63)");
		if (ret)
			return bad(source, line, "global", "ports", list, why);
		if (!add_port(&next, ifname, queue, source, line))
			return bad(source, line, "global", "ports", list, "too many ports");
		if (next.nports == before)
			return bad(source, line, "global", "ports", list, "a port is listed twice");
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

/* Can this process run on @cpu? (Its affinity mask: online and allowed.) */
static bool cpu_allowed(int cpu)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return cpu < sysconf(_SC_NPROCESSORS_ONLN);
	return CPU_ISSET((size_t)cpu, &set);
}

/* "0-1", "0,2-3": the CPUs this process may use, for messages. */
static const char *allowed_cpus(void)
{
	static char text[128];
	size_t used = 0;
	int c = 0;

	text[0] = '\0';
	while (c < 1024 && used < sizeof(text) - 16) {
		int end;

		if (!cpu_allowed(c)) {
			c++;
			continue;
		}
		for (end = c; end + 1 < 1024 && cpu_allowed(end + 1); end++)
			;
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 end > c ? "%s%d-%d" : "%s%d", used ? "," : "", c, end);
		c = end + 1;
	}
	return text;
}

static int set_cores(struct hdp_fwd_cfg *cfg, const char *list, const char *source,
		     int line)
{
	char buf[256], *save = NULL, *tok;
	unsigned n = 0;
	uint32_t lo, hi;

	if (strcmp(list, "auto") == 0) {
		/* One worker per CPU this process may run on. */
		for (int c = 0; c < 1024 && n < HDP_FWD_CORES_MAX; c++)
			if (cpu_allowed(c))
				cfg->cores[n++] = c;
		if (!n)
			return bad(source, line, "global", "cores", list, "no CPU allowed");
		cfg->ncores = n;
		return 0;
	}
	if (strlen(list) >= sizeof(buf))
		return bad(source, line, "global", "cores", list, "list too long");
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');

		if (dash)
			*dash = '\0';
		if (parse_u32(tok, 0, 1023, &lo) ||
		    (dash ? parse_u32(dash + 1, lo, 1023, &hi) : ((hi = lo), 0)))
			return bad(source, line, "global", "cores", list,
				   "expected CPU numbers and ranges, e.g. 1 or 0,2 or 0-1");
		for (uint32_t c = lo; c <= hi; c++) {
			if (n == HDP_FWD_CORES_MAX)
				return bad(source, line, "global", "cores", list,
					   "more than 16 workers");
			cfg->cores[n++] = (int)c;
		}
	}
	if (!n)
		return bad(source, line, "global", "cores", list, "no CPU given");
	for (unsigned i = 0; i < n; i++) {
		if (!cpu_allowed(cfg->cores[i])) {
			char why[200];

			snprintf(why, sizeof(why), "CPU %d is not one this process may run on (it may use %s)",
				 cfg->cores[i], allowed_cpus());
			return bad(source, line, "global", "cores", list, why);
		}
	}
	cfg->ncores = n;
	return 0;
}

int hdp_fwd_cfg_set_ports(struct hdp_fwd_cfg *cfg, const char *list,
			  const char *source)
{
	return set_ports(cfg, list, source, 0);
}

int hdp_fwd_cfg_set_cores(struct hdp_fwd_cfg *cfg, const char *list,
			  const char *source)
{
	return set_cores(cfg, list, source, 0);
}

static int set_port_key(struct hdp_fwd_cfg *cfg, const char *section,
			const char *key, const char *value, const char *source,
			int line)
{
	char ifname[IF_NAMESIZE], peer[IF_NAMESIZE], why[160];
	struct hdp_port_cfg *p;
	uint32_t queue, pq;
	int ret;

	if (parse_port(section + 5, ifname, &queue, why, sizeof(why)))
		return bad(source, line, section, key, value,
			   "the section should read [port:IF] or [port:IF:QUEUE]");
	p = add_port(cfg, ifname, queue, source, line);
	if (!p)
		return bad(source, line, section, key, value, "too many ports");
	if (strcmp(key, "peer") == 0) {
		ret = parse_port(value, peer, &pq, why, sizeof(why));
		if (ret)
			return bad(source, line, section, key, value,
				   ret == -EINVAL ? "expected IF[:QUEUE]" : why);
		/* Resolved in hdp_fwd_cfg_check(), when every port is known. */
		if (pq == HDP_PORT_ALL_QUEUES)
			snprintf(p->peer_name, sizeof(p->peer_name), "%s", peer);
		else
			snprintf(p->peer_name, sizeof(p->peer_name), "%s:%u", peer, pq);
	} else if (strcmp(key, "src_mac") == 0) {
		if (hdp_mac_parse(value, p->src_mac))
			return bad(source, line, section, key, value, "expected aa:bb:cc:dd:ee:ff");
		p->has_src_mac = true;
	} else if (strcmp(key, "dst_mac") == 0) {
		if (hdp_mac_parse(value, p->dst_mac))
			return bad(source, line, section, key, value, "expected aa:bb:cc:dd:ee:ff");
		p->has_dst_mac = true;
	} else {
		return bad(source, line, section, key, value,
			   "unknown key (peer, src_mac, dst_mac)");
	}
	return 0;
}

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
		ret = parse_port(section + 5, ifname, &queue, why, sizeof(why));
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
		if (!add_port(cfg, ifname, queue, file, line)) {
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
		return set_port_key(cfg, section, key, value, file, line);
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
