/* SPDX-License-Identifier: BSD-3-Clause */
/* hdp-bench: shared helpers of its modes. */
#ifndef HDP_BENCH_H
#define HDP_BENCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <hdp/compiler.h>

#include "bench_out.h"

#define BENCH_TRIALS_MAX 31
#define BENCH_PATH_MAX 4096

/*
 * Does @s start with a decimal digit? What every number on hdp-bench's
 * command line must do: strtoul and strtol would also take leading
 * spaces and a sign ("+5", " 5", "-1" wrapped to a huge count).
 */
static inline bool bench_digits_first(const char *s)
{
	return *s >= '0' && *s <= '9';
}

/* Where the Python package, the shipped profiles and the programs are. */
struct bench_paths {
	bool installed;			/* an installed bindir, not the build tree */
	char scripts[BENCH_PATH_MAX];	/* hdpbench/ (the Python modes), bench_out.py */
	char configs[BENCH_PATH_MAX];	/* default.ini, strict.ini, ... */
	char build[BENCH_PATH_MAX];	/* the build tree, when not installed */
	char bindir[BENCH_PATH_MAX];	/* the programs, when installed */
	char driver[BENCH_PATH_MAX];	/* librte_mempool_hdp.so */
};

int bench_paths_find(struct bench_paths *p);
/* Tell the Python modes (their environment) where everything is. */
void bench_paths_export(const struct bench_paths *p);

struct bench_opts {
	bool quick;
	unsigned trials;
	bool trials_given;
	const char *out_dir;	/* NULL: stdout only */
	int out_fd;		/* out_dir, walked to (bench_out.h); -1 without */
	int cpu;		/* pin the measuring thread; -1: leave it */
	const char *only;	/* micro: these profiles (and off), comma separated */
	const char *threads;	/* micro: "1,2": workers sharing one pool */
	const char *sizes;	/* micro: frame lengths, "60,1500" */
	bool stages;		/* micro: each protection alone, against its floor */
	const struct bench_paths *paths;
};

struct bench_stat {
	double median, min, max;
};

struct bench_profile {
	const char *name;
	const char *spec;	/* a --harden string */
};

uint64_t bench_now_ns(void);

struct hdp_fwd;
/*
 * What micro and micro --threads share (bench_loopback.c): the 60-byte
 * frame they forward; a profile ("@file.ini" or a spec) applied.
 */
extern const uint8_t bench_packet[60];
/* bench_packet's headers, grown to @len bytes (60..BENCH_SIZE_MAX) of payload. */
void bench_packet_fill(uint8_t *buf, uint32_t len);
#define BENCH_SIZE_MAX 9000
#define BENCH_SIZES_MAX 8
int bench_apply_profile(struct hdp_fwd *f, const char *spec, const char *configs);
/* Every protection off: micro's "off" profile. */
#define BENCH_SPEC_OFF "bounds=off,init_on_free=off,init_check=off,tag=off"
/*
 * The forwarder as made, whatever ran on it before: profile off, every
 * frame back, the pool's frames in a fresh pool's order, fill rings full.
 * 0, or -1 with the reason printed.
 */
int bench_fresh_state(struct hdp_fwd *f, const char *configs);
/* Frame lengths to forward, and which of them the loopback can carry. */
struct bench_sizes {
	unsigned n;
	uint32_t len[BENCH_SIZES_MAX];
	bool fits[BENCH_SIZES_MAX];
	uint32_t max_len;	/* the longest frame the loopback carries */
	uint32_t frame_size;	/* the UMEM's frames, a chain's links */
};

/* --size 60,1500,...: 0, or -1 with the reason printed. */
int bench_parse_sizes(const char *list, struct bench_sizes *sz);

#define BENCH_PROFILES_MAX 32
/*
 * micro's measurement: @n profiles (@p[0] off) at every size that fits,
 * interleaved (sizes within a trial, profiles within a size), each run
 * from the forwarder's state as made; stats into @ns[size][profile] and
 * @cyc. 0, or -1 with the reason printed.
 */
int bench_micro_measure(const struct bench_opts *o, const struct bench_profile *p,
			unsigned n, struct bench_sizes *sz,
			struct bench_stat ns[][BENCH_PROFILES_MAX],
			struct bench_stat cyc[][BENCH_PROFILES_MAX]);
/*
 * hdp-bench's two protections (bench_reuse.c), the floors of quarantine
 * and shuffle: keys bench_delay=DEPTH and bench_permute=on. Registered
 * before any pool is made: 0 or a negative errno.
 */
int bench_reuse_register(void);
/* micro --stages: what each protection adds alone, against its floor. */
int bench_micro_stages(const struct bench_opts *o);
/* micro --threads: the pipeline with one worker per thread, one shared pool. */
int bench_micro_threads(const struct bench_opts *o);
void bench_stat_of(double *samples, unsigned n, struct bench_stat *out);

/* GB/s of memset over @count buffers of @size bytes, @stride apart, in order. */
double bench_memset_gbps(size_t size, size_t stride, size_t count, unsigned trials);
void bench_progress(const char *fmt, ...) HDP_PRINTF(1, 2);

#define BENCH_PLOT_POINTS_MAX 64

/*
 * Results: results.json (mode, machine, kernel, runs), results.md (the
 * tables, also printed) and PNG plots through gnuplot, in out_dir, each
 * a new file renamed into place when it is complete (bench_out.h).
 */
struct bench_report {
	const struct bench_opts *o;
	struct bench_out_file json, md, plot;
	unsigned nruns;
	char plot_name[32], plot_x[64], plot_y[64];
	double plot_pts[BENCH_PLOT_POINTS_MAX][2];	/* also drawn, inline */
	unsigned plot_n;
	char top[2048];		/* more top-level JSON fields, written at close */
};

/* What each mode of hdp-bench writes into out_dir (NULL-ended). */
extern const char *const bench_outputs_report[];	/* micro, micro --threads */
extern const char *const bench_outputs_sample[];
extern const char *const bench_outputs_regions[];

int bench_report_open(struct bench_report *r, const struct bench_opts *o,
		      const char *mode);
void bench_report_md(struct bench_report *r, const char *fmt, ...) HDP_PRINTF(2, 3);
/* One entry of "runs"; NULL stats are left out; @extra is more JSON fields. */
void bench_report_run(struct bench_report *r, const char *contender,
		      const char *profile, const struct bench_stat *pps,
		      const struct bench_stat *ns, const struct bench_stat *cycles,
		      double ratio_to_off, const char *extra);
/* A top-level field of results.json: "key":@json, after "runs". */
void bench_report_top(struct bench_report *r, const char *key, const char *json);
void bench_plot_begin(struct bench_report *r, const char *name, const char *xlabel,
		      const char *ylabel);
void bench_plot_point(struct bench_report *r, double x, double y);
void bench_plot_end(struct bench_report *r);
int bench_report_close(struct bench_report *r);

int bench_regions(const struct bench_opts *o);
int bench_micro(const struct bench_opts *o);
int bench_sample(const struct bench_opts *o);

#endif /* HDP_BENCH_H */
