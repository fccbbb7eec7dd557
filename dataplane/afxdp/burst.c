// SPDX-License-Identifier: BSD-3-Clause
/*
 * The burst loop. A worker owns a set of directions; for each it gives
 * completed TX frames back to the pool, takes a burst from the input's RX
 * ring, checks every descriptor before touching its bytes, rewrites
 * headers for the mode, moves the descriptors to the output's TX ring
 * (one UMEM: descriptors move, bytes do not), kicks the kernel and refills
 * the input's fill ring. A pass that finds nothing sleeps in poll(), so
 * the kernel's receive work can run on the same core; with idle_spin_us,
 * only once that long has gone by without work, passing again meanwhile
 * and yielding the CPU between passes (the receive work may be a NAPI
 * thread on this core): a packet that comes then pays no wake-up.
 */
#include "fwd_internal.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

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
 * A descriptor that does not fit: the pool's own check reports it under
 * its policy (when bounds are on), and a chunk inside the UMEM that was
 * lent goes back to the pool, wiped whole (nobody knows what was written).
 */
HDP_COLD static void refuse_desc(struct hdp_fwd *f, struct xdp_desc d, struct fwd_burst *b)
{
	void *unused;

	hdp_fwd_rx_desc(f->frames.pool, d.addr, d.len, &unused);
	b->dropped[HDP_FWD_DROP_INVALID_DESC]++;
	if (fwd_frames_take(&f->frames, d.addr)) {	/* outside the UMEM: false */
		fwd_frames_written_whole(&f->frames, d.addr);
		b->drops[b->ndrops++] = d.addr;
	}
}

/*
 * A descriptor naming a frame that was not lent (fwd_frames_take): dropped
 * and counted as not_lent, a violation of the pool when bounds are on, and
 * the frame left where it is, with whoever holds it.
 */
HDP_COLD static void refuse_not_lent(struct hdp_fwd *f, struct xdp_desc d, struct fwd_burst *b)
{
	char detail[80];

	snprintf(detail, sizeof(detail), "frame %u is not in a fill ring",
		 fwd_frames_index(&f->frames, d.addr));
	hdp_pool_desc_refuse(f->frames.pool, HDP_V_DESC_NOT_LENT, d.addr, d.len, detail);
	b->dropped[HDP_FWD_DROP_NOT_LENT]++;
}

/* What came in, and was dropped, on @in: the counters, once a burst. */
static void count_rx(struct hdp_fwd *f, struct fwd_port *in, unsigned n,
		     const struct fwd_burst *b)
{
	hdp_pool_count_desc_checks(f->frames.pool, n);
	/* A packet counts once, at its last frame (no XDP_PKT_CONTD), forwarded or dropped. */
	hdp_counter_add(&in->stats.rx_packets, n - b->rx_contd);
	hdp_counter_add(&in->stats.rx_frags, n);
	hdp_counter_add(&in->stats.rx_bytes, b->bytes);
	for (unsigned i = 0; i < HDP_FWD_DROP__COUNT; i++)
		if (b->dropped[i])
			hdp_counter_add(&in->stats.drops[i], b->dropped[i]);
}

/*
 * The burst onto the output's TX ring, as far as it has room: never part
 * of a chain (the kernel would send the part as a packet). What does not
 * fit is dropped, packets whole. The output counts what its MTU kept out.
 */
static void send_burst(struct hdp_fwd *f, struct fwd_port *out, struct fwd_burst *b)
{
	unsigned room = xsk_prod_nb_free(&out->tx, b->ngood), packets, contd = 0;
	uint64_t bytes = 0;
	uint32_t tx_idx;

	if (hdp_unlikely(b->tx_mtu))
		hdp_counter_add(&out->stats.drops[HDP_FWD_DROP_TX_MTU], b->tx_mtu);
	room = room < b->ngood ? room : b->ngood;
	if (hdp_unlikely(room < b->ngood && b->good_contd))
		while (room && (b->good[room - 1].options & XDP_PKT_CONTD))
			room--;
	if (room && xsk_ring_prod__reserve(&out->tx, room, &tx_idx) == room) {
		for (unsigned i = 0; i < room; i++) {
			fwd_frames_on_tx(&f->frames, b->good[i].addr, (unsigned)(out - f->ports));
			*xsk_ring_prod__tx_desc(&out->tx, tx_idx + i) = b->good[i];
			bytes += b->good[i].len;
			contd += b->good[i].options & XDP_PKT_CONTD;
		}
		xsk_ring_prod__submit(&out->tx, room);
		out->tx_outstanding += room;
		hdp_counter_add(&out->stats.tx_packets, room - contd);
		hdp_counter_add(&out->stats.tx_frags, room);
		hdp_counter_add(&out->stats.tx_bytes, bytes);
	} else {
		room = 0;
	}
	if (room < b->ngood) {
		packets = b->ngood - room - (b->good_contd - contd);
		hdp_counter_add(&out->stats.drops[HDP_FWD_DROP_TX_FULL], packets);
		for (unsigned i = room; i < b->ngood; i++)
			b->drops[b->ndrops++] = b->good[i].addr;
	}
}

unsigned fwd_forward(struct hdp_fwd *f, struct fwd_dir *d)
{
	struct fwd_port *in = d->in, *out = d->out;
	struct fwd_burst b;
	const struct fwd_frames *fr = &f->frames;
	uint32_t rx_idx, stride = (uint32_t)fr->lay.stride;
	bool rewrite, chained;
	unsigned n;

	fwd_complete(f, out);
	if (f->cfg->busy_poll)
		busy_poll_rx(in);
	n = xsk_ring_cons__peek(&in->rx, f->cfg->batch, &rx_idx);
	if (!n)
		return 0;
	b.ngood = b.ndrops = b.good_contd = b.rx_contd = b.tx_mtu = 0;
	b.bytes = 0;
	b.tx_frame_max = atomic_load_explicit(&out->tx_frame_max, memory_order_relaxed);
	memset(b.dropped, 0, sizeof(b.dropped));
	/* io mode touches no byte: no call per packet to find that out. */
	rewrite = f->cfg->mode != HDP_FWD_IO;
	chained = in->chain.n || in->chain.discard;
	for (unsigned i = 0; i < n; i++) {
		struct xdp_desc desc = *xsk_ring_cons__rx_desc(&in->rx, rx_idx + i);

		/* A packet of more than one frame, or the rest of one. */
		if (hdp_unlikely(desc.options | chained)) {
			fwd_chain_rx(fr, &(const struct fwd_chain_dir){
					.chain = &in->chain, .in_zerocopy = in->zerocopy,
					.out_sg = out->sg, .out = &out->cfg, .mode = f->cfg->mode,
				     }, desc, &b);
			chained = in->chain.n || in->chain.discard;
			continue;
		}
		/*
		 * Inside one chunk of the UMEM, whatever the profile (bounds=off
		 * must not mean a wild pointer): the pool's own test, inline.
		 */
		if (hdp_unlikely(!hdp_layout_holds(&fr->lay, desc.addr, desc.len))) {
			refuse_desc(f, desc, &b);
			continue;
		}
		if (hdp_unlikely(!fwd_frames_take(fr, desc.addr))) {
			refuse_not_lent(f, desc, &b);
			continue;
		}
		fr->ext[fwd_frames_index(fr, desc.addr)] = fwd_rx_extent(in->zerocopy, desc, stride);
		if (hdp_unlikely(desc.len > b.tx_frame_max)) {
			b.drops[b.ndrops++] = desc.addr;
			b.tx_mtu++;
			continue;
		}
		if (rewrite && hdp_unlikely(hdp_fwd_rewrite(f->cfg->mode, fwd_frames_data(fr, desc.addr),
							     desc.len, &out->cfg))) {
			b.drops[b.ndrops++] = desc.addr;
			b.dropped[HDP_FWD_DROP_RUNT]++;
			continue;
		}
		b.bytes += desc.len;
		b.good[b.ngood++] = desc;
	}
	xsk_ring_cons__release(&in->rx, n);
	/* Each descriptor a frame lent (one that names another is refused, and counted). */
	in->lent -= n < in->lent ? n : in->lent;
	count_rx(f, in, n, &b);
	send_burst(f, out, &b);
	if (out->tx_outstanding)
		kick_tx(out);
	if (b.ndrops)
		fwd_frames_free(fr, b.drops, b.ndrops);
	/* One frame back into the fill ring for each frame received. */
	fwd_fill(f, in, n);
	return n;
}

/* Nothing came in: flush what is pending. true while TX still is. */
static bool flush(struct hdp_fwd *f, struct fwd_worker *w)
{
	bool pending = false;

	for (unsigned i = 0; i < w->ndirs; i++) {
		struct fwd_dir *d = &w->dirs[i];

		if (d->out->tx_outstanding) {
			kick_tx(d->out);
			fwd_complete(f, d->out);
			pending |= d->out->tx_outstanding != 0;
		}
		/* Frames the pool could not give earlier: try again. */
		fwd_fill(f, d->in, f->cfg->batch);
	}
	return pending;
}

/* Sleep until something comes in; briefly while TX is @pending. */
static void sleep_in_poll(struct fwd_worker *w, bool pending)
{
	struct pollfd fds[HDP_FWD_PORTS_MAX];

	for (unsigned i = 0; i < w->ndirs; i++) {
		struct fwd_port *in = w->dirs[i].in;

		fds[i] = (struct pollfd){ .fd = in->fd, .events = POLLIN };
		hdp_counter_add(&in->stats.wakeups, 1);
		hdp_counter_add(&in->stats.idle_sleeps, 1);
	}
	poll(fds, w->ndirs, pending ? 1 : 100);
}

/*
 * The spin before sleeping (idle_spin_us): armed by work, timed from the
 * first pass after it that finds none, ended by work or by the sleep it
 * leads to. Only passes that find nothing read the clock.
 */
struct fwd_spin {
	bool armed;		/* work since the last sleep: spin before the next */
	uint64_t deadline;	/* CLOCK_MONOTONIC, ns; 0: not spinning */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);	/* the vDSO's: no syscall */
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * While spinning: a driver that stopped for want of fill frames (zero
 * copy, need_wakeup) waits to be told there are some again, which the
 * sleep's poll() would have done.
 */
static void kick_fill(struct fwd_worker *w)
{
	for (unsigned i = 0; i < w->ndirs; i++) {
		struct fwd_port *in = w->dirs[i].in;

		if (in->fd >= 0 && xsk_ring_prod__needs_wakeup(&in->fill)) {
			hdp_counter_add(&in->stats.wakeups, 1);
			recvfrom(in->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
		}
	}
}

/* A pass found nothing: true to pass again, false to sleep. */
static bool spin_on(struct hdp_fwd *f, struct fwd_spin *s)
{
	uint32_t us;

	/* A reload to 0 ends a spin under way too: "off" means sleep now. */
	if (s->deadline)
		return now_ns() < s->deadline &&
		       atomic_load_explicit(&f->idle_spin_us, memory_order_relaxed);
	if (!s->armed)
		return false;	/* nothing came since the last sleep ended */
	us = atomic_load_explicit(&f->idle_spin_us, memory_order_relaxed);
	if (us)
		s->deadline = now_ns() + us * 1000ull;
	return us != 0;
}

void *fwd_worker_main(void *arg)
{
	struct fwd_worker *w = arg;
	struct hdp_fwd *f = w->f;
	struct fwd_spin spin = { 0 };

	while (!atomic_load_explicit(&f->stop, memory_order_relaxed)) {
		unsigned work = 0;
		bool pending;

		for (unsigned i = 0; i < w->ndirs; i++) {
			unsigned n = fwd_forward(f, &w->dirs[i]);

			if (hdp_unlikely(spin.deadline) && n)
				hdp_counter_add(&w->dirs[i].in->stats.idle_spin_hits, 1);
			work += n;
		}
		if (work) {
			spin = (struct fwd_spin){ .armed = true };
			continue;
		}
		pending = flush(f, w);
		/* Busy polling never sleeps: the next pass's recvfrom runs the receive work. */
		if (f->cfg->busy_poll)
			continue;
		if (spin_on(f, &spin)) {
			kick_fill(w);
			sched_yield();	/* a runnable NAPI thread on this core goes first */
			continue;
		}
		spin = (struct fwd_spin){ 0 };
		sleep_in_poll(w, pending);
	}
	/* Leave the pool's caches to the pool: frames go back on exit. */
	hdp_pool_cache_flush(f->frames.pool);
	return NULL;
}
