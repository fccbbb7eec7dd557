// SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
/*
 * The kernel's own fast path, as hdp-bench's contender: every frame on the
 * interface goes out of the one device in the devmap, untouched.
 * Fragment-aware (xdp.frags): it attaches to a veth whose MTU is above one
 * page (9000) and redirects multi-buffer frames whole; at small sizes it
 * is the same program.
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} out_dev SEC(".maps");

SEC("xdp.frags")
int hdp_redirect_devmap(struct xdp_md *ctx)
{
	return bpf_redirect_map(&out_dev, 0, XDP_DROP);
}

char _license[] SEC("license") = "Dual BSD/GPL";
