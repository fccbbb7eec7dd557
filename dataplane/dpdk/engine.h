/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp-fwd on DPDK ports, shared by the forwarding (engine.c), its sizes
 * (sizes.c), its counters (counters.c) and the control socket's answers
 * (answers.c): one worker per EAL lcore, each polling the RX queues given
 * to it and sending on the same queue of each one's peer, so that every
 * TX queue has exactly one sender.
 */
#ifndef HDP_DPDK_ENGINE_H
#define HDP_DPDK_ENGINE_H

#include "module.h"

#include <hdp/counter.h>
#include <hdp/ctl.h>
#include <hdp/keeper.h>

#include "control/control.h"

#include <stdatomic.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

#define DPDK_RING 1024		/* RX and TX descriptors per queue */
#define DPDK_QUEUES_MAX 16	/* per port; at most one per worker */
#define EAL_ARGS_MAX 128

/* One RX queue a worker polls, and where its frames go. */
struct dpdk_queue {
	uint16_t in_id, out_id;		/* DPDK port ids */
	uint16_t queue;			/* RX on in, TX on out */
	unsigned in, out;		/* hdp-fwd port indices */
	uint32_t out_max;		/* the longest frame out may send (too_big past it) */
};

/*
 * How a port carries frames (sizes.c): the longest it receives
 * or sends (what the ports forwarding to it receive), and what it is
 * configured with for them.
 */
struct dpdk_port_size {
	uint32_t frame;			/* bytes: max_frame, or what the MTUs let in */
	uint16_t mtu;			/* frame less the device's overhead */
	bool chains;			/* longer than an mbuf: chains of mbufs */
	uint64_t rx_offloads;		/* RTE_ETH_RX_OFFLOAD_SCATTER where chains and offered */
	uint64_t tx_offloads;		/* RTE_ETH_TX_OFFLOAD_MULTI_SEGS likewise */
};

/*
 * What one worker counts per hdp-fwd port; written by it alone. A packet
 * is one mbuf or a chain of them: packets count it once, frags each
 * segment, as on AF_XDP ports. Drops by cause, of HDP_FWD_DROPS (DPDK
 * mode has runt, tx_full and too_big).
 */
struct dpdk_port_counters {
	hdp_counter_t rx_packets, rx_frags, rx_bytes;
	hdp_counter_t tx_packets, tx_frags, tx_bytes;
	hdp_counter_t drops[HDP_FWD_DROP__COUNT];
};

struct dpdk_fwd;

struct dpdk_worker {
	struct dpdk_fwd *d;
	unsigned lcore;
	unsigned nq;
	struct dpdk_queue q[HDP_FWD_PORTS_MAX * DPDK_QUEUES_MAX];
	struct dpdk_port_counters port[HDP_FWD_PORTS_MAX];
} __rte_cache_aligned;

/* How far set-up got, for its undoing (engine.c). */
enum dpdk_made {
	MADE_NOTHING,
	MADE_KEEPER,		/* the keeper of net_af_xdp's programs */
	MADE_EAL,
	MADE_WORKERS,
	MADE_POOL,
	MADE_PORTS,		/* ports started (or begun to) */
};

struct dpdk_fwd {
	struct hdp_control *control;
	struct hdp_fwd_cfg *cfg;
	int eal_argc;			/* hdp-fwd's, after "--" */
	char **eal_argv;
	char *argv[EAL_ARGS_MAX];	/* what EAL is given */
	char lcores[HDP_FWD_CORES_MAX * 6];
	struct hdp_keeper xdp_keeper;	/* hdp/xdp_keeper.h (fd -1: none) */
	enum dpdk_made made;
	struct rte_mempool *mp;
	uint16_t port_id[HDP_FWD_PORTS_MAX];
	struct dpdk_port_size size[HDP_FWD_PORTS_MAX];
	uint16_t data_room;		/* of each mbuf, headroom included */
	unsigned af_xdp_ports;		/* net_af_xdp: the pool is lent to the kernel */
	unsigned started;		/* ports started */
	bool half_started;		/* and the next one's start failed after it began */
	unsigned nqueues;		/* per port */
	unsigned nworkers;		/* one per lcore */
	struct dpdk_worker *w;
	atomic_bool done;		/* the control loop says the run is over */
	uint64_t last_rx;		/* at the last status line */
};

/* A port's counters summed over the workers. */
struct dpdk_port_sum {
	uint64_t rx_packets, rx_frags, rx_bytes;
	uint64_t tx_packets, tx_frags, tx_bytes;
	uint64_t drops[HDP_FWD_DROP__COUNT];
};

void hdp_fwd_dpdk_port_sum(const struct dpdk_fwd *d, unsigned port, struct dpdk_port_sum *s);

/* Worker @k's counters summed over the ports. */
void hdp_fwd_dpdk_worker_sum(const struct dpdk_fwd *d, unsigned k, struct dpdk_port_sum *s);

/* Packets received on every port. */
uint64_t hdp_fwd_dpdk_rx_total(const struct dpdk_fwd *d);

/* The drop causes DPDK ports have (of HDP_FWD_DROPS), in the order stats show them. */
#define DPDK_NDROPS 3
extern const enum hdp_fwd_drop hdp_fwd_dpdk_drops[DPDK_NDROPS];

/*
 * Every port's frames judged against its device (sizes.c), after
 * EAL found the devices and before the pool is made: each port's size and
 * the mbufs' data room set. 0; 2 with each port that cannot carry its
 * frames said (the frames, the largest it takes, the remedy); 1 when a
 * device cannot be asked.
 */
int hdp_fwd_dpdk_sizes(struct dpdk_fwd *d);

/* Port @i's MTU and offloads for its frames, into @conf. */
void hdp_fwd_dpdk_size_conf(const struct dpdk_fwd *d, unsigned i, struct rte_eth_conf *conf);

/* "frames of up to 9018 bytes (MTU 9000), as chains of mbufs: RX scatter, ...". */
const char *hdp_fwd_dpdk_size_text(const struct dpdk_fwd *d, unsigned i, char *buf, size_t len);

struct hdp_strbuf;

/*
 * Every port's packets, frags and drops as a text table (counters.c),
 * for hdp-ctl stats and the summary at exit alike.
 */
void hdp_fwd_dpdk_port_table(struct dpdk_fwd *d, struct hdp_strbuf *o);

/* The control socket's view of @d (answers.c). */
struct hdp_ctl_source hdp_fwd_dpdk_ctl_source(struct dpdk_fwd *d);

#endif /* HDP_DPDK_ENGINE_H */
