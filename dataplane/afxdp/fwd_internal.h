/* SPDX-License-Identifier: BSD-3-Clause */
/* The forwarder's state, shared by its setup, its loop and its stats. */
#ifndef HDP_DATAPLANE_FWD_INTERNAL_H
#define HDP_DATAPLANE_FWD_INTERNAL_H

#include <hdp/counter.h>
#include <hdp/fwd.h>
#include <hdp/keeper.h>
#include <hdp/xdp_prog.h>

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
	struct hdp_pool *pool;
	/*
	 * The UMEM's frames: the pool's slot layout, copied once when the
	 * pool is made (it never changes), so that the burst loop reads it
	 * without a pointer to chase after every call it makes.
	 */
	struct hdp_layout lay;
	unsigned frame_shift;		/* log2(lay.stride): frames are 2 or 4 KiB */
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
	/*
	 * Frames hdp-fwd holds, by frame index: bits 0..1 where (enum
	 * fwd_frame_state, 0 in the pool), bits 4..7 the memory tag the pool
	 * gave it (UMEM addresses carry none, and with MTE the CPU checks
	 * every access against it), bits 8..15 the port whose TX ring has it.
	 */
	_Atomic uint16_t *held;
	/*
	 * Per frame, what the last RX descriptor says the kernel wrote. Set
	 * before every free of a frame that came in, and to the whole frame
	 * for one that comes back without a descriptor (refused, or left in
	 * a ring at the end).
	 */
	struct hdp_extent *ext;
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

/* The frame holding UMEM address @addr (descriptors may carry an offset). */
static inline uint32_t fwd_frame_of(const struct hdp_fwd *f, uint64_t addr)
{
	return (uint32_t)(addr >> f->frame_shift);
}

/*
 * Where a frame hdp-fwd holds is (held[], bits 0..1; 0: in the pool). The
 * kernel hands back only what it was handed: an RX descriptor a frame that
 * was LENT, a completion one that was ON_TX, each once.
 */
enum fwd_frame_state {
	FWD_FRAME_LENT = 1,	/* in a fill ring: the kernel's, to hand back in RX */
	FWD_FRAME_TAKEN = 2,	/* handed back: in a chain, in flight, being dropped */
	FWD_FRAME_ON_TX = 3,	/* on a TX ring (its port kept): to hand back completed */
};

#define FWD_HELD_STATE 0x0003u
#define FWD_HELD_PORT_SHIFT 8
#define FWD_HELD_WHERE (FWD_HELD_STATE | 0xff00u)	/* state and TX port */
_Static_assert(HDP_FWD_PORTS_MAX <= 256, "a port index in held[]'s 8 bits");

/*
 * @addr's frame to @to (a state and port, in FWD_HELD_WHERE), if it is at
 * @from; false if not, or not in the UMEM.
 */
static inline bool fwd_frame_move(struct hdp_fwd *f, uint64_t addr, uint16_t from, uint16_t to)
{
	_Atomic uint16_t *h;
	uint16_t was;

	if (hdp_unlikely(addr >= f->lay.span))
		return false;
	h = &f->held[fwd_frame_of(f, addr)];
	was = atomic_load_explicit(h, memory_order_relaxed);
	/* Another worker's port may name it too (a forged descriptor): one wins. */
	return (was & FWD_HELD_WHERE) == from &&
	       atomic_compare_exchange_strong_explicit(h, &was,
						       (uint16_t)((was & ~FWD_HELD_WHERE) | to),
						       memory_order_relaxed, memory_order_relaxed);
}

/* A frame this pass took goes on port @port's TX ring: nobody else moves it now. */
static inline void fwd_frame_on_tx(struct hdp_fwd *f, uint64_t addr, unsigned port)
{
	_Atomic uint16_t *h = &f->held[fwd_frame_of(f, addr)];
	uint16_t was = atomic_load_explicit(h, memory_order_relaxed);

	atomic_store_explicit(h, (uint16_t)((was & ~FWD_HELD_WHERE) | FWD_FRAME_ON_TX |
					     port << FWD_HELD_PORT_SHIFT),
			      memory_order_relaxed);
}

/*
 * A completion on port @port hands back the frame at @addr: only if it is
 * on that port's TX ring (one on another port's would be freed while that
 * port still sends it).
 */
static inline bool fwd_frame_sent(struct hdp_fwd *f, uint64_t addr, unsigned port)
{
	return fwd_frame_move(f, addr, (uint16_t)(FWD_FRAME_ON_TX | port << FWD_HELD_PORT_SHIFT),
			      FWD_FRAME_TAKEN);
}

/*
 * An RX descriptor hands back the frame at @addr: taken only if it was
 * lent, in a fill ring, and only once. A descriptor naming a frame on TX,
 * in a chain, in the pool, or one handed back already is no frame of the
 * kernel's: forwarding it would send one frame as two packets and free it
 * twice (a double free, or worse without records).
 */
static inline bool fwd_frame_take(struct hdp_fwd *f, uint64_t addr)
{
	return fwd_frame_move(f, addr, FWD_FRAME_LENT, FWD_FRAME_TAKEN);
}

/*
 * The bytes of the frame at UMEM address @addr, as this CPU may touch
 * them: on arm64 the pointer carries the frame's tag (MTE checks it);
 * elsewhere tags come off (hdp_deref()).
 */
static inline uint8_t *fwd_frame_data(const struct hdp_fwd *f, uint64_t addr)
{
	unsigned tag = atomic_load_explicit(&f->held[fwd_frame_of(f, addr)],
					    memory_order_relaxed) >> 4 & 0xf;

	return hdp_deref((void *)((f->lay.base + (uintptr_t)addr) |
				  (uintptr_t)tag << HDP_TAG_SHIFT));
}

/*
 * What the kernel wrote into a frame: in copy mode the packet and any XDP
 * metadata before it, exactly; with zero copy the NIC may write anywhere
 * from the packet to the end of its buffer.
 */
static inline struct hdp_extent fwd_rx_extent(const struct fwd_port *in, struct xdp_desc desc,
					      uint32_t stride)
{
	uint32_t off = (uint32_t)(desc.addr & (stride - 1));

	return (struct hdp_extent){
		.start = off > HDP_XDP_META_LEN ? off - HDP_XDP_META_LEN : 0,
		.end = in->zerocopy ? stride : off + desc.len,
	};
}

/*
 * One pass of one direction: the descriptors on their way out (a chain's
 * all but its last marked XDP_PKT_CONTD), the frames on their way back to
 * the pool, and the packets dropped, by cause. A chain gathered over
 * earlier passes can join the pass's own descriptors.
 */
struct fwd_burst {
	unsigned ngood, ndrops;
	unsigned good_contd;		/* of good[], those marked to go on */
	uint32_t tx_frame_max;		/* the output's, read once for the burst */
	unsigned tx_mtu;		/* packets longer than that: the output's drops */
	unsigned rx_contd;		/* descriptors received that a packet goes on from */
	uint64_t bytes;
	uint32_t dropped[HDP_FWD_DROP__COUNT];
	struct xdp_desc good[HDP_FWD_BATCH_MAX + HDP_FWD_CHAIN_MAX];
	uint64_t drops[HDP_FWD_BATCH_MAX + HDP_FWD_CHAIN_MAX];
};

/* A descriptor of a packet in a chain (chain.c). */
void fwd_rx_chained(struct hdp_fwd *f, struct fwd_port *in, const struct fwd_port *out,
		    struct xdp_desc desc, struct fwd_burst *b);

/* The worker's loop (burst.c); one pass of one direction. */
void *fwd_worker_main(void *arg);
unsigned fwd_forward(struct hdp_fwd *f, struct fwd_dir *d);

/* Frames between the pool and the rings (frames.c). */
unsigned fwd_frames_alloc(struct hdp_fwd *f, uint64_t *addrs, unsigned n);
void fwd_frames_free(struct hdp_fwd *f, const uint64_t *addrs, unsigned n);
unsigned fwd_fill(struct hdp_fwd *f, struct fwd_port *p, unsigned n);
void fwd_fill_all(struct hdp_fwd *f);
unsigned fwd_complete(struct hdp_fwd *f, struct fwd_port *p);
/* At the end: every held frame back, the pool destroyed; returns the lost. */
unsigned fwd_frames_return_all(struct hdp_fwd *f);

/* Each port's MTU as set up (mtu.c): the interfaces', none for loopback rings. */
void fwd_mtu_init(struct hdp_fwd *f);

/* Busy polling (busy.c): interfaces and sockets set up, and put back. */
int fwd_busy_keeper_start(struct hdp_fwd *f);
int fwd_busy_setup(struct hdp_fwd *f);
void fwd_busy_restore(struct hdp_fwd *f);
unsigned fwd_port_napi_id(const struct fwd_port *p);

#endif /* HDP_DATAPLANE_FWD_INTERNAL_H */
