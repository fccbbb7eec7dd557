/* SPDX-License-Identifier: BSD-3-Clause */
/* hdp-bench's --out directory: what is written there, and how (bench_out.c). */
#ifndef HDP_BENCH_OUT_H
#define HDP_BENCH_OUT_H

#include <limits.h>
#include <stdio.h>

/* An output being written: a new file under a random name until committed. */
struct bench_out_file {
	FILE *f;
	char tmp[NAME_MAX + 1];
	char name[64];
};

/*
 * Make @path (its last component, 0755, if missing) and walk to it
 * without following another user's link: an O_PATH descriptor, or -1
 * with the reason on stderr.
 */
int bench_out_open(const char *path);

/* 0, or -1 (said) when one of @names (NULL-ended) holds anything but a regular file. */
int bench_out_check(int dir, const char *where, const char *const *names);

/* A new file that becomes @name in @dir at bench_out_commit(); NULL (said). */
FILE *bench_out_create(int dir, const char *name, struct bench_out_file *of);

/* Close @of and rename it over its name: 0, or -1 (said; the new file goes). */
int bench_out_commit(int dir, struct bench_out_file *of);

/* Close @of and remove it: nothing of it is published. */
void bench_out_discard(int dir, struct bench_out_file *of);

/*
 * @name (a PNG) in @dir, drawn by gnuplot from @script, its data inline,
 * on gnuplot's standard output: 0, or -1 (no gnuplot, or it failed).
 */
int bench_out_gnuplot(int dir, const char *name, const char *script);

#endif /* HDP_BENCH_OUT_H */
