// SPDX-License-Identifier: BSD-3-Clause
/* What hdp-sink's modes share (sink.h): when to stop, the clock, the XDP program's counters. */
#include "sink.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile sig_atomic_t sink_stop;

double sink_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int sink_read_counts(int map, struct sink_counts *total)
{
	int ncpus = libbpf_num_possible_cpus();
	struct sink_counts *per = calloc((size_t)ncpus, sizeof(*per));
	uint32_t key = 0;

	if (!per)
		return -1;
	memset(total, 0, sizeof(*total));
	if (bpf_map_lookup_elem(map, &key, per)) {
		free(per);
		return -1;
	}
	for (int i = 0; i < ncpus; i++) {
		total->packets += per[i].packets;
		total->bytes += per[i].bytes;
	}
	free(per);
	return 0;
}
