// SPDX-License-Identifier: BSD-3-Clause
/*
 * MTUs that change while hdp-fwd runs. Start-up sizes every port for the
 * MTUs it finds (frames, chains, the peers' MTUs); an MTU lowered later
 * would have the kernel drop what hdp-fwd sends, counted only in the
 * interface's tx_dropped, and one raised past what a port was bound for
 * would have it drop what comes in. The control loop reads every
 * interface's MTU once a tick; each port sends frames of up to what its
 * interface lets out, drops longer ones as tx_mtu, and a change is said
 * once, with what it means for both directions.
 */
#include "fwd_internal.h"

#include <hdp/log.h>
#include <hdp/strbuf.h>

#include <string.h>

/* Port @i's interface is one of ports [0, @i)'s: those speak for it. */
static bool named_before(const struct hdp_fwd *f, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (strcmp(f->ports[j].cfg.ifname, f->ports[i].cfg.ifname) == 0)
			return true;
	return false;
}

static bool on_interface(const struct fwd_port *p, const char *ifname)
{
	return strcmp(p->cfg.ifname, ifname) == 0;
}

/* The longest frame port @p takes in as it was bound: one frame, or a chain the kernel sends. */
static uint32_t rx_bound(const struct hdp_fwd *f, const struct fwd_port *p)
{
	return p->sg ? hdp_fwd_chain_bytes(f->cfg->frame_size)
		     : hdp_fwd_frame_room(f->cfg->frame_size);
}

/* The longest frame port @p may receive now: what its MTU lets in, within its binding. */
static uint32_t rx_most(const struct hdp_fwd *f, const struct fwd_port *p)
{
	uint32_t in = p->mtu ? p->mtu + HDP_FWD_MTU_OVERHEAD : UINT32_MAX;
	uint32_t bound = rx_bound(f, p);

	return in < bound ? in : bound;
}

/* The longest frame that may come to @ifname's ports to go out: their senders'. */
static uint32_t coming_out_most(const struct hdp_fwd *f, const char *ifname)
{
	uint32_t most = 0;

	for (unsigned k = 0; k < f->nports; k++) {
		const struct fwd_port *in = &f->ports[k];

		if (on_interface(&f->ports[in->cfg.peer], ifname) && rx_most(f, in) > most)
			most = rx_most(f, in);
	}
	return most;
}

/* Of @ifname's ports' peers, the one that lets out the least (NULL: none). */
static const struct fwd_port *narrowest_peer(const struct hdp_fwd *f, const char *ifname)
{
	const struct fwd_port *least = NULL;

	for (unsigned i = 0; i < f->nports; i++) {
		const struct fwd_port *out = &f->ports[f->ports[i].cfg.peer];

		if (on_interface(&f->ports[i], ifname) &&
		    (!least || atomic_load(&out->tx_frame_max) < atomic_load(&least->tx_frame_max)))
			least = out;
	}
	return least;
}

/*
 * One line for @ifname's new MTU: what goes out on it now, and what it
 * takes in that will not get through. A warning when something is lost.
 */
static void say_mtu(const struct hdp_fwd *f, const struct fwd_port *p, uint32_t was)
{
	uint32_t frame = p->mtu + HDP_FWD_MTU_OVERHEAD, bound = rx_bound(f, p);
	const struct fwd_port *peer = narrowest_peer(f, p->cfg.ifname);
	uint32_t peer_max = atomic_load(&peer->tx_frame_max);
	struct hdp_strbuf o;
	char line[480];
	bool lost = false;

	o = hdp_strbuf_init(line, sizeof(line));
	hdp_strbuf_printf(&o, "%s: MTU now %u", p->cfg.ifname, p->mtu);
	if (was)
		hdp_strbuf_printf(&o, " (was %u)", was);
	if (coming_out_most(f, p->cfg.ifname) > frame) {
		hdp_strbuf_printf(&o, ": frames over %u bytes to go out on it are dropped (tx_mtu)",
				  frame);
		lost = true;
	} else {
		hdp_strbuf_printf(&o, ": frames of up to %u bytes go out on it", frame);
	}
	if (frame > bound) {
		hdp_strbuf_printf(&o, "; it takes in frames of up to %u bytes, as bound at start "
				  "(%s of %u bytes): the kernel drops longer ones, counted in the "
				  "socket's rx_dropped, until hdp-fwd is restarted", bound,
				  p->sg ? "chains of frames" : "one frame", f->cfg->frame_size);
		lost = true;
	}
	if ((frame < bound ? frame : bound) > peer_max) {
		hdp_strbuf_printf(&o, "; frames over %u bytes it takes in are dropped on the way "
				  "out on %s (tx_mtu)", peer_max, peer->cfg.ifname);
		lost = true;
	}
	hdp_log(lost ? HDP_LOG_WARN : HDP_LOG_INFO, "%s", line);
}

void hdp_fwd_mtu_changed(struct hdp_fwd *f, const char *ifname, uint32_t mtu)
{
	struct fwd_port *first = NULL;
	uint32_t was = 0;

	for (unsigned i = 0; i < f->nports; i++) {
		struct fwd_port *p = &f->ports[i];

		if (!on_interface(p, ifname))
			continue;
		if (!first) {
			first = p;
			was = p->mtu;
		}
		p->mtu = mtu;
		atomic_store_explicit(&p->tx_frame_max, mtu + HDP_FWD_MTU_OVERHEAD,
				      memory_order_relaxed);
	}
	if (first)
		say_mtu(f, first, was);
}

void hdp_fwd_watch_mtus(struct hdp_fwd *f)
{
	uint32_t mtu;

	for (unsigned i = 0; i < f->nports; i++) {
		struct fwd_port *p = &f->ports[i];

		/* Loopback rings have no interface; an interface gone has nothing to send. */
		if (p->fd < 0 || named_before(f, i) || hdp_fwd_if_mtu(p->cfg.ifname, &mtu))
			continue;
		if (mtu != p->mtu)
			hdp_fwd_mtu_changed(f, p->cfg.ifname, mtu);
	}
}

void fwd_mtu_init(struct hdp_fwd *f)
{
	for (unsigned i = 0; i < f->nports; i++) {
		struct fwd_port *p = &f->ports[i];
		uint32_t mtu = 0;

		if (p->fd >= 0 && hdp_fwd_if_mtu(p->cfg.ifname, &mtu))
			mtu = 0;
		p->mtu = mtu;
		atomic_init(&p->tx_frame_max, mtu ? mtu + HDP_FWD_MTU_OVERHEAD : UINT32_MAX);
	}
}
