/* SPDX-License-Identifier: BSD-3-Clause */
/* hdp-bench: shared helpers of its modes. */
#ifndef HDP_BENCH_H
#define HDP_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <hdp/compiler.h>

#define BENCH_TRIALS_MAX 31

struct bench_opts {
	bool quick;
	unsigned trials;
	const char *out_dir;	/* NULL: no files */
	int cpu;		/* pin the measuring thread; -1: leave it */
};

struct bench_stat {
	double median, min, max;
};

uint64_t bench_now_ns(void);
void bench_stat_of(double *samples, unsigned n, struct bench_stat *out);

/* results.json in out_dir (or /dev/null), opened with the machine part written. */
FILE *bench_json_open(const struct bench_opts *o, const char *mode);
void bench_json_close(const struct bench_opts *o, FILE *f);

int bench_regions(const struct bench_opts *o);

#endif /* HDP_BENCH_H */
