// SPDX-License-Identifier: BSD-3-Clause
/*
 * The keeper of XDP programs attached without a link (hdp/xdp_keeper.h):
 * lines "IFINDEX PROG_ID MODE_FLAGS IFNAME" in, then the seal before hdp-fwd
 * drops its privileges (hdp/keeper.h): nothing after it is taken, so a
 * forwarder taken over later cannot name another program for the root
 * keeper to detach. At EOF each program is detached if that interface
 * still runs it in that mode.
 */
#include <hdp/xdp_keeper.h>
#include <hdp/keeper.h>
#include <hdp/log.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

unsigned hdp_xdp_prog_on(unsigned ifindex, unsigned *mode)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	*mode = 0;
	if (bpf_xdp_query((int)ifindex, 0, &q))
		return 0;
	switch (q.attach_mode) {
	case XDP_ATTACHED_DRV:
		*mode = XDP_FLAGS_DRV_MODE;
		return q.prog_id;
	case XDP_ATTACHED_SKB:
		*mode = XDP_FLAGS_SKB_MODE;
		return q.prog_id;
	case XDP_ATTACHED_HW:
		*mode = XDP_FLAGS_HW_MODE;
		return q.prog_id;
	case XDP_ATTACHED_MULTI:	/* the driver's, if any: net_af_xdp attaches there */
		*mode = q.drv_prog_id ? XDP_FLAGS_DRV_MODE : q.skb_prog_id ? XDP_FLAGS_SKB_MODE
										: XDP_FLAGS_HW_MODE;
		return q.drv_prog_id ? q.drv_prog_id : q.skb_prog_id ? q.skb_prog_id : q.hw_prog_id;
	default:
		return 0;
	}
}

/*
 * Detach program @id from @ifindex if it is still there in @mode. With
 * CAP_SYS_ADMIN the kernel is told which program it expects (nothing else
 * is detached, whatever happens meanwhile); with CAP_NET_ADMIN alone (the
 * shipped unit) after a check of its own, a moment before.
 */
static void detach_if_still(unsigned ifindex, unsigned id, unsigned mode, const char *ifname)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, a);
	unsigned now_mode;
	int fd, ret;

	if (hdp_xdp_prog_on(ifindex, &now_mode) != id || now_mode != mode)
		return;	/* detached at close, or someone else's now */
	fd = bpf_prog_get_fd_by_id(id);
	if (fd >= 0)
		a.old_prog_fd = fd;
	/* fd is above 2 in the keeper (hdp/keeper.h): libbpf reads 0 as none. */
	ret = bpf_xdp_detach((int)ifindex, mode, fd >= 0 ? &a : NULL);
	if (fd >= 0)
		close(fd);
	if (ret)
		hdp_log(HDP_LOG_WARN, "interface %s: cannot detach XDP program %u: %s", ifname,
			id, strerror(-ret));
	else
		hdp_log(HDP_LOG_INFO, "interface %s: XDP program %u detached (its library could "
			"not, without privileges)", ifname, id);
}

static void keeper_main(int fd)
{
	static char buf[4096];

	/* Only what came before the seal: its lines were written with privileges. */
	hdp_keeper_read_all(fd, buf, sizeof(buf));
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char ifname[IF_NAMESIZE];
		unsigned ifindex, id, mode;

		if (sscanf(line, "%u %u %u %15s", &ifindex, &id, &mode, ifname) == 4)
			detach_if_still(ifindex, id, mode, ifname);
	}
}

int hdp_xdp_keeper_start(struct hdp_keeper *k)
{
	return hdp_keeper_start(k, "hdp-fwd-xdp", keeper_main);
}

int hdp_xdp_keeper_note(int fd, unsigned ifindex, const char *ifname)
{
	unsigned mode, id = hdp_xdp_prog_on(ifindex, &mode);
	char line[64];
	int len;

	if (!id)
		return -ENOENT;
	len = snprintf(line, sizeof(line), "%u %u %u %s\n", ifindex, id, mode, ifname);
	if (fd < 0 || write(fd, line, (size_t)len) != len) {
		hdp_log(HDP_LOG_WARN, "interface %s: XDP program %u will not be detached if "
			"hdp-fwd cannot detach it itself", ifname, id);
		return -EPIPE;
	}
	return 0;
}
