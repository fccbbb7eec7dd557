// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * hdp-fwd's XDP program: frames on a queue that has an hdp socket go to it;
 * everything else goes on to the kernel. Marked for fragments (xdp.frags):
 * on an interface whose MTU is larger than a page, the kernel attaches in
 * native mode only a program that takes packets in several buffers, and
 * the socket, bound for multi-buffer, gets them as chains of frames.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_XSKMAP);
	__uint(max_entries, 64);
	__type(key, __u32);
	__type(value, __u32);
} xsks_map SEC(".maps");

SEC("xdp.frags")
int hdp_xsk_redirect(struct xdp_md *ctx)
{
	return bpf_redirect_map(&xsks_map, ctx->rx_queue_index, XDP_PASS);
}

char _license[] SEC("license") = "Dual BSD/GPL";
