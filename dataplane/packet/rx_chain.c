// SPDX-License-Identifier: BSD-3-Clause
/*
 * RX descriptor chains (multi-buffer AF_XDP): a packet larger than a frame
 * comes as several descriptors, all but the last marked XDP_PKT_CONTD. The
 * chain is gathered whole before any of it goes out, and judged by rules
 * a single descriptor does not need: a chain that is cut off by an invalid
 * descriptor, names one frame twice or one the kernel was not lent, or is
 * longer than the kernel would send (it would refuse it on TX, and keep
 * its frames) is dropped whole, each of its lent chunks given back once,
 * and the rest of its descriptors follow it as they arrive.
 */
#include <hdp/fwd.h>

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
 * @d's chunk goes back when it was lent (the caller's word: a frame named
 * again after it was handed back is not lent, unless it was lent again
 * since, and then it must go back) and is one of the UMEM. (A memory of
 * the chunks given back once stood in for @lent: past its 18 it freed a
 * frame twice, and a frame lent again was never given back.)
 */
static void give_back(const struct hdp_layout *l, struct hdp_fwd_chain *c, struct xdp_desc d,
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
	give_back(l, c, d, lent);
	c->n = 0;
	c->discard = d.options & XDP_PKT_CONTD;
	return HDP_FWD_CHAIN_DROP;
}

static enum hdp_fwd_chain_verdict refuse(struct hdp_pool *umem, struct hdp_fwd_chain *c,
					 struct xdp_desc d, bool lent, enum hdp_violation_kind kind,
					 const char *detail)
{
	hdp_pool_desc_refuse(umem, kind, d.addr, d.len, detail);
	return drop(hdp_pool_slots(umem), c, d, lent);
}

enum hdp_fwd_chain_verdict hdp_fwd_chain_add(struct hdp_pool *umem, struct hdp_fwd_chain *c,
					     struct xdp_desc d, bool lent, enum hdp_fwd_drop *why)
{
	const struct hdp_layout *l = hdp_pool_slots(umem);
	char detail[96];

	c->nback = 0;
	if (c->discard) {
		give_back(l, c, d, lent);
		c->discard = d.options & XDP_PKT_CONTD;
		return HDP_FWD_CHAIN_GONE;
	}
	if (hdp_unlikely(!hdp_layout_holds(l, d.addr, d.len))) {
		*why = HDP_FWD_DROP_CHAIN_CUT;
		snprintf(detail, sizeof(detail), "fragment %u: %u bytes at %llu, not inside a chunk",
			 c->n + 1, d.len, (unsigned long long)d.addr);
		return refuse(umem, c, d, lent, HDP_V_DESC_CHAIN_CUT, detail);
	}
	if (hdp_unlikely(names_gathered(l, c, d.addr))) {
		*why = HDP_FWD_DROP_CHAIN_REUSE;
		snprintf(detail, sizeof(detail), "fragment %u names chunk %llu again", c->n + 1,
			 (unsigned long long)(d.addr / l->stride));
		/* Its chunk goes back with the gathered ones, once. */
		return refuse(umem, c, d, false, HDP_V_DESC_CHAIN_REUSE, detail);
	}
	if (hdp_unlikely(!lent)) {
		*why = HDP_FWD_DROP_NOT_LENT;
		snprintf(detail, sizeof(detail), "fragment %u: frame %llu is not in a fill ring",
			 c->n + 1, (unsigned long long)(d.addr / l->stride));
		return refuse(umem, c, d, lent, HDP_V_DESC_NOT_LENT, detail);
	}
	if (hdp_unlikely(c->n + 1 == HDP_FWD_CHAIN_MAX && (d.options & XDP_PKT_CONTD))) {
		*why = HDP_FWD_DROP_CHAIN_LONG;
		snprintf(detail, sizeof(detail), "more than %u fragments: the kernel sends at most "
			 "%u", HDP_FWD_CHAIN_MAX, HDP_FWD_CHAIN_MAX);
		return refuse(umem, c, d, lent, HDP_V_DESC_CHAIN_LONG, detail);
	}
	c->d[c->n++] = d;
	return d.options & XDP_PKT_CONTD ? HDP_FWD_CHAIN_MORE : HDP_FWD_CHAIN_WHOLE;
}
