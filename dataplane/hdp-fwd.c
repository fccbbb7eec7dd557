// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-fwd: forward packets between interfaces over AF_XDP, every frame in
 * a hardened pool. Exit status: 0 after a clean stop with every frame back
 * in its pool, 1 on a runtime failure, 2 for bad options or configuration.
 */
#include <hdp/ctl.h>
#include <hdp/fwd.h>
#include <hdp/log.h>
#include <hdp/metrics_file.h>
#include <hdp/protection.h>
#include <hdp/xdp_keeper.h>

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "dpdk/load.h"

static struct hdp_fwd *running;
static struct hdp_fwd_dpdk_module dpdk_module;	/* loaded with EAL arguments */
static volatile sig_atomic_t stop_requested;
static bool keep_caps;

/* A signal during set-up is remembered: nothing is running to stop yet. */
static void on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
	if (running)
		hdp_fwd_stop(running);
}

static volatile sig_atomic_t reload_requested;

static void on_sighup(int sig)
{
	(void)sig;
	reload_requested = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: hdp-fwd [OPTIONS] [-- EAL-ARGUMENTS]\n"
"Forward packets between AF_XDP ports, every frame in a hardened pool.\n"
"With DPDK EAL arguments after --, the ports are DPDK devices (net_pcap0,\n"
"net_null0, a PCI address...) and the mbufs come from the hdp-hardened pool\n"
"\"mbufs\" (docs/DPDK.md): one worker per EAL lcore, the same control socket.\n"
"\n"
"  --config FILE         INI file: [global], [port:IF], [pool:default], [pool:umem]\n"
"  --check-config FILE   read FILE (and the other options), run every check start-up\n"
"                        runs, print the effective configuration and exit: 0 (start-up\n"
"                        will not refuse it), or 2 with the errors start-up would give\n"
"  --harden SPEC         hardening overrides, e.g. \"tag_sample=10,pool.umem.bounds=off\"\n"
"                        (keys in docs/HARDENING.md); wins over the file\n"
"  --ports IF[:Q],IF[:Q]... ports, forwarded in pairs (first<->second, ...);\n"
"                        IF alone: every RX queue it has, queue by queue\n"
"  --mode io|macswap|l2  io: untouched; macswap: swap MACs; l2: MACs from [port:IF]\n"
"  --cores LIST          one worker per CPU listed, pinned (e.g. 1 or 0,1; auto:\n"
"                        every CPU allowed); default one unpinned worker\n"
"  --duration SECONDS    stop after this long (default: run until SIGINT/SIGTERM)\n"
"  --stats-interval S    seconds between status lines (0: none; default 1)\n"
"  --ctl PATH            control socket for hdp-ctl (default %s; \"none\" for none)\n"
"  --busy-poll           run each port's receive work in hdp-fwd's own syscalls\n"
"                        (preferred busy polling) instead of sleeping in poll():\n"
"                        sets napi_defer_hard_irqs, gro_flush_timeout and threaded\n"
"                        NAPI off while it runs; exits with status 2 where the\n"
"                        kernel gives the sockets no NAPI to poll (veth)\n"
"  --idle-spin US        once idle, keep checking the RX rings for US microseconds\n"
"                        (sched_yield() between checks) before sleeping in poll():\n"
"                        CPU for latency at low load (default 0: sleep at once;\n"
"                        up to 1000000; nothing with --busy-poll)\n"
"  --frames N            UMEM frames (default 8192)\n"
"  --metrics-file PATH   write the stats in Prometheus' text format to PATH\n"
"                        (atomically, in metrics_mode, 0644) every stats interval,\n"
"                        or every second with none: for node_exporter's textfile\n"
"                        collector; a PATH holding anything but hdp-fwd's own\n"
"                        metrics is refused (status 2)\n"
"  --user NAME|UID       once set up, run as this user (its control socket too)\n"
"  --keep-capabilities   do not drop every capability once set up (debugging)\n"
"  --list-keys           every key: the pools' (in [pool:...], --harden and hdp-ctl\n"
"                        set: its protection) and hdp-fwd's own ([global], [port:IF]):\n"
"                        the values it takes, its default, what a reload does with it\n"
"                        and what it does\n"
"  --help, --version\n"
"\n"
"On DPDK ports the pool is \"mbufs\" ([pool:mbufs]); its quarantine keys make its\n"
"reuse queues.\n"
"SIGHUP (or hdp-ctl reload, which answers) re-reads the --config file with the\n"
"same options: pool profiles (not on DPDK ports), idle_spin_us, stats_interval\n"
"and metrics_mode change at once; a file with errors or that cannot be read,\n"
"or changes that need a restart, are refused with a message and change nothing.\n"
"Exit status: 0 clean stop, 1 runtime failure, 2 bad options or configuration\n"
"(every error that comes from the configuration).\n",
		HDP_CTL_DEFAULT_PATH);
}

/* Text of @describe's, which measures it first (as snprintf); NULL when out of memory. */
static char *described(int (*describe)(char *buf, size_t len))
{
	int len = describe(NULL, 0);
	char *text = len >= 0 ? malloc((size_t)len + 1) : NULL;

	if (text)
		describe(text, (size_t)len + 1);
	return text;
}

/*
 * --list-keys: the pools' keys, from the protections' own tables
 * (hdp/protection.h), then hdp-fwd's own, [global]'s and [port:IF]'s,
 * from its key table.
 */
static int list_keys(void)
{
	char *pools = described(hdp_profile_keys_describe);
	char *own = described(hdp_fwd_keys_describe);

	if (!pools || !own) {
		fprintf(stderr, "hdp-fwd: out of memory\n");
		free(pools);
		free(own);
		return 1;
	}
	printf("%s\n%s", pools, own);
	free(pools);
	free(own);
	return 0;
}

/* Hugepages for the UMEM: raise the reservation if allowed; else say so later. */
static void reserve_hugepages(const struct hdp_fwd_cfg *cfg)
{
	unsigned long want = ((unsigned long)cfg->frames * cfg->frame_size + (2ul << 20) - 1) >> 21;
	unsigned long total = 0, free_pages = 0;
	char line[128];
	FILE *fp = fopen("/proc/meminfo", "re");

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

static int eal_argc;
static int opt_argc;		/* hdp-fwd's own arguments, before any "--" */
static char **opt_argv;
static bool check_only;		/* --check-config: print what would run, and exit */
static const char *config_file;
static char **eal_argv;

static int parse_args(int argc, char **argv, struct hdp_fwd_cfg *cfg)
{
	static const struct option opts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", required_argument, NULL, 'k' },
		{ "harden", required_argument, NULL, 'H' },
		{ "ports", required_argument, NULL, 'p' },
		{ "mode", required_argument, NULL, 'm' },
		{ "cores", required_argument, NULL, 'C' },
		{ "duration", required_argument, NULL, 'd' },
		{ "stats-interval", required_argument, NULL, 's' },
		{ "ctl", required_argument, NULL, 'x' },
		{ "busy-poll", no_argument, NULL, 'b' },
		{ "idle-spin", required_argument, NULL, 'i' },
		{ "frames", required_argument, NULL, 'f' },
		{ "metrics-file", required_argument, NULL, 'M' },
		{ "keep-capabilities", no_argument, NULL, 'K' },
		{ "user", required_argument, NULL, 'u' },
		{ "list-keys", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ 0 },
	};
	const char *config = NULL, *harden = NULL;
	int opt, ret = 0;

	/* Everything after "--" is DPDK's (EAL), with our name in front. */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0) {
			eal_argc = argc - i;
			eal_argv = argv + i;
			eal_argv[0] = argv[0];
			argc = i;
			break;
		}
	}
	/* What a reload parses again: "--" is gone from argv now. */
	opt_argc = argc;
	opt_argv = argv;
	/* The file first, whatever the order on the line: options win over it. */
	for (int i = 1; i < argc; i++) {
		const char *file = NULL;

		if ((strcmp(argv[i], "--config") == 0 || strcmp(argv[i], "--check-config") == 0) &&
		    i + 1 < argc)
			file = argv[i + 1];
		else if (strncmp(argv[i], "--config=", 9) == 0)
			file = argv[i] + 9;
		else if (strncmp(argv[i], "--check-config=", 15) == 0)
			file = argv[i] + 15;
		if (file && config && strcmp(file, config)) {
			fprintf(stderr, "hdp-fwd: two configuration files ('%s', '%s'): give one\n",
				config, file);
			return 2;
		}
		if (file)
			config = file;
	}
	config_file = config;
	if (config && hdp_fwd_cfg_load(cfg, config))
		return 2;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			break;
		case 'k':
			check_only = true;
			break;
		case 'H':
			harden = optarg;
			break;
		case 'p':
			ret |= hdp_fwd_cfg_set_ports(cfg, optarg, "--ports");
			break;
		case 'm':
			ret |= hdp_fwd_cfg_set_global(cfg, "mode", optarg, "--mode", 0);
			break;
		case 'C':
			ret |= hdp_fwd_cfg_set_cores(cfg, optarg, "--cores");
			break;
		case 'd':
			ret |= hdp_fwd_cfg_set_global(cfg, "duration", optarg, "--duration", 0);
			break;
		case 's':
			ret |= hdp_fwd_cfg_set_global(cfg, "stats_interval", optarg,
						      "--stats-interval", 0);
			break;
		case 'x':
			ret |= hdp_fwd_cfg_set_global(cfg, "ctl_socket",
						      strcmp(optarg, "none") ? optarg : "",
						      "--ctl", 0);
			break;
		case 'b':
			ret |= hdp_fwd_cfg_set_global(cfg, "busy_poll", "on", "--busy-poll", 0);
			break;
		case 'i':
			ret |= hdp_fwd_cfg_set_global(cfg, "idle_spin_us", optarg, "--idle-spin", 0);
			break;
		case 'K':
			keep_caps = true;
			break;
		case 'u':
			ret |= hdp_fwd_cfg_set_global(cfg, "user", optarg, "--user", 0);
			break;
		case 'f':
			ret |= hdp_fwd_cfg_set_global(cfg, "frames", optarg, "--frames", 0);
			break;
		case 'M':
			ret |= hdp_fwd_cfg_set_global(cfg, "metrics_file", optarg,
						      "--metrics-file", 0);
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case 'L':
			exit(list_keys());
		case 'V':
			printf("hdp-fwd %s (libxdp %s, libbpf %s)\n", HDP_VERSION,
			       HDP_LIBXDP_VERSION, HDP_LIBBPF_VERSION);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hdp-fwd: unexpected argument '%s' (see --help)\n", argv[optind]);
		return 2;
	}
	if (ret)
		return 2;
	if (keep_caps && cfg->user[0]) {
		fprintf(stderr, "hdp-fwd: --user and --keep-capabilities contradict each other\n");
		return 2;
	}
	if (harden && hdp_harden_config_parse_string(&cfg->harden, harden, "--harden"))
		return 2;
	return hdp_fwd_cfg_check(cfg) ? 2 : 0;
}

/* hdp_ctl_open()'s errno: is it the path the configuration gave? */
static bool ctl_path_error(int err)
{
	return err == EADDRINUSE || err == EEXIST || err == ENOENT || err == ENOTDIR ||
	       err == ENAMETOOLONG || err == EROFS || err == EPERM || err == ELOOP;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void status_line(struct hdp_fwd *f, double t, double dt, uint64_t *last_rx,
			uint64_t *last_tx)
{
	struct hdp_pool_stats st;
	uint64_t rx, tx, drops, viol = 0;

	hdp_fwd_totals(f, &rx, &tx, &drops);
	hdp_pool_stats_get(hdp_fwd_pool(f), &st);
	for (unsigned k = 0; k < hdp_violation_kinds(); k++)
		viol += st.harden.violations[k];
	printf("[%6.1fs] rx %9.0f pps  tx %9.0f pps  total rx %llu tx %llu drops %llu | umem in use %llu/%llu, violations %llu\n",
	       t, (double)(rx - *last_rx) / dt, (double)(tx - *last_tx) / dt,
	       (unsigned long long)rx, (unsigned long long)tx,
	       (unsigned long long)drops, (unsigned long long)st.in_use,
	       (unsigned long long)st.obj_count, (unsigned long long)viol);
	fflush(stdout);
	*last_rx = rx;
	*last_tx = tx;
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

/*
 * Every check start-up makes before touching anything (hdp_fwd_preflight),
 * for start-up and --check-config alike: 0, 2 for the configuration's
 * errors, 1 when a check could not run.
 */
static int preflight(struct hdp_fwd_cfg *cfg)
{
	int ret;

	/* hdp-fwd's rules on them first: they need no DPDK. */
	if (eal_argc && hdp_fwd_eal_args_check(cfg, eal_argc, eal_argv))
		return 2;
	if (eal_argc && !HDP_HAVE_DPDK) {
		fprintf(stderr, "hdp-fwd: EAL arguments after --, but built without DPDK\n");
		return 2;
	}
	/* Before any other check: those of the EAL arguments are the module's. */
	if (eal_argc && hdp_fwd_dpdk_load(&dpdk_module))
		return 2;
	/* Before the first pool: the first MTE pool settles the mode for good. */
	hdp_tag_check_request(cfg->tag_check);
	ret = hdp_fwd_preflight(cfg, eal_argc != 0, keep_caps);
	if (eal_argc && dpdk_module.check(cfg, eal_argc, eal_argv))
		ret = -EINVAL;
	return ret == -EINVAL ? 2 : ret ? 1 : 0;
}

/*
 * --check-config: the checks on a copy (ports given as IF stay so in what
 * is printed: the queues are counted where it runs), then the
 * configuration, only if they all pass.
 */
static int check_config(const struct hdp_fwd_cfg *cfg)
{
	struct hdp_fwd_cfg *copy = malloc(sizeof(*copy));
	int ret;

	if (!copy) {
		fprintf(stderr, "hdp-fwd: out of memory\n");
		return 1;
	}
	*copy = *cfg;
	ret = preflight(copy);
	free(copy);
	if (ret)
		return ret;
	if (hdp_fwd_cfg_show(cfg, config_file, stdout))
		return 2;
	return fflush(stdout) ? 1 : 0;
}

static void cfg_start(struct hdp_fwd_cfg *cfg)
{
	hdp_fwd_cfg_defaults(cfg);
	/* Declared in every build: one configuration file serves both kinds of ports. */
	hdp_harden_config_declare(&cfg->harden, HDP_FWD_DPDK_POOL);
	/* A [pool:NAME] for any other name is a typo that would change nothing. */
	cfg->harden.fixed_pools = true;
	snprintf(cfg->ctl_path, sizeof(cfg->ctl_path), "%s", HDP_CTL_DEFAULT_PATH);
}

/*
 * SIGHUP or hdp-ctl reload (@cause, for the messages): the file again,
 * with the same command line on top (its options still win), checked
 * whole before anything changes: 0 with @next ready to apply, or -EINVAL
 * with the refusal said. Messages go to hdp's log, which is stderr (the
 * journal under systemd) and, for hdp-ctl reload, the reply as well.
 * DPDK ports are not interfaces to count queues of.
 */
static int reread(const char *cause, const struct hdp_fwd_cfg *cur, struct hdp_fwd_cfg *next,
		  bool dpdk)
{
	const char *key;
	struct stat st;

	if (!config_file) {
		hdp_log(HDP_LOG_ERR, "%s: no configuration file to read again (started without "
			"--config): nothing changed", cause);
		return -EINVAL;
	}
	/*
	 * A pipe (--config <(...)) was drained at start: read again, it is
	 * empty, and an empty file would turn every pool's protections off.
	 */
	if (stat(config_file, &st) == 0 && S_ISFIFO(st.st_mode)) {
		hdp_log(HDP_LOG_ERR, "%s: %s is a pipe, read once at start: it cannot be read "
			"again (give a file): nothing changed", cause, config_file);
		return -EINVAL;
	}
	cfg_start(next);
	optind = 0;	/* getopt from the start, state and all */
	if (parse_args(opt_argc, opt_argv, next)) {
		hdp_log(HDP_LOG_ERR, "%s: %s refused (errors above): nothing changed", cause,
			config_file);
		return -EINVAL;
	}
	if (!dpdk && hdp_fwd_cfg_expand_queues(next)) {
		hdp_log(HDP_LOG_ERR, "%s: %s refused (its ports, above): nothing changed", cause,
			config_file);
		return -EINVAL;
	}
	key = hdp_fwd_cfg_restart_key(cur, next);
	if (key) {
		hdp_log(HDP_LOG_ERR, "%s: %s changes %s, which needs a restart: nothing changed",
			cause, config_file, key);
		return -EINVAL;
	}
	return 0;
}

static int reread_dpdk(const char *cause, const struct hdp_fwd_cfg *cur, struct hdp_fwd_cfg *next)
{
	return reread(cause, cur, next, true);
}

/* What a reload on AF_XDP ports changes, once the forwarder runs. */
static struct {
	struct hdp_fwd *f;
	struct hdp_fwd_cfg *cfg;
	struct hdp_metrics_file *metrics;
} live;

/*
 * SIGHUP or hdp-ctl reload on AF_XDP ports: 0 when the file was read and
 * applied, whole; systemd hears of it (Type=notify) either way.
 */
static int reload(const char *cause)
{
	static struct hdp_fwd_cfg next;
	struct hdp_pool_stats st;
	int ret = -EINVAL;

	hdp_sd_notify("RELOADING=1");
	if (reread(cause, live.cfg, &next, false))
		goto out;
	if (hdp_fwd_reconfigure(live.f, live.cfg, &next)) {
		hdp_log(HDP_LOG_ERR, "%s: %s could not be applied (above): nothing changed",
			cause, config_file);
		goto out;
	}
	/* The file shows what changed (profiles, interval) at once. */
	hdp_metrics_file_reconfigure(live.metrics, live.cfg);
	hdp_pool_stats_get(hdp_fwd_pool(live.f), &st);
	hdp_log(HDP_LOG_INFO, "%s: %s read again; pool %s: %s", cause, config_file,
		HDP_FWD_UMEM_POOL, st.harden.profile_text);
	ret = 0;
out:
	hdp_sd_notify("READY=1");
	return ret;
}

static int ctl_reload(void *ctx)
{
	(void)ctx;
	return reload("reload");
}

int main(int argc, char **argv)
{
	static struct hdp_fwd_cfg cfg;
	static char summary[65536];
	struct sigaction sa = { .sa_handler = on_signal };
	struct hdp_ctl *ctl = NULL;
	struct hdp_fwd *f;
	struct hdp_metrics_file *metrics = NULL;
	struct hdp_ctl_source src;
	double start, next_stats, last_stats;
	unsigned interval;
	uint64_t last_rx = 0, last_tx = 0;
	char why[256];
	unsigned lost;
	int ret, status = 0;

	cfg_start(&cfg);
	ret = parse_args(argc, argv, &cfg);
	if (ret)
		return ret;
	if (check_only)
		return check_config(&cfg);
	ret = preflight(&cfg);
	if (ret)
		return ret;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sa.sa_handler = on_sighup;
	sigaction(SIGHUP, &sa, NULL);	/* during set-up too: acted on once running */
	signal(SIGPIPE, SIG_IGN);
	if (eal_argc) {
		struct hdp_fwd_dpdk_hooks hooks = {
			.stop = &stop_requested, .reload = &reload_requested,
			.reread = reread_dpdk, .config_file = config_file,
			.drop_privileges = !keep_caps,
		};
		struct hdp_keeper keeper;

		/* Now, while hdp-fwd is one thread: EAL starts others. */
		hdp_xdp_keeper_start(&keeper);
		hooks.xdp_keeper = &keeper;
		ret = dpdk_module.run(&cfg, eal_argc, eal_argv, &hooks);
		hdp_keeper_finish(&keeper);
		return ret;
	}

	reserve_hugepages(&cfg);
	f = hdp_fwd_create(&cfg);
	/*
	 * What preflight cannot know (a driver without native XDP, zero copy or
	 * busy polling), or an interface gone since, is still the configuration's.
	 */
	if (!f)
		return errno == EINVAL || errno == ENODEV || errno == EOPNOTSUPP ? 2 : 1;
	running = f;
	live.f = f;
	live.cfg = &cfg;
	src = hdp_ctl_fwd_source(f);
	src.reload = ctl_reload;
	/* The socket appears once the forwarder is set up: clients wait for it. */
	if (cfg.ctl_path[0] && !(ctl = hdp_ctl_open_source(cfg.ctl_path, &src))) {
		ret = ctl_path_error(errno) ? 2 : 1;
		hdp_fwd_destroy(f);
		return ret;
	}
	/* The user hdp-fwd becomes keeps the use of its control socket. */
	if (ctl && hdp_fwd_ctl_hand_over(&cfg, ctl)) {
		hdp_ctl_close(ctl);
		hdp_fwd_destroy(f);
		return 1;
	}
	/* Set-up is over: nothing from here on needs a privilege. */
	if (!keep_caps && hdp_fwd_drop_privileges(&cfg)) {
		hdp_ctl_close(ctl);
		hdp_fwd_destroy(f);
		return 1;
	}
	/*
	 * As the user it runs as: a file it cannot write is said at once, a
	 * configuration error (preflight asked the same as that user, as root).
	 */
	if (cfg.metrics_path[0] && (!(metrics = hdp_metrics_file_open(&cfg, &src)) ||
				    hdp_metrics_file_write(metrics))) {
		hdp_metrics_file_close(metrics);
		hdp_ctl_close(ctl);
		hdp_fwd_destroy(f);
		return 2;
	}
	if (stop_requested) {
		printf("hdp-fwd: stopped during set-up\n");
		hdp_metrics_file_close(metrics);
		hdp_ctl_close(ctl);
		return hdp_fwd_destroy(f) ? 1 : 0;
	}
	if (hdp_fwd_start(f)) {
		hdp_metrics_file_close(metrics);
		hdp_ctl_close(ctl);
		hdp_fwd_destroy(f);
		return 1;
	}
	printf("hdp-fwd %s: mode %s, %u ports, %u frames of %u bytes%s%s%s\n", HDP_VERSION,
	       hdp_fwd_mode_name(cfg.mode), cfg.nports, cfg.frames, cfg.frame_size,
	       idle_spin_text(&cfg, why, sizeof(why)), ctl ? ", control socket " : "",
	       ctl ? cfg.ctl_path : "");
	for (unsigned i = 0; i < cfg.nports; i++) {
		const char *xdp_mode;
		bool zero_copy, multi_buffer;
		uint32_t max_frame;

		hdp_fwd_port_mode(f, i, &xdp_mode, &zero_copy);
		hdp_fwd_port_frames(f, i, &max_frame, &multi_buffer);
		printf("  %s:%u -> %s:%u (XDP %s, %s%s, frames up to %u bytes%s)\n",
		       cfg.ports[i].ifname, cfg.ports[i].queue,
		       cfg.ports[cfg.ports[i].peer].ifname, cfg.ports[cfg.ports[i].peer].queue,
		       xdp_mode, zero_copy ? "zero copy" : "copy mode",
		       cfg.busy_poll ? ", busy polling" : "", max_frame,
		       multi_buffer ? " in chains of frames" : "");
	}
	if (cfg.user[0])
		printf("  running as user %s (uid %u), no capabilities\n", cfg.user, cfg.uid);
	fflush(stdout);
	snprintf(why, sizeof(why), "READY=1\nSTATUS=forwarding on %u ports, %u workers",
		 cfg.nports, cfg.ncores);
	if ((ret = hdp_sd_notify(why)))
		fprintf(stderr, "hdp-fwd: cannot tell the service manager it is ready "
			"(NOTIFY_SOCKET): %s\n", strerror(-ret));

	live.metrics = metrics;
	start = last_stats = now_s();
	next_stats = start + cfg.stats_interval;
	interval = cfg.stats_interval;
	while (!hdp_fwd_stopping(f) && !stop_requested) {
		double t = now_s();

		if (cfg.duration && t - start >= cfg.duration)
			break;
		/* Never longer than 100 ms, whatever the clients do. */
		if (ctl)
			hdp_ctl_run(ctl, 100);
		else
			poll(NULL, 0, 100);
		t = now_s();
		hdp_fwd_watch_mtus(f);
		if (hdp_fwd_busy_check(f, why, sizeof(why))) {
			fprintf(stderr, "hdp-fwd: --busy-poll: %s\n", why);
			status = 2;
			break;
		}
		if (reload_requested) {
			reload_requested = 0;
			reload("SIGHUP");
		}
		/* A reload (SIGHUP, or hdp-ctl's served above) may change it. */
		if (cfg.stats_interval != interval) {
			interval = cfg.stats_interval;
			next_stats = t + interval;
		}
		if (cfg.stats_interval && t >= next_stats) {
			status_line(f, t - start, t - last_stats, &last_rx, &last_tx);
			last_stats = t;
			next_stats += cfg.stats_interval;
		}
		hdp_metrics_file_tick(metrics);
	}
	hdp_sd_notify("STOPPING=1");
	hdp_fwd_stop(f);
	hdp_fwd_join(f);
	hdp_fwd_stats_text(f, summary, sizeof(summary));
	printf("--- summary after %.1f s\n%s", now_s() - start, summary);
	hdp_ctl_close(ctl);
	hdp_metrics_file_close(metrics);
	running = NULL;
	lost = hdp_fwd_destroy(f);
	if (lost) {
		fprintf(stderr, "hdp-fwd: %u frames did not come back to the pool\n", lost);
		return 1;
	}
	printf("every frame is back in the pool; XDP programs detached\n");
	return status;
}
