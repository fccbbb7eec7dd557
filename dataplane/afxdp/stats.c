// SPDX-License-Identifier: BSD-3-Clause
/* The forwarder's counters: per port and queue, the kernel's, the pools'. */
#include "fwd_internal.h"

#include <hdp/strbuf.h>

#include <linux/if_xdp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

#define R(c) atomic_load_explicit(&(c), memory_order_relaxed)

void hdp_fwd_port_stats(struct hdp_fwd *f, unsigned i, struct hdp_port_stats *o)
{
	struct hdp_port_stats *s = &f->ports[i].stats;

	atomic_init(&o->rx_packets, R(s->rx_packets));
	atomic_init(&o->rx_frags, R(s->rx_frags));
	atomic_init(&o->rx_bytes, R(s->rx_bytes));
	atomic_init(&o->tx_packets, R(s->tx_packets));
	atomic_init(&o->tx_frags, R(s->tx_frags));
	atomic_init(&o->tx_bytes, R(s->tx_bytes));
	for (unsigned d = 0; d < HDP_FWD_DROP__COUNT; d++)
		atomic_init(&o->drops[d], R(s->drops[d]));
	atomic_init(&o->fill_empty, R(s->fill_empty));
	atomic_init(&o->comp_refused, R(s->comp_refused));
	atomic_init(&o->wakeups, R(s->wakeups));
	atomic_init(&o->idle_sleeps, R(s->idle_sleeps));
	atomic_init(&o->idle_spin_hits, R(s->idle_spin_hits));
}

int hdp_fwd_port_kstats(struct hdp_fwd *f, unsigned i, struct hdp_xsk_kstats *o)
{
	struct xdp_statistics xs;
	socklen_t len = sizeof(xs);

	memset(o, 0, sizeof(*o));
	memset(&xs, 0, sizeof(xs));
	if (!f->ports[i].xsk ||
	    getsockopt(f->ports[i].fd, SOL_XDP, XDP_STATISTICS, &xs, &len))
		return -1;
	o->rx_dropped = xs.rx_dropped;
	o->rx_invalid_descs = xs.rx_invalid_descs;
	o->tx_invalid_descs = xs.tx_invalid_descs;
	o->rx_ring_full = xs.rx_ring_full;
	o->rx_fill_ring_empty_descs = xs.rx_fill_ring_empty_descs;
	o->tx_ring_empty_descs = xs.tx_ring_empty_descs;
	return 0;
}

static uint64_t drops_of(const struct hdp_port_stats *s)
{
	uint64_t sum = 0;

	for (unsigned d = 0; d < HDP_FWD_DROP__COUNT; d++)
		sum += R(s->drops[d]);
	return sum;
}

/* Descriptors refused, outside the UMEM or naming a frame not lent: one column. */
static uint64_t invalid_drops(const struct hdp_port_stats *s)
{
	return R(s->drops[HDP_FWD_DROP_INVALID_DESC]) + R(s->drops[HDP_FWD_DROP_NOT_LENT]);
}

/* The chain rules' drops, in one column of the text table. */
static uint64_t chain_drops(const struct hdp_port_stats *s)
{
	return R(s->drops[HDP_FWD_DROP_CHAIN_LONG]) + R(s->drops[HDP_FWD_DROP_CHAIN_CUT]) +
	       R(s->drops[HDP_FWD_DROP_CHAIN_REUSE]) + R(s->drops[HDP_FWD_DROP_TOO_BIG]);
}

void hdp_fwd_port_mode(struct hdp_fwd *f, unsigned i, const char **xdp_mode, bool *zero_copy)
{
	*xdp_mode = f->ports[i].xdp_mode ? f->ports[i].xdp_mode : "none";
	*zero_copy = f->ports[i].zerocopy;
}

void hdp_fwd_port_frames(struct hdp_fwd *f, unsigned i, uint32_t *max_frame, bool *multi_buffer)
{
	*max_frame = f->ports[i].max_frame;
	*multi_buffer = f->ports[i].sg;
}

void hdp_fwd_totals(struct hdp_fwd *f, uint64_t *rx, uint64_t *tx, uint64_t *drops)
{
	*rx = *tx = *drops = 0;
	for (unsigned i = 0; i < f->nports; i++) {
		*rx += R(f->ports[i].stats.rx_packets);
		*tx += R(f->ports[i].stats.tx_packets);
		*drops += drops_of(&f->ports[i].stats);
	}
}

#define U(x) ((unsigned long long)(x))

int hdp_fwd_stats_text(struct hdp_fwd *f, char *buf, size_t len)
{
	struct hdp_strbuf o = hdp_strbuf_init(buf, len);
	struct hdp_pool_stats st;
	char pool[4096];

	hdp_strbuf_printf(&o, "mode %s, %u ports, %u workers\n", hdp_fwd_mode_name(f->cfg->mode),
	    f->nports, f->nworkers);
	hdp_strbuf_printf(&o, "%-12s %12s %12s %12s %10s %10s %10s %10s %10s %10s %10s %10s "
	    "%10s %10s\n", "port", "rx", "tx", "rx_frags", "invalid", "runt", "tx_full", "tx_mtu",
	    "chain", "fill_empty", "k_rx_drop", "wakeups", "sleeps", "spin_hits");
	for (unsigned i = 0; i < f->nports; i++) {
		struct hdp_port_stats *s = &f->ports[i].stats;
		struct hdp_xsk_kstats k;
		char name[40];

		hdp_fwd_port_kstats(f, i, &k);
		snprintf(name, sizeof(name), "%s:%u", f->ports[i].cfg.ifname,
			 f->ports[i].cfg.queue);
		hdp_strbuf_printf(&o, "%-12s %12llu %12llu %12llu %10llu %10llu %10llu %10llu %10llu "
		    "%10llu %10llu %10llu %10llu %10llu\n", name, U(R(s->rx_packets)),
		    U(R(s->tx_packets)), U(R(s->rx_frags)), U(invalid_drops(s)),
		    U(R(s->drops[HDP_FWD_DROP_RUNT])), U(R(s->drops[HDP_FWD_DROP_TX_FULL])),
		    U(R(s->drops[HDP_FWD_DROP_TX_MTU])), U(chain_drops(s)), U(R(s->fill_empty)), U(k.rx_dropped + k.rx_ring_full),
		    U(R(s->wakeups)), U(R(s->idle_sleeps)), U(R(s->idle_spin_hits)));
	}
	if (f->cfg->busy_poll) {
		hdp_strbuf_printf(&o, "busy polling:");
		for (unsigned i = 0; i < f->nports; i++)
			hdp_strbuf_printf(&o, " %s:%u napi %u%s", f->ports[i].cfg.ifname,
			    f->ports[i].cfg.queue, fwd_port_napi_id(&f->ports[i]),
			    fwd_port_napi_id(&f->ports[i]) ? "" : " (none yet)");
		hdp_strbuf_printf(&o, "\n");
	}
	hdp_pool_stats_get(f->frames.pool, &st);
	hdp_pool_stats_text(&st, pool, sizeof(pool));
	hdp_strbuf_printf(&o, "%s", pool);
	return (int)o.used;
}

int hdp_fwd_stats_json(struct hdp_fwd *f, char *buf, size_t len)
{
	struct hdp_strbuf o = hdp_strbuf_init(buf, len);
	struct hdp_pool_stats st;
	char pool[4096];

	hdp_strbuf_printf(&o, "{\"mode\":\"%s\",\"workers\":%u,\"ports\":[",
	    hdp_fwd_mode_name(f->cfg->mode), f->nworkers);
	for (unsigned i = 0; i < f->nports; i++) {
		struct hdp_port_stats *s = &f->ports[i].stats;
		struct hdp_xsk_kstats k;
		const char *xdp_mode;
		bool zero_copy;

		hdp_fwd_port_kstats(f, i, &k);
		hdp_strbuf_printf(&o, "%s{\"ifname\":", i ? "," : "");
		hdp_strbuf_json_string(&o, f->ports[i].cfg.ifname);
		hdp_strbuf_printf(&o, ",\"queue\":%u,\"worker\":%u,\"peer\":", f->ports[i].cfg.queue,
		    hdp_fwd_port_worker(i, f->nworkers));
		hdp_strbuf_json_string(&o, f->ports[f->ports[i].cfg.peer].cfg.ifname);
		hdp_fwd_port_mode(f, i, &xdp_mode, &zero_copy);
		hdp_strbuf_printf(&o, ",\"busy_poll\":%s,\"napi_id\":%u,\"xdp_mode\":\"%s\","
		    "\"zero_copy\":%s", f->cfg->busy_poll ? "true" : "false",
		    fwd_port_napi_id(&f->ports[i]), xdp_mode, zero_copy ? "true" : "false");
		hdp_strbuf_printf(&o, ",\"multi_buffer\":%s,\"max_frame\":%u,\"rx_packets\":%llu,"
			"\"rx_frags\":%llu,\"rx_bytes\":%llu,\"tx_packets\":%llu,"
			"\"tx_frags\":%llu,\"tx_bytes\":%llu,\"drops\":{",
		    f->ports[i].sg ? "true" : "false", f->ports[i].max_frame,
		    U(R(s->rx_packets)), U(R(s->rx_frags)), U(R(s->rx_bytes)),
		    U(R(s->tx_packets)), U(R(s->tx_frags)), U(R(s->tx_bytes)));
		for (unsigned d = 0; d < HDP_FWD_DROP__COUNT; d++)
			hdp_strbuf_printf(&o, "%s\"%s\":%llu", d ? "," : "", hdp_fwd_drop_name(d),
			    U(R(s->drops[d])));
		hdp_strbuf_printf(&o, "},\"fill_empty\":%llu,\"comp_refused\":%llu,\"wakeups\":%llu,"
			"\"idle_sleeps\":%llu,\"idle_spin_hits\":%llu,\"kernel\":{\"rx_dropped\":%llu,"
			"\"rx_invalid_descs\":%llu,\"tx_invalid_descs\":%llu,"
			"\"rx_ring_full\":%llu,\"rx_fill_ring_empty_descs\":%llu,"
			"\"tx_ring_empty_descs\":%llu}}",
		    U(R(s->fill_empty)), U(R(s->comp_refused)), U(R(s->wakeups)),
		    U(R(s->idle_sleeps)),
		    U(R(s->idle_spin_hits)), U(k.rx_dropped), U(k.rx_invalid_descs),
		    U(k.tx_invalid_descs), U(k.rx_ring_full),
		    U(k.rx_fill_ring_empty_descs), U(k.tx_ring_empty_descs));
	}
	hdp_pool_stats_get(f->frames.pool, &st);
	hdp_pool_stats_json(&st, pool, sizeof(pool));
	hdp_strbuf_printf(&o, "],\"pools\":[%s]}", pool);
	return (int)o.used;
}
