// SPDX-License-Identifier: BSD-3-Clause
/*
 * How large a frame each DPDK port carries, and how: its MTU, whether its
 * frames come and go as chains of mbufs (jumbo frames: RX scatter, TX
 * multi-segment), and the data room of the mbufs. Decided once, after EAL
 * has found the devices and before the pool is made, from max_frame or,
 * with auto, the MTUs (DPDK's, or the kernel interface's under a device
 * that has one, since that is what lets frames in). A port whose device
 * cannot carry its frames is refused, named, with the largest frame it
 * takes and the remedy: hdp-fwd never starts into drops it could foresee.
 *
 * An mbuf holds RTE_MBUF_DEFAULT_DATAROOM bytes of a frame; a longer one
 * is a chain, on the ports whose device takes chains. A device that takes
 * none gets mbufs long enough for its whole frame instead (one pool for
 * every port, so every port then gets them).
 */
#include "engine.h"


#include <net/if.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

/* The most a single mbuf can hold: its data room is a uint16_t, headroom included. */
#define ONE_MBUF_MAX (UINT16_MAX - RTE_PKTMBUF_HEADROOM)

/*
 * What a driver does that its dev_info does not say (DPDK 22.11). net_pcap
 * gathers a frame longer than an mbuf into a chain on receive
 * (eth_pcap_rx_jumbo) and sends chains (rte_pktmbuf_read into a buffer),
 * yet announces neither SCATTER nor MULTI_SEGS; it captures at most
 * RTE_ETHER_MAX_JUMBO_FRAME_LEN bytes of a frame on an interface (cutting
 * off the rest, counted nowhere) and sends no longer chain, while it
 * reports max_rx_pktlen unlimited.
 */
static const struct driver_fact {
	const char *driver;
	bool chains;		/* takes and gives chains whatever its offloads say */
	uint32_t max_frame;	/* bytes */
	const char *why;	/* what sets max_frame */
} driver_facts[] = {
	{ "net_pcap", true, RTE_ETHER_MAX_JUMBO_FRAME_LEN, "its capture and send buffers" },
};

/* What one port's device carries. */
struct device {
	struct rte_eth_dev_info info;
	uint32_t overhead;		/* frame length less MTU, as ethdev counts it */
	uint32_t limit;			/* the largest frame it takes, bytes */
	const char *limit_why;
	bool rx_chains, tx_chains;	/* it can receive / send chains of mbufs */
	uint16_t mtu;			/* as DPDK reports it */
	char ifname[IF_NAMESIZE];	/* the kernel interface under it, or "" */
	uint32_t if_mtu;		/* that interface's MTU (0: none) */
};

static const struct driver_fact *fact_of(const char *driver)
{
	for (unsigned i = 0; i < sizeof(driver_facts) / sizeof(driver_facts[0]); i++)
		if (driver && strcmp(driver_facts[i].driver, driver) == 0)
			return &driver_facts[i];
	return NULL;
}

/* ethdev's eth_dev_get_overhead_len(), which validates the MTU we configure. */
static uint32_t overhead_of(const struct rte_eth_dev_info *info)
{
	if (info->max_mtu != UINT16_MAX && info->max_rx_pktlen > info->max_mtu)
		return info->max_rx_pktlen - info->max_mtu;
	return RTE_ETHER_HDR_LEN + RTE_ETHER_CRC_LEN;
}

static int read_device(uint16_t id, const struct hdp_port_cfg *p, struct device *dev)
{
	const struct driver_fact *fact;
	uint64_t mtu_limit;

	memset(dev, 0, sizeof(*dev));
	if (rte_eth_dev_info_get(id, &dev->info) || rte_eth_dev_get_mtu(id, &dev->mtu)) {
		fprintf(stderr, "hdp-fwd: port '%s': cannot read its device info\n", p->ifname);
		return 1;
	}
	fact = fact_of(dev->info.driver_name);
	dev->overhead = overhead_of(&dev->info);
	dev->rx_chains = (dev->info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER) ||
			 (fact && fact->chains);
	dev->tx_chains = (dev->info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) ||
			 (fact && fact->chains);
	dev->limit = dev->info.max_rx_pktlen;
	dev->limit_why = "max_rx_pktlen";
	mtu_limit = (uint64_t)dev->info.max_mtu + dev->overhead;
	if (mtu_limit < dev->limit) {
		dev->limit = (uint32_t)mtu_limit;
		dev->limit_why = "max_mtu";
	}
	if (fact && fact->max_frame < dev->limit) {
		dev->limit = fact->max_frame;
		dev->limit_why = fact->why;
	}
	/* A device on a kernel interface (net_pcap iface=, net_af_xdp): its MTU lets frames in. */
	if (dev->info.if_index && if_indextoname(dev->info.if_index, dev->ifname) &&
	    hdp_fwd_if_mtu(dev->ifname, &dev->if_mtu))
		dev->if_mtu = 0;
	return 0;
}

/* What port @i's own interface and MTU let in: max_frame, or the larger of its MTUs'. */
static uint32_t rx_frame_of(const struct hdp_fwd_cfg *cfg, const struct device *dev)
{
	uint32_t frame = dev->mtu + dev->overhead;

	if (cfg->max_frame)
		return cfg->max_frame;
	if (dev->if_mtu && dev->if_mtu + dev->overhead > frame)
		frame = dev->if_mtu + dev->overhead;
	return frame;
}

/* What really reaches port @k: at most what the interface under it lets in, if any. */
static uint32_t intake_of(const struct device *dev, uint32_t rx)
{
	return dev->if_mtu && dev->if_mtu + dev->overhead < rx ? dev->if_mtu + dev->overhead : rx;
}

/* The ports' frames, and what set each (for refusals). */
struct sizing {
	struct device dev[HDP_FWD_PORTS_MAX];
	uint32_t rx[HDP_FWD_PORTS_MAX];		/* what each receives */
	unsigned from[HDP_FWD_PORTS_MAX];	/* the port whose rx set its frame */
};

/* ", on interface f0 with MTU 9000," or "". */
static const char *on_interface(const struct device *dev, char *buf, size_t len)
{
	buf[0] = '\0';
	if (dev->if_mtu)
		snprintf(buf, len, ", on interface %s with MTU %u,", dev->ifname, dev->if_mtu);
	return buf;
}

/*
 * Where port @i's largest frame comes from, and what lowers it to @most:
 * max_frame; an interface's MTU (its own, or that of the port whose
 * frames it sends); or DPDK's MTU, which max_frame overrides.
 */
static void remedy(const struct dpdk_fwd *d, unsigned i, const struct sizing *z,
		   uint32_t most, char *from, size_t from_len, char *fix, size_t fix_len)
{
	const struct hdp_fwd_cfg *cfg = d->cfg;
	unsigned k = z->from[i];
	const struct device *dev = &z->dev[k];

	if (cfg->max_frame)
		snprintf(from, from_len, "max_frame");
	else if (k != i)
		snprintf(from, from_len, "what port %s receives, sent on", cfg->ports[k].ifname);
	else if (dev->if_mtu && dev->if_mtu + dev->overhead == z->rx[i])
		snprintf(from, from_len, "what the MTU of %s lets in", dev->ifname);
	else
		snprintf(from, from_len, "its MTU %u as DPDK reports it", dev->mtu);
	if (dev->if_mtu && dev->if_mtu + dev->overhead > most && most > dev->overhead) {
		char also[64] = "";

		if (cfg->max_frame)
			snprintf(also, sizeof(also), ", and set max_frame = %u or less", most);
		snprintf(fix, fix_len, "lower the MTU of %s to %u (ip link set dev %s mtu %u)%s",
			 dev->ifname, most - dev->overhead, dev->ifname, most - dev->overhead, also);
	} else {
		snprintf(fix, fix_len, "set max_frame = %u or less", most);
	}
}

/* Port @i's device cannot carry its frames: say which, why, and what to do. */
static void refuse(const struct dpdk_fwd *d, unsigned i, const struct sizing *z, uint32_t most,
		   const char *why)
{
	const struct hdp_fwd_cfg *cfg = d->cfg;
	const struct device *dev = &z->dev[i];
	char where[64], from[96], fix[192];

	remedy(d, i, z, most, from, sizeof(from), fix, sizeof(fix));
	on_interface(dev, where, sizeof(where));
	/* A max_frame too large is the key's error: named where it was set. */
	if (cfg->max_frame)
		hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_MAX_FRAME, "port %s: %s%s takes frames of at "
				   "most %u bytes (%s): %s", cfg->ports[i].ifname,
				   dev->info.driver_name, where, most, why, fix);
	else
		hdp_fwd_port_refuse(&cfg->ports[i], "%s%s takes frames of at most %u bytes (%s), "
				    "not the %u it must carry (%s): %s", dev->info.driver_name,
				    where, most, why, d->size[i].frame, from, fix);
}

/*
 * The kernel interfaces under the devices: with max_frame given, one that
 * lets in more would hand hdp-fwd frames it drops (as the AF_XDP preflight
 * says); one whose MTU is below what its port sends would refuse them.
 */
static int check_interfaces(const struct dpdk_fwd *d, const struct sizing *z)
{
	const struct hdp_fwd_cfg *cfg = d->cfg;
	int ret = 0;

	for (unsigned i = 0; i < cfg->nports; i++) {
		const struct device *dev = &z->dev[i];
		uint32_t in = dev->if_mtu + dev->overhead, sends = 0;
		unsigned from = i;

		if (!dev->if_mtu)
			continue;
		if (cfg->max_frame && in > cfg->max_frame) {
			hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_MAX_FRAME, "port %s is on interface %s, "
				"whose MTU %u lets in frames of up to %u bytes, which would be "
				"dropped: lower its MTU to %u (ip link set dev %s mtu %u) or raise "
				"max_frame to %u", cfg->ports[i].ifname, dev->ifname, dev->if_mtu, in,
				cfg->max_frame - dev->overhead, dev->ifname,
				cfg->max_frame - dev->overhead, in);
			ret = 2;
			continue;
		}
		for (unsigned k = 0; k < cfg->nports; k++) {
			uint32_t got = intake_of(&z->dev[k], z->rx[k]);

			if (cfg->ports[k].peer == (int)i && got > sends) {
				sends = got;
				from = k;
			}
		}
		if (sends <= in)
			continue;
		hdp_fwd_port_refuse(&cfg->ports[i], "it sends what port %s receives, frames of up "
				    "to %u bytes, on interface %s, whose MTU %u takes at most %u: "
				    "raise its MTU to %u (ip link set dev %s mtu %u)%s",
				    cfg->ports[from].ifname, sends, dev->ifname, dev->if_mtu, in,
				    sends - dev->overhead, dev->ifname, sends - dev->overhead,
				    cfg->max_frame ? ", or lower max_frame" : "");
		ret = 2;
	}
	return ret;
}

/*
 * Each port's frame: the largest it receives or sends (what the ports
 * forwarding to it receive), so that its MTU lets it send them too. An
 * MTU raised to send lets as much in (unless an interface under the
 * device holds it back), and that its own output must send in turn: in a
 * cycle A -> B -> C -> A with A on a jumbo interface, B's MTU is raised
 * for A's frames, and then C's for B's. So until nothing grows, which
 * takes at most one round per port.
 */
static void frames(struct dpdk_fwd *d, struct sizing *z)
{
	bool grew = true;

	for (unsigned i = 0; i < d->cfg->nports; i++) {
		d->size[i].frame = z->rx[i];
		z->from[i] = i;
	}
	for (unsigned round = 0; grew && round <= d->cfg->nports; round++) {
		grew = false;
		for (unsigned k = 0; k < d->cfg->nports; k++) {
			unsigned out = (unsigned)d->cfg->ports[k].peer;
			uint32_t in = intake_of(&z->dev[k], d->size[k].frame);

			if (in > z->rx[k])
				z->rx[k] = in;
			if (z->rx[k] > d->size[out].frame) {
				d->size[out].frame = z->rx[k];
				z->from[out] = k;
				grew = true;
			}
		}
	}
}

/* Each port against its device; the data room a device without chains needs. */
static int judge(struct dpdk_fwd *d, const struct sizing *z, uint32_t *room)
{
	int ret = 0;

	*room = RTE_MBUF_DEFAULT_DATAROOM;
	for (unsigned i = 0; i < d->cfg->nports; i++) {
		const struct device *dev = &z->dev[i];
		uint32_t frame = d->size[i].frame;
		bool one_mbuf = (!dev->rx_chains || !dev->tx_chains) && frame > *room;

		if (frame > dev->limit) {
			char why[96];

			snprintf(why, sizeof(why), "%s%s", dev->limit_why,
				 dev->rx_chains && dev->tx_chains ? "" :
				 "; it takes no chains of mbufs");
			refuse(d, i, z, dev->limit, why);
			ret = 2;
		} else if (one_mbuf && frame > ONE_MBUF_MAX) {
			refuse(d, i, z, ONE_MBUF_MAX, "it takes no chains of mbufs, and one mbuf "
			       "holds no more");
			ret = 2;
		} else if (one_mbuf) {
			*room = frame;
		}
	}
	return ret;
}

int hdp_fwd_dpdk_sizes(struct dpdk_fwd *d)
{
	static struct sizing z;
	uint32_t room;
	int ret;

	for (unsigned i = 0; i < d->cfg->nports; i++) {
		if (read_device(d->port_id[i], &d->cfg->ports[i], &z.dev[i]))
			return 1;
		z.rx[i] = rx_frame_of(d->cfg, &z.dev[i]);
	}
	frames(d, &z);
	/* Every refusal said, not only the first. */
	ret = check_interfaces(d, &z);
	ret |= judge(d, &z, &room);
	if (ret)
		return ret;
	d->data_room = (uint16_t)(room + RTE_PKTMBUF_HEADROOM);
	for (unsigned i = 0; i < d->cfg->nports; i++) {
		const struct device *dev = &z.dev[i];
		struct dpdk_port_size *s = &d->size[i];
		uint32_t mtu = s->frame > dev->overhead ? s->frame - dev->overhead : 0;

		/* Never below what the device accepts: longer frames are then dropped, counted. */
		mtu = mtu < dev->info.min_mtu ? dev->info.min_mtu : mtu;
		s->mtu = (uint16_t)(mtu > dev->info.max_mtu ? dev->info.max_mtu : mtu);
		s->chains = s->frame > room;
		if (!s->chains)
			continue;
		s->rx_offloads = dev->info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER;
		s->tx_offloads = dev->info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	}
	return 0;
}

void hdp_fwd_dpdk_size_conf(const struct dpdk_fwd *d, unsigned i, struct rte_eth_conf *conf)
{
	conf->rxmode.mtu = d->size[i].mtu;
	conf->rxmode.offloads |= d->size[i].rx_offloads;
	conf->txmode.offloads |= d->size[i].tx_offloads;
}

const char *hdp_fwd_dpdk_size_text(const struct dpdk_fwd *d, unsigned i, char *buf, size_t len)
{
	const struct dpdk_port_size *s = &d->size[i];

	snprintf(buf, len, "frames of up to %u bytes (MTU %u), %s%s%s", s->frame, s->mtu,
		 s->chains ? "as chains of mbufs: RX " : "one mbuf each",
		 !s->chains ? "" : s->rx_offloads ? "scatter" : "gathered by the driver",
		 !s->chains ? "" : s->tx_offloads ? ", TX multi-segment" :
		 ", TX chains sent by the driver");
	return buf;
}
