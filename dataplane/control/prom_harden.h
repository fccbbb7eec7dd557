/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hardening families of hdp-fwd's Prometheus metrics, for both kinds
 * of ports, from the protections' descriptions alone: a counter, a
 * protection or a violation kind added to hdp reaches the metrics with no
 * edit here.
 */
#ifndef HDP_PROM_HARDEN_H
#define HDP_PROM_HARDEN_H

#include <hdp/harden.h>
#include <hdp/strbuf.h>

struct hdp_prom_pool {
	const char *name;
	const struct hdp_harden_stats *h;
};

/*
 * hdp_pool_protection_on (registered protections), hdp_pool_protection_events_total
 * (every counter of every protection, the core's and the registered ones,
 * labelled by protection and counter), hdp_pool_violations_total (every
 * kind), hdp_pool_held_objects and hdp_pool_profile_changes_total, for
 * @n pools.
 */
void hdp_prom_harden(struct hdp_strbuf *o, const struct hdp_prom_pool *pools, unsigned n);

#endif /* HDP_PROM_HARDEN_H */
