// SPDX-License-Identifier: BSD-3-Clause
/*
 * The forwarder on DPDK ethdev ports: one worker (the main lcore), one RX
 * and one TX queue per port, bursts moved from each port to its peer with
 * the same header rewrites (macswap, l2) as the AF_XDP path. Frames that
 * cannot be rewritten (runts) or sent (TX full) are freed and counted.
 * The mbuf pool has no per-lcore cache: every mbuf crosses the hdp driver,
 * so its profile holds for each one.
 */
#include "fwd_dpdk.h"

#include <hdp/dpdk.h>
#include <hdp/log.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_mbuf.h>

#define RING 1024

struct dport {
	uint16_t id;
	uint64_t rx, tx, runt, tx_full;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int port_start(struct hdp_port_cfg *pc, struct dport *dp, struct rte_mempool *mp)
{
	struct rte_eth_conf conf;
	struct rte_ether_addr mac;
	int ret;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_get_port_by_name(pc->ifname, &dp->id)) {
		fprintf(stderr, "hdp-fwd: port '%s': no DPDK device of that name (give it with --vdev or its PCI address)\n",
			pc->ifname);
		return 2;
	}
	ret = rte_eth_dev_configure(dp->id, 1, 1, &conf);
	if (!ret)
		ret = rte_eth_rx_queue_setup(dp->id, 0, RING, rte_eth_dev_socket_id(dp->id), NULL, mp);
	if (!ret)
		ret = rte_eth_tx_queue_setup(dp->id, 0, RING, rte_eth_dev_socket_id(dp->id), NULL);
	if (!ret)
		ret = rte_eth_dev_start(dp->id);
	if (ret) {
		fprintf(stderr, "hdp-fwd: port '%s': cannot start it: %s\n", pc->ifname,
			rte_strerror(-ret));
		return 1;
	}
	rte_eth_promiscuous_enable(dp->id);
	if (!pc->has_src_mac && rte_eth_macaddr_get(dp->id, &mac) == 0)
		memcpy(pc->src_mac, mac.addr_bytes, 6);
	return 0;
}

/* One burst from @in to its peer @out; returns how many came in. */
static unsigned forward(struct hdp_fwd_cfg *cfg, struct dport *in, struct dport *out,
			const struct hdp_port_cfg *out_cfg)
{
	struct rte_mbuf *bufs[HDP_FWD_BATCH_MAX], *good[HDP_FWD_BATCH_MAX];
	uint16_t n = rte_eth_rx_burst(in->id, 0, bufs, (uint16_t)cfg->batch);
	uint16_t ngood = 0, sent;

	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = bufs[i];

		if (hdp_fwd_rewrite(cfg->mode, rte_pktmbuf_mtod(m, uint8_t *), m->data_len,
				    out_cfg)) {
			in->runt++;
			rte_pktmbuf_free(m);
			continue;
		}
		good[ngood++] = m;
	}
	in->rx += n;
	sent = ngood ? rte_eth_tx_burst(out->id, 0, good, ngood) : 0;
	out->tx += sent;
	if (sent < ngood) {
		out->tx_full += ngood - sent;
		rte_pktmbuf_free_bulk(good + sent, ngood - sent);
	}
	return n;
}

static void summary(struct hdp_fwd_cfg *cfg, struct dport *dp, struct rte_mempool *mp)
{
	struct hdp_dpdk_pool_stats st;

	printf("%-16s %12s %12s %10s %10s\n", "port", "rx", "tx", "runt", "tx_full");
	for (unsigned i = 0; i < cfg->nports; i++)
		printf("%-16s %12llu %12llu %10llu %10llu\n", cfg->ports[i].ifname,
		       (unsigned long long)dp[i].rx, (unsigned long long)dp[i].tx,
		       (unsigned long long)dp[i].runt, (unsigned long long)dp[i].tx_full);
	if (hdp_dpdk_pool_stats_get(mp, &st) == 0)
		printf("pool %s: %u mbufs, %llu allocs, %llu frees, %llu bytes wiped, %llu violations\n",
		       mp->name, mp->size, (unsigned long long)st.allocs,
		       (unsigned long long)st.frees, (unsigned long long)st.bytes_wiped,
		       (unsigned long long)st.violations);
}

int hdp_fwd_dpdk_run(struct hdp_fwd_cfg *cfg, int eal_argc, char **eal_argv,
		     volatile sig_atomic_t *stop, bool drop_privileges)
{
	struct dport dp[HDP_FWD_PORTS_MAX];
	struct rte_mempool *mp;
	unsigned avail, started = 0;
	int ret = 0;
	double start;

	memset(dp, 0, sizeof(dp));
	if (rte_eal_init(eal_argc, eal_argv) < 0) {
		fprintf(stderr, "hdp-fwd: the EAL arguments after -- were refused: %s\n",
			rte_strerror(rte_errno));
		return 2;
	}
	if (hdp_dpdk_use_config(&cfg->harden)) {
		ret = 2;
		goto out;
	}
	mp = rte_pktmbuf_pool_create_by_ops(HDP_FWD_DPDK_POOL, cfg->frames, 0, 0,
					    RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id(),
					    HDP_DPDK_OPS_NAME);
	if (!mp) {
		fprintf(stderr, "hdp-fwd: cannot make the mbuf pool '%s': %s\n", HDP_FWD_DPDK_POOL,
			rte_strerror(rte_errno));
		ret = 1;
		goto out;
	}
	for (; started < cfg->nports; started++) {
		ret = port_start(&cfg->ports[started], &dp[started], mp);
		if (ret)
			goto stop_ports;
	}
	/* Set-up is over; the ports run without any privilege from here. */
	if (drop_privileges && hdp_fwd_drop_privileges(cfg)) {
		ret = 1;
		goto stop_ports;
	}
	printf("hdp-fwd: mode %s, %u DPDK ports, pool %s of %u mbufs (hdp driver, no cache)\n",
	       hdp_fwd_mode_name(cfg->mode), cfg->nports, mp->name, mp->size);
	for (unsigned i = 0; i < cfg->nports; i++)
		printf("  %s -> %s\n", cfg->ports[i].ifname, cfg->ports[cfg->ports[i].peer].ifname);
	fflush(stdout);
	start = now_s();
	while (!*stop && !(cfg->duration && now_s() - start >= cfg->duration)) {
		unsigned work = 0;

		for (unsigned i = 0; i < cfg->nports; i++)
			work += forward(cfg, &dp[i], &dp[cfg->ports[i].peer],
					&cfg->ports[cfg->ports[i].peer]);
		if (!work)
			rte_delay_us_sleep(50);
	}
	printf("--- summary after %.1f s\n", now_s() - start);
	summary(cfg, dp, mp);
stop_ports:
	for (unsigned i = 0; i < started; i++) {
		rte_eth_dev_stop(dp[i].id);
		rte_eth_dev_close(dp[i].id);
	}
	/* Closed ports gave their queues' mbufs back; no cache holds any. */
	avail = rte_mempool_avail_count(mp);
	if (avail != mp->size) {
		fprintf(stderr, "hdp-fwd: %u mbufs did not come back to the pool\n",
			mp->size - avail);
		ret = ret ? ret : 1;
	} else if (!ret) {
		printf("every mbuf is back in the pool; ports closed\n");
	}
	rte_mempool_free(mp);
out:
	rte_eal_cleanup();
	return ret;
}
