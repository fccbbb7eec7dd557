/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp-fwd on DPDK ports, shared by the forwarding (fwd_dpdk.c) and the
 * control socket's answers (fwd_dpdk_ctl.c): one worker per EAL lcore,
 * each polling the RX queues given to it and sending on the same queue of
 * each one's peer, so that every TX queue has exactly one sender.
 */
#ifndef HDP_FWD_DPDK_INTERNAL_H
#define HDP_FWD_DPDK_INTERNAL_H

#include "fwd_dpdk.h"

#include <hdp/counter.h>
#include <hdp/ctl.h>

#include <stdatomic.h>

#include <rte_lcore.h>
#include <rte_mempool.h>

#define DPDK_RING 1024		/* RX and TX descriptors per queue */
#define DPDK_QUEUES_MAX 16	/* per port; at most one per worker */

/* One RX queue a worker polls, and where its frames go. */
struct dpdk_queue {
	uint16_t in_id, out_id;		/* DPDK port ids */
	uint16_t queue;			/* RX on in, TX on out */
	unsigned in, out;		/* hdp-fwd port indices */
};

/* What one worker counts per hdp-fwd port; written by it alone. */
struct dpdk_port_counters {
	hdp_counter_t rx, tx, runt, tx_full;
};

struct dpdk_fwd;

struct dpdk_worker {
	struct dpdk_fwd *d;
	unsigned lcore;
	unsigned nq;
	struct dpdk_queue q[HDP_FWD_PORTS_MAX * DPDK_QUEUES_MAX];
	struct dpdk_port_counters port[HDP_FWD_PORTS_MAX];
} __rte_cache_aligned;

struct dpdk_fwd {
	struct hdp_fwd_cfg *cfg;
	struct rte_mempool *mp;
	uint16_t port_id[HDP_FWD_PORTS_MAX];
	unsigned nqueues;		/* per port */
	unsigned nworkers;		/* one per lcore */
	struct dpdk_worker *w;
	const struct hdp_fwd_dpdk_hooks *hooks;	/* signals, reload */
	atomic_bool done;		/* the duration is over, or a signal came */
	double start;
	struct hdp_ctl *ctl;
	struct hdp_metrics_file *metrics;	/* or NULL */
};

/* A port's counters summed over the workers. */
struct dpdk_port_sum {
	uint64_t rx, tx, runt, tx_full;
};

void hdp_fwd_dpdk_port_sum(const struct dpdk_fwd *d, unsigned port, struct dpdk_port_sum *s);

/* Worker @k's counters summed over the ports. */
void hdp_fwd_dpdk_worker_sum(const struct dpdk_fwd *d, unsigned k, struct dpdk_port_sum *s);

/* The control socket's view of @d (fwd_dpdk_ctl.c). */
struct hdp_ctl_source hdp_fwd_dpdk_ctl_source(struct dpdk_fwd *d);

#endif /* HDP_FWD_DPDK_INTERNAL_H */
