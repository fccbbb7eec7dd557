// SPDX-License-Identifier: BSD-3-Clause
/*
 * Packets that come as chains of frames (multi-buffer AF_XDP): a packet
 * larger than a frame comes as several RX descriptors, all but the last
 * marked XDP_PKT_CONTD. The chain is gathered whole, in its port's
 * struct hdp_fwd_chain, before any of it goes out, and judged by rules a
 * single descriptor does not need (hdp_fwd_chain_add): a chain that is
 * cut off by a descriptor outside its chunk, names one frame twice or one
 * the kernel was not lent, or is longer than the kernel would send (it
 * would refuse it on TX, and keep its frames) is dropped whole, each of
 * its lent frames given back once, and the rest of its descriptors
 * follow it as they arrive.
 *
 * In the burst loop (fwd_chain_rx): a whole packet is checked and
 * rewritten as a one-frame packet is, on its first frame, and joins the
 * burst as it came, its descriptors in order. The frames of a packet that
 * broke a rule go back to the pool wiped whole: such a chain says nothing
 * trustworthy about where the kernel wrote.
 */
#include "frames.h"

#include <stdio.h>

/* Its chunk is among those of d[0..n) already. */
static bool names_gathered(const struct hdp_layout *l, const struct hdp_fwd_chain *c,
			   uint64_t addr)
{
	uint64_t chunk = addr / l->stride;

	for (uint32_t i = 0; i < c->n; i++)
		if (c->d[i].addr / l->stride == chunk)
			return true;
	return false;
}

/*
 * @d's chunk is to go back when it was lent (the caller's word: a frame
 * named again after it was handed back is not lent, unless it was lent
 * again since, and then it must go back) and is one of the UMEM.
 */
static void note_back(const struct hdp_layout *l, struct hdp_fwd_chain *c, struct xdp_desc d,
		      bool lent)
{
	if (lent && d.addr < l->span)
		c->back[c->nback++] = d.addr;
}

/* Drop the packet: its gathered chunks go back, with @d's own if @lent. */
static enum hdp_fwd_chain_verdict drop(const struct hdp_layout *l, struct hdp_fwd_chain *c,
				       struct xdp_desc d, bool lent)
{
	for (uint32_t i = 0; i < c->n; i++)
		c->back[c->nback++] = c->d[i].addr;
	note_back(l, c, d, lent);
	c->n = 0;
	c->discard = d.options & XDP_PKT_CONTD;
	return HDP_FWD_CHAIN_DROP;
}

static enum hdp_fwd_chain_verdict refuse(struct hdp_pool *umem, const struct hdp_layout *l,
					 struct hdp_fwd_chain *c, struct xdp_desc d, bool lent,
					 enum hdp_violation_kind kind, const char *detail)
{
	hdp_pool_desc_refuse(umem, kind, d.addr, d.len, detail);
	return drop(l, c, d, lent);
}

/* The chain rules, for @d: @holds, it lies inside one chunk (hdp_layout_holds). */
static enum hdp_fwd_chain_verdict judge(struct hdp_pool *umem, const struct hdp_layout *l,
					struct hdp_fwd_chain *c, struct xdp_desc d, bool holds,
					bool lent, enum hdp_fwd_drop *why)
{
	char detail[96];

	c->nback = 0;
	if (c->discard) {
		note_back(l, c, d, lent);
		c->discard = d.options & XDP_PKT_CONTD;
		return HDP_FWD_CHAIN_GONE;
	}
	if (hdp_unlikely(!holds)) {
		*why = HDP_FWD_DROP_CHAIN_CUT;
		snprintf(detail, sizeof(detail), "fragment %u: %u bytes at %llu, not inside a chunk",
			 c->n + 1, d.len, (unsigned long long)d.addr);
		return refuse(umem, l, c, d, lent, HDP_V_DESC_CHAIN_CUT, detail);
	}
	if (hdp_unlikely(names_gathered(l, c, d.addr))) {
		*why = HDP_FWD_DROP_CHAIN_REUSE;
		snprintf(detail, sizeof(detail), "fragment %u names chunk %llu again", c->n + 1,
			 (unsigned long long)(d.addr / l->stride));
		/* Its chunk goes back with the gathered ones, once. */
		return refuse(umem, l, c, d, false, HDP_V_DESC_CHAIN_REUSE, detail);
	}
	if (hdp_unlikely(!lent)) {
		*why = HDP_FWD_DROP_NOT_LENT;
		snprintf(detail, sizeof(detail), "fragment %u: frame %llu is not in a fill ring",
			 c->n + 1, (unsigned long long)(d.addr / l->stride));
		return refuse(umem, l, c, d, lent, HDP_V_DESC_NOT_LENT, detail);
	}
	if (hdp_unlikely(c->n + 1 == HDP_FWD_CHAIN_MAX && (d.options & XDP_PKT_CONTD))) {
		*why = HDP_FWD_DROP_CHAIN_LONG;
		snprintf(detail, sizeof(detail), "more than %u fragments: the kernel sends at most "
			 "%u", HDP_FWD_CHAIN_MAX, HDP_FWD_CHAIN_MAX);
		return refuse(umem, l, c, d, lent, HDP_V_DESC_CHAIN_LONG, detail);
	}
	c->d[c->n++] = d;
	return d.options & XDP_PKT_CONTD ? HDP_FWD_CHAIN_MORE : HDP_FWD_CHAIN_WHOLE;
}

enum hdp_fwd_chain_verdict hdp_fwd_chain_add(struct hdp_pool *umem, struct hdp_fwd_chain *c,
					     struct xdp_desc d, bool lent, enum hdp_fwd_drop *why)
{
	const struct hdp_layout *l = hdp_pool_slots(umem);

	return judge(umem, l, c, d, hdp_layout_holds(l, d.addr, d.len), lent, why);
}

/* A dropped chain's frames back to the pool with the burst's drops, wiped whole. */
static void give_back(const struct fwd_frames *fr, const struct hdp_fwd_chain *c,
		      struct fwd_burst *b)
{
	for (uint32_t i = 0; i < c->nback; i++) {
		fwd_frames_written_whole(fr, c->back[i]);
		b->drops[b->ndrops++] = c->back[i];
	}
}

/* A whole packet that cannot go: its frames back as they were written. */
static void drop_whole(const struct hdp_fwd_chain *c, uint32_t n, struct fwd_burst *b)
{
	for (uint32_t i = 0; i < n; i++)
		b->drops[b->ndrops++] = c->d[i].addr;
}

/* A whole packet, @cd->chain->d[0..n): out with the burst, or dropped. */
static void whole(const struct fwd_frames *fr, const struct fwd_chain_dir *cd,
		  struct fwd_burst *b)
{
	struct hdp_fwd_chain *c = cd->chain;
	uint32_t n = c->n, bytes = 0;

	c->n = 0;
	if (hdp_unlikely(n > 1 && !cd->out_sg)) {
		b->dropped[HDP_FWD_DROP_TOO_BIG]++;
		drop_whole(c, n, b);
		return;
	}
	for (uint32_t i = 0; i < n; i++)
		bytes += c->d[i].len;
	if (hdp_unlikely(bytes > b->tx_frame_max)) {
		b->tx_mtu++;
		drop_whole(c, n, b);
		return;
	}
	/* Headers are in the first frame: the rewrite's, as for one frame. */
	if (hdp_unlikely(hdp_fwd_rewrite(cd->mode, fwd_frames_data(fr, c->d[0].addr),
					 c->d[0].len, cd->out))) {
		b->dropped[HDP_FWD_DROP_RUNT]++;
		drop_whole(c, n, b);
		return;
	}
	for (uint32_t i = 0; i < n; i++) {
		b->good[b->ngood++] = (struct xdp_desc){
			.addr = c->d[i].addr,
			.len = c->d[i].len,
			.options = i + 1 < n ? XDP_PKT_CONTD : 0,
		};
	}
	b->bytes += bytes;
	b->good_contd += n - 1;
}

void fwd_chain_rx(const struct fwd_frames *fr, const struct fwd_chain_dir *cd,
		  struct xdp_desc desc, struct fwd_burst *b)
{
	enum hdp_fwd_drop why = HDP_FWD_DROP_CHAIN_CUT;
	bool lent = fwd_frames_take(fr, desc.addr);
	bool holds = hdp_layout_holds(&fr->lay, desc.addr, desc.len);

	b->rx_contd += (desc.options & XDP_PKT_CONTD) != 0;
	/*
	 * Where the kernel wrote, for the wipe when the frame comes back; only
	 * for a frame it was lent: a descriptor naming one given back already
	 * says nothing of that frame.
	 */
	if (lent && holds)
		fr->ext[fwd_frames_index(fr, desc.addr)] =
			fwd_rx_extent(cd->in_zerocopy, desc, (uint32_t)fr->lay.stride);
	switch (judge(fr->pool, &fr->lay, cd->chain, desc, holds, lent, &why)) {
	case HDP_FWD_CHAIN_MORE:
		return;
	case HDP_FWD_CHAIN_WHOLE:
		whole(fr, cd, b);
		return;
	case HDP_FWD_CHAIN_DROP:
		b->dropped[why]++;
		break;
	case HDP_FWD_CHAIN_GONE:
		break;
	}
	give_back(fr, cd->chain, b);
}
