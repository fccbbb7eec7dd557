// SPDX-License-Identifier: BSD-3-Clause
/*
 * The keeper of XDP programs attached without a link (hdp/xdp_keeper.h):
 * lines "IFINDEX PROG_ID MODE_FLAGS IFNAME" in, each program detached at
 * EOF if that interface still runs it in that mode (XDP_FLAGS_REPLACE with
 * the program itself as the one expected: nobody else's is touched).
 */
#include <hdp/xdp_keeper.h>
#include <hdp/compiler.h>
#include <hdp/log.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_link.h>
#include <net/if.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* The program @ifindex runs and the mode flag it runs in (drv, skb, hw), or 0. */
static unsigned prog_on(unsigned ifindex, unsigned *mode)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);

	if (bpf_xdp_query((int)ifindex, 0, &q))
		return 0;
	switch (q.attach_mode) {
	case XDP_ATTACHED_DRV:
	case XDP_ATTACHED_MULTI:
		*mode = XDP_FLAGS_DRV_MODE;
		return q.drv_prog_id ? q.drv_prog_id : q.prog_id;
	case XDP_ATTACHED_SKB:
		*mode = XDP_FLAGS_SKB_MODE;
		return q.skb_prog_id ? q.skb_prog_id : q.prog_id;
	case XDP_ATTACHED_HW:
		*mode = XDP_FLAGS_HW_MODE;
		return q.hw_prog_id ? q.hw_prog_id : q.prog_id;
	default:
		return 0;
	}
}

static void detach_if_still(unsigned ifindex, unsigned id, unsigned mode, const char *ifname)
{
	LIBBPF_OPTS(bpf_xdp_attach_opts, a);
	unsigned now_mode = 0;
	int fd, ret;

	if (prog_on(ifindex, &now_mode) != id || now_mode != mode)
		return;	/* detached at close, or someone else's now */
	fd = bpf_prog_get_fd_by_id(id);
	if (fd < 0) {
		hdp_log(HDP_LOG_WARN, "interface %s: cannot take hold of XDP program %u to "
			"detach it: %s", ifname, id, strerror(errno));
		return;
	}
	a.old_prog_fd = fd;
	ret = bpf_xdp_detach((int)ifindex, mode | XDP_FLAGS_REPLACE, &a);
	close(fd);
	if (ret)
		hdp_log(HDP_LOG_WARN, "interface %s: cannot detach XDP program %u: %s", ifname,
			id, strerror(-ret));
	else
		hdp_log(HDP_LOG_INFO, "interface %s: XDP program %u detached (its library could "
			"not, without privileges)", ifname, id);
}

HDP_NORETURN static void keeper_main(int fd)
{
	static char buf[4096];
	size_t got = 0;
	ssize_t n;

	/* Its parent's terminal and service manager signal the group: outlive them. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, "hdp-fwd-xdp", 0, 0, 0);
	while (got < sizeof(buf) - 1 &&
	       ((n = read(fd, buf + got, sizeof(buf) - 1 - got)) > 0 || (n < 0 && errno == EINTR)))
		got += n > 0 ? (size_t)n : 0;
	buf[got] = '\0';
	for (char *line = strtok(buf, "\n"); line; line = strtok(NULL, "\n")) {
		char ifname[IF_NAMESIZE];
		unsigned ifindex, id, mode;

		if (sscanf(line, "%u %u %u %15s", &ifindex, &id, &mode, ifname) == 4)
			detach_if_still(ifindex, id, mode, ifname);
	}
	_exit(0);
}

int hdp_xdp_keeper_start(struct hdp_xdp_keeper *k)
{
	int fds[2];

	k->fd = -1;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	k->pid = fork();
	if (k->pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return -errno;
	}
	if (k->pid == 0) {
		/* Nothing of the forwarder's stays open here. */
		if (dup2(fds[0], 3) < 0)
			_exit(1);
		close_range(4, ~0u, 0);
		keeper_main(3);
	}
	close(fds[0]);
	k->fd = fds[1];
	return 0;
}

int hdp_xdp_keeper_note(int fd, unsigned ifindex, const char *ifname)
{
	unsigned mode = 0, id = prog_on(ifindex, &mode);
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

void hdp_xdp_keeper_finish(struct hdp_xdp_keeper *k)
{
	int status;

	if (k->fd < 0)
		return;
	/* Closing the pipe is the keeper's signal; wait until it is done. */
	close(k->fd);
	k->fd = -1;
	while (waitpid(k->pid, &status, 0) < 0 && errno == EINTR)
		;
}
