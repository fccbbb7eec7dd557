// SPDX-License-Identifier: BSD-3-Clause
/*
 * How large a frame each port must carry, from max_frame or the MTUs of
 * the interfaces it receives and sends on; whether that takes chains of
 * frames (multi-buffer AF_XDP) is hdp_fwd_frames_for()'s answer.
 */
#include <hdp/fwd.h>

#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

int hdp_fwd_if_mtu(const char *ifname, uint32_t *mtu)
{
	struct ifreq ifr = { 0 };
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFMTU, &ifr))
		ret = -errno;
	else
		*mtu = (uint32_t)ifr.ifr_mtu;
	close(fd);
	return ret;
}

/* What @ifname's MTU lets in, or 0 when it cannot be read. */
static uint32_t if_max_frame(const char *ifname)
{
	uint32_t mtu;

	return hdp_fwd_if_mtu(ifname, &mtu) ? 0 : mtu + HDP_FWD_MTU_OVERHEAD;
}

uint32_t hdp_fwd_port_max_frame(const struct hdp_fwd_cfg *cfg, unsigned i)
{
	uint32_t most, in;

	if (cfg->max_frame)
		return cfg->max_frame;
	most = if_max_frame(cfg->ports[i].ifname);
	/* It sends what the ports that forward to it received. */
	for (unsigned k = 0; most && k < cfg->nports; k++) {
		if (cfg->ports[k].peer != (int)i)
			continue;
		in = if_max_frame(cfg->ports[k].ifname);
		most = in > most ? in : in ? most : 0;
	}
	return most;
}
