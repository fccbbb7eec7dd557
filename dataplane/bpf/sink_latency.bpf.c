// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * hdp-sink --latency's XDP program: for every frame hdp-gen --stamp sent,
 * the time since its send stamp, taken as early as the receive path
 * allows (the driver's XDP hook, before any skb) with the clock the stamp
 * used (bpf_ktime_get_ns is CLOCK_MONOTONIC), into a histogram per CPU
 * (sink_latency.h). Every frame is dropped.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

#include "sink_latency.h"

/* The stamped frame's layout (tools/hdp-gen/frame.h says the same). */
#define SEQ_OFF 42
#define MAGIC_OFF 52
#define STAMP_OFF 54
#define STAMPED_MIN 60
#define MAGIC_HI 'h'
#define MAGIC_LO 'T'
#define STAMP_MASK ((1ull << 48) - 1)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, HDP_LAT_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} lat_hist SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hdp_lat_stats);
} lat_stats SEC(".maps");

SEC("xdp.frags")
int hdp_sink_latency(struct xdp_md *ctx)
{
	/* First, before anything else the program does. */
	__u64 now = bpf_ktime_get_ns();
	unsigned char *p = (unsigned char *)(long)ctx->data;
	unsigned char *end = (unsigned char *)(long)ctx->data_end;
	struct hdp_lat_stats *s;
	__u32 key = 0, bucket;
	__u64 *slot, stamp = 0, ns, seq;

	s = bpf_map_lookup_elem(&lat_stats, &key);
	if (!s)
		return XDP_DROP;
	s->bytes += bpf_xdp_get_buff_len(ctx);
	/* The first buffer holds the first 60 bytes of any frame of a chain. */
	if (p + STAMPED_MIN > end || p[12] != 0x08 || p[13] != 0x00 ||
	    p[MAGIC_OFF] != MAGIC_HI || p[MAGIC_OFF + 1] != MAGIC_LO) {
		s->unstamped++;
		return XDP_DROP;
	}
	for (int i = 0; i < 6; i++)
		stamp = stamp << 8 | p[STAMP_OFF + i];
	seq = (__u64)p[SEQ_OFF] << 24 | (__u64)p[SEQ_OFF + 1] << 16 |
	      (__u64)p[SEQ_OFF + 2] << 8 | p[SEQ_OFF + 3];
	ns = (now - stamp) & STAMP_MASK;
	bucket = hdp_lat_bucket(ns);
	slot = bpf_map_lookup_elem(&lat_hist, &bucket);
	if (slot)
		*slot += 1;
	s->stamped++;
	s->sum_ns += ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	if (!s->min_ns || ns < s->min_ns)
		s->min_ns = ns;
	if (seq < s->next_seq)
		s->reordered++;
	else
		s->next_seq = seq + 1;
	return XDP_DROP;
}

char _license[] SEC("license") = "Dual BSD/GPL";
