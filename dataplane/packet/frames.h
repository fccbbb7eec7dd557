/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UMEM's frames as a burst sees them, with no socket in sight: which
 * frames the forwarder holds and where (lent to the kernel, taken back,
 * on a TX ring), the memory tag each carries, what the kernel wrote in
 * each; and one pass of one direction, its descriptors on their way out
 * and its frames on their way back. The AF_XDP engine (afxdp/) keeps its
 * frames here; the chain path (chain.c) needs nothing more, so it builds
 * without libxdp.
 */
#ifndef HDP_PACKET_FRAMES_H
#define HDP_PACKET_FRAMES_H

#include <hdp/fwd.h>
#include <hdp/pool.h>

/*
 * The UMEM's frames. @lay is the pool's slot layout, copied once when the
 * pool is made (it never changes), so that the burst loop reads it
 * without a pointer to chase after every call it makes.
 */
struct fwd_frames {
	struct hdp_pool *pool;
	struct hdp_layout lay;
	unsigned shift;			/* log2(lay.stride): frames are 2 or 4 KiB */
	/*
	 * By frame index: bits 0..1 where the frame is (enum
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
};

/* The frame holding UMEM address @addr (descriptors may carry an offset). */
static inline uint32_t fwd_frames_index(const struct fwd_frames *fr, uint64_t addr)
{
	return (uint32_t)(addr >> fr->shift);
}

/*
 * Where a frame the forwarder holds is (held[], bits 0..1; 0: in the
 * pool). The kernel hands back only what it was handed: an RX descriptor
 * a frame that was LENT, a completion one that was ON_TX, each once.
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
static inline bool fwd_frames_move(const struct fwd_frames *fr, uint64_t addr, uint16_t from,
				   uint16_t to)
{
	_Atomic uint16_t *h;
	uint16_t was;

	if (hdp_unlikely(addr >= fr->lay.span))
		return false;
	h = &fr->held[fwd_frames_index(fr, addr)];
	was = atomic_load_explicit(h, memory_order_relaxed);
	/* Another worker's port may name it too (a forged descriptor): one wins. */
	return (was & FWD_HELD_WHERE) == from &&
	       atomic_compare_exchange_strong_explicit(h, &was,
						       (uint16_t)((was & ~FWD_HELD_WHERE) | to),
						       memory_order_relaxed, memory_order_relaxed);
}

/* A frame this pass took goes on port @port's TX ring: nobody else moves it now. */
static inline void fwd_frames_on_tx(const struct fwd_frames *fr, uint64_t addr, unsigned port)
{
	_Atomic uint16_t *h = &fr->held[fwd_frames_index(fr, addr)];
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
static inline bool fwd_frames_sent(const struct fwd_frames *fr, uint64_t addr, unsigned port)
{
	return fwd_frames_move(fr, addr,
			       (uint16_t)(FWD_FRAME_ON_TX | port << FWD_HELD_PORT_SHIFT),
			       FWD_FRAME_TAKEN);
}

/*
 * An RX descriptor hands back the frame at @addr: taken only if it was
 * lent, in a fill ring, and only once. A descriptor naming a frame on TX,
 * in a chain, in the pool, or one handed back already is no frame of the
 * kernel's: forwarding it would send one frame as two packets and free it
 * twice (a double free, or worse without records).
 */
static inline bool fwd_frames_take(const struct fwd_frames *fr, uint64_t addr)
{
	return fwd_frames_move(fr, addr, FWD_FRAME_LENT, FWD_FRAME_TAKEN);
}

/*
 * The bytes of the frame at UMEM address @addr, as this CPU may touch
 * them: on arm64 the pointer carries the frame's tag (MTE checks it);
 * elsewhere tags come off (hdp_deref()).
 */
static inline uint8_t *fwd_frames_data(const struct fwd_frames *fr, uint64_t addr)
{
	unsigned tag = atomic_load_explicit(&fr->held[fwd_frames_index(fr, addr)],
					    memory_order_relaxed) >> 4 & 0xf;

	return hdp_deref((void *)((fr->lay.base + (uintptr_t)addr) |
				  (uintptr_t)tag << HDP_TAG_SHIFT));
}

/* A frame back without a word of where the kernel wrote: wiped whole. */
static inline void fwd_frames_written_whole(const struct fwd_frames *fr, uint64_t addr)
{
	fr->ext[fwd_frames_index(fr, addr)] = (struct hdp_extent){ 0, (uint32_t)fr->lay.obj_size };
}

/*
 * What the kernel wrote into a frame: in copy mode the packet and any XDP
 * metadata before it, exactly; with zero copy (@zerocopy) the NIC may
 * write anywhere from the packet to the end of its buffer.
 */
static inline struct hdp_extent fwd_rx_extent(bool zerocopy, struct xdp_desc desc,
					      uint32_t stride)
{
	uint32_t off = (uint32_t)(desc.addr & (stride - 1));

	return (struct hdp_extent){
		.start = off > HDP_XDP_META_LEN ? off - HDP_XDP_META_LEN : 0,
		.end = zerocopy ? stride : off + desc.len,
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

/* What the chain path needs of a direction's two ports. */
struct fwd_chain_dir {
	struct hdp_fwd_chain *chain;	/* the input's packet being gathered */
	bool in_zerocopy;		/* where the kernel wrote: fwd_rx_extent() */
	bool out_sg;			/* the output is bound for chains */
	const struct hdp_port_cfg *out;	/* the rewrite's MACs */
	enum hdp_fwd_mode mode;
};

/*
 * A descriptor that is part of a chain, or follows a chain dropped
 * before (chain.c): gathered, judged, and once whole into @b's good
 * descriptors, or its frames into @b's drops.
 */
void fwd_chain_rx(const struct fwd_frames *fr, const struct fwd_chain_dir *cd,
		  struct xdp_desc desc, struct fwd_burst *b);

#endif /* HDP_PACKET_FRAMES_H */
