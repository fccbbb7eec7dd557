// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-bench: what each protection costs, and hdp-fwd against the kernel.
 * Figures are medians of several trials with min and max, and ratios to
 * "off" from the same run.
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

/*
 * The fixed lengths of a compare --size list ("60,1500,imix,64-1500" ->
 * "60,1500"): micro forwards one length at a time.
 */
static const char *fixed_sizes(const char *list, char *buf, size_t len)
{
	size_t used = 0;
	const char *at = list;

	buf[0] = '\0';
	while (*at) {
		size_t n = strcspn(at, ",");

		if (n && strspn(at, "0123456789") == n && used + n + 2 < len)
			used += (size_t)snprintf(buf + used, len - used, "%s%.*s", used ? "," : "",
						 (int)n, at);
		at += n + (at[n] == ',');
	}
	return buf;
}

/* micro, or micro --threads: one worker per thread sharing one pool. */
static int micro(const struct bench_opts *o)
{
	return o->threads ? bench_micro_threads(o) : bench_micro(o);
}

/*
 * compare drives namespaces, daemons and DPDK: the script next to us does
 * it. First micro, in this process, into DIR/micro, so that the report can
 * set each protection's added cost against the whole cost per packet.
 */
static int bench_compare(const struct bench_opts *o, const char *argv0)
{
	char trials[16], script[BENCH_PATH_MAX + 32], micro_dir[4096], micro_sizes[256];
	const char *args[24];
	int n = 0;

	(void)argv0;
	if (o->out_dir) {
		struct bench_opts mo = *o;

		snprintf(micro_dir, sizeof(micro_dir), "%s/micro", o->out_dir);
		mo.out_dir = micro_dir;
		mo.out_fd = bench_out_subdir(o->out_fd, o->out_dir, "micro");
		if (mo.out_fd < 0 || bench_out_check(mo.out_fd, micro_dir, bench_outputs_report))
			return 2;
		mo.sizes = o->sizes ? fixed_sizes(o->sizes, micro_sizes, sizeof(micro_sizes)) : NULL;
		if (mo.sizes && !*mo.sizes)
			bench_progress("micro: no fixed frame length in --size '%s': not run", o->sizes);
		else if (micro(&mo))
			return 1;
	}
	snprintf(script, sizeof(script), "%s/compare", o->paths->scripts);
	snprintf(trials, sizeof(trials), "%u", o->trials);
	args[n++] = script;
	if (o->quick)
		args[n++] = "--quick";
	if (o->trials_given) {
		args[n++] = "--trials";
		args[n++] = trials;
	}
	if (o->out_dir) {
		args[n++] = "--out";
		args[n++] = o->out_dir;
	}
	if (o->profile)
		args[n++] = "--profile";
	if (o->placement) {
		args[n++] = "--placement";
		args[n++] = o->placement;
	}
	if (o->contenders) {
		args[n++] = "--contenders";
		args[n++] = o->contenders;
	}
	if (o->seconds) {
		args[n++] = "--seconds";
		args[n++] = o->seconds;
	}
	if (o->sizes) {
		args[n++] = "--size";
		args[n++] = o->sizes;
	}
	if (o->generator) {
		args[n++] = "--generator";
		args[n++] = o->generator;
	}
	args[n++] = NULL;
	bench_paths_export(o->paths);
	execv(script, (char *const *)args);
	fprintf(stderr, "hdp-bench: %s: %s\n", script, strerror(errno));
	return 1;
}

int bench_sample_e2e(const struct bench_opts *o)
{
	char script[BENCH_PATH_MAX + 32], dir[4096];
	const char *contenders = o->quick
		? "hdp-off,hdp-tag-1,hdp-tag-10,hdp-tag-64"
		: "hdp-off,hdp-tag-1,hdp-tag-2,hdp-tag-4,hdp-tag-8,hdp-tag-10,hdp-tag-16,hdp-tag-32,hdp-tag-64";
	int status;
	pid_t pid;

	if (!o->out_dir || geteuid() != 0 || system("command -v dpdk-testpmd >/dev/null")) {
		bench_progress("sample: end to end needs root, dpdk-testpmd and --out: skipped");
		return 0;
	}
	snprintf(script, sizeof(script), "%s/compare", o->paths->scripts);
	snprintf(dir, sizeof(dir), "%s/e2e", o->out_dir);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		bench_paths_export(o->paths);
		if (o->quick)
			execl(script, script, "--quick", "--contenders", contenders, "--out", dir,
			      (char *)NULL);
		else
			execl(script, script, "--contenders", contenders, "--out", dir,
			      (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		fprintf(stderr, "hdp-bench: sample: the end-to-end run failed\n");
		return 1;
	}
	printf("end to end: %s/results.md (ratio_to_off per tag_sample)\n", dir);
	return 0;
}

/*
 * dpdk: testpmd over net_null with the mbuf pool on DPDK's ring driver or
 * on hdp's, per profile, cache on and off; the script next to us runs it.
 */
static int bench_dpdk(const struct bench_opts *o)
{
	char script[BENCH_PATH_MAX + 32], trials[16], memset_rate[32];
	const char *args[6];
	int n = 0;

	/*
	 * The bar for whole wipes: memset over 32768 data rooms of 2048 bytes
	 * laid out as testpmd's pool of 2176-byte mbufs (the script's pool).
	 */
	bench_progress("dpdk: memset over 32768 buffers of 2048 bytes, 2176 apart");
	snprintf(memset_rate, sizeof(memset_rate), "%.2f",
		 bench_memset_gbps(2048, 2176, 32768, o->quick ? 3 : 5));
	setenv("HDP_MEMSET_GBPS", memset_rate, 1);
	snprintf(script, sizeof(script), "%s/dpdk-pools", o->paths->scripts);
	snprintf(trials, sizeof(trials), "%u", o->trials_given ? o->trials : o->quick ? 3 : 5);
	args[n++] = script;
	args[n++] = o->paths->driver;
	args[n++] = trials;
	args[n++] = o->quick ? "3" : "4";	/* two periods are skipped as warm-up */
	args[n++] = o->out_dir;	/* NULL ends the list when there is none */
	args[n] = NULL;
	execv(script, (char *const *)args);
	fprintf(stderr, "hdp-bench: %s: %s\n", script, strerror(errno));
	return 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hdp-bench MODE [--quick] [--trials N] [--out DIR] [--cpu N]\n"
		"modes:\n"
		"  micro     the forwarding pipeline over in-memory rings, per profile\n"
		"            (off, bounds, bounds-tree, init, init-used, tag-1, tag-10, all,\n"
		"            redzone, redzone-canary, quarantine, shuffle,\n"
		"            and configs/default.ini and strict.ini as shipped)\n"
		"  regions   bounds-checked copy cost against the number of regions,\n"
		"            for bounds=off, bounds_lookup=tree and bounds_lookup=fast\n"
		"  sample    slowdown against tag_sample (1 ... 64): micro pipeline, and\n"
		"            end to end through compare (root, with --out)\n"
		"  compare   hdp-fwd profiles, kernel XDP redirect, dpdk-testpmd and the\n"
		"            kernel socket path on the namespace topology (root)\n"
		"  kernel    the seeds' kernels built from Debian's sources and booted under\n"
		"            QEMU: each mechanism off, on and bypassed, hdp beside it in the\n"
		"            same guest (root; its options: kernel --help)\n"
		"  latency   what a packet waits in each contender (p50 ... p99.9, max) and\n"
		"            the CPU it costs, at fixed loads and shares of saturation,\n"
		"            against a direct veth path (root; its options: latency --help)\n"
		"  dpdk      dpdk-testpmd on net_null: mbufs on DPDK's ring driver or on\n"
		"            hdp's per profile, cache on and off (root; docs/DPDK.md)\n"
		"options:\n"
		"  --quick     a short run that still produces every figure\n"
		"  --trials N  trials per figure (3..31, default 5)\n"
		"  --out DIR   write DIR/results.json\n"
		"  --cpu N     pin the measuring thread to CPU N\n"
		"  --only LIST micro: only these profiles (and off), e.g. default,strict\n"
		"  --threads LIST  micro: one worker per thread sharing one pool, e.g. 1,2;\n"
		"              packets per second and the ratio to the first count\n"
		"  --size LIST micro and compare: frame lengths without FCS (default 60),\n"
		"              e.g. 60,1500,9000; compare also takes imix and MIN-MAX.\n"
		"              micro: a length past one frame goes in chains of frames, as\n"
		"              hdp-fwd's multi-buffer ports take it; compare: packets/s and Gbit/s\n"
		"              per size and contender, \"cannot\" with the reason where a\n"
		"              contender cannot carry a size, throughput.png against size\n"
		"compare only:\n"
		"  --profile          perf on the contender's core: CPU per packet by stage\n"
		"  --placement P      same (default: every contender's receive work in f0's NAPI\n"
		"                     thread, on the contender's core), same-rps (the socket path's\n"
		"                     by RPS, in softirq, as before issue 26) or split\n"
		"  --generator G      auto (default: dpdk-testpmd for one length up to 1514,\n"
		"                     hdp-gen for the rest), testpmd or hdp-gen\n"
		"  --contenders LIST  e.g. hdp-off,hdp-default,hdp-default-busy,kernel-socket;\n"
		"                     hdp-PROFILE+KEY=VALUE+... a variant, ini:PATH a config file\n"
		"  --seconds S        measuring window per trial (default 4)\n");
}

/*
 * latency is the script next to us, with its own options (loads, the
 * spin of the -spin contenders): everything after the mode goes to it.
 */
static int bench_latency(int argc, char **argv)
{
	static struct bench_paths paths;
	char script[BENCH_PATH_MAX + 32];

	if (bench_paths_find(&paths))
		return 2;
	snprintf(script, sizeof(script), "%s/latency", paths.scripts);
	argv[0] = script;
	(void)argc;
	bench_paths_export(&paths);
	execv(script, argv);
	fprintf(stderr, "hdp-bench: %s: %s\n", script, strerror(errno));
	return 1;
}

/*
 * kernel is the lab in the Python package next to us (bench/hdpbench),
 * with its own options: everything after the mode goes to it. -I: the
 * caller's PYTHONPATH and user site stay out of a program that runs as root.
 */
static int bench_kernel(int argc, char **argv)
{
	static struct bench_paths paths;
	char package[BENCH_PATH_MAX + 32];
	char **args = calloc((size_t)argc + 4, sizeof(*args));

	if (!args || bench_paths_find(&paths))
		return 2;
	snprintf(package, sizeof(package), "%s/hdpbench", paths.scripts);
	args[0] = "python3";
	args[1] = "-I";
	args[2] = package;
	for (int i = 0; i < argc; i++)
		args[3 + i] = argv[i];
	bench_paths_export(&paths);
	execvp(args[0], args);
	fprintf(stderr, "hdp-bench: python3: %s (Debian package python3)\n", strerror(errno));
	return 2;
}

/* A script's own check of --out (bench/bench_out.py): 0 when it passes. */
static int script_prepares(const struct bench_opts *o, const char *script, const char *dir)
{
	char path[BENCH_PATH_MAX + 32];
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/%s", o->paths->scripts, script);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		execlp("python3", "python3", path, "--prepare", dir, (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * --out: made, walked to, written to once, and every name the mode will
 * write judged, now rather than after the run: a file or a read-only
 * place in its way lost a run, and a link or a FIFO another user put at a
 * name must not take root's results anywhere, or hang them.
 */
static int out_ready(struct bench_opts *o, const char *mode)
{
	const char *const *names = strcmp(mode, "sample") == 0 ? bench_outputs_sample :
				   strcmp(mode, "regions") == 0 ? bench_outputs_regions :
				   bench_outputs_report;
	struct bench_out_file probe;
	char e2e[BENCH_PATH_MAX + 8];

	o->out_fd = bench_out_open(o->out_dir);
	if (o->out_fd < 0)
		return -1;
	if (!bench_out_create(o->out_fd, "probe", &probe))
		return -1;
	bench_out_discard(o->out_fd, &probe);
	/* dpdk and latency: their scripts judge what they write, before they run. */
	if (strcmp(mode, "dpdk") == 0)
		return 0;
	if (strcmp(mode, "compare") == 0)
		return script_prepares(o, "compare-report", o->out_dir);
	if (bench_out_check(o->out_fd, o->out_dir, names))
		return -1;
	snprintf(e2e, sizeof(e2e), "%s/e2e", o->out_dir);
	if (strcmp(mode, "sample") == 0 && geteuid() == 0)
		return script_prepares(o, "compare-report", e2e);
	return 0;
}

/* A positive decimal, '.' allowed first; no sign, space, hex, inf or nan. */
static bool positive_seconds(const char *s)
{
	char *end;
	double v;

	if ((!bench_digits_first(s) && *s != '.') || strpbrk(s, "xX"))
		return false;
	v = strtod(s, &end);
	return !*end && v > 0 && v < 1e9;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "trials", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "only", required_argument, NULL, 'O' },
		{ "threads", required_argument, NULL, 'T' },
		{ "profile", no_argument, NULL, 'P' },
		{ "placement", required_argument, NULL, 'L' },
		{ "contenders", required_argument, NULL, 'C' },
		{ "seconds", required_argument, NULL, 'S' },
		{ "size", required_argument, NULL, 'Z' },
		{ "generator", required_argument, NULL, 'G' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct bench_paths paths;
	struct bench_opts o = { .trials = 0, .cpu = -1, .paths = &paths, .out_fd = -1 };
	char *end;
	int opt;

	if (argc >= 2 && strcmp(argv[1], "latency") == 0)
		return bench_latency(argc - 1, argv + 1);
	if (argc >= 2 && strcmp(argv[1], "kernel") == 0)
		return bench_kernel(argc - 1, argv + 1);
	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'q':
			o.quick = true;
			break;
		case 't':
			o.trials = (unsigned)strtoul(optarg, &end, 10);
			o.trials_given = true;
			if (!bench_digits_first(optarg) || *end || o.trials < 3 ||
			    o.trials > BENCH_TRIALS_MAX) {
				fprintf(stderr, "hdp-bench: --trials '%s': expected 3 to %d\n",
					optarg, BENCH_TRIALS_MAX);
				return 2;
			}
			break;
		case 'o':
			o.out_dir = optarg;
			break;
		case 'c':
			o.cpu = (int)strtol(optarg, &end, 10);
			if (!bench_digits_first(optarg) || *end || o.cpu < 0) {
				fprintf(stderr, "hdp-bench: --cpu '%s': expected a CPU number\n",
					optarg);
				return 2;
			}
			break;
		case 'O':
			o.only = optarg;
			break;
		case 'T':
			o.threads = optarg;
			break;
		case 'P':
			o.profile = true;
			break;
		case 'L':
			if (strcmp(optarg, "same") && strcmp(optarg, "same-rps") &&
			    strcmp(optarg, "split")) {
				fprintf(stderr, "hdp-bench: --placement '%s': expected same, same-rps "
					"or split\n", optarg);
				return 2;
			}
			o.placement = optarg;
			break;
		case 'Z':
			o.sizes = optarg;
			break;
		case 'G':
			if (strcmp(optarg, "auto") && strcmp(optarg, "testpmd") &&
			    strcmp(optarg, "hdp-gen")) {
				fprintf(stderr, "hdp-bench: --generator '%s': expected auto, testpmd "
					"or hdp-gen\n", optarg);
				return 2;
			}
			o.generator = optarg;
			break;
		case 'C':
			o.contenders = optarg;
			break;
		case 'S':
			if (!positive_seconds(optarg)) {
				fprintf(stderr, "hdp-bench: --seconds '%s': expected a positive number\n",
					optarg);
				return 2;
			}
			o.seconds = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!o.trials)
		o.trials = 5;
	if (o.cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(o.cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "hdp-bench: --cpu %d: %s\n", o.cpu, strerror(errno));
			return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	if (bench_paths_find(&paths))
		return 2;
	if (o.out_dir && out_ready(&o, argv[optind]))
		return 2;
	if (strcmp(argv[optind], "regions") == 0)
		return bench_regions(&o);
	if (strcmp(argv[optind], "micro") == 0)
		return micro(&o);
	if (strcmp(argv[optind], "sample") == 0)
		return bench_sample(&o) || bench_sample_e2e(&o);
	if (strcmp(argv[optind], "compare") == 0)
		return bench_compare(&o, argv[0]);
	if (strcmp(argv[optind], "dpdk") == 0)
		return bench_dpdk(&o);
	fprintf(stderr, "hdp-bench: unknown mode '%s'\n", argv[optind]);
	usage(stderr);
	return 2;
}
