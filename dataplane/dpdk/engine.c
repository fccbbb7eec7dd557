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
 * chains of mbufs for jumbo frames: sizes.c. The main lcore's
 * worker also serves the control socket, the stats lines, the metrics
 * file and SIGHUP between bursts.
 *
 * The mbuf pool has no per-lcore cache unless mbuf_cache says otherwise:
 * every mbuf crosses the hdp driver, so its profile holds for each one,
 * and a "set" on the control socket applies from the next bulk call.
 */
#include "engine.h"

#include <hdp/dpdk.h>
#include <hdp/log.h>
#include <hdp/metrics_file.h>
#include <hdp/strbuf.h>
#include <hdp/xdp_keeper.h>

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#define EAL_ARGS_MAX 128

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

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

int hdp_fwd_dpdk_check(const struct hdp_fwd_cfg *cfg, int eal_argc, char **eal_argv)
{
	(void)cfg;	/* its cores against EAL's: hdp_fwd_eal_args_check(), before */
	if (eal_argc + 2 > EAL_ARGS_MAX) {
		fprintf(stderr, "hdp-fwd: more than %d EAL arguments\n", EAL_ARGS_MAX - 2);
		return -EINVAL;
	}
	return af_xdp_interface_taken(eal_argc, eal_argv);
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

/* @c's counters added into @s. */
static void add_counters(struct dpdk_port_sum *s, const struct dpdk_port_counters *c)
{
	s->rx_packets += hdp_counter_read(&c->rx_packets);
	s->rx_frags += hdp_counter_read(&c->rx_frags);
	s->rx_bytes += hdp_counter_read(&c->rx_bytes);
	s->tx_packets += hdp_counter_read(&c->tx_packets);
	s->tx_frags += hdp_counter_read(&c->tx_frags);
	s->tx_bytes += hdp_counter_read(&c->tx_bytes);
	for (unsigned k = 0; k < HDP_FWD_DROP__COUNT; k++)
		s->drops[k] += hdp_counter_read(&c->drops[k]);
}

void hdp_fwd_dpdk_port_sum(const struct dpdk_fwd *d, unsigned port, struct dpdk_port_sum *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned k = 0; k < d->nworkers; k++)
		add_counters(s, &d->w[k].port[port]);
}

void hdp_fwd_dpdk_worker_sum(const struct dpdk_fwd *d, unsigned k, struct dpdk_port_sum *s)
{
	memset(s, 0, sizeof(*s));
	for (unsigned i = 0; i < d->cfg->nports; i++)
		add_counters(s, &d->w[k].port[i]);
}

static uint64_t total_rx(const struct dpdk_fwd *d)
{
	struct dpdk_port_sum s;
	uint64_t rx = 0;

	for (unsigned i = 0; i < d->cfg->nports; i++) {
		hdp_fwd_dpdk_port_sum(d, i, &s);
		rx += s.rx_packets;
	}
	return rx;
}

/* The main lcore, between bursts: control requests, stats lines, the end. */
struct duties {
	uint64_t every, next;		/* TSC cycles */
	double next_stats, last_stats;
	unsigned interval;		/* stats_interval when next_stats was set */
	uint64_t last_rx;
};

/*
 * The file read and checked as on AF_XDP ports. What applies here is
 * stats_interval and metrics_mode: the mbufs pool's profile lives in the
 * driver and changes key by key (hdp-ctl set), so a reload says whether
 * the file's differs rather than apply half of it. 0, or -EINVAL when the
 * file is refused.
 */
static int reload_file(struct dpdk_fwd *d, const char *cause)
{
	static struct hdp_fwd_cfg next;
	struct hdp_profile was, wants;
	char a[1024], b[1024];

	if (d->hooks->reread(cause, d->cfg, &next))
		return -EINVAL;
	hdp_harden_config_resolve(&d->cfg->harden, HDP_FWD_DPDK_POOL, &was);
	hdp_harden_config_resolve(&next.harden, HDP_FWD_DPDK_POOL, &wants);
	hdp_profile_format(&was, a, sizeof(a));
	hdp_profile_format(&wants, b, sizeof(b));
	d->cfg->stats_interval = next.stats_interval;
	d->cfg->metrics_mode = next.metrics_mode;
	hdp_metrics_file_reconfigure(d->metrics, d->cfg);
	hdp_log(HDP_LOG_INFO, "%s: %s read again (DPDK ports): stats_interval %u and "
		"metrics_mode %04o applied; %s", cause, d->hooks->config_file,
		d->cfg->stats_interval, d->cfg->metrics_mode, strcmp(a, b)
		? "the file's profile for pool " HDP_FWD_DPDK_POOL " differs from the one it "
		  "started with and is NOT applied on DPDK ports: change a key with hdp-ctl set "
		  HDP_FWD_DPDK_POOL " KEY VALUE"
		: "pool " HDP_FWD_DPDK_POOL ": profile unchanged");
	return 0;
}

/*
 * SIGHUP or hdp-ctl reload (@cause): the file again (reload_file);
 * systemd hears of it (Type=notify) either way, as on AF_XDP ports.
 */
int hdp_fwd_dpdk_reload(struct dpdk_fwd *d, const char *cause)
{
	int ret;

	hdp_sd_notify("RELOADING=1");
	ret = reload_file(d, cause);
	hdp_sd_notify("READY=1");
	return ret;
}

static void main_duties(struct dpdk_fwd *d, struct duties *t)
{
	double now;

	if (rte_rdtsc() < t->next)
		return;
	t->next = rte_rdtsc() + t->every;
	if (d->ctl)
		hdp_ctl_run(d->ctl, 0);
	now = now_s();
	if (*d->hooks->stop || (d->cfg->duration && now - d->start >= d->cfg->duration))
		atomic_store(&d->done, true);
	if (*d->hooks->reload) {
		*d->hooks->reload = 0;
		hdp_fwd_dpdk_reload(d, "SIGHUP");
	}
	/* A reload (SIGHUP, or hdp-ctl's served above) may change it. */
	if (d->cfg->stats_interval != t->interval) {
		t->interval = d->cfg->stats_interval;
		t->next_stats = now + t->interval;
	}
	hdp_metrics_file_tick(d->metrics);
	if (d->cfg->stats_interval && now >= t->next_stats) {
		uint64_t rx = total_rx(d);

		printf("hdp-fwd: %.0f pps received over %u workers\n",
		       (double)(rx - t->last_rx) / (now - t->last_stats), d->nworkers);
		fflush(stdout);
		t->last_rx = rx;
		t->last_stats = now;
		t->next_stats = now + d->cfg->stats_interval;
	}
}

static int worker_main(void *arg)
{
	struct dpdk_worker *w = arg;
	struct dpdk_fwd *d = w->d;
	bool is_main = rte_lcore_id() == rte_get_main_lcore();
	struct duties t = {
		.every = rte_get_tsc_hz() / 100, .next_stats = d->start + d->cfg->stats_interval,
		.last_stats = d->start, .interval = d->cfg->stats_interval,
	};

	while (!atomic_load_explicit(&d->done, memory_order_relaxed)) {
		unsigned work = 0;

		for (unsigned i = 0; i < w->nq; i++)
			work += forward(d, w, &w->q[i]);
		if (is_main)
			main_duties(d, &t);
		if (!work)
			rte_delay_us_sleep(50);
	}
	return 0;
}

static void summary(struct dpdk_fwd *d)
{
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
		hdp_xdp_keeper_note(d->hooks->xdp_keeper->fd, ifindex, ifname);
}

static int start(struct dpdk_fwd *d, unsigned *started)
{
	struct hdp_ctl_source src;
	int ret;

	for (; *started < d->cfg->nports; (*started)++) {
		ret = port_start(d, *started);
		if (ret) {
			d->half_started = true;
			return ret;
		}
		keep_xdp_program(d, *started);
	}
	/* Before the privileges go: nothing the keeper is told later counts. */
	hdp_keeper_seal(d->hooks->xdp_keeper);
	spread_queues(d);
	src = hdp_fwd_dpdk_ctl_source(d);
	if (d->cfg->ctl_path[0] && !(d->ctl = hdp_ctl_open_source(d->cfg->ctl_path, &src)))
		return 1;
	if (d->ctl && hdp_fwd_ctl_hand_over(d->cfg, d->ctl))
		return 1;
	/* Set-up is over; the ports run without any privilege from here. */
	if (d->hooks->drop_privileges && hdp_fwd_drop_privileges(d->cfg))
		return 1;
	/* As the user it runs as: a file it cannot write is said at once. */
	if (d->cfg->metrics_path[0] && (!(d->metrics = hdp_metrics_file_open(d->cfg, &src)) ||
					hdp_metrics_file_write(d->metrics)))
		return 1;
	return 0;
}

static void announce(const struct dpdk_fwd *d)
{
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
	       d->ctl ? ", control socket " : "", d->ctl ? d->cfg->ctl_path : "");
	for (unsigned i = 0; i < d->cfg->nports; i++)
		printf("  %s -> %s: %s\n", d->cfg->ports[i].ifname,
		       d->cfg->ports[d->cfg->ports[i].peer].ifname,
		       hdp_fwd_dpdk_size_text(d, i, text, sizeof(text)));
	fflush(stdout);
}

/* Type=notify: the service is up once every port runs and every worker does. */
static void tell_service_manager_ready(const struct dpdk_fwd *d)
{
	char state[128];
	int ret;

	snprintf(state, sizeof(state), "READY=1\nSTATUS=forwarding on %u DPDK ports, %u workers",
		 d->cfg->nports, d->nworkers);
	ret = hdp_sd_notify(state);
	if (ret)
		fprintf(stderr, "hdp-fwd: cannot tell the service manager it is ready "
			"(NOTIFY_SOCKET): %s\n", strerror(-ret));
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

int hdp_fwd_dpdk_run(struct hdp_fwd_cfg *cfg, int eal_argc, char **eal_argv,
		     const struct hdp_fwd_dpdk_hooks *hooks)
{
	static struct dpdk_fwd d;
	char *argv[EAL_ARGS_MAX], lcores[HDP_FWD_CORES_MAX * 6];
	unsigned started = 0, lcore;
	int argc, ret;

	/* The ports, the EAL arguments and the paths were checked (preflight). */
	eal_args(cfg, eal_argc, eal_argv, argv, &argc, lcores, sizeof(lcores));
	d = (struct dpdk_fwd){ .cfg = cfg, .hooks = hooks };
	atomic_init(&d.done, false);
	if (rte_eal_init(argc, argv) < 0) {
		fprintf(stderr, "hdp-fwd: the EAL arguments after -- were refused: %s\n",
			rte_strerror(rte_errno));
		return 2;
	}
	if (hdp_dpdk_use_config(&cfg->harden)) {
		ret = 2;
		goto out;
	}
	if (make_workers(&d)) {
		ret = 1;
		goto out;
	}
	/* The devices first: how long the mbufs must be depends on what they carry. */
	ret = count_queues(&d);
	if (!ret)
		ret = hdp_fwd_dpdk_sizes(&d);
	if (ret)
		goto out;
	d.mp = make_pool(&d);
	if (!d.mp) {
		fprintf(stderr, "hdp-fwd: cannot make the mbuf pool '%s' of %u mbufs of %u bytes: "
			"%s\n", HDP_FWD_DPDK_POOL, cfg->frames, d.data_room, rte_strerror(rte_errno));
		ret = 1;
		goto out;
	}
	lend_to_kernel(&d);
	d.start = now_s();
	ret = start(&d, &started);
	if (ret)
		goto stop_ports;
	announce(&d);
	d.start = now_s();
	for (unsigned k = 1; k < d.nworkers; k++)
		rte_eal_remote_launch(worker_main, &d.w[k], d.w[k].lcore);
	tell_service_manager_ready(&d);
	worker_main(&d.w[0]);
	hdp_sd_notify("STOPPING=1");
	RTE_LCORE_FOREACH_WORKER(lcore)
		rte_eal_wait_lcore(lcore);
	printf("--- summary after %.1f s\n", now_s() - d.start);
	summary(&d);
stop_ports:
	hdp_metrics_file_close(d.metrics);
	d.metrics = NULL;
	hdp_ctl_close(d.ctl);
	d.ctl = NULL;
	/*
	 * And the port whose start failed half way: its queues may hold mbufs.
	 * Not one never started: net_af_xdp's close removes whatever XDP
	 * program its interface runs, someone else's too.
	 */
	if (d.half_started)
		started++;
	for (unsigned i = 0; i < started; i++) {
		rte_eth_dev_stop(d.port_id[i]);
		rte_eth_dev_close(d.port_id[i]);
	}
	ret = mbufs_back(&d, ret);
	rte_mempool_free(d.mp);
out:
	rte_free(d.w);
	rte_eal_cleanup();
	return ret;
}
