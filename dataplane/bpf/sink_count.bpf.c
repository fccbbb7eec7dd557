// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * hdp-sink's XDP programs: count every frame (and all of its bytes) per
 * CPU, then drop it (hdp_sink_count) or pass it up to the stack, where
 * hdp-sink --verify reads it with AF_PACKET (hdp_sink_pass). Giving the
 * sink's veth an XDP program also gives it NAPI, which a veth needs to
 * receive redirected frames.
 *
 * Both are marked for fragments (xdp.frags), so they attach to interfaces
 * whose MTU needs frames of several buffers (veth at MTU 9000), and count
 * bytes with bpf_xdp_get_buff_len: data_end - data would count only the
 * first buffer of such a frame.
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

static __always_inline void count(struct xdp_md *ctx)
{
	__u32 key = 0;
	struct counts *c = bpf_map_lookup_elem(&sink_counts, &key);

	if (c) {
		c->packets++;
		c->bytes += bpf_xdp_get_buff_len(ctx);
	}
}

SEC("xdp.frags")
int hdp_sink_count(struct xdp_md *ctx)
{
	count(ctx);
	return XDP_DROP;
}

SEC("xdp.frags")
int hdp_sink_pass(struct xdp_md *ctx)
{
	count(ctx);
	return XDP_PASS;
}

char _license[] SEC("license") = "Dual BSD/GPL";
