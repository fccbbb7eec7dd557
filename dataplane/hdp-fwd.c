// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-fwd: forward packets between interfaces, every frame in a hardened
 * pool. The program: its options and configuration, --check-config and
 * --list-keys, the checks before start-up, and the engine it runs under
 * the control loop (control/control.h): AF_XDP ports (afxdp/), or DPDK
 * ports with EAL arguments after "--" (the module, dpdk/). Exit status: 0
 * after a clean stop with every frame back in its pool, 1 on a runtime
 * failure, 2 for bad options or configuration.
 */
#include <hdp/ctl.h>
#include <hdp/fwd.h>
#include <hdp/log.h>
#include <hdp/protection.h>

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "afxdp/afxdp.h"
#include "config.h"
#include "control/control.h"
#include "dpdk/load.h"

static struct hdp_fwd_dpdk_module dpdk_module;	/* loaded with EAL arguments */
static bool keep_caps;

static char *described(int (*describe)(char *buf, size_t len));

static void usage(FILE *f)
{
	char *key_options = described(hdp_fwd_key_options_describe);

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
"%s"
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
		key_options ? key_options : "  (the options that set keys: out of memory)\n");
	free(key_options);
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

static int eal_argc;
static int opt_argc;		/* hdp-fwd's own arguments, before any "--" */
static char **opt_argv;
static bool check_only;		/* --check-config: print what would run, and exit */
static const char *config_file;
static char **eal_argv;

/* getopt's value for the first option that sets a key: past every character. */
#define KEY_OPTION 256

static int parse_args(int argc, char **argv, struct hdp_fwd_cfg *cfg)
{
	/* Options that set no key; the keys' own follow them (config/options.c). */
	static const struct option own[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check-config", required_argument, NULL, 'k' },
		{ "harden", required_argument, NULL, 'H' },
		{ "keep-capabilities", no_argument, NULL, 'K' },
		{ "list-keys", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
	};
	struct option opts[HDP_ARRAY_SIZE(own) + HDP_FWD_KEY_OPTIONS_MAX + 1];
	unsigned nopts = HDP_ARRAY_SIZE(own);
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
	memcpy(opts, own, sizeof(own));
	nopts += hdp_fwd_key_options(opts + nopts, HDP_ARRAY_SIZE(opts) - 1 - nopts, KEY_OPTION);
	opts[nopts] = (struct option){ 0 };
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt >= KEY_OPTION) {
			ret |= hdp_fwd_cfg_set_option(cfg, (unsigned)(opt - KEY_OPTION), optarg);
			continue;
		}
		switch (opt) {
		case 'c':
			break;
		case 'k':
			check_only = true;
			break;
		case 'H':
			harden = optarg;
			break;
		case 'K':
			keep_caps = true;
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

/*
 * Every check start-up makes before touching anything, the control loop's
 * then the engine's, for start-up and --check-config alike: 0, 2 for the
 * configuration's errors, 1 when a check could not run.
 */
static int preflight(struct hdp_fwd_cfg *cfg)
{
	int ret, engine;

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
	ret = hdp_control_preflight(cfg, keep_caps);
	if (eal_argc)
		engine = dpdk_module.check(cfg, eal_argc, eal_argv) ? -EINVAL : 0;
	else
		engine = hdp_afxdp_preflight(cfg);
	return ret == -EINVAL || engine == -EINVAL ? 2 : ret || engine ? 1 : 0;
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
static int reread(const char *cause, const struct hdp_fwd_cfg *cur, struct hdp_fwd_cfg *next)
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
	if (!eal_argc && hdp_fwd_cfg_expand_queues(next)) {
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

int main(int argc, char **argv)
{
	static struct hdp_fwd_cfg cfg;
	static struct hdp_control control;
	int ret;

	cfg_start(&cfg);
	ret = parse_args(argc, argv, &cfg);
	if (ret)
		return ret;
	if (check_only)
		return check_config(&cfg);
	ret = preflight(&cfg);
	if (ret)
		return ret;
	control = (struct hdp_control){
		.cfg = &cfg, .config_file = config_file, .keep_caps = keep_caps, .reread = reread,
	};
	if (eal_argc)
		return dpdk_module.run(&control, eal_argc, eal_argv);
	return hdp_afxdp_run(&control);
}
