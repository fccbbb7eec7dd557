// SPDX-License-Identifier: BSD-3-Clause
/*
 * Every queue of a port given as IF: how many RX queues the interface has,
 * and the port list with IF:0..IF:N-1 in its place. A NIC spreads flows
 * over its RX queues (RSS), so a forwarder that serves only queue 0 would
 * miss what the others receive. Then every port's interface and queue
 * must be there: what binding would refuse is refused here, before
 * anything is set up, as a configuration error.
 */
#include <hdp/fwd.h>
#include <hdp/log.h>

#include <dirent.h>
#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * The queues sysfs lists for @ifname whose names start with @prefix
 * ("rx-", "tx-"): the kernel's real_num_rx_queues and real_num_tx_queues,
 * which an AF_XDP socket's queue must be below. A negative errno without
 * sysfs.
 */
static int sysfs_queues(const char *ifname, const char *prefix)
{
	char path[64 + IF_NAMESIZE];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return n;
}

/* RX queues as ethtool -l counts them (rx + combined), else sysfs's rx-N. */
static int rx_queues(const char *ifname)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr = { 0 };
	int fd, n;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&ch;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		int ret = ioctl(fd, SIOCETHTOOL, &ifr);

		close(fd);
		if (ret == 0 && ch.rx_count + ch.combined_count > 0)
			return (int)(ch.rx_count + ch.combined_count);
	}
	n = sysfs_queues(ifname, "rx-");
	return n == 0 ? 1 : n;
}

/*
 * A port's interface must exist and have its queue for RX and TX (the
 * socket binds both; beyond either the kernel says EINVAL at bind).
 */
static int check_port(const struct hdp_port_cfg *p)
{
	int rx, tx;

	if (!if_nametoindex(p->ifname))
		return hdp_fwd_port_refuse(p, "no interface %s here: %s", p->ifname,
					   strerror(errno));
	rx = sysfs_queues(p->ifname, "rx-");
	tx = sysfs_queues(p->ifname, "tx-");
	if (rx <= 0 || tx <= 0)
		return 0;	/* no sysfs to ask: binding will tell */
	if (p->queue >= (uint32_t)rx || p->queue >= (uint32_t)tx)
		return hdp_fwd_port_refuse(p, "%s has %d RX and %d TX queues: no queue %u to "
					   "bind an AF_XDP socket to", p->ifname, rx, tx, p->queue);
	return 0;
}

int hdp_fwd_cfg_expand_queues(struct hdp_fwd_cfg *cfg)
{
	struct hdp_port_cfg all[HDP_FWD_PORTS_MAX], out[HDP_FWD_PORTS_MAX];
	int count[HDP_FWD_PORTS_MAX];
	unsigned nall = 0, nout = 0, rounds = 0, errors = 0;
	char peer[40];

	/* Peers by name from now on: the list is about to change order. */
	for (unsigned i = 0; i < cfg->nports; i++)
		hdp_port_name(&cfg->ports[cfg->ports[i].peer], cfg->ports[i].peer_name,
			      sizeof(cfg->ports[i].peer_name));
	for (unsigned i = 0; i < cfg->nports; i++) {
		const struct hdp_port_cfg *p = &cfg->ports[i], *q = &cfg->ports[p->peer];

		if ((p->queue == HDP_PORT_ALL_QUEUES) != (q->queue == HDP_PORT_ALL_QUEUES))
			return hdp_fwd_port_refuse(p, "it forwards to %s: give both every queue (IF) "
						   "or both one queue (IF:QUEUE)",
						   hdp_port_name(q, peer, sizeof(peer)));
		if (p->queue != HDP_PORT_ALL_QUEUES) {
			out[nout++] = *p;
			continue;
		}
		if (!if_nametoindex(p->ifname))
			return hdp_fwd_port_refuse(p, "no interface %s here: %s", p->ifname,
						   strerror(errno));
		count[nall] = rx_queues(p->ifname);
		if (count[nall] < 0)
			return hdp_fwd_port_refuse(p, "cannot count its RX queues: %s",
						   strerror(-count[nall]));
		all[nall++] = *p;
	}
	for (unsigned i = 0; i < nall; i++) {
		for (unsigned j = 0; j < nall; j++) {
			if (strcmp(all[i].peer_name, all[j].ifname) == 0 && count[i] != count[j])
				return hdp_fwd_port_refuse(&all[i], "%s has %d RX queues and its peer "
							   "%s %d: list their queues (IF:QUEUE) "
							   "and peers by hand", all[i].ifname,
							   count[i], all[j].ifname, count[j]);
		}
		if ((unsigned)count[i] > rounds)
			rounds = (unsigned)count[i];
	}
	/*
	 * Queue by queue; within a round the order turns by one, so that with
	 * workers taking ports in turn each gets queues of every interface.
	 */
	for (unsigned q = 0; q < rounds; q++) {
		for (unsigned k = 0; k < nall; k++) {
			struct hdp_port_cfg p = all[(k + q) % nall];

			if (q >= (unsigned)count[(k + q) % nall])
				continue;
			if (nout == HDP_FWD_PORTS_MAX) {
				hdp_log(HDP_LOG_ERR, "every queue of the ports listed makes more than "
					"%d ports: list queues (IF:QUEUE)", HDP_FWD_PORTS_MAX);
				return -EINVAL;
			}
			p.queue = q;
			snprintf(p.peer_name, sizeof(p.peer_name), "%.15s:%u", all[(k + q) % nall].peer_name, q);
			out[nout++] = p;
		}
	}
	memcpy(cfg->ports, out, nout * sizeof(out[0]));
	cfg->nports = nout;
	for (unsigned i = 0; i < nout; i++)
		errors += check_port(&cfg->ports[i]) != 0;
	return errors ? -EINVAL : hdp_fwd_cfg_check(cfg);
}
