// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-fwd's own keys, [global]'s and then [port:IF]'s, in one table: each
 * key's type and field, its default, the values it takes, whether a
 * reload applies it or only a restart does, and what it does. The
 * defaults, the parser (hdp_fwd_cfg_set_global, cfg_port_key_set), the
 * refusals found later (hdp_fwd_cfg_refuse), --check-config's printer
 * (show.c), a reload (hdp_fwd_cfg_restart_key) and --list-keys
 * (hdp_fwd_keys_describe) all read it; none keeps a list of its own. The
 * pools' keys are hardening's (hdp/profile.h).
 */
#include "cfg_internal.h"

#include <hdp/ctl.h>
#include <hdp/log.h>
#include <hdp/strbuf.h>

#include <errno.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum key_type {
	KEY_U32,	/* decimal, lo to hi */
	KEY_POW2,	/* a power of two, lo to hi */
	KEY_AUTO,	/* "auto" (0), or decimal lo to hi */
	KEY_ONOFF,	/* on or off */
	KEY_CHOICE,	/* one of names[]: an enum */
	KEY_PATH,	/* text that fits its field; "" for none */
	KEY_OWN,	/* parsed, written and compared by its own functions */
	KEY_PORT,	/* a [port:IF] key: the same, port by port */
};

struct key {
	enum key_type type;
	size_t at, size;		/* its field in struct hdp_fwd_cfg */
	uint32_t lo, hi;		/* KEY_U32, KEY_POW2, KEY_AUTO */
	const char *const *names;	/* KEY_CHOICE, nnames of them */
	unsigned nnames;
	bool text;			/* free text: it must fit an INI line as it is */
	bool absolute;			/* KEY_PATH: "" or an absolute path */
	bool hidden_empty;		/* not printed while its field (text) is "" */
	bool runtime;			/* a reload applies it; the others need a restart */
	const char *expect;		/* why a value is refused */
	const char *def;		/* the default, parsed at hdp_fwd_cfg_defaults() */
	const char *values;		/* for --list-keys when the type cannot say them */
	const char *def_text;		/* for --list-keys when def does not say it */
	const char *doc;
	/* KEY_OWN: */
	int (*set)(struct hdp_fwd_cfg *cfg, const char *value, const char *source, int line);
	const char *(*write)(const struct hdp_fwd_cfg *cfg, char *buf, size_t len);
	const char *(*differs)(const struct hdp_fwd_cfg *a, const struct hdp_fwd_cfg *b);
	/* A comment after the printed line (or alone, when write gives NULL). */
	const char *(*note)(const struct hdp_fwd_cfg *cfg);
	bool (*shown)(const struct hdp_fwd_cfg *cfg);
	/* KEY_PORT: */
	int (*port_set)(struct hdp_port_cfg *p, const char *value, char *why, size_t len);
	const char *(*port_text)(const struct hdp_fwd_cfg *cfg, unsigned i, char *buf, size_t len);
	bool (*port_differs)(const struct hdp_port_cfg *a, const struct hdp_port_cfg *b);
};

/* [port:IF]'s keys follow [global]'s, in the order --check-config prints them. */
enum {
	PORT_KEY_PEER = HDP_FWD_KEY__COUNT,
	PORT_KEY_SRC_MAC,
	PORT_KEY_DST_MAC,
	KEYS_COUNT
};

static const char *const key_names[KEYS_COUNT] = {
#define NAME(key, name) [HDP_FWD_KEY_##key] = #name,
	HDP_FWD_KEYS(NAME)
#undef NAME
	[PORT_KEY_PEER] = "peer",
	[PORT_KEY_SRC_MAC] = "src_mac",
	[PORT_KEY_DST_MAC] = "dst_mac",
};

static const char *const mode_names[] = { "io", "macswap", "l2" };
/* Indexed by enum hdp_xdp_mode and enum hdp_zero_copy. */
static const char *const xdp_mode_names[] = { "auto", "native", "generic" };
static const char *const zero_copy_names[] = { "auto", "on", "off" };

const char *hdp_fwd_mode_name(enum hdp_fwd_mode mode)
{
	return (unsigned)mode < HDP_ARRAY_SIZE(mode_names) ? mode_names[mode] : "?";
}

const char *hdp_xdp_mode_name(enum hdp_xdp_mode m)
{
	return (unsigned)m < HDP_ARRAY_SIZE(xdp_mode_names) ? xdp_mode_names[m] : "?";
}

const char *hdp_zero_copy_name(enum hdp_zero_copy z)
{
	return (unsigned)z < HDP_ARRAY_SIZE(zero_copy_names) ? zero_copy_names[z] : "?";
}

int hdp_fwd_mode_parse(const char *name, enum hdp_fwd_mode *out)
{
	for (unsigned i = 0; i < HDP_ARRAY_SIZE(mode_names); i++) {
		if (strcmp(name, mode_names[i]) == 0) {
			*out = (enum hdp_fwd_mode)i;
			return 0;
		}
	}
	return -EINVAL;
}

/*
 * The user hdp-fwd becomes once set up: a name from the user database
 * (its primary group goes with it) or a numeric uid, never root.
 */
static int set_user(struct hdp_fwd_cfg *cfg, const char *value, const char *source, int line)
{
	struct passwd *pw;
	uint32_t id;

	if (strlen(value) >= sizeof(cfg->user))
		return cfg_refuse(source, line, "global", "user", value, "name too long");
	pw = getpwnam(value);
	if (pw) {
		cfg->uid = (uint32_t)pw->pw_uid;
		cfg->gid = (uint32_t)pw->pw_gid;
	} else if (cfg_u32(value, 0, 0x7fffffff, &id) == 0) {
		cfg->uid = cfg->gid = id;
	} else {
		return cfg_refuse(source, line, "global", "user", value,
				  "no such user (a name from the user database, or a number)");
	}
	if (cfg->uid == 0)
		return cfg_refuse(source, line, "global", "user", value,
				  "that is root: nothing would be given up");
	strcpy(cfg->user, value);
	return 0;
}

static const char *user_text(const struct hdp_fwd_cfg *cfg, char *buf, size_t len)
{
	snprintf(buf, len, "%s", cfg->user);
	return buf;
}

static const char *user_differs(const struct hdp_fwd_cfg *a, const struct hdp_fwd_cfg *b)
{
	return strcmp(a->user, b->user) ? "user" : NULL;
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
		return cfg_refuse(source, line, "global", "metrics_mode", value,
				  "expected an octal mode such as 0644");
	m = strtoul(value, NULL, 8);
	if ((m & ~0644ul) || (m & 0600) != 0600)
		return cfg_refuse(source, line, "global", "metrics_mode", value,
				  "expected 0600, 0640, 0604 or 0644: read and write for the owner, "
				  "read only for group and others");
	cfg->metrics_mode = (unsigned)m;
	return 0;
}

static const char *metrics_mode_text(const struct hdp_fwd_cfg *cfg, char *buf, size_t len)
{
	snprintf(buf, len, "%04o", cfg->metrics_mode);
	return buf;
}

static const char *metrics_mode_differs(const struct hdp_fwd_cfg *a, const struct hdp_fwd_cfg *b)
{
	return a->metrics_mode != b->metrics_mode ? "metrics_mode" : NULL;
}

static bool metrics_file_set(const struct hdp_fwd_cfg *cfg)
{
	return cfg->metrics_path[0] != '\0';
}

static int set_tag_check(struct hdp_fwd_cfg *cfg, const char *value, const char *source,
			 int line)
{
	if (hdp_tag_check_parse(value, &cfg->tag_check))
		return cfg_refuse(source, line, "global", "tag_check", value,
				  "expected sync, async or asymm (MTE's tag check mode, for the "
				  "whole process)");
	return 0;
}

static const char *tag_check_text(const struct hdp_fwd_cfg *cfg, char *buf, size_t len)
{
	snprintf(buf, len, "%s", hdp_tag_check_name(cfg->tag_check));
	return buf;
}

static const char *tag_check_differs(const struct hdp_fwd_cfg *a, const struct hdp_fwd_cfg *b)
{
	return a->tag_check != b->tag_check ? "tag_check" : NULL;
}

static const char *tag_check_note(const struct hdp_fwd_cfg *cfg)
{
	(void)cfg;
	return hdp_tag_mte_available() ? "; MTE's tag check mode, the whole process's"
				       : "; no MTE here: no effect";
}

static int set_ports(struct hdp_fwd_cfg *cfg, const char *value, const char *source, int line)
{
	return cfg_ports_set(cfg, value, source, line);
}

/* The port list, when it fits a line; else the [port:...] sections say it. */
static const char *ports_text(const struct hdp_fwd_cfg *cfg, char *buf, size_t len)
{
	char why[200];

	cfg_ports_text(cfg, buf, len);
	return hdp_ini_value_fits("ports", buf, why, sizeof(why)) ? buf : NULL;
}

static const char *ports_note(const struct hdp_fwd_cfg *cfg)
{
	char list[HDP_FWD_PORTS_MAX * 40], why[200];

	cfg_ports_text(cfg, list, sizeof(list));
	return hdp_ini_value_fits("ports", list, why, sizeof(why)) ? NULL
	       : "; ports: the [port:...] sections below, in order (the list is longer than "
		 "an INI line)";
}

static int set_cores(struct hdp_fwd_cfg *cfg, const char *value, const char *source, int line)
{
	return cfg_cores_set(cfg, value, source, line);
}

static bool unpinned(const struct hdp_fwd_cfg *cfg)
{
	return cfg->ncores == 1 && cfg->cores[0] < 0;
}

static const char *cores_text(const struct hdp_fwd_cfg *cfg, char *buf, size_t len)
{
	return unpinned(cfg) ? NULL : cfg_cores_text(cfg, buf, len);
}

static const char *cores_note(const struct hdp_fwd_cfg *cfg)
{
	return unpinned(cfg) ? "; cores: one worker, not pinned" : NULL;
}

static const char *cores_differs(const struct hdp_fwd_cfg *a, const struct hdp_fwd_cfg *b)
{
	return a->ncores != b->ncores ||
	       memcmp(a->cores, b->cores, a->ncores * sizeof(a->cores[0])) ? "cores" : NULL;
}

static const char *mbuf_cache_note(const struct hdp_fwd_cfg *cfg)
{
	return cfg->mbuf_cache ? "; DPDK ports only" : "; DPDK ports only: none";
}

/* What it does here: a spin busy polling makes moot says so. */
static const char *idle_spin_note(const struct hdp_fwd_cfg *cfg)
{
	return !cfg->idle_spin_us ? "; off: an idle worker sleeps in poll() at once"
	       : cfg->busy_poll ? "; no effect: busy polling never sleeps"
	       : "; an idle worker spins this long before it sleeps";
}

static const char *ctl_socket_note(const struct hdp_fwd_cfg *cfg)
{
	return cfg->ctl_path[0] ? NULL : "; none";
}

#define AT(field) .at = offsetof(struct hdp_fwd_cfg, field), \
		  .size = sizeof(((struct hdp_fwd_cfg *)0)->field)
#define CHOICE(list) .type = KEY_CHOICE, .names = list, .nnames = HDP_ARRAY_SIZE(list)
#define OWN(name) .type = KEY_OWN, .set = set_##name, .write = name##_text
#define PORT(name) .type = KEY_PORT, .port_set = cfg_##name##_set, \
		   .port_text = cfg_##name##_text, .port_differs = cfg_##name##_differs

static const char *ports_differ(const struct hdp_fwd_cfg *a, const struct hdp_fwd_cfg *b);

static const struct key keys[KEYS_COUNT] = {
	[HDP_FWD_KEY_MODE] = { CHOICE(mode_names), AT(mode), .def = "io",
		.expect = "expected io, macswap or l2",
		.doc = "what a forwarded frame's header gets: io nothing, macswap its two MACs "
		       "swapped, l2 both MACs from the output's [port:IF]" },
	[HDP_FWD_KEY_PORTS] = { OWN(ports), .differs = ports_differ, .note = ports_note,
		.values = "IF[:QUEUE],IF[:QUEUE]...", .def_text = "none",
		.doc = "the ports, forwarded in pairs (first to second, third to fourth...) "
		       "unless [port:IF] sets peer; IF alone is every RX queue it has, paired "
		       "queue by queue; on DPDK ports a device (hdp-fwd spreads its queues)" },
	[HDP_FWD_KEY_CORES] = { OWN(cores), .differs = cores_differs, .note = cores_note,
		.values = "LIST|auto", .def_text = "one worker, not pinned",
		.doc = "one worker per CPU listed, pinned (1, 0,2 or 0-1; auto: every CPU this "
		       "process may use); on DPDK ports EAL's lcores, unless EAL's arguments "
		       "give them" },
	[HDP_FWD_KEY_FRAMES] = { .type = KEY_U32, AT(frames), .lo = 256, .hi = 1u << 20,
		.def = "8192", .expect = "expected 256 to 1048576 frames",
		.doc = "the UMEM's frames (AF_XDP ports), the pool's mbufs (DPDK ports)" },
	[HDP_FWD_KEY_FRAME_SIZE] = { .type = KEY_POW2, AT(frame_size), .lo = 2048, .hi = 4096,
		.def = "2048", .values = "2048|4096",
		.expect = "AF_XDP chunks are 2048 or 4096 bytes",
		.doc = "a UMEM frame's bytes, 256 of them the kernel's headroom (AF_XDP ports)" },
	[HDP_FWD_KEY_MAX_FRAME] = { .type = KEY_AUTO, AT(max_frame),
		.lo = HDP_FWD_MAX_FRAME_MIN, .hi = HDP_FWD_MAX_FRAME_MAX, .def = "auto",
		.expect = "expected auto (what the interfaces' MTUs let in) or bytes from 86 to "
			  "65553 (Ethernet header and a VLAN tag included, FCS not: MTU 68 to "
			  "65535)",
		.doc = "the largest frame to carry, or auto: what the MTUs let in; past one "
		       "frame, chains of frames (AF_XDP multi-buffer) or of mbufs (DPDK ports)" },
	[HDP_FWD_KEY_BATCH] = { .type = KEY_U32, AT(batch), .lo = 1, .hi = HDP_FWD_BATCH_MAX,
		.def = "64", .expect = "expected 1 to 256",
		.doc = "descriptors a worker takes from an RX ring at once" },
	[HDP_FWD_KEY_RING_SIZE] = { .type = KEY_POW2, AT(ring_size), .lo = 64, .hi = 65536,
		.def = "2048", .expect = "expected a power of two from 64 to 65536",
		.doc = "each AF_XDP socket's RX and TX rings" },
	[HDP_FWD_KEY_FILL_SIZE] = { .type = KEY_POW2, AT(fill_size), .lo = 64, .hi = 65536,
		.def = "2048", .expect = "expected a power of two from 64 to 65536",
		.doc = "each AF_XDP socket's fill and completion rings" },
	[HDP_FWD_KEY_MBUF_CACHE] = { .type = KEY_U32, AT(mbuf_cache), .lo = 0, .hi = 512,
		.def = "0", .note = mbuf_cache_note,
		/* RTE_MEMPOOL_CACHE_MAX_SIZE, without DPDK's header here. */
		.expect = "expected 0 (no cache: every mbuf through the hooks) to 512",
		.doc = "DPDK ports: the per-lcore mbuf cache; 0, none: every mbuf crosses the "
		       "hdp driver (with one, hdp-fwd wipes what it frees before the cache)" },
	[HDP_FWD_KEY_STATS_INTERVAL] = { .type = KEY_U32, AT(stats_interval), .lo = 0,
		.hi = 3600, .def = "1", .runtime = true,
		.expect = "expected seconds from 0 (off) to 3600",
		.doc = "seconds between status lines, and between writes of the metrics file "
		       "(every second with 0)" },
	[HDP_FWD_KEY_DURATION] = { .type = KEY_U32, AT(duration), .lo = 0, .hi = 86400 * 365,
		.def = "0", .expect = "expected seconds (0: until a signal)",
		.doc = "seconds to run; 0: until SIGINT or SIGTERM" },
	[HDP_FWD_KEY_BUSY_POLL] = { .type = KEY_ONOFF, AT(busy_poll), .def = "off",
		.expect = "expected on or off",
		.doc = "AF_XDP ports: each port's receive work runs in hdp-fwd's own syscalls "
		       "(preferred busy polling) instead of a sleep in poll(); refused where "
		       "the kernel names no NAPI to poll (veth)" },
	[HDP_FWD_KEY_BUSY_BUDGET] = { .type = KEY_U32, AT(busy_budget), .lo = 1, .hi = 1024,
		.def = "64", .expect = "expected 1 to 1024",
		.doc = "busy polling: packets a syscall's receive work takes at most" },
	[HDP_FWD_KEY_IDLE_SPIN_US] = { .type = KEY_U32, AT(idle_spin_us), .lo = 0,
		.hi = 1000000, .def = "0", .runtime = true, .note = idle_spin_note,
		.expect = "expected microseconds from 0 (off: sleep at once) to 1000000",
		.doc = "AF_XDP ports: how long an idle worker keeps checking its RX rings "
		       "(sched_yield() between checks) before it sleeps in poll(); CPU for "
		       "latency at low load; nothing with busy polling" },
	[HDP_FWD_KEY_TAG_CHECK] = { OWN(tag_check), .differs = tag_check_differs,
		.note = tag_check_note, .def = "sync", .values = "sync|async|asymm",
		.def_text = "HDP_TAG_CHECK's, else sync",
		.doc = "MTE's tag check mode, for the whole process: sync stops a bad access at "
		       "the instruction and names it; async reports it later, at no known "
		       "address; asymm (MTE3) checks reads as sync and writes as async; no "
		       "effect without MTE" },
	[HDP_FWD_KEY_CTL_SOCKET] = { .type = KEY_PATH, AT(ctl_path), .text = true,
		.def = "", .def_text = HDP_CTL_DEFAULT_PATH, .note = ctl_socket_note,
		.expect = "path too long",
		.doc = "the control socket hdp-ctl speaks to; empty (--ctl none): none" },
	[HDP_FWD_KEY_HUGE_DIR] = { .type = KEY_PATH, AT(huge_dir), .text = true,
		.hidden_empty = true, .def = "", .def_text = "none: anonymous hugepages",
		.expect = "path too long",
		.doc = "AF_XDP ports: a hugetlbfs mount for the UMEM's memory" },
	[HDP_FWD_KEY_USER] = { OWN(user), AT(user), .differs = user_differs, .text = true,
		.hidden_empty = true, .values = "NAME|UID", .def_text = "none: stay root",
		.doc = "the user hdp-fwd runs as once set up (never root); every capability "
		       "goes in any case" },
	[HDP_FWD_KEY_XDP_MODE] = { CHOICE(xdp_mode_names), AT(xdp_mode), .def = "auto",
		.expect = "expected auto, native or generic",
		.doc = "AF_XDP ports: how the XDP program is attached; auto: native where the "
		       "driver has it" },
	[HDP_FWD_KEY_ZERO_COPY] = { CHOICE(zero_copy_names), AT(zero_copy), .def = "auto",
		.expect = "expected auto, on or off",
		.doc = "AF_XDP ports: zero copy where the driver can (auto), required (on) or "
		       "never (off: copy mode)" },
	[HDP_FWD_KEY_METRICS_FILE] = { .type = KEY_PATH, AT(metrics_path), .text = true,
		.absolute = true, .hidden_empty = true, .def = "", .def_text = "none",
		.expect = "path too long",
		.doc = "write the stats in Prometheus' text format here, atomically, every "
		       "stats_interval (node_exporter's textfile collector); a path holding "
		       "anything but hdp-fwd's own metrics is refused" },
	[HDP_FWD_KEY_METRICS_MODE] = { OWN(metrics_mode), .differs = metrics_mode_differs,
		.shown = metrics_file_set, .runtime = true, .def = "0644",
		.values = "0600|0640|0604|0644",
		.doc = "the metrics file's mode, whatever the umask" },
	[PORT_KEY_PEER] = { PORT(peer), .values = "IF[:QUEUE]",
		.def_text = "the next port listed after or before it, in pairs",
		.doc = "the port its frames go out on; each port is the peer of exactly one" },
	[PORT_KEY_SRC_MAC] = { PORT(src_mac), .values = "aa:bb:cc:dd:ee:ff",
		.def_text = "the interface's own",
		.doc = "mode l2: the source MAC of the frames that leave on it" },
	[PORT_KEY_DST_MAC] = { PORT(dst_mac), .values = "aa:bb:cc:dd:ee:ff",
		.def_text = "none: mode l2 needs it",
		.doc = "mode l2: the destination MAC of the frames that leave on it (the next hop)" },
};

/* Keys hdp-fwd refuses with a pointer to what does their work. */
static const struct {
	const char *name, *why;
} refused_keys[] = {
	{ "mbuf_reuse", "the mbufs pool's reuse queues are its quarantine: set quarantine = on "
			"and quarantine_depth = N in [pool:mbufs]" },
};

_Static_assert(sizeof(unsigned) == sizeof(uint32_t), "unsigned fields read as uint32_t");

static uint32_t get_u32(const struct hdp_fwd_cfg *cfg, const struct key *k)
{
	uint32_t v;

	memcpy(&v, (const char *)cfg + k->at, sizeof(v));
	return v;
}

static void put_u32(struct hdp_fwd_cfg *cfg, const struct key *k, uint32_t v)
{
	memcpy((char *)cfg + k->at, &v, sizeof(v));
}

/* KEY_CHOICE's enums are ints. */
static int get_enum(const struct hdp_fwd_cfg *cfg, const struct key *k)
{
	int v;

	memcpy(&v, (const char *)cfg + k->at, sizeof(v));
	return v;
}

static bool pow2(uint32_t v)
{
	return v && !(v & (v - 1));
}

/* @value into @k's field, by its type: 0 or -EINVAL (not said). */
static int parse(struct hdp_fwd_cfg *cfg, const struct key *k, const char *value)
{
	char *field = (char *)cfg + k->at;
	uint32_t n = 0;

	switch (k->type) {
	case KEY_U32:
		if (cfg_u32(value, k->lo, k->hi, &n))
			return -EINVAL;
		break;
	case KEY_POW2:
		if (cfg_u32(value, k->lo, k->hi, &n) || !pow2(n))
			return -EINVAL;
		break;
	case KEY_AUTO:
		if (strcmp(value, "auto") && cfg_u32(value, k->lo, k->hi, &n))
			return -EINVAL;
		break;
	case KEY_ONOFF:
		if (strcmp(value, "on") && strcmp(value, "off"))
			return -EINVAL;
		*(bool *)field = value[1] == 'n';
		return 0;
	case KEY_CHOICE:
		for (unsigned i = 0; i < k->nnames; i++) {
			if (strcmp(value, k->names[i]) == 0) {
				int v = (int)i;

				memcpy(field, &v, sizeof(v));
				return 0;
			}
		}
		return -EINVAL;
	case KEY_PATH:
		if (strlen(value) >= k->size)
			return -EINVAL;
		strcpy(field, value);
		return 0;
	case KEY_OWN:
	case KEY_PORT:
		return -EINVAL;
	}
	put_u32(cfg, k, n);
	return 0;
}

/* KEY_PATH's second rule, after its length. */
static bool not_absolute(const struct key *k, const char *value)
{
	return k->absolute && value[0] && value[0] != '/';
}

static int set_key(struct hdp_fwd_cfg *cfg, enum hdp_fwd_key key, const char *value,
		   const char *source, int line)
{
	const struct key *k = &keys[key];
	const char *name = key_names[key];
	char why[200];

	if (k->text && !hdp_ini_value_fits(name, value, why, sizeof(why)))
		return cfg_refuse(source, line, "global", name, value, why);
	if (k->type == KEY_OWN)
		return k->set(cfg, value, source, line);
	if (parse(cfg, k, value))
		return cfg_refuse(source, line, "global", name, value, k->expect);
	if (not_absolute(k, value))
		return cfg_refuse(source, line, "global", name, value, "expected an absolute path");
	return 0;
}

int cfg_key_set(struct hdp_fwd_cfg *cfg, enum hdp_fwd_key key, const char *value,
		const char *source, int line)
{
	int ret = set_key(cfg, key, value, source, line);

	if (!ret)
		cfg->origin[key] = (struct hdp_cfg_origin){ source, line };
	return ret;
}

int hdp_fwd_cfg_set_global(struct hdp_fwd_cfg *cfg, const char *key, const char *value,
			   const char *source, int line)
{
	for (unsigned k = 0; k < HDP_FWD_KEY__COUNT; k++)
		if (strcmp(key, key_names[k]) == 0)
			return cfg_key_set(cfg, (enum hdp_fwd_key)k, value, source, line);
	for (unsigned i = 0; i < HDP_ARRAY_SIZE(refused_keys); i++)
		if (strcmp(key, refused_keys[i].name) == 0)
			return cfg_refuse(source, line, "global", key, value, refused_keys[i].why);
	return cfg_refuse(source, line, "global", key, value, "unknown key (see hdp-fwd --help)");
}

int cfg_port_key_set(struct hdp_fwd_cfg *cfg, const char *section, const char *key,
		     const char *value, const char *source, int line)
{
	char ifname[IF_NAMESIZE], why[160], names[64];
	struct hdp_port_cfg *p;
	uint32_t queue;
	size_t used = 0;

	if (cfg_port_spec(section + 5, ifname, &queue, why, sizeof(why)))
		return cfg_refuse(source, line, section, key, value,
				  "the section should read [port:IF] or [port:IF:QUEUE]");
	p = cfg_port_add(cfg, ifname, queue, source, line);
	if (!p)
		return cfg_refuse(source, line, section, key, value, "too many ports");
	for (unsigned k = HDP_FWD_KEY__COUNT; k < KEYS_COUNT; k++) {
		if (strcmp(key, key_names[k]))
			continue;
		if (keys[k].port_set(p, value, why, sizeof(why)))
			return cfg_refuse(source, line, section, key, value, why);
		return 0;
	}
	for (unsigned k = HDP_FWD_KEY__COUNT; k < KEYS_COUNT; k++)
		used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
					 k > HDP_FWD_KEY__COUNT ? ", " : "", key_names[k]);
	snprintf(why, sizeof(why), "unknown key (%s)", names);
	return cfg_refuse(source, line, section, key, value, why);
}

unsigned cfg_port_keys(void)
{
	return KEYS_COUNT - HDP_FWD_KEY__COUNT;
}

const char *cfg_port_key_name(unsigned k)
{
	return key_names[HDP_FWD_KEY__COUNT + k];
}

const char *cfg_port_key_text(const struct hdp_fwd_cfg *cfg, unsigned i, unsigned k, char *buf,
			      size_t len)
{
	return keys[HDP_FWD_KEY__COUNT + k].port_text(cfg, i, buf, len);
}

/* The field is what the key's type reads and writes. */
static bool key_fits(const struct key *k)
{
	switch (k->type) {
	case KEY_U32:
	case KEY_POW2:
	case KEY_AUTO:
		return k->size == sizeof(uint32_t);
	case KEY_ONOFF:
		return k->size == sizeof(bool);
	case KEY_CHOICE:
		return k->size == sizeof(int);
	case KEY_PATH:
		return k->size > 0;
	case KEY_OWN:
		return k->set && k->write && k->differs;
	case KEY_PORT:
		return k->port_set && k->port_text && k->port_differs;
	}
	return false;
}

void hdp_fwd_cfg_defaults(struct hdp_fwd_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ncores = 1;
	cfg->cores[0] = -1;
	for (unsigned k = 0; k < KEYS_COUNT; k++) {
		const struct key *key = &keys[k];

		/* The table's own mistakes: no configuration could mend them. */
		if (!key_fits(key) || !key->doc || (k < HDP_FWD_KEY__COUNT) == (key->type == KEY_PORT))
			abort();
		if (key->def && (key->type == KEY_OWN ? key->set(cfg, key->def, "the default", 0)
						      : parse(cfg, key, key->def)))
			abort();
	}
	/* The environment's wish or sync: a file without the key means that. */
	if (hdp_tag_check_parse(getenv("HDP_TAG_CHECK"), &cfg->tag_check))
		cfg->tag_check = HDP_TAG_CHECK_SYNC;
	hdp_harden_config_init(&cfg->harden);
	hdp_harden_config_declare(&cfg->harden, HDP_FWD_UMEM_POOL);
}

const char *cfg_key_name(enum hdp_fwd_key key)
{
	return key_names[key];
}

const char *cfg_key_text(const struct hdp_fwd_cfg *cfg, enum hdp_fwd_key key, char *buf,
			 size_t len)
{
	const struct key *k = &keys[key];

	switch (k->type) {
	case KEY_U32:
	case KEY_POW2:
		snprintf(buf, len, "%u", get_u32(cfg, k));
		break;
	case KEY_AUTO:
		if (get_u32(cfg, k))
			snprintf(buf, len, "%u", get_u32(cfg, k));
		else
			snprintf(buf, len, "auto");
		break;
	case KEY_ONOFF:
		snprintf(buf, len, "%s", *(const bool *)((const char *)cfg + k->at) ? "on" : "off");
		break;
	case KEY_CHOICE:
		snprintf(buf, len, "%s", (unsigned)get_enum(cfg, k) < k->nnames
			 ? k->names[get_enum(cfg, k)] : "?");
		break;
	case KEY_PATH:
		snprintf(buf, len, "%s", (const char *)cfg + k->at);
		break;
	case KEY_OWN:
		return k->write(cfg, buf, len);
	case KEY_PORT:
		return NULL;
	}
	return buf;
}

bool cfg_key_shown(const struct hdp_fwd_cfg *cfg, enum hdp_fwd_key key)
{
	const struct key *k = &keys[key];

	if (k->shown)
		return k->shown(cfg);
	return !k->hidden_empty || ((const char *)cfg + k->at)[0];
}

const char *cfg_key_note(const struct hdp_fwd_cfg *cfg, enum hdp_fwd_key key)
{
	return keys[key].note ? keys[key].note(cfg) : NULL;
}

int hdp_fwd_cfg_refuse(const struct hdp_fwd_cfg *cfg, enum hdp_fwd_key key, const char *fmt, ...)
{
	const struct hdp_cfg_origin *o = &cfg->origin[key];
	char why[384], value[HDP_FWD_PORTS_MAX * 40];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (!cfg_key_text(cfg, key, value, sizeof(value)))
		value[0] = '\0';
	if (!o->source) {
		hdp_log(HDP_LOG_ERR, "[global] key '%s', value '%s' (the default): %s",
			key_names[key], value, why);
		return -EINVAL;
	}
	return cfg_refuse(o->source, o->line, "global", key_names[key], value, why);
}

/* @key's value in @a and @b, unless they are the same: its name. */
static const char *differs(const struct hdp_fwd_cfg *a, const struct hdp_fwd_cfg *b,
			   enum hdp_fwd_key key)
{
	const struct key *k = &keys[key];
	const char *fa = (const char *)a + k->at, *fb = (const char *)b + k->at;

	switch (k->type) {
	case KEY_OWN:
		return k->differs(a, b);
	case KEY_PATH:
		return strcmp(fa, fb) ? key_names[key] : NULL;
	default:
		return memcmp(fa, fb, k->size) ? key_names[key] : NULL;
	}
}

/* Two ports the same in what a running forwarder has built in: the port and each of its keys. */
static bool same_port(const struct hdp_port_cfg *a, const struct hdp_port_cfg *b)
{
	if (strcmp(a->ifname, b->ifname) || a->queue != b->queue)
		return false;
	for (unsigned k = HDP_FWD_KEY__COUNT; k < KEYS_COUNT; k++)
		if (keys[k].port_differs(a, b))
			return false;
	return true;
}

/* The ports key's, in a reload: the list, or a [port:IF] key, differs. */
static const char *ports_differ(const struct hdp_fwd_cfg *a, const struct hdp_fwd_cfg *b)
{
	if (a->nports != b->nports)
		return "ports";
	for (unsigned i = 0; i < a->nports; i++)
		if (!same_port(&a->ports[i], &b->ports[i]))
			return "ports (or a [port:IF] key)";
	return NULL;
}

const char *hdp_fwd_cfg_restart_key(const struct hdp_fwd_cfg *a, const struct hdp_fwd_cfg *b)
{
	for (unsigned k = 0; k < HDP_FWD_KEY__COUNT; k++) {
		const char *name = keys[k].runtime ? NULL : differs(a, b, (enum hdp_fwd_key)k);

		if (name)
			return name;
	}
	return NULL;
}

/* What --list-keys says a key takes, from its type when the table does not say. */
static void values_text(const struct key *k, struct hdp_strbuf *o)
{
	if (k->values) {
		hdp_strbuf_printf(o, "%s", k->values);
		return;
	}
	switch (k->type) {
	case KEY_U32:
		hdp_strbuf_printf(o, "%u-%u", k->lo, k->hi);
		break;
	case KEY_POW2:
		hdp_strbuf_printf(o, "%u-%u, a power of two", k->lo, k->hi);
		break;
	case KEY_AUTO:
		hdp_strbuf_printf(o, "auto|%u-%u", k->lo, k->hi);
		break;
	case KEY_ONOFF:
		hdp_strbuf_printf(o, "on|off");
		break;
	case KEY_CHOICE:
		for (unsigned i = 0; i < k->nnames; i++)
			hdp_strbuf_printf(o, "%s%s", i ? "|" : "", k->names[i]);
		break;
	case KEY_PATH:
		hdp_strbuf_printf(o, "%s", k->absolute ? "/PATH" : "PATH");
		break;
	case KEY_OWN:
	case KEY_PORT:
		break;
	}
}

int hdp_fwd_keys_describe(char *buf, size_t len)
{
	struct hdp_strbuf o = hdp_strbuf_init(buf, len);

	for (unsigned i = 0; i < KEYS_COUNT; i++) {
		const struct key *k = &keys[i];

		hdp_strbuf_printf(&o, "%s %s = ", k->type == KEY_PORT ? "[port:IF]" : "[global]",
				  key_names[i]);
		values_text(k, &o);
		hdp_strbuf_printf(&o, " (default: %s; %s)\n  %s\n",
				  k->def_text ? k->def_text : k->def, k->runtime
				  ? "a reload applies it at once" : "a reload needs a restart",
				  k->doc);
	}
	return (int)o.used;
}
