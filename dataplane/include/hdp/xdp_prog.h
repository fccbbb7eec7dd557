/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Loading hdp's own XDP programs (embedded in the binary) and attaching
 * them through BPF links: a process that dies, however it dies, leaves no
 * program on the interface.
 */
#ifndef HDP_XDP_PROG_H
#define HDP_XDP_PROG_H

#include <stddef.h>

struct hdp_xdp_prog;

/*
 * Bytes of XDP metadata hdp's program writes before a packet
 * (bpf_xdp_adjust_meta): none. The kernel copies metadata into the frame
 * with the packet, so a frame's write extent starts this far before it.
 */
#define HDP_XDP_META_LEN 0u

extern const unsigned char hdp_bpf_xsk_redirect[];
extern const size_t hdp_bpf_xsk_redirect_len;
extern const unsigned char hdp_bpf_sink_count[];
extern const size_t hdp_bpf_sink_count_len;
extern const unsigned char hdp_bpf_sink_latency[];
extern const size_t hdp_bpf_sink_latency_len;
extern const unsigned char hdp_bpf_redirect_devmap[];
extern const size_t hdp_bpf_redirect_devmap_len;

/* Open and load @prog from an ELF object in memory. NULL + errno. */
struct hdp_xdp_prog *hdp_xdp_prog_load(const void *obj, size_t len,
				       const char *prog);

/* Where the kernel runs an XDP program: its choice, in the driver, on skbs. */
enum hdp_xdp_mode {
	HDP_XDP_AUTO = 0,	/* native where the driver can, else generic */
	HDP_XDP_NATIVE,
	HDP_XDP_GENERIC,
};

/* Attach to @ifname through a link: 0 or a negative errno (logged). */
int hdp_xdp_prog_attach(struct hdp_xdp_prog *p, const char *ifname);
/* The same in the mode asked for; a driver without native XDP: -EOPNOTSUPP. */
int hdp_xdp_prog_attach_mode(struct hdp_xdp_prog *p, const char *ifname,
			     enum hdp_xdp_mode mode);

/* A map's fd, or a negative errno. */
int hdp_xdp_prog_map_fd(struct hdp_xdp_prog *p, const char *map);

/* Detach (destroy the link) and unload. NULL is fine. */
void hdp_xdp_prog_close(struct hdp_xdp_prog *p);

/*
 * How the kernel runs the XDP program attached to @ifname: "native" (in
 * the driver), "generic" (on skbs, after the driver), "offload", "multi",
 * or "none".
 */
const char *hdp_xdp_attach_mode(const char *ifname);

#endif /* HDP_XDP_PROG_H */
