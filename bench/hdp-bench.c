// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-bench: what each protection costs. Modes so far: regions (bounds
 * check cost against the number of registered regions). Figures are
 * medians of several trials with min and max, and ratios to "off" from
 * the same run.
 */
#include "bench.h"

#include <errno.h>
#include <getopt.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void bench_stat_of(double *s, unsigned n, struct bench_stat *out)
{
	qsort(s, n, sizeof(*s), cmp_double);
	out->min = s[0];
	out->max = s[n - 1];
	out->median = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

FILE *bench_json_open(const struct bench_opts *o, const char *mode)
{
	char path[4096];
	struct utsname u;
	FILE *f;

	if (!o->out_dir)
		return fopen("/dev/null", "we");
	snprintf(path, sizeof(path), "%s/results.json", o->out_dir);
	f = fopen(path, "we");
	if (!f) {
		fprintf(stderr, "hdp-bench: %s: %s\n", path, strerror(errno));
		return NULL;
	}
	uname(&u);
	fprintf(f, "{\"mode\":\"%s\",\"version\":\"%s\",\"machine\":{\"arch\":\"%s\","
		"\"kernel\":\"%s\",\"cpus\":%ld,\"pinned_cpu\":%d},\"trials\":%u,",
		mode, HDP_VERSION, u.machine, u.release, sysconf(_SC_NPROCESSORS_ONLN),
		o->cpu, o->trials);
	return f;
}

void bench_json_close(const struct bench_opts *o, FILE *f)
{
	fprintf(f, "}\n");
	fclose(f);
	if (o->out_dir)
		printf("results: %s/results.json\n", o->out_dir);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hdp-bench MODE [--quick] [--trials N] [--out DIR] [--cpu N]\n"
		"modes:\n"
		"  regions   bounds-checked copy cost against the number of regions,\n"
		"            for bounds=off, bounds_lookup=tree and bounds_lookup=fast\n"
		"options:\n"
		"  --quick     a short run that still produces every figure\n"
		"  --trials N  trials per figure (3..31, default 5; 3 with --quick)\n"
		"  --out DIR   write DIR/results.json\n"
		"  --cpu N     pin the measuring thread to CPU N\n");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "trials", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },
		{ "cpu", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct bench_opts o = { .trials = 0, .cpu = -1 };
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'q':
			o.quick = true;
			break;
		case 't':
			o.trials = (unsigned)strtoul(optarg, &end, 10);
			if (*end || o.trials < 3 || o.trials > BENCH_TRIALS_MAX) {
				fprintf(stderr, "hdp-bench: --trials '%s': expected 3 to %d\n",
					optarg, BENCH_TRIALS_MAX);
				return 2;
			}
			break;
		case 'o':
			o.out_dir = optarg;
			if (mkdir(optarg, 0755) && errno != EEXIST) {
				fprintf(stderr, "hdp-bench: --out %s: %s\n", optarg,
					strerror(errno));
				return 2;
			}
			break;
		case 'c':
			o.cpu = (int)strtol(optarg, &end, 10);
			if (*end || o.cpu < 0) {
				fprintf(stderr, "hdp-bench: --cpu '%s': expected a CPU number\n",
					optarg);
				return 2;
			}
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
		o.trials = o.quick ? 3 : 5;
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
	if (strcmp(argv[optind], "regions") == 0)
		return bench_regions(&o);
	fprintf(stderr, "hdp-bench: unknown mode '%s'\n", argv[optind]);
	usage(stderr);
	return 2;
}
