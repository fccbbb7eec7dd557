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
 * The modes that drive namespaces, daemons and DPDK are Python, in the
 * package next to us (bench/hdpbench, libexec/hdp/hdpbench installed).
 * -I: the caller's PYTHONPATH and user site stay out of a program that
 * runs as root. @args: the mode and its arguments, @nargs of them.
 */
static int exec_python(const struct bench_paths *paths, const char *const *args, int nargs)
{
	char package[BENCH_PATH_MAX + 32];
	const char **argv = calloc((size_t)nargs + 4, sizeof(*argv));

	if (!argv)
		return 2;
	snprintf(package, sizeof(package), "%s/hdpbench", paths->scripts);
	argv[0] = "python3";
	argv[1] = "-I";
	argv[2] = package;
	for (int i = 0; i < nargs; i++)
		argv[3 + i] = args[i];
	bench_paths_export(paths);
	fflush(NULL);
	execvp(argv[0], (char *const *)argv);
	fprintf(stderr, "hdp-bench: python3: %s (Debian package python3)\n", strerror(errno));
	free(argv);
	return 2;
}

/* exec_python() in a child: 0 when it exits 0. */
static int run_python(const struct bench_paths *paths, const char *const *args, int nargs)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		exec_python(paths, args, nargs);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &status, 0) < 0)
		return -1;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/*
 * compare, latency, kernel and builds take their own options, which the
 * package reads: the mode, then every other argument, those before it too.
 */
static bool is_python_mode(const char *mode)
{
	return !strcmp(mode, "compare") || !strcmp(mode, "latency") || !strcmp(mode, "kernel") ||
	       !strcmp(mode, "builds");
}

static int bench_python(int argc, char **argv, int mode)
{
	static struct bench_paths paths;
	const char **args = calloc((size_t)argc, sizeof(*args));
	int n = 0;

	if (!args || bench_paths_find(&paths)) {
		free(args);
		return 2;
	}
	args[n++] = argv[mode];
	for (int i = 1; i < argc; i++)
		if (i != mode)
			args[n++] = argv[i];
	return exec_python(&paths, args, n);
}

/*
 * Where the mode is: the first argument that is neither an option nor
 * the value of one of @longopts, as getopt_long reads them in order
 * (options may come before the mode); 0 when there is none.
 */
static int mode_index(int argc, char **argv, const struct option *longopts)
{
	int opt, at = 0;

	opterr = 0;
	while (!at && (opt = getopt_long(argc, argv, "-", longopts, NULL)) != -1)
		if (opt == 1)
			at = optind - 1;
	opterr = 1;
	optind = 0;	/* getopt_long starts afresh */
	return at;
}

/* sample's end to end: compare over the tag_sample contenders, into DIR/e2e. */
static int bench_sample_e2e(const struct bench_opts *o)
{
	char dir[4096];
	const char *contenders = o->quick
		? "hdp-off,hdp-tag-1,hdp-tag-10,hdp-tag-64"
		: "hdp-off,hdp-tag-1,hdp-tag-2,hdp-tag-4,hdp-tag-8,hdp-tag-10,hdp-tag-16,hdp-tag-32,hdp-tag-64";
	const char *args[8];
	int n = 0;

	if (!o->out_dir || geteuid() != 0 || system("command -v dpdk-testpmd >/dev/null")) {
		bench_progress("sample: end to end needs root, dpdk-testpmd and --out: skipped");
		return 0;
	}
	snprintf(dir, sizeof(dir), "%s/e2e", o->out_dir);
	args[n++] = "compare";
	if (o->quick)
		args[n++] = "--quick";
	args[n++] = "--contenders";
	args[n++] = contenders;
	args[n++] = "--out";
	args[n++] = dir;
	args[n++] = "--no-micro";
	if (run_python(o->paths, args, n)) {
		fprintf(stderr, "hdp-bench: sample: the end-to-end run failed\n");
		return 1;
	}
	printf("end to end: %s/results.md (ratio_to_off per tag_sample)\n", dir);
	return 0;
}

/*
 * dpdk: testpmd over net_null with the mbuf pool on DPDK's ring driver or
 * on hdp's, per profile, cache on and off (hdpbench/dpdk_pools.py).
 */
static int bench_dpdk(const struct bench_opts *o)
{
	char trials[16], memset_rate[32];
	const char *args[6];
	int n = 0;

	/*
	 * The bar for whole wipes: memset over 32768 data rooms of 2048 bytes
	 * laid out as testpmd's pool of 2176-byte mbufs (dpdk_pools.py's pool).
	 */
	bench_progress("dpdk: memset over 32768 buffers of 2048 bytes, 2176 apart");
	snprintf(memset_rate, sizeof(memset_rate), "%.2f",
		 bench_memset_gbps(2048, 2176, 32768, o->quick ? 3 : 5));
	setenv("HDP_MEMSET_GBPS", memset_rate, 1);
	snprintf(trials, sizeof(trials), "%u", o->trials_given ? o->trials : o->quick ? 3 : 5);
	args[n++] = "dpdk";
	args[n++] = o->paths->driver;
	args[n++] = trials;
	args[n++] = o->quick ? "3" : "4";	/* two periods are skipped as warm-up */
	if (o->out_dir)
		args[n++] = o->out_dir;
	return exec_python(o->paths, args, n);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hdp-bench micro|regions|sample|dpdk [--quick] [--trials N] [--out DIR]\n"
		"                 [--cpu N] [OPTIONS]\n"
		"       hdp-bench compare|latency|kernel [THEIR OPTIONS]  (hdp-bench MODE --help)\n"
		"       hdp-bench builds OLD NEW [THEIR OPTIONS]  (hdp-bench builds --help)\n"
		"modes:\n"
		"  micro     the forwarding pipeline over in-memory rings, per profile, each\n"
		"            run from the forwarder's state as made. Alone over off: bounds,\n"
		"            bounds-tree, init (on alloc and free), init-used (free, the\n"
		"            bytes written), tag-1, tag-10, redzone-canary; all (bounds,\n"
		"            init-used, tag-10); over init-used: redzone, quarantine (the\n"
		"            default depth, 256), shuffle; default and strict: configs/\n"
		"            default.ini and strict.ini as shipped\n"
		"  micro --stages  each protection alone over off (or over the\n"
		"            init_on_free its init_check needs), its floor measured in the\n"
		"            same run and the verdict; then default.ini and strict.ini\n"
		"            built up a step at a time\n"
		"  regions   bounds-checked copy cost against the number of regions,\n"
		"            for bounds=off, bounds_lookup=tree and bounds_lookup=fast\n"
		"  sample    slowdown against tag_sample (1 ... 64): micro pipeline, and\n"
		"            end to end through compare (root, with --out)\n"
		"  compare   hdp-fwd profiles, kernel XDP redirect, dpdk-testpmd and the\n"
		"            kernel socket path on the namespace topology (root)\n"
		"  latency   what a packet waits in each contender (p50 ... p99.9, max) and\n"
		"            the CPU it costs, at fixed loads and shares of saturation,\n"
		"            against a direct veth path (root)\n"
		"  kernel    the seeds' kernels built from Debian's sources and booted under\n"
		"            QEMU: each mechanism off, on and bypassed, hdp beside it in the\n"
		"            same guest (root)\n"
		"  builds    two builds' micro run in turn, round by round: each figure of\n"
		"            NEW against OLD's from the same round, and the sign test's verdict\n"
		"  dpdk      dpdk-testpmd on net_null: mbufs on DPDK's ring driver or on\n"
		"            hdp's per profile, cache on and off (root; docs/DPDK.md)\n"
		"options of micro, regions, sample and dpdk:\n"
		"  --quick     a short run that still produces every figure\n"
		"  --trials N  trials per figure (3..31, default 5)\n"
		"  --out DIR   write DIR/results.json\n"
		"  --cpu N     pin the measuring thread to CPU N\n"
		"  --only LIST micro: only these profiles (and off), e.g. default,strict\n"
		"  --threads LIST  micro: one worker per thread sharing one pool, e.g. 1,2;\n"
		"              packets per second and the ratio to the first count\n"
		"  --size LIST micro: frame lengths without FCS (default 60), e.g.\n"
		"              60,1500,9000; a length past one frame goes in chains of\n"
		"              frames, as hdp-fwd's multi-buffer ports take it\n"
		"  --stages    micro: what each protection adds against its floor\n");
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
	/* dpdk: dpdk_pools.py judges what it writes, before it runs. */
	if (strcmp(mode, "dpdk") == 0)
		return 0;
	if (bench_out_check(o->out_fd, o->out_dir, names))
		return -1;
	snprintf(e2e, sizeof(e2e), "%s/e2e", o->out_dir);
	if (strcmp(mode, "sample") == 0 && geteuid() == 0) {
		const char *args[] = { "compare-report", "--prepare", e2e };

		return run_python(o->paths, args, 3);
	}
	return 0;
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
		{ "size", required_argument, NULL, 'Z' },
		{ "stages", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct bench_paths paths;
	struct bench_opts o = { .trials = 0, .cpu = -1, .paths = &paths, .out_fd = -1 };
	char *end;
	int opt, mode;

	mode = mode_index(argc, argv, longopts);
	if (mode && is_python_mode(argv[mode]))
		return bench_python(argc, argv, mode);
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
		case 'Z':
			o.sizes = optarg;
			break;
		case 'S':
			o.stages = true;
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
		return o.threads ? bench_micro_threads(&o) : o.stages ? bench_micro_stages(&o)
							       : bench_micro(&o);
	if (strcmp(argv[optind], "sample") == 0)
		return bench_sample(&o) || bench_sample_e2e(&o);
	if (strcmp(argv[optind], "dpdk") == 0)
		return bench_dpdk(&o);
	fprintf(stderr, "hdp-bench: unknown mode '%s'\n", argv[optind]);
	usage(stderr);
	return 2;
}
