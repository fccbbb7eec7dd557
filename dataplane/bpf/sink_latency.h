/* SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause) */
/*
 * What hdp_sink_latency (sink_latency.bpf.c) records and hdp-sink
 * --latency reads: one description for both sides, the BPF program and C.
 *
 * Latencies go into a log-linear histogram, as HdrHistogram does: exact
 * below 64 ns, then 32 buckets for every power of two, so a bucket is at
 * most 1/32 (3 %) of its value wide, from 64 ns to 2^30 ns (1.07 s); the
 * last bucket takes everything longer. 832 buckets of a u64 per CPU.
 */
#ifndef HDP_SINK_LATENCY_H
#define HDP_SINK_LATENCY_H

#define HDP_LAT_SUB_BITS 5
#define HDP_LAT_SUB (1u << HDP_LAT_SUB_BITS)
#define HDP_LAT_TOP_BIT 29	/* the last octave: [2^29, 2^30) ns */
#define HDP_LAT_BUCKETS ((HDP_LAT_TOP_BIT - HDP_LAT_SUB_BITS + 2) * HDP_LAT_SUB)

/* Per CPU; the program counts, hdp-sink sums. */
struct hdp_lat_stats {
	__u64 stamped;		/* frames with a stamp, in the histogram */
	__u64 unstamped;	/* anything else that arrived (dropped too) */
	__u64 reordered;	/* seq below one this CPU already saw */
	__u64 next_seq;		/* one past the highest seq this CPU saw */
	__u64 sum_ns;
	__u64 max_ns;
	__u64 min_ns;		/* 0: none yet */
	__u64 bytes;
};

/* The index of @ns's bucket; written for the verifier (no loops). */
static inline __u32 hdp_lat_bucket(__u64 ns)
{
	__u32 msb = 0;
	__u64 v = ns;

	if (ns < 2 * HDP_LAT_SUB)
		return (__u32)ns;
	if (ns >> (HDP_LAT_TOP_BIT + 1))
		return HDP_LAT_BUCKETS - 1;
	if (v >> 16) { v >>= 16; msb += 16; }
	if (v >> 8) { v >>= 8; msb += 8; }
	if (v >> 4) { v >>= 4; msb += 4; }
	if (v >> 2) { v >>= 2; msb += 2; }
	if (v >> 1) { msb += 1; }
	return (msb - HDP_LAT_SUB_BITS) * HDP_LAT_SUB + (__u32)(ns >> (msb - HDP_LAT_SUB_BITS));
}

/* The lowest latency in bucket @i, and the bucket's width (ns). */
static inline __u64 hdp_lat_bucket_low(__u32 i)
{
	__u32 msb;

	if (i < 2 * HDP_LAT_SUB)
		return i;
	msb = i / HDP_LAT_SUB + HDP_LAT_SUB_BITS - 1;
	return (__u64)(i % HDP_LAT_SUB + HDP_LAT_SUB) << (msb - HDP_LAT_SUB_BITS);
}

static inline __u64 hdp_lat_bucket_width(__u32 i)
{
	if (i < 2 * HDP_LAT_SUB)
		return 1;
	return 1ull << (i / HDP_LAT_SUB - 1);
}

#endif /* HDP_SINK_LATENCY_H */
