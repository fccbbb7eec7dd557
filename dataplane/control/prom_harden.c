// SPDX-License-Identifier: BSD-3-Clause
/* The hardening families of the metrics, from the descriptions (prom_harden.h). */
#include "prom_harden.h"
#include "prom_text.h"

#include <hdp/protection.h>

#define U(x) ((unsigned long long)(x))

static void labels(struct hdp_strbuf *o, const char *pool, const char *protection)
{
	hdp_prom_label(o, "pool", pool);
	hdp_strbuf_printf(o, ",");
	hdp_prom_label(o, "protection", protection);
}

static void event(struct hdp_strbuf *o, const char *pool, const struct hdp_protection *p,
		  unsigned c, uint64_t v)
{
	hdp_strbuf_printf(o, "hdp_pool_protection_events_total{");
	labels(o, pool, p->name);
	hdp_strbuf_printf(o, ",");
	hdp_prom_label(o, "counter", p->counters[c].name);
	hdp_strbuf_printf(o, "} %llu\n", U(v));
}

/* One sample per pool of @value. */
static void per_pool(struct hdp_strbuf *o, const struct hdp_prom_pool *pools, unsigned n,
		     const char *name, const char *type, const char *help,
		     uint64_t (*value)(const struct hdp_harden_stats *h))
{
	hdp_prom_family(o, name, type, help);
	for (unsigned i = 0; i < n; i++) {
		hdp_strbuf_printf(o, "%s{", name);
		hdp_prom_label(o, "pool", pools[i].name);
		hdp_strbuf_printf(o, "} %llu\n", U(value(pools[i].h)));
	}
}

static uint64_t held(const struct hdp_harden_stats *h)
{
	return h->held;
}

static uint64_t changes(const struct hdp_harden_stats *h)
{
	return h->changes;
}

void hdp_prom_harden(struct hdp_strbuf *o, const struct hdp_prom_pool *pools, unsigned n)
{
	unsigned nreg = hdp_protection_count_registered();

	hdp_prom_family(o, "hdp_pool_protection_on", "gauge",
			"A registered protection on (1) or off (0) in a pool (docs/HARDENING.md).");
	for (unsigned i = 0; i < n; i++)
		for (unsigned p = 0; p < nreg; p++) {
			hdp_strbuf_printf(o, "hdp_pool_protection_on{");
			labels(o, pools[i].name, hdp_protection_get(p)->name);
			hdp_strbuf_printf(o, "} %u\n", pools[i].h->protections >> p & 1);
		}
	hdp_prom_family(o, "hdp_pool_protection_events_total", "counter",
			"Every protection's counters, the core's (bounds, init, tag, pool) and "
			"the registered ones', by protection and counter name.");
	for (unsigned i = 0; i < n; i++) {
		for (unsigned p = 0; p < hdp_protection_core_count(); p++) {
			const struct hdp_protection *prot = hdp_protection_core_get(p);

			for (unsigned c = 0; c < prot->ncounters; c++)
				event(o, pools[i].name, prot, c,
				      hdp_protection_core_counter(pools[i].h, p, c));
		}
		for (unsigned p = 0; p < nreg; p++) {
			const struct hdp_protection *prot = hdp_protection_get(p);

			for (unsigned c = 0; c < prot->ncounters; c++)
				event(o, pools[i].name, prot, c,
				      hdp_protection_counter(pools[i].h, p, c));
		}
	}
	hdp_prom_family(o, "hdp_pool_violations_total", "counter",
			"Memory-safety violations caught in the pool, by kind (docs/HARDENING.md).");
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < hdp_violation_kinds(); k++) {
			hdp_strbuf_printf(o, "hdp_pool_violations_total{");
			hdp_prom_label(o, "pool", pools[i].name);
			hdp_strbuf_printf(o, ",");
			hdp_prom_label(o, "kind", hdp_violation_name((enum hdp_violation_kind)k));
			hdp_strbuf_printf(o, "} %llu\n", U(pools[i].h->violations[k]));
		}
	per_pool(o, pools, n, "hdp_pool_held_objects", "gauge",
		 "Freed objects a protection holds back now (a quarantine).", held);
	per_pool(o, pools, n, "hdp_pool_profile_changes_total", "counter",
		 "Hardening profile changes at run time (hdp-ctl set, SIGHUP).", changes);
}
