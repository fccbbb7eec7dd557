/* SPDX-License-Identifier: BSD-3-Clause */
/* The forwarder's state, shared by its setup, its loop and its stats. */
#ifndef HDP_DATAPLANE_FWD_INTERNAL_H
#define HDP_DATAPLANE_FWD_INTERNAL_H

#include <hdp/counter.h>
#include <hdp/fwd.h>
#include <hdp/keeper.h>
#include <hdp/xdp_prog.h>

#include "packet/frames.h"

#include <pthread.h>
#include <xdp/xsk.h>

/* Interface settings busy polling changes: napi_defer_hard_irqs, gro_flush_timeout, threaded. */
#define FWD_NAPI_SETTINGS 3
/* Packets a busy-polling port receives before its NAPI must be known. */
#define FWD_BUSY_PROBE_PACKETS 64

struct fwd_napi_saved {
	char ifname[IF_NAMESIZE];
	long old[FWD_NAPI_SETTINGS];
};

struct fwd_port {
	struct hdp_port_cfg cfg;
	int ifindex;
	struct xsk_socket *xsk;
	int fd;
	/* Each ring has one user: rx and fill the worker reading this port,
	 * tx and comp the worker writing to it. */
	struct xsk_ring_cons rx HDP_CACHE_ALIGNED;
	struct xsk_ring_prod fill;
	struct xsk_ring_prod tx HDP_CACHE_ALIGNED;
	struct xsk_ring_cons comp;
	uint32_t tx_outstanding;	/* sent, not yet completed */
	/*
	 * The longest frame the port's interface lets out now: its MTU +
	 * HDP_FWD_MTU_OVERHEAD, UINT32_MAX with no interface. The control
	 * loop writes it when the MTU changes (hdp_fwd_mtu_changed); the
	 * worker sending on the port reads it once a burst, and drops a
	 * longer packet as tx_mtu rather than hand it to a kernel that would
	 * drop it and count it only in the interface's tx_dropped.
	 */
	_Atomic uint32_t tx_frame_max;
	bool zerocopy;			/* the NIC writes frames: anywhere in them */
	bool sg;			/* bound for multi-buffer: packets may be chains */
	uint32_t max_frame;		/* the largest frame it carries, in and out */
	uint32_t mtu;			/* its interface's, as last seen (control loop); 0: none */
	const char *xdp_mode;		/* hdp_xdp_attach_mode(), once set up */
	int busy_error;			/* busy polling refused on the socket */
	uint32_t fill_target;		/* frames this port's fill ring may hold */
	/*
	 * Frames lent to the kernel: in the fill ring, in the kernel's hands,
	 * or on the RX ring not yet released. In copy mode never more than
	 * the RX ring holds (fwd_fill): the kernel copies a packet into a
	 * frame before it looks for room on the RX ring, and when there is
	 * none it keeps the frame, written, for its next packet, which may be
	 * shorter. Its RX descriptor would then not say where the kernel wrote.
	 */
	uint32_t lent;
	/* The packet being gathered from the RX ring, when it is a chain. */
	struct hdp_fwd_chain chain;
	struct hdp_port_stats stats HDP_CACHE_ALIGNED;
};

/* One direction: frames in on @in, out on @out. */
struct fwd_dir {
	struct fwd_port *in;
	struct fwd_port *out;
};

struct fwd_worker {
	struct hdp_fwd *f;
	pthread_t tid;
	int cpu;
	unsigned ndirs;
	struct fwd_dir dirs[HDP_FWD_PORTS_MAX];
	bool started;
};

struct hdp_fwd {
	struct hdp_fwd_cfg *cfg;
	/* The UMEM's frames: its pool, who holds each, what was written. */
	struct fwd_frames frames;
	struct xsk_umem *umem;
	unsigned nports;
	struct fwd_port ports[HDP_FWD_PORTS_MAX];
	/* One program per interface: its xsks_map is keyed by queue. */
	unsigned nprogs;
	struct {
		char ifname[IF_NAMESIZE];
		struct hdp_xdp_prog *prog;
	} progs[HDP_FWD_PORTS_MAX];
	unsigned nworkers;
	struct fwd_worker workers[HDP_FWD_CORES_MAX];
	atomic_bool stop;
	/*
	 * cfg->idle_spin_us, as the workers read it: a reload changes it
	 * while they run (they read it once an idle spell, relaxed).
	 */
	_Atomic uint32_t idle_spin_us;
	/* Busy polling: what was changed on each interface; its keeper. */
	unsigned nnapi;
	struct fwd_napi_saved napi_saved[HDP_FWD_PORTS_MAX];
	struct hdp_keeper keeper;	/* busy polling's (fd -1: none) */
	/* Loopback rings (hdp_fwd_create_loopback): memory the "kernel" uses. */
	void *loop_mem;
};

/*
 * The bytes of the frame at UMEM address @addr, as this CPU may touch
 * them (fwd_frames_data(): with its tag on arm64).
 */
static inline uint8_t *fwd_frame_data(const struct hdp_fwd *f, uint64_t addr)
{
	return fwd_frames_data(&f->frames, addr);
}

/* The worker's loop (burst.c); one pass of one direction. */
void *fwd_worker_main(void *arg);
unsigned fwd_forward(struct hdp_fwd *f, struct fwd_dir *d);

/*
 * The UMEM's frames and their pool (frames.c): made with the pool (0,
 * -EINVAL when the configuration is at fault, another negative errno),
 * taken from it and given back in bursts with what was written in each,
 * and at the end every held frame back and the pool destroyed, returning
 * the frames that did not come back.
 */
int fwd_frames_create(struct fwd_frames *fr, const struct hdp_pool_params *params,
		      const struct hdp_harden_config *harden);
unsigned fwd_frames_alloc(const struct fwd_frames *fr, uint64_t *addrs, unsigned n);
void fwd_frames_free(const struct fwd_frames *fr, const uint64_t *addrs, unsigned n);
unsigned fwd_frames_destroy(struct fwd_frames *fr);

/* Frames between the pool and a port's fill and completion rings (frames.c). */
unsigned fwd_fill(struct hdp_fwd *f, struct fwd_port *p, unsigned n);
void fwd_fill_all(struct hdp_fwd *f);
unsigned fwd_complete(struct hdp_fwd *f, struct fwd_port *p);

/* Each port's MTU as set up (mtu.c): the interfaces', none for loopback rings. */
void fwd_mtu_init(struct hdp_fwd *f);

/* Busy polling (busy.c): interfaces and sockets set up, and put back. */
int fwd_busy_keeper_start(struct hdp_fwd *f);
int fwd_busy_setup(struct hdp_fwd *f);
void fwd_busy_restore(struct hdp_fwd *f);
unsigned fwd_port_napi_id(const struct fwd_port *p);

#endif /* HDP_DATAPLANE_FWD_INTERNAL_H */
