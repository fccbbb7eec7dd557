// SPDX-License-Identifier: BSD-3-Clause
/* The registered protections in a pool's report: on or off, and their counters. */
#include "protection_internal.h"

#include <hdp/strbuf.h>

uint64_t hdp_protection_counter(const struct hdp_harden_stats *h, unsigned i, unsigned c)
{
	const struct hdp_prot_registry *r = hdp_prot_registry();

	if (i >= r->n || c >= r->info[i].p->ncounters)
		return 0;
	return h->prot_counters[r->info[i].counter_base + c];
}

void hdp_protection_stats_json(struct hdp_strbuf *o, const struct hdp_harden_stats *h)
{
	const struct hdp_prot_registry *r = hdp_prot_registry();

	hdp_strbuf_printf(o, "\"protections\":{");
	for (unsigned i = 0; i < r->n; i++) {
		const struct hdp_prot_info *in = &r->info[i];

		hdp_strbuf_printf(o, "%s\"%s\":{\"on\":%s", i ? "," : "", in->p->name,
				  (h->protections >> i & 1) ? "true" : "false");
		for (unsigned c = 0; c < in->p->ncounters; c++)
			hdp_strbuf_printf(o, ",\"%s\":%llu", in->p->counters[c].name,
					  (unsigned long long)h->prot_counters[in->counter_base + c]);
		hdp_strbuf_printf(o, "}");
	}
	hdp_strbuf_printf(o, "}");
}

void hdp_protection_stats_text(struct hdp_strbuf *o, const struct hdp_harden_stats *h)
{
	const struct hdp_prot_registry *r = hdp_prot_registry();

	for (unsigned i = 0; i < r->n; i++) {
		const struct hdp_prot_info *in = &r->info[i];

		hdp_strbuf_printf(o, "  %s: %s", in->p->name,
				  (h->protections >> i & 1) ? "on" : "off");
		for (unsigned c = 0; c < in->p->ncounters; c++)
			hdp_strbuf_printf(o, "%s %s %llu", c ? "," : ";", in->p->counters[c].name,
					  (unsigned long long)h->prot_counters[in->counter_base + c]);
		hdp_strbuf_printf(o, "\n");
	}
}
