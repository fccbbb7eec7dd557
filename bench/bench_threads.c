// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-bench micro --threads 1,2: the forwarding pipeline with one worker
 * per thread, each over its own pair of in-memory ports, all of them on
 * one shared UMEM pool, as hdp-fwd's workers are. The figure is packets
 * per second over all threads, and its ratio to one thread: what the
 * pool's shared parts (its stack, its hardening state) cost when workers
 * are added. Thread counts and profiles interleaved trial by trial.
 */
#include "bench.h"

#include <hdp/fwd.h>

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS_MAX (HDP_FWD_PORTS_MAX / 2)

static const struct bench_profile profiles[] = {
	{ "off", "bounds=off,init_on_free=off,init_check=off,tag=off" },
	{ "default", "@default.ini" },
};

struct worker {
	pthread_t tid;
	struct hdp_fwd *f;
	pthread_barrier_t *start, *warm;
	unsigned first, steps;
	int cpu;
	uint64_t pkts;
};

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	uint64_t pkts = 0;

	if (w->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET((size_t)w->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	pthread_barrier_wait(w->start);
	for (unsigned i = 0; i < w->steps / 10; i++)	/* warm caches and the pool's */
		hdp_fwd_loopback_step_ports(w->f, w->first, 2, bench_packet,
					    sizeof(bench_packet), 64);
	pthread_barrier_wait(w->warm);
	for (unsigned i = 0; i < w->steps; i++)
		pkts += hdp_fwd_loopback_step_ports(w->f, w->first, 2, bench_packet,
						    sizeof(bench_packet), 64);
	w->pkts = pkts;
	return NULL;
}

/* One trial: @nt threads over 2 * @nt ports, profile @spec; packets per second. */
static int trial(const struct bench_opts *o, unsigned nt, const char *spec, double *pps)
{
	static struct hdp_fwd_cfg cfg;
	struct worker w[THREADS_MAX];
	pthread_barrier_t start, warm;
	char ports[256];
	size_t used = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	uint64_t t0, pkts = 0;
	unsigned base = o->cpu > 0 ? (unsigned)o->cpu : 0;	/* --cpu: the first worker's */
	struct hdp_fwd *f;
	unsigned lost;

	for (unsigned t = 0; t < nt; t++)
		used += (size_t)snprintf(ports + used, sizeof(ports) - used, "%sa:%u,b:%u",
					 t ? "," : "", t, t);
	hdp_fwd_cfg_defaults(&cfg);
	cfg.mode = HDP_FWD_MACSWAP;
	/* Each pair's rings full of frames, as with one pair in micro. */
	cfg.frames = 8192 * nt;
	if (hdp_fwd_cfg_set_ports(&cfg, ports, "bench") || hdp_fwd_cfg_check(&cfg))
		return -1;
	f = hdp_fwd_create_loopback(&cfg);
	if (!f || bench_apply_profile(f, spec, o->paths->configs)) {
		hdp_fwd_loopback_destroy(f);
		return -1;
	}
	pthread_barrier_init(&start, NULL, nt + 1);
	pthread_barrier_init(&warm, NULL, nt + 1);
	for (unsigned t = 0; t < nt; t++) {
		w[t] = (struct worker){ .f = f, .start = &start, .warm = &warm, .first = 2 * t,
					.steps = o->quick ? 30000 : 150000,
					.cpu = ncpu > 0 ? (int)((base + t) % (unsigned)ncpu) : -1 };
		if (pthread_create(&w[t].tid, NULL, worker_main, &w[t])) {
			fprintf(stderr, "hdp-bench: cannot start thread %u\n", t);
			exit(1);
		}
	}
	pthread_barrier_wait(&start);
	pthread_barrier_wait(&warm);
	t0 = bench_now_ns();
	for (unsigned t = 0; t < nt; t++) {
		pthread_join(w[t].tid, NULL);
		pkts += w[t].pkts;
	}
	*pps = (double)pkts * 1e9 / (double)(bench_now_ns() - t0);
	pthread_barrier_destroy(&start);
	pthread_barrier_destroy(&warm);
	lost = hdp_fwd_loopback_destroy(f);
	if (lost) {
		fprintf(stderr, "hdp-bench: %u frames lost by the pipeline\n", lost);
		return -1;
	}
	return 0;
}

/* "1,2,4": thread counts, 1..THREADS_MAX each. */
static unsigned parse_threads(const char *list, unsigned *out)
{
	unsigned n = 0;

	for (const char *c = list; *c;) {
		char *end;
		unsigned long v = strtoul(c, &end, 10);

		if (!bench_digits_first(c) || v < 1 || v > THREADS_MAX || n == THREADS_MAX ||
		    (*end && *end != ','))
			return 0;
		out[n++] = (unsigned)v;
		c = *end ? end + 1 : end;
	}
	return n;
}

int bench_micro_threads(const struct bench_opts *o)
{
	enum { NP = HDP_ARRAY_SIZE(profiles) };
	unsigned counts[THREADS_MAX], nc = parse_threads(o->threads, counts);
	static double s[THREADS_MAX][NP][BENCH_TRIALS_MAX];
	struct bench_stat st[THREADS_MAX][NP];
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct bench_report r;
	char extra[64];

	if (o->sizes) {
		fprintf(stderr, "hdp-bench: micro: --threads forwards 60-byte frames; "
			"--size is for micro without it\n");
		return 2;
	}
	if (!nc) {
		fprintf(stderr, "hdp-bench: --threads '%s': expected counts from 1 to %d, "
			"e.g. 1,2\n", o->threads, THREADS_MAX);
		return 2;
	}
	for (unsigned t = 0; t < o->trials; t++) {
		for (unsigned k = 0; k < nc * NP; k++) {
			unsigned i = (k + t) % (nc * NP);	/* a different order each trial */

			if (trial(o, counts[i / NP], profiles[i % NP].spec, &s[i / NP][i % NP][t]))
				return 1;
		}
		bench_progress("micro --threads: trial %u of %u", t + 1, o->trials);
	}
	for (unsigned c = 0; c < nc; c++)
		for (unsigned p = 0; p < NP; p++)
			bench_stat_of(s[c][p], o->trials, &st[c][p]);
	if (bench_report_open(&r, o, "micro-threads"))
		return 1;
	bench_report_md(&r, "## micro --threads: workers sharing one pool\n\n"
			"One worker per thread (thread t pinned to CPU (--cpu + t) mod %ld), each over its own pair "
			"of in-memory ports, all on one UMEM pool; macswap, 60-byte frames, "
			"bursts of 64. Packets per second over all threads, median of %u trials "
			"(min-max), and the ratio to the first count listed.\n\n"
			"| threads | profile | Mpps | min | max | ratio |\n"
			"|---:|---|---:|---:|---:|---:|\n", ncpu, o->trials);
	for (unsigned c = 0; c < nc; c++) {
		for (unsigned p = 0; p < NP; p++) {
			double ratio = st[c][p].median / st[0][p].median;

			bench_report_md(&r, "| %u | %s | %.2f | %.2f | %.2f | %.2f |\n", counts[c],
					profiles[p].name, st[c][p].median / 1e6, st[c][p].min / 1e6,
					st[c][p].max / 1e6, ratio);
			snprintf(extra, sizeof(extra), "\"threads\":%u", counts[c]);
			bench_report_run(&r, "hdp-fwd", profiles[p].name, &st[c][p], NULL, NULL,
					 ratio, extra);
		}
	}
	if ((long)counts[nc - 1] > ncpu)
		bench_report_md(&r, "\nMore threads than the %ld CPUs: they share cores.\n", ncpu);
	return bench_report_close(&r);
}
