// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-fwd's control socket in DPDK mode: the same requests as on AF_XDP
 * ports (hdp-ctl works unchanged), answered from the DPDK forwarder's
 * counters (counters.c) and its one pool, "mbufs", whose profile "set"
 * changes through the hdp driver (applied from the next bulk call).
 * "reload" is the control loop's.
 */
#include "engine.h"
#include "control/prom_harden.h"
#include "control/prom_text.h"

#include <hdp/dpdk.h>
#include <hdp/log.h>
#include <hdp/strbuf.h>

#include <errno.h>
#include <string.h>

#define U(x) ((unsigned long long)(x))

static double uptime(const struct dpdk_fwd *d)
{
	return hdp_control_uptime(d->control);
}

static void stats_text(struct dpdk_fwd *d, struct hdp_strbuf *o)
{
	struct dpdk_port_sum s;

	hdp_strbuf_printf(o, "mode %s, DPDK ports, %u workers, %u queue pairs per port, up %.0f s\n",
			  hdp_fwd_mode_name(d->cfg->mode), d->nworkers, d->nqueues, uptime(d));
	hdp_fwd_dpdk_port_table(d, o);
	for (unsigned k = 0; k < d->nworkers; k++) {
		hdp_fwd_dpdk_worker_sum(d, k, &s);
		hdp_strbuf_printf(o, "worker %u (lcore %u): %u queues, rx %llu\n", k,
				  d->w[k].lcore, d->w[k].nq, U(s.rx_packets));
	}
}

/* Names as on AF_XDP ports (afxdp/stats.c): packets, frags, bytes, drops by cause. */
static void stats_json(struct dpdk_fwd *d, struct hdp_strbuf *o)
{
	struct dpdk_port_sum s;

	hdp_strbuf_printf(o, "{\"mode\":\"%s\",\"ports_kind\":\"dpdk\",\"uptime_s\":%.1f,"
			  "\"queues_per_port\":%u,\"mbuf_data_room\":%u,\"ports\":[",
			  hdp_fwd_mode_name(d->cfg->mode), uptime(d), d->nqueues,
			  d->data_room - RTE_PKTMBUF_HEADROOM);
	for (unsigned i = 0; i < d->cfg->nports; i++) {
		const struct dpdk_port_size *z = &d->size[i];

		hdp_fwd_dpdk_port_sum(d, i, &s);
		hdp_strbuf_printf(o, "%s{\"name\":", i ? "," : "");
		hdp_strbuf_json_string(o, d->cfg->ports[i].ifname);
		hdp_strbuf_printf(o, ",\"max_frame\":%u,\"mtu\":%u,\"chains\":%s,"
				  "\"rx_packets\":%llu,\"rx_frags\":%llu,\"rx_bytes\":%llu,"
				  "\"tx_packets\":%llu,\"tx_frags\":%llu,\"tx_bytes\":%llu,"
				  "\"drops\":{", z->frame, z->mtu, z->chains ? "true" : "false",
				  U(s.rx_packets), U(s.rx_frags), U(s.rx_bytes), U(s.tx_packets),
				  U(s.tx_frags), U(s.tx_bytes));
		for (unsigned c = 0; c < DPDK_NDROPS; c++)
			hdp_strbuf_printf(o, "%s\"%s\":%llu", c ? "," : "",
					  hdp_fwd_drop_name(hdp_fwd_dpdk_drops[c]), U(s.drops[hdp_fwd_dpdk_drops[c]]));
		hdp_strbuf_printf(o, "}}");
	}
	hdp_strbuf_printf(o, "],\"workers\":[");
	for (unsigned k = 0; k < d->nworkers; k++) {
		hdp_fwd_dpdk_worker_sum(d, k, &s);
		hdp_strbuf_printf(o, "%s{\"lcore\":%u,\"queues\":%u,\"rx_packets\":%llu,"
				  "\"tx_packets\":%llu}", k ? "," : "", d->w[k].lcore, d->w[k].nq,
				  U(s.rx_packets), U(s.tx_packets));
	}
	hdp_strbuf_printf(o, "]}\n");
}

static uint64_t rx_packets(const struct dpdk_port_sum *s) { return s->rx_packets; }
static uint64_t rx_frags(const struct dpdk_port_sum *s) { return s->rx_frags; }
static uint64_t rx_bytes(const struct dpdk_port_sum *s) { return s->rx_bytes; }
static uint64_t tx_packets(const struct dpdk_port_sum *s) { return s->tx_packets; }
static uint64_t tx_frags(const struct dpdk_port_sum *s) { return s->tx_frags; }
static uint64_t tx_bytes(const struct dpdk_port_sum *s) { return s->tx_bytes; }

/* One counter family per port, of a sum read by @get. */
static void port_family(struct dpdk_fwd *d, struct hdp_strbuf *o, const char *name,
			const char *help, uint64_t (*get)(const struct dpdk_port_sum *))
{
	struct dpdk_port_sum s;

	hdp_prom_family(o, name, "counter", help);
	for (unsigned i = 0; i < d->cfg->nports; i++) {
		hdp_fwd_dpdk_port_sum(d, i, &s);
		hdp_strbuf_printf(o, "%s{", name);
		hdp_prom_label(o, "port", d->cfg->ports[i].ifname);
		hdp_strbuf_printf(o, "} %llu\n", U(get(&s)));
	}
}

/* One sample of a pool's family, of one violation @kind if not NULL. */
static void pool_sample(struct hdp_strbuf *o, const char *name, const char *pool,
			uint64_t value)
{
	hdp_strbuf_printf(o, "%s{", name);
	hdp_prom_label(o, "pool", pool);
	hdp_strbuf_printf(o, "} %llu\n", U(value));
}

static void stats_prometheus(struct dpdk_fwd *d, struct hdp_strbuf *o)
{
	static struct hdp_harden_stats hs;
	struct hdp_dpdk_pool_stats st;
	struct dpdk_port_sum s;

	hdp_prom_family(o, "hdp_workers", "gauge", "Workers forwarding (one per EAL lcore).");
	hdp_strbuf_printf(o, "hdp_workers %u\n", d->nworkers);
	port_family(d, o, "hdp_port_rx_packets_total", "Packets received from the port.",
		    rx_packets);
	port_family(d, o, "hdp_port_rx_frags_total", "Segments (mbufs) of the packets received: "
		    "more than the packets when some came as chains (jumbo frames).",
		    rx_frags);
	port_family(d, o, "hdp_port_rx_bytes_total", "Bytes of the packets received.",
		    rx_bytes);
	port_family(d, o, "hdp_port_tx_packets_total", "Packets sent on the port.",
		    tx_packets);
	port_family(d, o, "hdp_port_tx_frags_total", "Segments (mbufs) of the packets sent.",
		    tx_frags);
	port_family(d, o, "hdp_port_tx_bytes_total", "Bytes of the packets sent.",
		    tx_bytes);
	hdp_prom_family(o, "hdp_port_dropped_packets_total", "counter",
			"Packets hdp-fwd dropped, by cause (a chain of mbufs whole, once): "
			"docs/OPERATIONS.md lists the causes.");
	for (unsigned i = 0; i < d->cfg->nports; i++) {
		hdp_fwd_dpdk_port_sum(d, i, &s);
		for (unsigned c = 0; c < DPDK_NDROPS; c++) {
			hdp_strbuf_printf(o, "hdp_port_dropped_packets_total{");
			hdp_prom_label(o, "port", d->cfg->ports[i].ifname);
			hdp_strbuf_printf(o, ",cause=\"%s\"} %llu\n", hdp_fwd_drop_name(hdp_fwd_dpdk_drops[c]),
					  U(s.drops[hdp_fwd_dpdk_drops[c]]));
		}
	}
	if (hdp_dpdk_pool_stats_get(d->mp, &st))
		return;
	hdp_prom_family(o, "hdp_pool_allocations_total", "counter",
			"Objects the pool's driver handed out.");
	pool_sample(o, "hdp_pool_allocations_total", d->mp->name, st.allocs);
	hdp_prom_family(o, "hdp_pool_frees_total", "counter", "Objects the pool's driver took back.");
	pool_sample(o, "hdp_pool_frees_total", d->mp->name, st.frees);
	hdp_prom_family(o, "hdp_pool_held_cut_short_total", "counter",
			"Held objects handed out early: an allocation found nothing else.");
	pool_sample(o, "hdp_pool_held_cut_short_total", d->mp->name, st.held_cut_short);
	/* The same hardening families as hdp's own pools, from the same descriptions. */
	if (hdp_dpdk_pool_harden_stats(d->mp, &hs) == 0)
		hdp_prom_harden(o, &(struct hdp_prom_pool){ d->mp->name, &hs }, 1);
}

static int stats(void *ctx, const char *format, struct hdp_strbuf *o)
{
	struct dpdk_fwd *d = ctx;

	if (!format)
		stats_text(d, o);
	else if (strcmp(format, "json") == 0)
		stats_json(d, o);
	else
		stats_prometheus(d, o);
	return 0;
}

static int pools(void *ctx, bool json, struct hdp_strbuf *o)
{
	struct dpdk_fwd *d = ctx;
	struct hdp_dpdk_pool_stats st;
	char prot[2048];

	if (hdp_dpdk_pool_stats_get(d->mp, &st))
		return -ENOENT;
	/* Too long for the buffer (it cannot be, with hdp's own): left out. */
	if (hdp_dpdk_pool_protections(d->mp, json, prot, sizeof(prot)))
		prot[0] = '\0';
	if (json) {
		hdp_strbuf_printf(o, "[{\"name\":\"%s\",\"ops\":\"%s\",\"objects\":%u,"
				  "\"cache_size\":%u,\"in_pool\":%llu,\"held\":%llu,"
				  "\"quarantine_depth\":%u,\"held_cut_short\":%llu,\"chunks\":%u,"
				  "\"allocs\":%llu,"
				  "\"frees\":%llu,\"rejected\":%llu,\"bytes_wiped\":%llu,"
				  "\"violations\":%llu,\"profile\":", d->mp->name, HDP_DPDK_OPS_NAME,
				  d->mp->size, d->mp->cache_size, U(st.in_pool), U(st.held),
				  st.quarantine_depth, U(st.held_cut_short), st.chunks,
				  U(st.allocs), U(st.frees), U(st.rejected), U(st.bytes_wiped),
				  U(st.violations));
		hdp_strbuf_json_string(o, st.profile);
		hdp_strbuf_printf(o, "%s%s}]\n", prot[0] ? "," : "", prot);
		return 0;
	}
	hdp_strbuf_printf(o, "pool %s (DPDK mempool, hdp driver): %u mbufs, cache %u, %llu free "
			  "(%llu held in quarantine %u deep, %llu handed out early), "
			  "%u memory chunk%s\n  profile: %s\n  allocs %llu, frees %llu, refused %llu, "
			  "bytes wiped %llu, violations %llu (double free %llu, bad free %llu, "
			  "write after free %llu)\n", d->mp->name, d->mp->size, d->mp->cache_size,
			  U(st.in_pool), U(st.held), st.quarantine_depth,
			  U(st.held_cut_short), st.chunks, st.chunks == 1 ? "" : "s", st.profile,
			  U(st.allocs), U(st.frees), U(st.rejected), U(st.bytes_wiped),
			  U(st.violations), U(st.double_frees), U(st.bad_frees),
			  U(st.writes_after_free));
	hdp_strbuf_printf(o, "%s", prot);
	return 0;
}

static int set(void *ctx, const char *pool, const char *key, const char *value,
	       struct hdp_strbuf *o)
{
	struct dpdk_fwd *d = ctx;
	char why[256];
	int ret;

	if (strcmp(pool, d->mp->name) != 0) {
		hdp_strbuf_printf(o, "error: no pool is called '%.31s' (in DPDK mode there is one: "
				  "%s)\n", pool, d->mp->name);
		return -ENOENT;
	}
	ret = hdp_dpdk_pool_set(d->mp, key, value, why, sizeof(why));
	if (ret)
		hdp_log(HDP_LOG_ERR, "%s", why);
	return ret;
}

struct hdp_ctl_source hdp_fwd_dpdk_ctl_source(struct dpdk_fwd *d)
{
	return (struct hdp_ctl_source){ .stats = stats, .pools = pools, .set = set, .ctx = d };
}
