// SPDX-License-Identifier: BSD-3-Clause
/*
 * Packets that come as chains of frames (multi-buffer AF_XDP), in the
 * burst loop. Each descriptor is gathered into its port's chain
 * (hdp_fwd_chain_add judges the chain rules); a whole packet is checked
 * and rewritten as a one-frame packet is, on its first frame, and goes
 * into the burst as it came, its descriptors in order, all but the last
 * marked to go on. The frames of a packet that broke a chain rule go back
 * to the pool wiped whole: such a chain says nothing trustworthy about
 * where the kernel wrote.
 */
#include "fwd_internal.h"

/* A dropped chain's frames back to the pool with the burst's drops, wiped whole. */
static void give_back(struct hdp_fwd *f, const uint64_t *addrs, uint32_t n,
		      struct fwd_burst *b)
{
	for (uint32_t i = 0; i < n; i++) {
		f->ext[fwd_frame_of(f, addrs[i])] = (struct hdp_extent){
			0, (uint32_t)f->lay.obj_size };
		b->drops[b->ndrops++] = addrs[i];
	}
}

/* A whole packet that cannot go: its frames back as they were written. */
static void drop_whole(const struct hdp_fwd_chain *c, uint32_t n, struct fwd_burst *b)
{
	for (uint32_t i = 0; i < n; i++)
		b->drops[b->ndrops++] = c->d[i].addr;
}

/* A whole packet, @c->d[0..n): out with the burst, or dropped. */
static void whole(struct hdp_fwd *f, struct hdp_fwd_chain *c, const struct fwd_port *out,
		  struct fwd_burst *b)
{
	uint32_t n = c->n, bytes = 0;

	c->n = 0;
	if (hdp_unlikely(n > 1 && !out->sg)) {
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
	if (hdp_unlikely(hdp_fwd_rewrite(f->cfg->mode, fwd_frame_data(f, c->d[0].addr),
					 c->d[0].len, &out->cfg))) {
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

void fwd_rx_chained(struct hdp_fwd *f, struct fwd_port *in, const struct fwd_port *out,
		    struct xdp_desc desc, struct fwd_burst *b)
{
	struct hdp_fwd_chain *c = &in->chain;
	enum hdp_fwd_drop why = HDP_FWD_DROP_CHAIN_CUT;
	bool lent = fwd_frame_take(f, desc.addr);

	b->rx_contd += (desc.options & XDP_PKT_CONTD) != 0;
	/*
	 * Where the kernel wrote, for the wipe when the frame comes back; only
	 * for a frame it was lent (a descriptor naming one given back already
	 * once shrank that frame's whole wipe to its own few bytes).
	 */
	if (lent && hdp_layout_holds(&f->lay, desc.addr, desc.len))
		f->ext[fwd_frame_of(f, desc.addr)] = fwd_rx_extent(in, desc,
								   (uint32_t)f->lay.stride);
	switch (hdp_fwd_chain_add(f->pool, c, desc, lent, &why)) {
	case HDP_FWD_CHAIN_MORE:
		return;
	case HDP_FWD_CHAIN_WHOLE:
		whole(f, c, out, b);
		return;
	case HDP_FWD_CHAIN_DROP:
		b->dropped[why]++;
		break;
	case HDP_FWD_CHAIN_GONE:
		break;
	}
	give_back(f, c->back, c->nback, b);
}
