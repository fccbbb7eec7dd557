// SPDX-License-Identifier: BSD-3-Clause
/*
 * The forwarder on DPDK ethdev ports: one worker per EAL lcore (-l, or
 * hdp-fwd's --cores turned into -l), each port configured with as many
 * RX/TX queue pairs as there are workers where the device has them, the
 * queues spread so that each worker gets queues of every port. A worker
 * sends what queue Q of a port received on queue Q of its peer: every TX
 * queue has one sender, no lock. Same rewrites (macswap, l2) as on AF_XDP,
 * of a chain's first segment; frames that cannot be rewritten (runts),
 * are longer than the output carries (too_big) or cannot be sent (TX
 * full) are freed, a chain whole, and counted. Frame sizes, MTUs and
 * chains of mbufs for jumbo frames: sizes.c. It runs under hdp-fwd's
 * control loop (control/control.h), whose duties the main lcore's worker
 * does between bursts, every 10 ms.
 *
 * The mbuf pool has no per-lcore cache unless mbuf_cache says otherwise:
 * every mbuf crosses the hdp driver, so its profile holds for each one,
 * and a "set" on the control socket applies from the next bulk call.
 */
#include "engine.h"

#include <hdp/dpdk.h>
#include <hdp/log.h>
#include <hdp/strbuf.h>
#include <hdp/xdp_keeper.h>

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

/*
 * A net_af_xdp device (--vdev net_af_xdpN,iface=IF) on an interface that
 * runs an XDP program already (another forwarder's?): net_af_xdp replaces
 * it, and its close, EAL's clean-up included, removes whatever runs there.
 * Refused before EAL sees the device. 0 or -EBUSY (said).
 */
static int af_xdp_interface_taken(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *v = strncmp(argv[i], "--vdev=", 7) == 0 ? argv[i] + 7
				: strcmp(argv[i], "--vdev") == 0 && i + 1 < argc ? argv[i + 1] : NULL;
		const char *iface = v && strncmp(v, "net_af_xdp", 10) == 0 ? strstr(v, ",iface=")
									     : NULL;
		char ifname[IF_NAMESIZE];
		unsigned ifindex, id, mode;

		if (!iface)
			continue;
		snprintf(ifname, sizeof(ifname), "%.*s", (int)strcspn(iface + 7, ","), iface + 7);
		ifindex = if_nametoindex(ifname);
		id = ifindex ? hdp_xdp_prog_on(ifindex, &mode) : 0;
		if (id) {
			fprintf(stderr, "hdp-fwd: --vdev %s: interface %s already runs XDP program "
				"%u (another forwarder's?), which net_af_xdp would replace, and remove "
				"when it closes: stop its owner, or remove it (ip link set dev %s xdp "
				"off)\n", v, ifname, id, ifname);
			return -EBUSY;
		}
	}
	return 0;
}

/* A DPDK port is a whole device: its queues are hdp-fwd's to spread. */
static int whole_devices(const struct hdp_fwd_cfg *cfg)
{
	int errors = 0;

	for (unsigned i = 0; i < cfg->nports; i++)
		if (cfg->ports[i].queue != HDP_PORT_ALL_QUEUES)
			errors += hdp_fwd_port_refuse(&cfg->ports[i], "on DPDK ports give the "
						      "device alone; hdp-fwd spreads its "
						      "queues over the lcores") != 0;
	return errors ? -EINVAL : 0;
}

int hdp_fwd_dpdk_check(const struct hdp_fwd_cfg *cfg, int eal_argc, char **eal_argv)
{
	int errors = whole_devices(cfg) != 0;

	/* Its cores against EAL's: hdp_fwd_eal_args_check(), before. */
	if (eal_argc + 2 > EAL_ARGS_MAX) {
		fprintf(stderr, "hdp-fwd: more than %d EAL arguments\n", EAL_ARGS_MAX - 2);
		return -EINVAL;
	}
	return af_xdp_interface_taken(eal_argc, eal_argv) || errors ? -EINVAL : 0;
}

/*
 * The EAL arguments, with hdp-fwd's pinned --cores as -l when EAL's own
 * are not given (hdp_fwd_eal_args_check() refused both).
 */
static void eal_args(const struct hdp_fwd_cfg *cfg, int argc, char **argv, char **out,
		     int *outc, char *lcores, size_t lcores_len)
{
	bool pinned = cfg->ncores && cfg->cores[0] >= 0;
	size_t used = 0;

	memcpy(out, argv, (size_t)argc * sizeof(*out));
	*outc = argc;
	if (!pinned)
		return;
	for (unsigned i = 0; i < cfg->ncores && used < lcores_len; i++)
		used += (size_t)snprintf(lcores + used, lcores_len - used, "%s%d", i ? "," : "",
					 cfg->cores[i]);
	out[(*outc)++] = "-l";
	out[(*outc)++] = lcores;
}

/* Queue pairs per port: one per worker, as far as every device has them. */
static int count_queues(struct dpdk_fwd *d)
{
	unsigned q = d->nworkers < DPDK_QUEUES_MAX ? d->nworkers : DPDK_QUEUES_MAX;

	for (unsigned i = 0; i < d->cfg->nports; i++) {
		struct rte_eth_dev_info info;
		const char *name = d->cfg->ports[i].ifname;

		if (rte_eth_dev_get_port_by_name(name, &d->port_id[i])) {
			fprintf(stderr, "hdp-fwd: port '%s': no DPDK device of that name (give it "
				"with --vdev or its PCI address)\n", name);
			return 2;
		}
		if (rte_eth_dev_info_get(d->port_id[i], &info)) {
			fprintf(stderr, "hdp-fwd: port '%s': cannot read its device info\n", name);
			return 1;
		}
		q = info.max_rx_queues < q ? info.max_rx_queues : q;
		q = info.max_tx_queues < q ? info.max_tx_queues : q;
	}
	d->nqueues = q ? q : 1;
	return 0;
}

static int port_start(struct dpdk_fwd *d, unsigned i)
{
	struct hdp_port_cfg *pc = &d->cfg->ports[i];
	uint16_t id = d->port_id[i], nq = (uint16_t)d->nqueues;
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_ether_addr mac;
	int ret;

	memset(&conf, 0, sizeof(conf));
	hdp_fwd_dpdk_size_conf(d, i, &conf);
	/* Several queues on a real NIC: spread flows with RSS where it has it. */
	if (nq > 1 && rte_eth_dev_info_get(id, &info) == 0 && info.flow_type_rss_offloads) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = info.flow_type_rss_offloads &
						   (RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP);
	}
	ret = rte_eth_dev_configure(id, nq, nq, &conf);
	for (uint16_t q = 0; !ret && q < nq; q++) {
		ret = rte_eth_rx_queue_setup(id, q, DPDK_RING, rte_eth_dev_socket_id(id), NULL,
					     d->mp);
		if (!ret)
			ret = rte_eth_tx_queue_setup(id, q, DPDK_RING, rte_eth_dev_socket_id(id),
						     NULL);
	}
	if (!ret)
		ret = rte_eth_dev_start(id);
	if (ret) {
		fprintf(stderr, "hdp-fwd: port '%s': cannot start it with %u queue pair%s: %s\n",
			pc->ifname, nq, nq == 1 ? "" : "s", rte_strerror(-ret));
		return 1;
	}
	rte_eth_promiscuous_enable(id);
	if (!pc->has_src_mac && rte_eth_macaddr_get(id, &mac) == 0)
		memcpy(pc->src_mac, mac.addr_bytes, 6);
	return 0;
}

/*
 * Queue Q of port P to worker (P + Q) mod workers: each worker gets
 * queues of every port, and with one queue per port the ports are shared
 * out in turn.
 */
static void spread_queues(struct dpdk_fwd *d)
{
	for (unsigned q = 0; q < d->nqueues; q++) {
		for (unsigned i = 0; i < d->cfg->nports; i++) {
			struct dpdk_worker *w = &d->w[(i + q) % d->nworkers];
			unsigned out = (unsigned)d->cfg->ports[i].peer;

			w->q[w->nq++] = (struct dpdk_queue){
				.in_id = d->port_id[i], .out_id = d->port_id[out],
				.queue = (uint16_t)q, .in = i, .out = out,
				.out_max = d->size[out].frame,
			};
		}
	}
}

/* Free what will not be sent: through the hdp wrapper when a cache hides frees. */
static void drop(struct dpdk_fwd *d, struct rte_mbuf **m, unsigned n)
{
	if (d->cfg->mbuf_cache)
		hdp_dpdk_mbuf_free_bulk(m, n);
	else
		rte_pktmbuf_free_bulk(m, n);
}

/*
 * One burst from one RX queue to its peer's TX queue; returns how many
 * came in. What TX took is counted from what was handed to it less what
 * came back unsent: the PMD may have freed what it sent already.
 */
static unsigned forward(struct dpdk_fwd *d, struct dpdk_worker *w, const struct dpdk_queue *q)
{
	struct rte_mbuf *bufs[HDP_FWD_BATCH_MAX], *good[HDP_FWD_BATCH_MAX];
	const struct hdp_port_cfg *out_cfg = &d->cfg->ports[q->out];
	uint16_t n = rte_eth_rx_burst(q->in_id, q->queue, bufs, (uint16_t)d->cfg->batch);
	struct dpdk_port_counters *in = &w->port[q->in], *out = &w->port[q->out];
	uint64_t rx_frags = 0, rx_bytes = 0, tx_frags = 0, tx_bytes = 0;
	uint16_t ngood = 0, sent, runt = 0, too_big = 0;

	if (!n)
		return 0;
	for (uint16_t i = 0; i < n; i++) {
		struct rte_mbuf *m = bufs[i];

		rx_frags += m->nb_segs;
		rx_bytes += m->pkt_len;
		if (hdp_unlikely(m->pkt_len > q->out_max)) {
			too_big++;
			drop(d, &m, 1);
			continue;
		}
		/* The headers are in the first segment; the rest of a chain is payload. */
		if (hdp_unlikely(hdp_fwd_rewrite(d->cfg->mode, rte_pktmbuf_mtod(m, uint8_t *),
						 m->data_len, out_cfg))) {
			runt++;
			drop(d, &m, 1);
			continue;
		}
		tx_frags += m->nb_segs;
		tx_bytes += m->pkt_len;
		good[ngood++] = m;
	}
	hdp_counter_add(&in->rx_packets, n);
	hdp_counter_add(&in->rx_frags, rx_frags);
	hdp_counter_add(&in->rx_bytes, rx_bytes);
	if (hdp_unlikely(runt | too_big)) {
		hdp_counter_add(&in->drops[HDP_FWD_DROP_RUNT], runt);
		hdp_counter_add(&in->drops[HDP_FWD_DROP_TOO_BIG], too_big);
	}
	sent = ngood ? rte_eth_tx_burst(q->out_id, q->queue, good, ngood) : 0;
	if (sent < ngood) {
		/* Still ours: the PMD took none of these. */
		for (uint16_t i = sent; i < ngood; i++) {
			tx_frags -= good[i]->nb_segs;
			tx_bytes -= good[i]->pkt_len;
		}
		hdp_counter_add(&out->drops[HDP_FWD_DROP_TX_FULL], ngood - sent);
		drop(d, good + sent, ngood - sent);
	}
	hdp_counter_add(&out->tx_packets, sent);
	hdp_counter_add(&out->tx_frags, tx_frags);
	hdp_counter_add(&out->tx_bytes, tx_bytes);
	return n;
}

/*
 * A worker: its queues, burst after burst, until the run ends. The main
 * lcore's also does the control loop's duties between bursts, every 10
 * ms; the others only forward.
 */
static int worker_main(void *arg)
{
	struct dpdk_worker *w = arg;
	struct dpdk_fwd *d = w->d;
	bool is_main = rte_lcore_id() == rte_get_main_lcore();
	uint64_t every = rte_get_tsc_hz() / 100, next = 0;

	while (!atomic_load_explicit(&d->done, memory_order_relaxed)) {
		unsigned work = 0;

		for (unsigned i = 0; i < w->nq; i++)
			work += forward(d, w, &w->q[i]);
		if (is_main && rte_rdtsc() >= next) {
			next = rte_rdtsc() + every;
			if (!hdp_control_tick(d->control, 0))
				atomic_store(&d->done, true);
		}
		if (!work)
			rte_delay_us_sleep(50);
	}
	return 0;
}

/* Workers on every lcore, indexed in EAL's order (the main lcore first). */
static int make_workers(struct dpdk_fwd *d)
{
	unsigned k = 0, lcore;

	d->nworkers = rte_lcore_count();
	d->w = rte_zmalloc("hdp_fwd_workers", d->nworkers * sizeof(*d->w), RTE_CACHE_LINE_SIZE);
	if (!d->w)
		return -ENOMEM;
	d->w[k].d = d;
	d->w[k++].lcore = rte_get_main_lcore();
	RTE_LCORE_FOREACH_WORKER(lcore) {
		d->w[k].d = d;
		d->w[k++].lcore = lcore;
	}
	return 0;
}

/* The mbufs, as long as the sizes chose (sizes.c). */
static struct rte_mempool *make_pool(const struct dpdk_fwd *d)
{
	return rte_pktmbuf_pool_create_by_ops(HDP_FWD_DPDK_POOL, d->cfg->frames,
					      d->cfg->mbuf_cache, 0, d->data_room,
					      (int)rte_socket_id(), HDP_DPDK_OPS_NAME);
}

/*
 * net_af_xdp puts the mbufs on its fill ring, and the kernel may write one
 * past what its data_len will say (hdp_dpdk_pool_lent_to_kernel): the pool
 * hears it before any queue takes an mbuf.
 */
static bool is_af_xdp(uint16_t id, struct rte_eth_dev_info *info)
{
	return rte_eth_dev_info_get(id, info) == 0 && info->driver_name &&
	       strcmp(info->driver_name, "net_af_xdp") == 0;
}

static void lend_to_kernel(struct dpdk_fwd *d)
{
	struct rte_eth_dev_info info;

	for (unsigned i = 0; i < d->cfg->nports; i++)
		d->af_xdp_ports += is_af_xdp(d->port_id[i], &info);
	/* An hdp pool, made by make_pool: it cannot refuse. */
	if (d->af_xdp_ports)
		hdp_dpdk_pool_lent_to_kernel(d->mp);
}

/* The XDP program on port @i's interface, if it is a net_af_xdp port (else 0). */
static unsigned xdp_program_of(const struct dpdk_fwd *d, unsigned i, unsigned *ifindex)
{
	struct rte_eth_dev_info info;
	unsigned mode;

	*ifindex = 0;
	if (!is_af_xdp(d->port_id[i], &info) || !info.if_index)
		return 0;
	*ifindex = info.if_index;
	return hdp_xdp_prog_on(info.if_index, &mode);
}

/*
 * net_af_xdp attaches its XDP program without a link and detaches it at
 * close, which takes the CAP_NET_ADMIN hdp-fwd drops: the keeper
 * (hdp/xdp_keeper.h) is told the program port @i's start attached, to
 * detach what is left however hdp-fwd ends.
 */
static void keep_xdp_program(const struct dpdk_fwd *d, unsigned i)
{
	char ifname[IF_NAMESIZE];
	unsigned ifindex;

	xdp_program_of(d, i, &ifindex);
	if (ifindex && if_indextoname(ifindex, ifname))
		hdp_xdp_keeper_note(d->xdp_keeper.fd, ifindex, ifname);
}

/* Every port started, the programs net_af_xdp attaches noted, the queues shared out. */
static int start_ports(struct dpdk_fwd *d)
{
	int ret;

	for (; d->started < d->cfg->nports; d->started++) {
		ret = port_start(d, d->started);
		if (ret) {
			d->half_started = true;
			return ret;
		}
		keep_xdp_program(d, d->started);
	}
	/* Before the privileges go: nothing the keeper is told later counts. */
	hdp_keeper_seal(&d->xdp_keeper);
	spread_queues(d);
	return 0;
}

/*
 * What net_af_xdp can keep at close, at most, per queue, generously: the
 * 2048 it lends its fill ring, what sits in its RX ring (1024), and on
 * the TX side its TX and completion rings (1024 and 2048 at most). More
 * missing than that is a leak of hdp-fwd's own.
 */
#define AF_XDP_KEPT_PER_QUEUE (2048 + DPDK_RING + DPDK_RING + 2048)

/*
 * Closed ports gave their queues' mbufs back; the caches count as in the
 * pool. net_af_xdp does not: the mbufs on its rings are taken back.
 */
static int mbufs_back(struct dpdk_fwd *d, int ret)
{
	int kept = d->af_xdp_ports ? hdp_dpdk_pool_reclaim(d->mp) : 0;
	unsigned avail = rte_mempool_avail_count(d->mp);
	unsigned most = d->af_xdp_ports * d->nqueues * AF_XDP_KEPT_PER_QUEUE;

	if (kept > 0)
		printf("%d mbufs taken back from net_af_xdp, which keeps those on its rings when "
		       "it closes (at most %u here)\n", kept, most);
	else if (kept < 0)
		fprintf(stderr, "hdp-fwd: cannot take back the mbufs net_af_xdp kept: %s\n",
			strerror(-kept));
	if (kept > 0 && (unsigned)kept > most) {
		fprintf(stderr, "hdp-fwd: %u mbufs more than net_af_xdp's rings hold did not come "
			"back to the pool\n", (unsigned)kept - most);
		return ret ? ret : 1;
	}

	if (avail != d->mp->size) {
		fprintf(stderr, "hdp-fwd: %u mbufs did not come back to the pool\n",
			d->mp->size - avail);
		return ret ? ret : 1;
	}
	if (!ret)
		printf("every mbuf is back in the pool; ports closed\n");
	return ret;
}

/*
 * The ports stopped and closed, and the one whose start failed half way
 * (its queues may hold mbufs); not one never started: net_af_xdp's close
 * removes whatever XDP program its interface runs, someone else's too.
 * Then every mbuf must be back.
 */
static int close_ports(struct dpdk_fwd *d, int status)
{
	unsigned n = d->started + d->half_started;

	for (unsigned i = 0; i < n; i++) {
		rte_eth_dev_stop(d->port_id[i]);
		rte_eth_dev_close(d->port_id[i]);
	}
	return mbufs_back(d, status);
}

/*
 * What set-up made, undone in the reverse order, from what it got to:
 * @status, or 1 when mbufs did not come back (said).
 */
static int unmake(struct dpdk_fwd *d, int status)
{
	if (d->made >= MADE_PORTS)
		status = close_ports(d, status);
	if (d->made >= MADE_POOL)
		rte_mempool_free(d->mp);
	if (d->made >= MADE_WORKERS)
		rte_free(d->w);
	if (d->made >= MADE_EAL)
		rte_eal_cleanup();
	if (d->made >= MADE_KEEPER)
		hdp_keeper_finish(&d->xdp_keeper);
	d->made = MADE_NOTHING;
	return status;
}

/*
 * EAL, the workers, the devices and their sizes, the pool, the ports
 * started: 0, or the exit status (2: EAL's arguments refused, a device
 * missing or unable to carry its frames), with what was made undone.
 */
static int setup(void *e, struct hdp_control *c)
{
	struct dpdk_fwd *d = e;
	int argc, ret;

	d->control = c;
	d->cfg = c->cfg;
	/* Now, while hdp-fwd is one thread: EAL starts others. */
	hdp_xdp_keeper_start(&d->xdp_keeper);
	d->made = MADE_KEEPER;
	/* The ports, the EAL arguments and the paths were checked before start-up. */
	eal_args(d->cfg, d->eal_argc, d->eal_argv, d->argv, &argc, d->lcores, sizeof(d->lcores));
	if (rte_eal_init(argc, d->argv) < 0) {
		fprintf(stderr, "hdp-fwd: the EAL arguments after -- were refused: %s\n",
			rte_strerror(rte_errno));
		return unmake(d, 2);
	}
	d->made = MADE_EAL;
	if (hdp_dpdk_use_config(&d->cfg->harden))
		return unmake(d, 2);
	if (make_workers(d))
		return unmake(d, 1);
	d->made = MADE_WORKERS;
	/* The devices first: how long the mbufs must be depends on what they carry. */
	ret = count_queues(d);
	if (!ret)
		ret = hdp_fwd_dpdk_sizes(d);
	if (ret)
		return unmake(d, ret);
	d->mp = make_pool(d);
	if (!d->mp) {
		fprintf(stderr, "hdp-fwd: cannot make the mbuf pool '%s' of %u mbufs of %u bytes: "
			"%s\n", HDP_FWD_DPDK_POOL, d->cfg->frames, d->data_room,
			rte_strerror(rte_errno));
		return unmake(d, 1);
	}
	d->made = MADE_POOL;
	lend_to_kernel(d);
	d->made = MADE_PORTS;
	ret = start_ports(d);
	return ret ? unmake(d, ret) : 0;
}

static struct hdp_ctl_source source(void *e)
{
	return hdp_fwd_dpdk_ctl_source(e);
}

/* The other lcores' workers; the main lcore's is run(). */
static int start(void *e)
{
	struct dpdk_fwd *d = e;

	for (unsigned k = 1; k < d->nworkers; k++)
		rte_eal_remote_launch(worker_main, &d->w[k], d->w[k].lcore);
	return 0;
}

static void announce(void *e, char *status, size_t len)
{
	struct dpdk_fwd *d = e;
	const struct hdp_ctl *ctl = d->control->ctl;
	struct hdp_dpdk_pool_stats st;
	char text[160];

	hdp_dpdk_pool_stats_get(d->mp, &st);
	printf("hdp-fwd: mode %s, %u DPDK ports with %u queue pair%s each, %u worker%s, pool %s "
	       "of %u mbufs of %u bytes (hdp driver, %s, quarantine %u deep%s)%s%s\n",
	       hdp_fwd_mode_name(d->cfg->mode),
	       d->cfg->nports, d->nqueues, d->nqueues == 1 ? "" : "s", d->nworkers,
	       d->nworkers == 1 ? "" : "s", d->mp->name, d->mp->size,
	       d->data_room - RTE_PKTMBUF_HEADROOM,
	       d->cfg->mbuf_cache ? "per-lcore cache: frees wiped by hdp-fwd before it" : "no cache",
	       st.quarantine_depth,
	       d->af_xdp_ports ? ", extents the whole data room: net_af_xdp lends them to "
	       "the kernel" : "",
	       ctl ? ", control socket " : "", ctl ? d->cfg->ctl_path : "");
	for (unsigned i = 0; i < d->cfg->nports; i++)
		printf("  %s -> %s: %s\n", d->cfg->ports[i].ifname,
		       d->cfg->ports[d->cfg->ports[i].peer].ifname,
		       hdp_fwd_dpdk_size_text(d, i, text, sizeof(text)));
	fflush(stdout);
	snprintf(status, len, "forwarding on %u DPDK ports, %u workers", d->cfg->nports,
		 d->nworkers);
}

static void run(void *e)
{
	struct dpdk_fwd *d = e;

	worker_main(&d->w[0]);
}

static void status_line(void *e, double uptime, double dt)
{
	struct dpdk_fwd *d = e;
	uint64_t rx = hdp_fwd_dpdk_rx_total(d);

	(void)uptime;
	printf("hdp-fwd: %.0f pps received over %u workers\n", (double)(rx - d->last_rx) / dt,
	       d->nworkers);
	fflush(stdout);
	d->last_rx = rx;
}

/*
 * What applies here is stats_interval and metrics_mode: the mbufs pool's
 * profile lives in the driver and changes key by key (hdp-ctl set), so a
 * reload says whether the file's differs rather than apply half of it.
 */
static int apply(void *e, const struct hdp_fwd_cfg *next, const char *cause)
{
	struct dpdk_fwd *d = e;
	struct hdp_profile was, wants;
	char a[1024], b[1024];

	hdp_harden_config_resolve(&d->cfg->harden, HDP_FWD_DPDK_POOL, &was);
	hdp_harden_config_resolve(&next->harden, HDP_FWD_DPDK_POOL, &wants);
	hdp_profile_format(&was, a, sizeof(a));
	hdp_profile_format(&wants, b, sizeof(b));
	d->cfg->stats_interval = next->stats_interval;
	d->cfg->metrics_mode = next->metrics_mode;
	hdp_log(HDP_LOG_INFO, "%s: %s read again (DPDK ports): stats_interval %u and "
		"metrics_mode %04o applied; %s", cause, d->control->config_file,
		d->cfg->stats_interval, d->cfg->metrics_mode, strcmp(a, b)
		? "the file's profile for pool " HDP_FWD_DPDK_POOL " differs from the one it "
		  "started with and is NOT applied on DPDK ports: change a key with hdp-ctl set "
		  HDP_FWD_DPDK_POOL " KEY VALUE"
		: "pool " HDP_FWD_DPDK_POOL ": profile unchanged");
	return 0;
}

/* The run is over: every worker told, and waited for. */
static void stop(void *e)
{
	struct dpdk_fwd *d = e;
	unsigned lcore;

	atomic_store(&d->done, true);
	RTE_LCORE_FOREACH_WORKER(lcore)
		rte_eal_wait_lcore(lcore);
}

static void summary(void *e)
{
	struct dpdk_fwd *d = e;
	struct hdp_dpdk_pool_stats st;
	struct dpdk_port_sum s;
	char table[HDP_FWD_PORTS_MAX * 128 + 256];
	struct hdp_strbuf o = hdp_strbuf_init(table, sizeof(table));

	hdp_fwd_dpdk_port_table(d, &o);
	fputs(table, stdout);
	for (unsigned k = 0; k < d->nworkers; k++) {
		hdp_fwd_dpdk_worker_sum(d, k, &s);
		printf("worker %u (lcore %u): %u queues, %llu frames received\n", k, d->w[k].lcore,
		       d->w[k].nq, (unsigned long long)s.rx_packets);
	}
	if (hdp_dpdk_pool_stats_get(d->mp, &st) == 0)
		printf("pool %s: %u mbufs, %llu allocs, %llu frees, %llu bytes wiped, %llu violations\n",
		       d->mp->name, d->mp->size, (unsigned long long)st.allocs,
		       (unsigned long long)st.frees, (unsigned long long)st.bytes_wiped,
		       (unsigned long long)st.violations);
}

static int teardown(void *e, int status)
{
	return unmake(e, status);
}

static const struct hdp_engine dpdk_engine = {
	.setup = setup,
	.source = source,
	.start = start,
	.announce = announce,
	.run = run,
	.status_line = status_line,
	.apply = apply,
	.stop = stop,
	.summary = summary,
	.teardown = teardown,
};

int hdp_fwd_dpdk_run(struct hdp_control *c, int eal_argc, char **eal_argv)
{
	static struct dpdk_fwd d;

	d = (struct dpdk_fwd){ .eal_argc = eal_argc, .eal_argv = eal_argv };
	atomic_init(&d.done, false);
	return hdp_control_run(c, &dpdk_engine, &d);
}
