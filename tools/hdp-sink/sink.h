/* SPDX-License-Identifier: BSD-3-Clause */
/* What hdp-sink's modes share: when to stop, and the XDP program's counters. */
#ifndef HDP_SINK_H
#define HDP_SINK_H

#include <signal.h>
#include <stdint.h>

/* When a run ends (0: no such limit) and how often it reports. */
struct sink_opts {
	double duration;	/* seconds in all */
	double idle;		/* seconds without a frame, after the first */
	double every;		/* seconds between progress lines */
	uint64_t expect;	/* frames */
};

/* The XDP program's per-CPU counters, summed: every frame, all its bytes. */
struct sink_counts {
	uint64_t packets, bytes;
};

/* Set by hdp-sink's signal handlers: every mode ends its run (sink.c). */
extern volatile sig_atomic_t sink_stop;

/* CLOCK_MONOTONIC, in seconds. */
double sink_now(void);
/* Sum the per-CPU counters of map @map: 0 or -1. */
int sink_read_counts(int map, struct sink_counts *total);

/* --verify: check every frame against frame.h; exit status (1: a bad frame). */
int sink_verify(const char *ifname, const struct sink_opts *o);

/* --latency: the stamped frames' latencies, as one JSON line; exit status. */
int sink_latency(const char *ifname, const struct sink_opts *o);

#endif /* HDP_SINK_H */
