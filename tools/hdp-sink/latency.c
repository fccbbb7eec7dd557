// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-sink --latency: attach hdp_sink_latency (dataplane/bpf/
 * sink_latency.bpf.c), which takes every stamped frame's time since its
 * send as it reaches the driver, wait until the run is over, and print
 * what the histogram says as one JSON object: percentiles, the extremes,
 * frames reordered and missing, and the histogram itself for plots.
 */
#include "sink.h"

#include <hdp/xdp_prog.h>

#include <linux/types.h>

#include "sink_latency.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct lat_total {
	struct hdp_lat_stats s;	/* summed over CPUs; next_seq the highest */
	uint64_t hist[HDP_LAT_BUCKETS];
};

static int read_stats(int map, struct hdp_lat_stats *t)
{
	int ncpus = libbpf_num_possible_cpus();
	struct hdp_lat_stats *per = calloc((size_t)ncpus, sizeof(*per));
	uint32_t key = 0;

	if (!per || bpf_map_lookup_elem(map, &key, per)) {
		free(per);
		return -1;
	}
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < ncpus; i++) {
		t->stamped += per[i].stamped;
		t->unstamped += per[i].unstamped;
		t->reordered += per[i].reordered;
		t->sum_ns += per[i].sum_ns;
		t->bytes += per[i].bytes;
		if (per[i].next_seq > t->next_seq)
			t->next_seq = per[i].next_seq;
		if (per[i].max_ns > t->max_ns)
			t->max_ns = per[i].max_ns;
		if (per[i].min_ns && (!t->min_ns || per[i].min_ns < t->min_ns))
			t->min_ns = per[i].min_ns;
	}
	free(per);
	return 0;
}

static int read_hist(int map, uint64_t *hist)
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t *per = calloc((size_t)ncpus, sizeof(*per));

	if (!per)
		return -1;
	for (uint32_t i = 0; i < HDP_LAT_BUCKETS; i++) {
		if (bpf_map_lookup_elem(map, &i, per)) {
			free(per);
			return -1;
		}
		hist[i] = 0;
		for (int c = 0; c < ncpus; c++)
			hist[i] += per[c];
	}
	free(per);
	return 0;
}

/*
 * The latency below which a fraction @q of the frames stayed: the middle
 * of the bucket that holds the frame of that rank, kept within the
 * extremes seen (a bucket is at most 3 % of its value wide).
 */
static uint64_t quantile(const struct lat_total *t, double q)
{
	uint64_t rank = (uint64_t)(q * (double)t->s.stamped + 0.999999), seen = 0;

	if (!t->s.stamped)
		return 0;
	if (rank < 1)
		rank = 1;
	for (uint32_t i = 0; i < HDP_LAT_BUCKETS; i++) {
		seen += t->hist[i];
		if (seen >= rank) {
			uint64_t v = hdp_lat_bucket_low(i) + hdp_lat_bucket_width(i) / 2;

			if (v < t->s.min_ns)
				v = t->s.min_ns;
			return v > t->s.max_ns ? t->s.max_ns : v;
		}
	}
	return t->s.max_ns;
}

static void print_json(const struct lat_total *t, double secs)
{
	static const struct { const char *name; double q; } qs[] = {
		{ "p50", 0.50 }, { "p90", 0.90 }, { "p99", 0.99 }, { "p999", 0.999 },
	};
	const char *sep = "";

	printf("{\"seconds\":%.3f,\"stamped\":%llu,\"unstamped\":%llu,"
	       "\"bytes\":%llu,\"reordered\":%llu,\"highest_seq\":%lld,\"missing_below\":%llu",
	       secs, (unsigned long long)t->s.stamped,
	       (unsigned long long)t->s.unstamped, (unsigned long long)t->s.bytes,
	       (unsigned long long)t->s.reordered, (long long)t->s.next_seq - 1,
	       /* Frames below the highest seq that never came (a reordered one came). */
	       (unsigned long long)(t->s.next_seq > t->s.stamped ? t->s.next_seq - t->s.stamped : 0));
	/* No frame, no latency: null, never a 0 that would pass for a figure. */
	if (!t->s.stamped) {
		printf(",\"min_ns\":null,\"mean_ns\":null,\"max_ns\":null");
		for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
			printf(",\"%s_ns\":null", qs[i].name);
	} else {
		printf(",\"min_ns\":%llu,\"mean_ns\":%.0f,\"max_ns\":%llu",
		       (unsigned long long)t->s.min_ns, (double)t->s.sum_ns / (double)t->s.stamped,
		       (unsigned long long)t->s.max_ns);
		for (size_t i = 0; i < sizeof(qs) / sizeof(qs[0]); i++)
			printf(",\"%s_ns\":%llu", qs[i].name, (unsigned long long)quantile(t, qs[i].q));
	}
	/* The histogram, as [lowest ns, width ns, frames] of every bucket that holds any. */
	printf(",\"hist\":[");
	for (uint32_t i = 0; i < HDP_LAT_BUCKETS; i++) {
		if (!t->hist[i])
			continue;
		printf("%s[%llu,%llu,%llu]", sep, (unsigned long long)hdp_lat_bucket_low(i),
		       (unsigned long long)hdp_lat_bucket_width(i), (unsigned long long)t->hist[i]);
		sep = ",";
	}
	printf("]}\n");
}

int sink_latency(const char *ifname, const struct sink_opts *o)
{
	struct hdp_xdp_prog *p = hdp_xdp_prog_load(hdp_bpf_sink_latency,
						   hdp_bpf_sink_latency_len, "hdp_sink_latency");
	static struct lat_total t;
	double start = sink_now(), last_change = start;
	uint64_t last = 0;
	int stats, hist, rc = 0;

	if (!p || hdp_xdp_prog_attach(p, ifname)) {
		hdp_xdp_prog_close(p);
		return 1;
	}
	stats = hdp_xdp_prog_map_fd(p, "lat_stats");
	hist = hdp_xdp_prog_map_fd(p, "lat_hist");
	/*
	 * A veth given an XDP program switches its receive path to NAPI; a
	 * frame sent at that moment may be dropped. "measuring" is the sender's
	 * cue, so it comes once the switch is long over.
	 */
	nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	printf("measuring latency on %s\n", ifname);
	fflush(stdout);
	while (!sink_stop) {
		struct timespec nap = { .tv_nsec = 20000000 };
		double now;

		nanosleep(&nap, NULL);
		if (read_stats(stats, &t.s))
			break;
		now = sink_now();
		if (t.s.stamped != last)
			last_change = now;
		last = t.s.stamped;
		if ((o->expect && t.s.stamped >= o->expect) ||
		    (o->duration > 0 && now - start >= o->duration) ||
		    (o->idle > 0 && t.s.stamped && now - last_change >= o->idle))
			break;
	}
	if (read_stats(stats, &t.s) || read_hist(hist, t.hist)) {
		fprintf(stderr, "hdp-sink: reading the latency maps on %s failed\n", ifname);
		rc = 1;
	} else {
		print_json(&t, sink_now() - start);
	}
	hdp_xdp_prog_close(p);
	return rc;
}
