// SPDX-License-Identifier: BSD-3-Clause
/*
 * The forwarder's counters in Prometheus' text exposition format (0.0.4):
 * one family at a time (HELP, TYPE, then every sample of it), counters
 * named *_total, units in names, every label value that is not a constant
 * of this file through hdp_prom_label (escaped, valid UTF-8). Every violation
 * kind is given, zero or not, so that rate() and alerts see a series from
 * the start.
 */
#include "fwd_internal.h"

#include <hdp/harden.h>
#include <hdp/protection.h>
#include <hdp/strbuf.h>

#include <stddef.h>
#include <string.h>

#include "config.h"
#include "control/prom_harden.h"
#include "control/prom_text.h"

#define R(c) atomic_load_explicit(&(c), memory_order_relaxed)
#define U(x) ((unsigned long long)(x))
#define POOLS_MAX 16

static void port_labels(struct hdp_strbuf *o, const struct fwd_port *p)
{
	hdp_prom_label(o, "port", p->cfg.ifname);
	hdp_strbuf_printf(o, ",queue=\"%u\"", p->cfg.queue);
}

/* One sample per port, of a counter read by @get. */
static void per_port(struct hdp_strbuf *o, struct hdp_fwd *f, const char *name,
		     const char *help, uint64_t (*get)(const struct fwd_port *))
{
	hdp_prom_family(o, name, "counter", help);
	for (unsigned i = 0; i < f->nports; i++) {
		hdp_strbuf_printf(o, "%s{", name);
		port_labels(o, &f->ports[i]);
		hdp_strbuf_printf(o, "} %llu\n", U(get(&f->ports[i])));
	}
}

static uint64_t rx_packets(const struct fwd_port *p) { return R(p->stats.rx_packets); }
static uint64_t rx_bytes(const struct fwd_port *p) { return R(p->stats.rx_bytes); }
static uint64_t rx_frags(const struct fwd_port *p) { return R(p->stats.rx_frags); }
static uint64_t tx_packets(const struct fwd_port *p) { return R(p->stats.tx_packets); }
static uint64_t tx_frags(const struct fwd_port *p) { return R(p->stats.tx_frags); }
static uint64_t tx_bytes(const struct fwd_port *p) { return R(p->stats.tx_bytes); }
static uint64_t fill_empty(const struct fwd_port *p) { return R(p->stats.fill_empty); }
static uint64_t comp_refused(const struct fwd_port *p) { return R(p->stats.comp_refused); }
static uint64_t wakeups(const struct fwd_port *p) { return R(p->stats.wakeups); }
static uint64_t idle_sleeps(const struct fwd_port *p) { return R(p->stats.idle_sleeps); }
static uint64_t idle_spin_hits(const struct fwd_port *p) { return R(p->stats.idle_spin_hits); }

static void ports(struct hdp_strbuf *o, struct hdp_fwd *f)
{
	static const char *const kcauses[] = { "rx_dropped", "rx_ring_full", "rx_invalid_desc",
					       "tx_invalid_desc" };
	struct hdp_xsk_kstats k[HDP_FWD_PORTS_MAX];

	hdp_prom_family(o, "hdp_port_info", "gauge",
	       "A port (interface and queue) and how it runs: 1 per port.");
	for (unsigned i = 0; i < f->nports; i++) {
		const struct fwd_port *p = &f->ports[i];
		const char *xdp_mode;
		bool zero_copy;

		hdp_fwd_port_mode(f, i, &xdp_mode, &zero_copy);
		hdp_strbuf_printf(o, "hdp_port_info{");
		port_labels(o, p);
		hdp_strbuf_printf(o, ",");
		hdp_prom_label(o, "peer", f->ports[p->cfg.peer].cfg.ifname);
		hdp_strbuf_printf(o, ",xdp_mode=\"%s\",zero_copy=\"%s\",busy_poll=\"%s\","
				  "multi_buffer=\"%s\",max_frame=\"%u\"} 1\n", xdp_mode,
				  zero_copy ? "on" : "off", f->cfg->busy_poll ? "on" : "off",
				  p->sg ? "on" : "off", p->max_frame);
	}
	per_port(o, f, "hdp_port_rx_packets_total", "Packets received from the port's RX ring.",
		 rx_packets);
	per_port(o, f, "hdp_port_rx_frags_total", "Frames (descriptors) of the packets received: "
		 "more than the packets when some came as chains (multi-buffer).", rx_frags);
	per_port(o, f, "hdp_port_rx_bytes_total", "Bytes of the packets received.", rx_bytes);
	per_port(o, f, "hdp_port_tx_packets_total", "Packets sent on the port's TX ring.",
		 tx_packets);
	per_port(o, f, "hdp_port_tx_frags_total", "Frames (descriptors) of the packets sent.",
		 tx_frags);
	per_port(o, f, "hdp_port_tx_bytes_total", "Bytes of the packets sent.", tx_bytes);
	hdp_prom_family(o, "hdp_port_dropped_packets_total", "counter",
	       "Packets hdp-fwd dropped, by cause (a chain of frames whole, once): "
	       "docs/OPERATIONS.md lists the causes.");
	for (unsigned i = 0; i < f->nports; i++) {
		const struct hdp_port_stats *s = &f->ports[i].stats;

		for (unsigned c = 0; c < HDP_FWD_DROP__COUNT; c++) {
			hdp_strbuf_printf(o, "hdp_port_dropped_packets_total{");
			port_labels(o, &f->ports[i]);
			hdp_strbuf_printf(o, ",cause=\"%s\"} %llu\n", hdp_fwd_drop_name(c),
					  U(R(s->drops[c])));
		}
	}
	per_port(o, f, "hdp_port_fill_empty_total",
		 "Times the pool had no frame to give the port's fill ring.", fill_empty);
	per_port(o, f, "hdp_port_completions_refused_total",
		 "Completions naming a frame that was not on the port's TX ring.", comp_refused);
	per_port(o, f, "hdp_port_wakeups_total", "Syscalls made to kick the kernel.", wakeups);
	per_port(o, f, "hdp_port_idle_sleeps_total",
		 "Times the worker receiving the port slept in poll() for want of work.",
		 idle_sleeps);
	per_port(o, f, "hdp_port_idle_spin_hits_total",
		 "Times a packet on the port ended the worker's idle spin (idle_spin_us) "
		 "before it slept.", idle_spin_hits);
	for (unsigned i = 0; i < f->nports; i++)
		hdp_fwd_port_kstats(f, i, &k[i]);
	hdp_prom_family(o, "hdp_port_kernel_dropped_packets_total", "counter",
	       "Frames the kernel dropped on the AF_XDP socket (XDP_STATISTICS), by cause.");
	for (unsigned i = 0; i < f->nports; i++) {
		const uint64_t v[] = { k[i].rx_dropped, k[i].rx_ring_full,
				       k[i].rx_invalid_descs, k[i].tx_invalid_descs };

		for (unsigned c = 0; c < HDP_ARRAY_SIZE(kcauses); c++) {
			hdp_strbuf_printf(o, "hdp_port_kernel_dropped_packets_total{");
			port_labels(o, &f->ports[i]);
			hdp_strbuf_printf(o, ",cause=\"%s\"} %llu\n", kcauses[c], U(v[c]));
		}
	}
}

struct pool_list {
	unsigned n;
	struct hdp_pool_stats st[POOLS_MAX];
};

static int collect(struct hdp_pool *pool, void *ctx)
{
	struct pool_list *l = ctx;

	if (l->n < POOLS_MAX)
		hdp_pool_stats_get(pool, &l->st[l->n++]);
	return 0;
}

/* One sample per pool of the uint64_t at @offset in its stats. */
static void per_pool(struct hdp_strbuf *o, const struct pool_list *l, const char *name,
		     const char *type, const char *help, size_t offset)
{
	hdp_prom_family(o, name, type, help);
	for (unsigned i = 0; i < l->n; i++) {
		uint64_t v;

		memcpy(&v, (const char *)&l->st[i] + offset, sizeof(v));
		hdp_strbuf_printf(o, "%s{", name);
		hdp_prom_label(o, "pool", l->st[i].name);
		hdp_strbuf_printf(o, "} %llu\n", U(v));
	}
}

#define AT(field) offsetof(struct hdp_pool_stats, field)

static void pools(struct hdp_strbuf *o)
{
	static struct pool_list l;
	struct hdp_prom_pool hp[POOLS_MAX];

	l.n = 0;
	hdp_pool_foreach(collect, &l);
	hdp_prom_family(o, "hdp_pool_info", "gauge",
	       "A pool, its hardening profile and where its memory comes from: 1 per pool.");
	for (unsigned i = 0; i < l.n; i++) {
		hdp_strbuf_printf(o, "hdp_pool_info{");
		hdp_prom_label(o, "pool", l.st[i].name);
		hdp_strbuf_printf(o, ",");
		hdp_prom_label(o, "profile", l.st[i].harden.profile_text);
		hdp_strbuf_printf(o, ",");
		hdp_prom_label(o, "tag_backend", l.st[i].harden.tag_backend);
		hdp_strbuf_printf(o, ",");
		hdp_prom_label(o, "tag_check", l.st[i].harden.tag_check);
		hdp_strbuf_printf(o, ",huge=\"%s\"} 1\n", l.st[i].huge ? "yes" : "no");
	}
	per_pool(o, &l, "hdp_pool_objects", "gauge", "Objects in the pool.", AT(obj_count));
	per_pool(o, &l, "hdp_pool_objects_in_use", "gauge",
		 "Objects allocated and not yet freed.", AT(in_use));
	per_pool(o, &l, "hdp_pool_object_size_bytes", "gauge", "Size of one object.",
		 AT(obj_size));
	per_pool(o, &l, "hdp_pool_region_bytes", "gauge", "Size of the pool's memory region.",
		 AT(region_bytes));
	per_pool(o, &l, "hdp_pool_allocations_total", "counter", "Objects allocated.",
		 AT(allocs));
	per_pool(o, &l, "hdp_pool_frees_total", "counter", "Objects freed (accepted).",
		 AT(frees));
	per_pool(o, &l, "hdp_pool_allocation_failures_total", "counter",
		 "Allocation calls that got fewer objects than asked.", AT(alloc_fails));
	per_pool(o, &l, "hdp_pool_held_cut_short_total", "counter",
		 "Held objects handed out early: an allocation found nothing else.",
		 AT(held_cut_short));
	for (unsigned i = 0; i < l.n; i++)
		hp[i] = (struct hdp_prom_pool){ l.st[i].name, &l.st[i].harden };
	hdp_prom_harden(o, hp, l.n);
}

int hdp_fwd_stats_prometheus(struct hdp_fwd *f, char *buf, size_t len)
{
	struct hdp_strbuf o = hdp_strbuf_init(buf, len);

	hdp_prom_family(&o, "hdp_build_info", "gauge", "hdp-fwd's version: 1.");
	hdp_strbuf_printf(&o, "hdp_build_info{");
	hdp_prom_label(&o, "version", HDP_VERSION);
	hdp_strbuf_printf(&o, ",mode=\"%s\"} 1\n", hdp_fwd_mode_name(f->cfg->mode));
	hdp_prom_family(&o, "hdp_workers", "gauge", "Worker threads forwarding.");
	hdp_strbuf_printf(&o, "hdp_workers %u\n", f->nworkers);
	ports(&o, f);
	pools(&o);
	return (int)o.used;
}
