// SPDX-License-Identifier: BSD-3-Clause
/*
 * The forwarder with no kernel in the loop: each port's four rings live in
 * plain memory, and hdp_fwd_loopback_step() plays the kernel's part (take
 * frames from the fill ring, write a packet into each, post RX
 * descriptors, a packet larger than a frame as a chain of them; complete
 * whatever was put on the TX rings). The forwarding itself is the real
 * thing, fwd_forward(), so hdp-bench micro measures the forwarder's own
 * code path and its hardening, not a copy of it. Tests play a kernel that
 * writes what it likes (hdp_fwd_loopback_take, _post).
 */
#include "fwd_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"

#define HEADROOM 256	/* where copy-mode AF_XDP puts a packet in its chunk */

/*
 * The kernel writes packets into frames through its own mapping, which no
 * tag check sees: with MTE on the UMEM, this "kernel" turns the checks off
 * around its copies (PSTATE.TCO), as no code of hdp-fwd's ever does.
 */
static inline void kernel_unchecked(bool unchecked)
{
#if defined(__aarch64__) && HDP_HAVE_MTE
	if (unchecked)
		__asm__ volatile(".arch armv8.5-a+memtag\n\tmsr tco, #1" ::: "memory");
	else
		__asm__ volatile(".arch armv8.5-a+memtag\n\tmsr tco, #0" ::: "memory");
#else
	(void)unchecked;
#endif
}

struct ring_mem {
	uint32_t producer HDP_CACHE_ALIGNED;
	uint32_t consumer HDP_CACHE_ALIGNED;
	uint32_t flags HDP_CACHE_ALIGNED;
};

struct loop_port {
	struct ring_mem fill, comp, rx, tx;
	bool tx_stalled;		/* the link is busy: TX waits */
	uint64_t *fill_ring, *comp_ring;
	struct xdp_desc *rx_ring, *tx_ring;
};

static void prod_init(struct xsk_ring_prod *r, struct ring_mem *m, void *ring,
		      uint32_t size)
{
	*r = (struct xsk_ring_prod){
		.cached_prod = 0, .cached_cons = size, .mask = size - 1, .size = size,
		.producer = &m->producer, .consumer = &m->consumer, .ring = ring,
		.flags = &m->flags,
	};
}

static void cons_init(struct xsk_ring_cons *r, struct ring_mem *m, void *ring,
		      uint32_t size)
{
	*r = (struct xsk_ring_cons){
		.mask = size - 1, .size = size, .producer = &m->producer,
		.consumer = &m->consumer, .ring = ring, .flags = &m->flags,
	};
}

struct hdp_fwd *hdp_fwd_create_loopback(struct hdp_fwd_cfg *cfg)
{
	struct hdp_fwd *f = calloc(1, sizeof(*f));
	struct loop_port *lp;
	uint32_t rs = cfg->ring_size, fs = cfg->fill_size;

	if (!f)
		return NULL;
	f->cfg = cfg;
	f->nports = cfg->nports;
	f->keeper.fd = -1;
	lp = calloc(cfg->nports, sizeof(*lp));
	f->loop_mem = lp;
	if (!lp || fwd_frames_create(&f->frames, &(struct hdp_pool_params){
			.name = HDP_FWD_UMEM_POOL, .obj_size = cfg->frame_size,
			.obj_align = cfg->frame_size, .obj_count = cfg->frames,
		     }, &cfg->harden))
		goto err;
	for (unsigned i = 0; i < f->nports; i++) {
		struct fwd_port *p = &f->ports[i];

		p->cfg = cfg->ports[i];
		p->cfg.peer = cfg->ports[i].peer;
		p->fd = -1;
		/* No interface, no MTU: as large as max_frame says, or any. */
		p->max_frame = cfg->max_frame ? cfg->max_frame : HDP_FWD_MAX_FRAME_MAX;
		p->sg = hdp_fwd_frames_for(p->max_frame, cfg->frame_size) > 1;
		lp[i].fill_ring = calloc(fs, sizeof(uint64_t));
		lp[i].comp_ring = calloc(fs, sizeof(uint64_t));
		lp[i].rx_ring = calloc(rs, sizeof(struct xdp_desc));
		lp[i].tx_ring = calloc(rs, sizeof(struct xdp_desc));
		if (!lp[i].fill_ring || !lp[i].comp_ring || !lp[i].rx_ring || !lp[i].tx_ring)
			goto err;
		prod_init(&p->fill, &lp[i].fill, lp[i].fill_ring, fs);
		cons_init(&p->comp, &lp[i].comp, lp[i].comp_ring, fs);
		cons_init(&p->rx, &lp[i].rx, lp[i].rx_ring, rs);
		prod_init(&p->tx, &lp[i].tx, lp[i].tx_ring, rs);
	}
	fwd_mtu_init(f);
	fwd_fill_all(f);
	return f;
err:
	hdp_log(HDP_LOG_ERR, "cannot build the loopback forwarder");
	hdp_fwd_loopback_destroy(f);
	return NULL;
}

/*
 * The kernel's RX: up to @n packets into frames from the fill ring, each
 * in as many frames as it takes (a chain, all but its last descriptor
 * marked to go on).
 */
static unsigned kernel_rx(struct hdp_fwd *f, unsigned port, const uint8_t *pkt,
			  uint32_t len, unsigned n)
{
	struct loop_port *lp = &((struct loop_port *)f->loop_mem)[port];
	uint32_t fmask = f->cfg->fill_size - 1, rmask = f->cfg->ring_size - 1, used;
	uint32_t fc = lp->fill.consumer, rp = lp->rx.producer;
	uint32_t avail = lp->fill.producer - fc, room = rmask + 1 - (rp - lp->rx.consumer);
	uint32_t per = hdp_fwd_frame_room(f->cfg->frame_size);
	uint32_t frags = hdp_fwd_frames_for(len, f->cfg->frame_size);
	char *base = (char *)f->frames.lay.base;

	n = n < avail / frags ? n : avail / frags;
	n = n < room / frags ? n : room / frags;
	kernel_unchecked(true);
	for (used = 0; frags == 1 && used < n; used++) {
		uint64_t addr = lp->fill_ring[(fc + used) & fmask] + HEADROOM;

		memcpy(base + addr, pkt, len);
		lp->rx_ring[(rp + used) & rmask] = (struct xdp_desc){ .addr = addr, .len = len };
	}
	for (uint32_t k = 0; frags > 1 && k < n; k++) {
		/* The last (or only) frame holds what is left of the packet. */
		for (uint32_t j = 0; j < frags; j++, used++) {
			uint64_t addr = lp->fill_ring[(fc + used) & fmask] + HEADROOM;
			bool last = j + 1 == frags;
			uint32_t part = last ? len - j * per : per;

			memcpy(base + addr, pkt + j * per, part);
			lp->rx_ring[(rp + used) & rmask] = (struct xdp_desc){
				.addr = addr, .len = part, .options = last ? 0 : XDP_PKT_CONTD };
		}
	}
	kernel_unchecked(false);
	__atomic_store_n(&lp->fill.consumer, fc + used, __ATOMIC_RELEASE);
	__atomic_store_n(&lp->rx.producer, rp + used, __ATOMIC_RELEASE);
	return n;
}

unsigned hdp_fwd_loopback_take(struct hdp_fwd *f, unsigned port, uint64_t *frames, unsigned n)
{
	struct loop_port *lp = &((struct loop_port *)f->loop_mem)[port];
	uint32_t fs = f->cfg->fill_size, avail = lp->fill.producer - lp->fill.consumer;

	n = n < avail ? n : avail;
	for (unsigned k = 0; k < n; k++)
		frames[k] = lp->fill_ring[(lp->fill.consumer + k) & (fs - 1)];
	__atomic_store_n(&lp->fill.consumer, lp->fill.consumer + n, __ATOMIC_RELEASE);
	return n;
}

/* The kernel's TX: everything on the TX ring is sent and completed. */
static unsigned kernel_tx(struct hdp_fwd *f, unsigned port)
{
	struct loop_port *lp = &((struct loop_port *)f->loop_mem)[port];
	uint32_t fs = f->cfg->fill_size, rs = f->cfg->ring_size;
	uint32_t n = lp->tx_stalled ? 0 : lp->tx.producer - lp->tx.consumer;
	uint32_t room = fs - (lp->comp.producer - lp->comp.consumer);

	n = n < room ? n : room;
	for (uint32_t k = 0; k < n; k++)
		lp->comp_ring[(lp->comp.producer + k) & (fs - 1)] =
			lp->tx_ring[(lp->tx.consumer + k) & (rs - 1)].addr;
	__atomic_store_n(&lp->tx.consumer, lp->tx.consumer + n, __ATOMIC_RELEASE);
	__atomic_store_n(&lp->comp.producer, lp->comp.producer + n, __ATOMIC_RELEASE);
	return n;
}

unsigned hdp_fwd_loopback_step(struct hdp_fwd *f, const uint8_t *pkt, uint32_t len,
			       unsigned burst)
{
	return hdp_fwd_loopback_step_ports(f, 0, f->nports, pkt, len, burst);
}

/* Packets sent on the ports [@first, @first + @n). */
static uint64_t sent(struct hdp_fwd *f, unsigned first, unsigned n)
{
	uint64_t sum = 0;

	for (unsigned i = first; i < first + n && i < f->nports; i++)
		sum += atomic_load_explicit(&f->ports[i].stats.tx_packets, memory_order_relaxed);
	return sum;
}

unsigned hdp_fwd_loopback_step_ports(struct hdp_fwd *f, unsigned first, unsigned n,
				     const uint8_t *pkt, uint32_t len, unsigned burst)
{
	uint64_t before = sent(f, first, n);

	for (unsigned i = first; i < first + n && i < f->nports; i++) {
		struct fwd_dir d = { &f->ports[i], &f->ports[f->ports[i].cfg.peer] };

		kernel_rx(f, i, pkt, len, burst);
		fwd_forward(f, &d);
		kernel_tx(f, (unsigned)f->ports[i].cfg.peer);
	}
	return (unsigned)(sent(f, first, n) - before);
}

unsigned hdp_fwd_loopback_post(struct hdp_fwd *f, unsigned port, const struct xdp_desc *d,
			       unsigned n)
{
	struct loop_port *lp = &((struct loop_port *)f->loop_mem)[port];
	uint32_t rs = f->cfg->ring_size, room = rs - (lp->rx.producer - lp->rx.consumer);
	struct fwd_dir dir = { &f->ports[port], &f->ports[f->ports[port].cfg.peer] };
	unsigned taken = 0, got;

	n = n < room ? n : room;
	for (unsigned k = 0; k < n; k++)
		lp->rx_ring[(lp->rx.producer + k) & (rs - 1)] = d[k];
	__atomic_store_n(&lp->rx.producer, lp->rx.producer + n, __ATOMIC_RELEASE);
	while (taken < n && (got = fwd_forward(f, &dir)) != 0) {
		taken += got;
		kernel_tx(f, (unsigned)f->ports[port].cfg.peer);
	}
	fwd_complete(f, dir.out);
	return n;
}

unsigned hdp_fwd_loopback_complete(struct hdp_fwd *f, unsigned port, const uint64_t *addrs,
				   unsigned n)
{
	struct loop_port *lp = &((struct loop_port *)f->loop_mem)[port];
	uint32_t fs = f->cfg->fill_size, room = fs - (lp->comp.producer - lp->comp.consumer);

	n = n < room ? n : room;
	for (unsigned k = 0; k < n; k++)
		lp->comp_ring[(lp->comp.producer + k) & (fs - 1)] = addrs[k];
	__atomic_store_n(&lp->comp.producer, lp->comp.producer + n, __ATOMIC_RELEASE);
	fwd_complete(f, &f->ports[port]);
	return n;
}

void hdp_fwd_loopback_stall(struct hdp_fwd *f, unsigned port, bool stalled)
{
	((struct loop_port *)f->loop_mem)[port].tx_stalled = stalled;
	if (!stalled)
		kernel_tx(f, port);
}

/*
 * Every frame back from the rings: what is on RX forwarded, TX sent and
 * completed, the fill rings emptied (their frames unwritten since they
 * were lent). 0, or -EBUSY when a frame is still out (a chain half
 * gathered from a descriptor a test posted).
 */
static int take_all_back(struct hdp_fwd *f)
{
	struct loop_port *lp = f->loop_mem;
	uint32_t fmask = f->cfg->fill_size - 1;

	for (unsigned i = 0; i < f->nports; i++) {
		struct fwd_dir d = { &f->ports[i], &f->ports[f->ports[i].cfg.peer] };

		lp[i].tx_stalled = false;
		while (lp[i].rx.producer != lp[i].rx.consumer && fwd_forward(f, &d))
			kernel_tx(f, (unsigned)d.in->cfg.peer);
	}
	for (unsigned i = 0; i < f->nports; i++) {
		kernel_tx(f, i);
		while (fwd_complete(f, &f->ports[i]))
			;
	}
	for (unsigned i = 0; i < f->nports; i++) {
		while (lp[i].fill.consumer != lp[i].fill.producer) {
			uint64_t addr = lp[i].fill_ring[lp[i].fill.consumer++ & fmask];

			f->frames.ext[fwd_frames_index(&f->frames, addr)] = (struct hdp_extent){ 0, 0 };
			fwd_frames_free(&f->frames, &addr, 1);
		}
	}
	for (uint32_t idx = 0; idx < f->frames.lay.slots; idx++)
		if (f->frames.held[idx])
			return -EBUSY;
	return 0;
}

static int by_address_down(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)hdp_untag(*(void *const *)a);
	uintptr_t y = (uintptr_t)hdp_untag(*(void *const *)b);

	return x < y ? 1 : x > y ? -1 : 0;
}

/*
 * The pool's frames in the order a fresh pool hands them out, lowest
 * address first: all taken out, and freed back highest first, unwritten.
 * (A quarantine on the pool would hold them back in an order of its own.)
 */
static int restack(struct hdp_fwd *f)
{
	struct hdp_pool *pool = f->frames.pool;
	uint32_t slots = f->frames.lay.slots, got = 0, k;
	static const struct hdp_extent unwritten[64];
	void **objs = calloc(slots, sizeof(*objs));

	if (!objs)
		return -ENOMEM;
	hdp_pool_drain(pool);
	while (got < slots &&
	       (k = hdp_pool_alloc_burst(pool, objs + got, slots - got < 64 ? slots - got : 64)))
		got += k;
	qsort(objs, got, sizeof(*objs), by_address_down);
	for (uint32_t at = 0; at < got; at += k) {
		k = got - at < 64 ? got - at : 64;
		hdp_pool_free_burst_extent(pool, objs + at, unwritten, k);
	}
	hdp_pool_drain(pool);
	free(objs);
	return 0;
}

int hdp_fwd_loopback_reset(struct hdp_fwd *f)
{
	struct loop_port *lp = f->loop_mem;
	uint32_t rs = f->cfg->ring_size, fs = f->cfg->fill_size;
	int ret = take_all_back(f);

	if (ret || (ret = restack(f)))
		return ret;
	for (unsigned i = 0; i < f->nports; i++) {
		struct fwd_port *p = &f->ports[i];

		/* Every ring empty: from index 0 again, as when made. */
		memset(&lp[i].fill, 0, sizeof(lp[i].fill));
		memset(&lp[i].comp, 0, sizeof(lp[i].comp));
		memset(&lp[i].rx, 0, sizeof(lp[i].rx));
		memset(&lp[i].tx, 0, sizeof(lp[i].tx));
		prod_init(&p->fill, &lp[i].fill, lp[i].fill_ring, fs);
		cons_init(&p->comp, &lp[i].comp, lp[i].comp_ring, fs);
		cons_init(&p->rx, &lp[i].rx, lp[i].rx_ring, rs);
		prod_init(&p->tx, &lp[i].tx, lp[i].tx_ring, rs);
		p->lent = 0;
		p->tx_outstanding = 0;
	}
	fwd_fill_all(f);
	return 0;
}

unsigned hdp_fwd_loopback_destroy(struct hdp_fwd *f)
{
	struct loop_port *lp;
	unsigned lost;

	if (!f)
		return 0;
	lp = f->loop_mem;
	lost = fwd_frames_destroy(&f->frames);
	for (unsigned i = 0; lp && i < f->nports; i++) {
		free(lp[i].fill_ring);
		free(lp[i].comp_ring);
		free(lp[i].rx_ring);
		free(lp[i].tx_ring);
	}
	free(lp);
	free(f);
	return lost;
}
