/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XDP programs that another library attaches without a BPF link (DPDK's
 * net_af_xdp attaches through netlink and detaches at close, which takes
 * CAP_NET_ADMIN): a keeper (hdp/keeper.h), forked before hdp-fwd drops
 * its capabilities, is told which program is on which interface and
 * detaches each, if it is still that program, when hdp-fwd ends.
 */
#ifndef HDP_XDP_KEEPER_H
#define HDP_XDP_KEEPER_H

#include <hdp/keeper.h>

/* Fork the keeper (hdp_keeper_start): 0, or a negative errno; end it with hdp_keeper_finish. */
int hdp_xdp_keeper_start(struct hdp_keeper *k);

/* The XDP program @ifindex runs (0: none), and its mode flag (XDP_FLAGS_*_MODE). */
unsigned hdp_xdp_prog_on(unsigned ifindex, unsigned *mode);

/*
 * The XDP program on @ifindex now (a port's start attached it; hdp-fwd
 * refuses an interface that ran one before) is to be detached at the end.
 * 0, or a negative errno.
 */
int hdp_xdp_keeper_note(int fd, unsigned ifindex, const char *ifname);

#endif /* HDP_XDP_KEEPER_H */
