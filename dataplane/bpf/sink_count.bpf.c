// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * hdp-sink's XDP program: count every frame (and its bytes) per CPU, then
 * drop it. Giving the sink's veth an XDP program also gives it NAPI, which
 * a veth needs to receive redirected frames.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct counts {
	__u64 packets;
	__u64 bytes;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct counts);
} sink_counts SEC(".maps");

SEC("xdp")
int hdp_sink_count(struct xdp_md *ctx)
{
	__u32 key = 0;
	struct counts *c = bpf_map_lookup_elem(&sink_counts, &key);

	if (c) {
		c->packets++;
		c->bytes += ctx->data_end - ctx->data;
	}
	return XDP_DROP;
}

char _license[] SEC("license") = "Dual BSD/GPL";
