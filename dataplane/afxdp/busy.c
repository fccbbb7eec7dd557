// SPDX-License-Identifier: BSD-3-Clause
/*
 * Preferred busy polling: the forwarder's own syscalls run the receive
 * work of its ports, on its own core, instead of a NAPI thread or a
 * softirq elsewhere. For that the interface must keep its NAPI to itself
 * between polls (napi_defer_hard_irqs, gro_flush_timeout), not hand it to
 * a thread (threaded off), and each socket must know which NAPI to poll:
 * the kernel tells it with the first packets (SO_INCOMING_NAPI_ID).
 *
 * The interface settings go back when hdp-fwd stops, however it stops.
 * Once set up it holds no capability to write them, and a SIGKILL runs no
 * code: so a keeper process, forked before anything big is mapped and
 * holding nothing but the read end of a pipe, is told what to put back
 * and does it when the pipe's write end closes, which the kernel does for
 * any death of hdp-fwd.
 */
#include "fwd_internal.h"

#include <hdp/keeper.h>
#include <hdp/log.h>

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SO_INCOMING_NAPI_ID
#define SO_INCOMING_NAPI_ID 56
#endif
#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif

/* What preferred busy polling wants of an interface (as xdpsock sets it). */
static const struct {
	const char *file;
	long value;
} napi_settings[FWD_NAPI_SETTINGS] = {
	{ "napi_defer_hard_irqs", 2 },
	{ "gro_flush_timeout", 200000 },
	{ "threaded", 0 },
};

static int sysfs_path(char *buf, size_t len, const char *ifname, const char *file)
{
	return (size_t)snprintf(buf, len, "/sys/class/net/%s/%s", ifname, file) < len
	       ? 0 : -ENAMETOOLONG;
}

static int read_long(const char *ifname, const char *file, long *out)
{
	char path[128], text[32];
	ssize_t n;
	int fd;

	if (sysfs_path(path, sizeof(path), ifname, file))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -EIO;
	text[n] = '\0';
	*out = strtol(text, NULL, 0);
	return 0;
}

static int write_long(const char *ifname, const char *file, long value)
{
	char path[128], text[32];
	int fd, len, ret = 0;

	if (sysfs_path(path, sizeof(path), ifname, file))
		return -ENAMETOOLONG;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = snprintf(text, sizeof(text), "%ld\n", value);
	if (write(fd, text, (size_t)len) != len)
		ret = -errno;
	close(fd);
	return ret;
}

/* sysfs shows this process's network namespace only after a remount. */
static bool sysfs_is_ours(const char *ifname)
{
	long ifindex;

	return read_long(ifname, "ifindex", &ifindex) == 0 &&
	       ifindex == (long)if_nametoindex(ifname);
}

static struct fwd_napi_saved *saved_for(struct hdp_fwd *f, const char *ifname)
{
	for (unsigned i = 0; i < f->nnapi; i++)
		if (strcmp(f->napi_saved[i].ifname, ifname) == 0)
			return &f->napi_saved[i];
	return NULL;
}

/*
 * In the keeper, which keeps root's privileges: only one of the settings
 * above, of an interface by a plain name (no path), whatever it is told.
 */
static bool may_put_back(const char *ifname, const char *file)
{
	bool known = false;

	for (unsigned k = 0; k < FWD_NAPI_SETTINGS; k++)
		known |= strcmp(file, napi_settings[k].file) == 0;
	return known && ifname[0] && !strchr(ifname, '/') && strcmp(ifname, ".") != 0 &&
	       strcmp(ifname, "..") != 0;
}

/* The keeper: collect "IF SETTING VALUE" lines, put them back at EOF. */
static void keeper_main(int fd)
{
	static char buf[4096];
	size_t got = hdp_keeper_read_all(fd, buf, sizeof(buf));

	/* Last changed, first put back. */
	for (char *line = buf + got; line > buf;) {
		char ifname[IF_NAMESIZE], file[32];
		long value;

		*--line = '\0';
		while (line > buf && line[-1] != '\n')
			line--;
		if (sscanf(line, "%15s %31s %ld", ifname, file, &value) == 3 &&
		    may_put_back(ifname, file) && write_long(ifname, file, value))
			hdp_log(HDP_LOG_WARN, "busy polling: cannot put %s of %s back to %ld",
				file, ifname, value);
	}
}

/* Fork the keeper while the process is small: nothing mapped to copy. */
int fwd_busy_keeper_start(struct hdp_fwd *f)
{
	return hdp_keeper_start(&f->keeper, "hdp-fwd-napi", keeper_main);
}

static void keeper_note(struct hdp_fwd *f, const char *ifname, const char *file, long old)
{
	char line[96];
	int len = snprintf(line, sizeof(line), "%s %s %ld\n", ifname, file, old);

	if (f->keeper.fd < 0 || write(f->keeper.fd, line, (size_t)len) != len)
		hdp_log(HDP_LOG_WARN, "busy polling: %s of %s will not be put back to %ld",
			file, ifname, old);
}

static int setup_interface(struct hdp_fwd *f, const char *ifname)
{
	struct fwd_napi_saved *s = &f->napi_saved[f->nnapi];
	int ret;

	if (!sysfs_is_ours(ifname)) {
		hdp_log(HDP_LOG_ERR, "busy polling: /sys/class/net/%s is not this network "
			"namespace's (mount sysfs again inside it)", ifname);
		return -ENODEV;
	}
	memset(s, 0, sizeof(*s));
	snprintf(s->ifname, sizeof(s->ifname), "%s", ifname);
	f->nnapi++;
	for (unsigned k = 0; k < FWD_NAPI_SETTINGS; k++) {
		ret = read_long(ifname, napi_settings[k].file, &s->old[k]);
		if (!ret && s->old[k] != napi_settings[k].value) {
			keeper_note(f, ifname, napi_settings[k].file, s->old[k]);
			ret = write_long(ifname, napi_settings[k].file, napi_settings[k].value);
		}
		if (ret) {
			hdp_log(HDP_LOG_ERR, "busy polling: cannot set %s of %s to %ld: %s",
				napi_settings[k].file, ifname, napi_settings[k].value,
				strerror(-ret));
			return ret;
		}
	}
	return 0;
}

static void set_socket(struct hdp_fwd *f, struct fwd_port *p)
{
	int one = 1, usecs = 20, budget = (int)f->cfg->busy_budget;

	if (setsockopt(p->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)) ||
	    setsockopt(p->fd, SOL_SOCKET, SO_BUSY_POLL, &usecs, sizeof(usecs)) ||
	    setsockopt(p->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget)))
		p->busy_error = -errno;
}

int fwd_busy_setup(struct hdp_fwd *f)
{
	for (unsigned i = 0; i < f->nports; i++) {
		struct fwd_port *p = &f->ports[i];
		int ret;

		if (!saved_for(f, p->cfg.ifname)) {
			ret = setup_interface(f, p->cfg.ifname);
			if (ret)
				return ret;
		}
		set_socket(f, p);
		if (p->busy_error) {
			hdp_log(HDP_LOG_ERR, "port %s:%u: the kernel refuses preferred busy polling "
				"on its socket: %s", p->cfg.ifname, p->cfg.queue,
				strerror(-p->busy_error));
			return p->busy_error;
		}
	}
	/* Every setting noted: before the privileges go (hdp/keeper.h). */
	hdp_keeper_seal(&f->keeper);
	return 0;
}

void fwd_busy_restore(struct hdp_fwd *f)
{
	hdp_keeper_finish(&f->keeper);
	f->nnapi = 0;
}

unsigned fwd_port_napi_id(const struct fwd_port *p)
{
	unsigned id = 0;
	socklen_t len = sizeof(id);

	if (p->fd < 0 || getsockopt(p->fd, SOL_SOCKET, SO_INCOMING_NAPI_ID, &id, &len))
		return 0;
	return id;
}

int hdp_fwd_busy_check(struct hdp_fwd *f, char *why, size_t len)
{
	if (!f->cfg->busy_poll)
		return 0;
	for (unsigned i = 0; i < f->nports; i++) {
		struct fwd_port *p = &f->ports[i];

		/* The kernel names the NAPI with the first packets: wait for some. */
		if (atomic_load_explicit(&p->stats.rx_packets, memory_order_relaxed) <
		    FWD_BUSY_PROBE_PACKETS || fwd_port_napi_id(p))
			continue;
		snprintf(why, len, "port %s:%u: the kernel gave its socket no NAPI to busy-poll "
			 "after %u packets (no NAPI ID: veth and some drivers have none), so its "
			 "receive work would run on another core or starve; run without "
			 "busy polling", p->cfg.ifname, p->cfg.queue, FWD_BUSY_PROBE_PACKETS);
		return -EOPNOTSUPP;
	}
	return 0;
}
