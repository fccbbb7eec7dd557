// SPDX-License-Identifier: BSD-3-Clause
/*
 * The command-line options that set a [global] key: each names its key by
 * the table's enum, and its value goes through the key table's parser
 * like the file's (keys.c), so that a refusal reads "--OPTION 'V': why"
 * and --check-config says which option set it. getopt's table and
 * --help's lines for them are made from this list; hdp-fwd.c keeps only
 * the options that set no key.
 */
#include "cfg_internal.h"

#include <hdp/ctl.h>
#include <hdp/strbuf.h>

#include <errno.h>
#include <getopt.h>
#include <string.h>

struct key_option {
	enum hdp_fwd_key key;
	const char *option;	/* "--NAME": also the source a refusal names */
	const char *arg;	/* what it takes, for --help; NULL: a switch */
	const char *set;	/* a switch: the value it sets */
	const char *none;	/* the word that stands for the empty value */
	const char *help;	/* --help's text, lines after the first indented */
};

static const struct key_option options[] = {
	{ HDP_FWD_KEY_PORTS, "--ports", "IF[:Q],IF[:Q]...",
	  .help = "ports, forwarded in pairs (first<->second, ...);\n"
		  "IF alone: every RX queue it has, queue by queue" },
	{ HDP_FWD_KEY_MODE, "--mode", "io|macswap|l2",
	  .help = "io: untouched; macswap: swap MACs; l2: MACs from [port:IF]" },
	{ HDP_FWD_KEY_CORES, "--cores", "LIST",
	  .help = "one worker per CPU listed, pinned (e.g. 1 or 0,1; auto:\n"
		  "every CPU allowed); default one unpinned worker" },
	{ HDP_FWD_KEY_DURATION, "--duration", "SECONDS",
	  .help = "stop after this long (default: run until SIGINT/SIGTERM)" },
	{ HDP_FWD_KEY_STATS_INTERVAL, "--stats-interval", "S",
	  .help = "seconds between status lines (0: none; default 1)" },
	{ HDP_FWD_KEY_CTL_SOCKET, "--ctl", "PATH", .none = "none",
	  .help = "control socket for hdp-ctl (default " HDP_CTL_DEFAULT_PATH ";\n"
		  "\"none\" for none)" },
	{ HDP_FWD_KEY_BUSY_POLL, "--busy-poll", .set = "on",
	  .help = "run each port's receive work in hdp-fwd's own syscalls\n"
		  "(preferred busy polling) instead of sleeping in poll():\n"
		  "sets napi_defer_hard_irqs, gro_flush_timeout and threaded\n"
		  "NAPI off while it runs; exits with status 2 where the\n"
		  "kernel gives the sockets no NAPI to poll (veth)" },
	{ HDP_FWD_KEY_IDLE_SPIN_US, "--idle-spin", "US",
	  .help = "once idle, keep checking the RX rings for US microseconds\n"
		  "(sched_yield() between checks) before sleeping in poll():\n"
		  "CPU for latency at low load (default 0: sleep at once;\n"
		  "up to 1000000; nothing with --busy-poll)" },
	{ HDP_FWD_KEY_FRAMES, "--frames", "N", .help = "UMEM frames (default 8192)" },
	{ HDP_FWD_KEY_METRICS_FILE, "--metrics-file", "PATH",
	  .help = "write the stats in Prometheus' text format to PATH\n"
		  "(atomically, in metrics_mode, 0644) every stats interval,\n"
		  "or every second with none: for node_exporter's textfile\n"
		  "collector; a PATH holding anything but hdp-fwd's own\n"
		  "metrics is refused (status 2)" },
	{ HDP_FWD_KEY_USER, "--user", "NAME|UID",
	  .help = "once set up, run as this user (its control socket too)" },
};

/* So that a caller sizes getopt's table by the header, and no option is left out. */
_Static_assert(HDP_ARRAY_SIZE(options) <= HDP_FWD_KEY_OPTIONS_MAX,
	       "HDP_FWD_KEY_OPTIONS_MAX holds every key option");

unsigned hdp_fwd_key_options(struct option *out, unsigned max, int val)
{
	unsigned n = HDP_ARRAY_SIZE(options) < max ? HDP_ARRAY_SIZE(options) : max;

	for (unsigned i = 0; i < n; i++)
		out[i] = (struct option){ options[i].option + 2,
					  options[i].arg ? required_argument : no_argument,
					  NULL, val + (int)i };
	return n;
}

int hdp_fwd_cfg_set_option(struct hdp_fwd_cfg *cfg, unsigned i, const char *arg)
{
	const struct key_option *o;
	const char *value;

	if (i >= HDP_ARRAY_SIZE(options))
		return -EINVAL;
	o = &options[i];
	if (o->arg && !arg)
		return -EINVAL;
	value = o->arg ? arg : o->set;
	if (o->none && strcmp(value, o->none) == 0)
		value = "";
	return cfg_key_set(cfg, o->key, value, o->option, 0);
}

#define HELP_COLUMN 24

int hdp_fwd_key_options_describe(char *buf, size_t len)
{
	struct hdp_strbuf o = hdp_strbuf_init(buf, len);

	for (unsigned i = 0; i < HDP_ARRAY_SIZE(options); i++) {
		const struct key_option *k = &options[i];
		int w = (int)(strlen(k->option) + (k->arg ? strlen(k->arg) + 1 : 0));
		const char *line = k->help, *nl;

		hdp_strbuf_printf(&o, "  %s%s%s", k->option, k->arg ? " " : "", k->arg ? k->arg : "");
		/* Too long for the column: the help starts on its own line. */
		hdp_strbuf_printf(&o, "%*s", w + 2 < HELP_COLUMN ? HELP_COLUMN - 2 - w : 1, "");
		for (; (nl = strchr(line, '\n')); line = nl + 1)
			hdp_strbuf_printf(&o, "%.*s\n%*s", (int)(nl - line), line, HELP_COLUMN, "");
		hdp_strbuf_printf(&o, "%s\n", line);
	}
	return (int)o.used;
}
