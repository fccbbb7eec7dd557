// SPDX-License-Identifier: BSD-3-Clause
/*
 * What the DPDK forwarder's workers count, each its own, summed when
 * asked: per port, per worker, in all; and every port's counters as the
 * text table hdp-ctl stats and the summary at exit show.
 */
#include "engine.h"

#include <hdp/strbuf.h>

#include <string.h>

#define U(x) ((unsigned long long)(x))

/* The drop causes DPDK ports have (of HDP_FWD_DROPS), in the order stats show them. */
const enum hdp_fwd_drop hdp_fwd_dpdk_drops[DPDK_NDROPS] = {
	HDP_FWD_DROP_RUNT, HDP_FWD_DROP_TX_FULL, HDP_FWD_DROP_TOO_BIG,
};

/* @c's counters added into @s. */
static void add_counters(struct dpdk_port_sum *s, const struct dpdk_port_counters *c)
{
	s->rx_packets += hdp_counter_read(&c->rx_packets);
	s->rx_frags += hdp_counter_read(&c->rx_frags);
	s->rx_bytes += hdp_counter_read(&c->rx_bytes);
	s->tx_packets += hdp_counter_read(&c->tx_packets);
	s->tx_frags += hdp_counter_read(&c->tx_frags);
	s->tx_bytes += hdp_counter_read(&c->tx_bytes);
	for (unsigned k = 0; k < HDP_FWD_DROP__COUNT; k++)
		s->drops[k] += hdp_counter_read(&c->drops[k]);
}

void hdp_fwd_dpdk_port_sum(const struct dpdk_fwd *d, unsigned port, struct dpdk_port_sum *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned k = 0; k < d->nworkers; k++)
		add_counters(s, &d->w[k].port[port]);
}

void hdp_fwd_dpdk_worker_sum(const struct dpdk_fwd *d, unsigned k, struct dpdk_port_sum *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < d->cfg->nports; i++)
		add_counters(s, &d->w[k].port[i]);
}

uint64_t hdp_fwd_dpdk_rx_total(const struct dpdk_fwd *d)
{
	struct dpdk_port_sum s;
	uint64_t rx = 0;

	for (unsigned i = 0; i < d->cfg->nports; i++) {
		hdp_fwd_dpdk_port_sum(d, i, &s);
		rx += s.rx_packets;
	}
	return rx;
}

void hdp_fwd_dpdk_port_table(struct dpdk_fwd *d, struct hdp_strbuf *o)
{
	struct dpdk_port_sum s;

	hdp_strbuf_printf(o, "%-16s %14s %14s %14s %14s", "port", "rx", "tx", "rx_frags",
			  "tx_frags");
	for (unsigned c = 0; c < DPDK_NDROPS; c++)
		hdp_strbuf_printf(o, " %10s", hdp_fwd_drop_name(hdp_fwd_dpdk_drops[c]));
	hdp_strbuf_printf(o, "\n");
	for (unsigned i = 0; i < d->cfg->nports; i++) {
		hdp_fwd_dpdk_port_sum(d, i, &s);
		hdp_strbuf_printf(o, "%-16s %14llu %14llu %14llu %14llu", d->cfg->ports[i].ifname,
				  U(s.rx_packets), U(s.tx_packets), U(s.rx_frags), U(s.tx_frags));
		for (unsigned c = 0; c < DPDK_NDROPS; c++)
			hdp_strbuf_printf(o, " %10llu", U(s.drops[hdp_fwd_dpdk_drops[c]]));
		hdp_strbuf_printf(o, "\n");
	}
}
