// SPDX-License-Identifier: BSD-3-Clause
/*
 * The burst loop. A worker owns a set of directions; for each it gives
 * completed TX frames back to the pool, takes a burst from the input's RX
 * ring, checks every descriptor before touching its bytes, rewrites
 * headers for the mode, moves the descriptors to the output's TX ring
 * (one UMEM: descriptors move, bytes do not), kicks the kernel and refills
 * the input's fill ring. A pass that finds nothing sleeps in poll(), so
 * the kernel's receive work can run on the same core.
 */
#include "fwd_internal.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>

static void kick_tx(struct fwd_port *out)
{
	if (out->fd < 0)
		return;	/* loopback rings: nobody to wake */
	/*
	 * Copy mode sends at most 32 descriptors a call and says EAGAIN while
	 * more wait: keep going for this burst's worth, or the TX ring fills.
	 */
	for (uint32_t left = out->tx_outstanding + 32; left >= 32; left -= 32) {
		if (!xsk_ring_prod__needs_wakeup(&out->tx))
			return;
		hdp_counter_add(&out->stats.wakeups, 1);
		if (sendto(out->fd, NULL, 0, MSG_DONTWAIT, NULL, 0) >= 0 || errno != EAGAIN)
			return;
	}
}

/*
 * Busy polling: a syscall on the RX socket runs the port's receive work
 * (its NAPI, up to the budget) here, on this core, every pass the RX ring
 * has room for it.
 */
static void busy_poll_rx(struct fwd_port *in)
{
	if (in->fd < 0 || xsk_cons_nb_avail(&in->rx, in->rx.size) >= in->rx.size)
		return;
	hdp_counter_add(&in->stats.wakeups, 1);
	recvfrom(in->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
}

/*
 * What the kernel wrote into a frame: in copy mode the packet and any XDP
 * metadata before it, exactly; with zero copy the NIC may write anywhere
 * from the packet to the end of its buffer.
 */
static inline struct hdp_extent rx_extent(const struct fwd_port *in, struct xdp_desc desc,
					  uint32_t stride)
{
	uint32_t off = (uint32_t)(desc.addr & (stride - 1));

	return (struct hdp_extent){
		.start = off > HDP_XDP_META_LEN ? off - HDP_XDP_META_LEN : 0,
		.end = in->zerocopy ? stride : off + desc.len,
	};
}

/*
 * A descriptor that does not fit: the pool's own check reports it under
 * its policy (when bounds are on), and a chunk inside the UMEM goes back
 * to the pool, wiped whole (nobody knows what was written).
 */
HDP_COLD static void refuse_desc(struct hdp_fwd *f, struct xdp_desc d, uint64_t *drops,
				 unsigned *ndrops)
{
	void *unused;

	hdp_fwd_rx_desc(f->pool, d.addr, d.len, &unused);
	if (d.addr < f->lay.span) {
		f->ext[fwd_frame_of(f, d.addr)] = (struct hdp_extent){
			0, (uint32_t)f->lay.obj_size };
		drops[(*ndrops)++] = d.addr;
	}
}

unsigned fwd_forward(struct hdp_fwd *f, struct fwd_dir *d)
{
	struct fwd_port *in = d->in, *out = d->out;
	struct xdp_desc good[HDP_FWD_BATCH_MAX];
	uint64_t drops[HDP_FWD_BATCH_MAX];
	unsigned n, ngood = 0, ndrops = 0, room, invalid = 0, runts = 0;
	uint32_t rx_idx, tx_idx, stride = (uint32_t)f->lay.stride;
	uint64_t bytes = 0;

	fwd_complete(f, out);
	if (f->cfg->busy_poll)
		busy_poll_rx(in);
	n = xsk_ring_cons__peek(&in->rx, f->cfg->batch, &rx_idx);
	if (!n)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		struct xdp_desc desc = *xsk_ring_cons__rx_desc(&in->rx, rx_idx + i);
		uint8_t *data;

		/*
		 * Inside one chunk of the UMEM, whatever the profile (bounds=off
		 * must not mean a wild pointer): the pool's own test, inline.
		 */
		if (hdp_unlikely(!hdp_layout_holds(&f->lay, desc.addr, desc.len))) {
			refuse_desc(f, desc, drops, &ndrops);
			invalid++;
			continue;
		}
		data = fwd_frame_data(f, desc.addr);
		f->ext[fwd_frame_of(f, desc.addr)] = rx_extent(in, desc, stride);
		if (hdp_unlikely(hdp_fwd_rewrite(f->cfg->mode, data, desc.len, &out->cfg))) {
			drops[ndrops++] = desc.addr;
			runts++;
			continue;
		}
		bytes += desc.len;
		good[ngood++] = desc;
	}
	xsk_ring_cons__release(&in->rx, n);
	hdp_pool_count_desc_checks(f->pool, n);
	hdp_counter_add(&in->stats.rx_packets, n);
	hdp_counter_add(&in->stats.rx_bytes, bytes);
	if (invalid)
		hdp_counter_add(&in->stats.drop_invalid_desc, invalid);
	if (runts)
		hdp_counter_add(&in->stats.drop_runt, runts);

	room = xsk_prod_nb_free(&out->tx, ngood);
	room = room < ngood ? room : ngood;
	if (room && xsk_ring_prod__reserve(&out->tx, room, &tx_idx) == room) {
		for (unsigned i = 0; i < room; i++)
			*xsk_ring_prod__tx_desc(&out->tx, tx_idx + i) = good[i];
		xsk_ring_prod__submit(&out->tx, room);
		out->tx_outstanding += room;
		hdp_counter_add(&out->stats.tx_packets, room);
		for (unsigned i = 0; i < room; i++)
			hdp_counter_add(&out->stats.tx_bytes, good[i].len);
	} else {
		room = 0;
	}
	if (room < ngood) {
		hdp_counter_add(&out->stats.drop_tx_full, ngood - room);
		for (unsigned i = room; i < ngood; i++)
			drops[ndrops++] = good[i].addr;
	}
	if (out->tx_outstanding)
		kick_tx(out);
	if (ndrops)
		fwd_frames_free(f, drops, ndrops);
	/* One frame back into the fill ring for each frame received. */
	fwd_fill(f, in, n);
	return n;
}

/* Nothing came in: flush what is pending, then sleep until something does. */
static void idle(struct hdp_fwd *f, struct fwd_worker *w)
{
	struct pollfd fds[HDP_FWD_PORTS_MAX];
	bool pending = false;
	int timeout;

	for (unsigned i = 0; i < w->ndirs; i++) {
		struct fwd_dir *d = &w->dirs[i];

		if (d->out->tx_outstanding) {
			kick_tx(d->out);
			fwd_complete(f, d->out);
			pending |= d->out->tx_outstanding != 0;
		}
		/* Frames the pool could not give earlier: try again. */
		fwd_fill(f, d->in, f->cfg->batch);
		fds[i] = (struct pollfd){ .fd = d->in->fd, .events = POLLIN };
	}
	if (f->cfg->busy_poll)
		return;	/* the next pass's recvfrom runs the receive work */
	timeout = pending ? 1 : 100;
	for (unsigned i = 0; i < w->ndirs; i++)
		hdp_counter_add(&w->dirs[i].in->stats.wakeups, 1);
	poll(fds, w->ndirs, timeout);
}

void *fwd_worker_main(void *arg)
{
	struct fwd_worker *w = arg;
	struct hdp_fwd *f = w->f;

	while (!atomic_load_explicit(&f->stop, memory_order_relaxed)) {
		unsigned work = 0;

		for (unsigned i = 0; i < w->ndirs; i++)
			work += fwd_forward(f, &w->dirs[i]);
		if (!work)
			idle(f, w);
	}
	/* Leave the pool's caches to the pool: frames go back on exit. */
	hdp_pool_cache_flush(f->pool);
	return NULL;
}
