/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * XDP programs that another library attaches without a BPF link (DPDK's
 * net_af_xdp attaches through netlink and detaches at close, which takes
 * CAP_NET_ADMIN): a keeper process, forked while hdp-fwd is small and
 * single-threaded and before it drops its capabilities, is told which
 * program is on which interface and detaches each, if it is still that
 * program, when hdp-fwd's end of the pipe closes: at exit, or at a
 * SIGKILL, which runs no code of hdp-fwd's.
 */
#ifndef HDP_XDP_KEEPER_H
#define HDP_XDP_KEEPER_H

#include <sys/types.h>

struct hdp_xdp_keeper {
	int fd;		/* the pipe's write end, or -1 */
	pid_t pid;
};

/* Fork the keeper: 0, or a negative errno (then @k->fd is -1). */
int hdp_xdp_keeper_start(struct hdp_xdp_keeper *k);

/*
 * The XDP program on @ifindex now is to be detached at the end: 0, or a
 * negative errno (no program there, or no keeper; said in hdp's log).
 */
int hdp_xdp_keeper_note(int fd, unsigned ifindex, const char *ifname);

/* The end: the keeper detaches what it was told, and is waited for. */
void hdp_xdp_keeper_finish(struct hdp_xdp_keeper *k);

#endif /* HDP_XDP_KEEPER_H */
