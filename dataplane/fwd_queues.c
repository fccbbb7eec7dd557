// SPDX-License-Identifier: BSD-3-Clause
/*
 * Every queue of a port given as IF: how many RX queues the interface has,
 * and the port list with IF:0..IF:N-1 in its place. A NIC spreads flows
 * over its RX queues (RSS), so a forwarder that serves only queue 0 would
 * miss what the others receive.
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

/* RX queues as ethtool -l counts them (rx + combined), else sysfs's rx-N. */
static int rx_queues(const char *ifname)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	struct ifreq ifr = { 0 };
	char path[64 + IF_NAMESIZE];
	struct dirent *e;
	int fd, n = 0;
	DIR *d;

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = (void *)&ch;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd >= 0) {
		int ret = ioctl(fd, SIOCETHTOOL, &ifr);

		close(fd);
		if (ret == 0 && ch.rx_count + ch.combined_count > 0)
			return (int)(ch.rx_count + ch.combined_count);
	}
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((e = readdir(d)))
		n += strncmp(e->d_name, "rx-", 3) == 0;
	closedir(d);
	return n ? n : 1;
}

int hdp_fwd_cfg_expand_queues(struct hdp_fwd_cfg *cfg)
{
	struct hdp_port_cfg all[HDP_FWD_PORTS_MAX], out[HDP_FWD_PORTS_MAX];
	int count[HDP_FWD_PORTS_MAX];
	unsigned nall = 0, nout = 0, rounds = 0;
	char name[40], peer[40];

	/* Peers by name from now on: the list is about to change order. */
	for (unsigned i = 0; i < cfg->nports; i++)
		hdp_port_name(&cfg->ports[cfg->ports[i].peer], cfg->ports[i].peer_name,
			      sizeof(cfg->ports[i].peer_name));
	for (unsigned i = 0; i < cfg->nports; i++) {
		const struct hdp_port_cfg *p = &cfg->ports[i], *q = &cfg->ports[p->peer];

		if ((p->queue == HDP_PORT_ALL_QUEUES) != (q->queue == HDP_PORT_ALL_QUEUES)) {
			hdp_log(HDP_LOG_ERR, "port %s forwards to %s: give both every queue (IF) or "
				"both one queue (IF:QUEUE)", hdp_port_name(p, name, sizeof(name)),
				hdp_port_name(q, peer, sizeof(peer)));
			return -EINVAL;
		}
		if (p->queue != HDP_PORT_ALL_QUEUES) {
			out[nout++] = *p;
			continue;
		}
		count[nall] = rx_queues(p->ifname);
		if (count[nall] < 0) {
			hdp_log(HDP_LOG_ERR, "port %s: cannot count its RX queues: %s", p->ifname,
				strerror(-count[nall]));
			return -EINVAL;
		}
		all[nall++] = *p;
	}
	for (unsigned i = 0; i < nall; i++) {
		for (unsigned j = 0; j < nall; j++) {
			if (strcmp(all[i].peer_name, all[j].ifname) == 0 && count[i] != count[j]) {
				hdp_log(HDP_LOG_ERR, "port %s has %d RX queues and its peer %s %d: "
					"list their queues (IF:QUEUE) and peers by hand",
					all[i].ifname, count[i], all[j].ifname, count[j]);
				return -EINVAL;
			}
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
	return hdp_fwd_cfg_check(cfg);
}
