/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A keeper process: what hdp-fwd must undo when it ends, however it ends
 * (a SIGKILL runs none of its code, and by then it holds no privilege),
 * is done by a child forked early, holding nothing but the read end of a
 * pipe and its parent's privileges. It is told what to undo over the pipe
 * and does it at EOF, which the kernel gives it at any death of hdp-fwd.
 * Two keepers use it: busy polling's interface settings (afxdp/busy.c) and
 * the XDP programs net_af_xdp attaches (control/xdp_keeper.c).
 */
#ifndef HDP_KEEPER_H
#define HDP_KEEPER_H

#include <sys/types.h>

struct hdp_keeper {
	int fd;		/* the pipe's write end, or -1 */
	pid_t pid;
};

/*
 * Fork a keeper running @run(read end), then exiting: 0, or a negative
 * errno (then @k->fd is -1). Fork while the process is small and has one
 * thread. Its own fds are 0-2 (/dev/null where hdp-fwd had none) and the
 * read end, nothing else.
 */
int hdp_keeper_start(struct hdp_keeper *k, const char *name, void (*run)(int fd));

/*
 * No more to undo: what is written after this is not taken. Before hdp-fwd
 * drops its privileges, so that a forwarder taken over later cannot have
 * the keeper, which keeps them, do anything else. A keeper that cannot be
 * sealed is stopped (logged).
 */
void hdp_keeper_seal(struct hdp_keeper *k);

/*
 * In the keeper: read @fd to EOF into @buf (past @cap, read and dropped),
 * NUL-terminated and cut at the seal. Its length.
 */
size_t hdp_keeper_read_all(int fd, char *buf, size_t cap);

/* Close the pipe (the keeper's signal) and wait for it to be done. */
void hdp_keeper_finish(struct hdp_keeper *k);

#endif /* HDP_KEEPER_H */
