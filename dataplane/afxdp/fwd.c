// SPDX-License-Identifier: BSD-3-Clause
/*
 * Setting up and tearing down the forwarder: the UMEM pool, one XDP
 * program per interface, one AF_XDP socket per port sharing one UMEM, the
 * workers; and at the end every frame back in the pool.
 */
#include "fwd_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <linux/if_xdp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef SOL_XDP
#define SOL_XDP 283
#endif

/* Zero copy: the NIC writes frames, and not only where the packet lands. */
static bool socket_is_zerocopy(int fd)
{
	struct xdp_options opts = { 0 };
	socklen_t len = sizeof(opts);

	return getsockopt(fd, SOL_XDP, XDP_OPTIONS, &opts, &len) == 0 &&
	       (opts.flags & XDP_OPTIONS_ZEROCOPY);
}

static struct hdp_xdp_prog *prog_for(struct hdp_fwd *f, const char *ifname)
{
	struct hdp_xdp_prog *p;

	for (unsigned i = 0; i < f->nprogs; i++)
		if (strcmp(f->progs[i].ifname, ifname) == 0)
			return f->progs[i].prog;
	p = hdp_xdp_prog_load(hdp_bpf_xsk_redirect, hdp_bpf_xsk_redirect_len,
			      "hdp_xsk_redirect");
	if (!p)
		return NULL;
	if (hdp_xdp_prog_attach_mode(p, ifname, f->cfg->xdp_mode)) {
		hdp_xdp_prog_close(p);
		return NULL;
	}
	/* ifname may live inside *f: copy by hand, no overlapping snprintf. */
	memcpy(f->progs[f->nprogs].ifname, ifname, strnlen(ifname, IF_NAMESIZE - 1));
	f->progs[f->nprogs++].prog = p;
	return p;
}

/*
 * The port that needs the longest chains, or -1 if none needs one. Its
 * need decides every socket's binding: the kernel binds the sockets that
 * share a UMEM as it bound the first (its XDP_USE_SG, or not), whatever
 * they ask, and a jumbo port bound without multi-buffer would have every
 * long frame dropped by the kernel, uncounted here.
 */
static int neediest_port(const struct hdp_fwd *f)
{
	uint32_t most = 1;
	int need = -1;

	for (unsigned i = 0; i < f->nports; i++) {
		uint32_t n = hdp_fwd_frames_for(hdp_fwd_port_max_frame(f->cfg, i),
						f->cfg->frame_size);

		if (n > most) {
			most = n;
			need = (int)i;
		}
	}
	return need;
}

/*
 * The bind refused multi-buffer: say what port @i needed it for (@p's
 * socket, the first, binds for all that share the UMEM), and what would
 * do without it.
 */
static void no_multi_buffer(const struct hdp_fwd *f, const struct fwd_port *p, unsigned i,
			    int err)
{
	uint32_t room = hdp_fwd_frame_room(f->cfg->frame_size);
	uint32_t max_frame = hdp_fwd_port_max_frame(f->cfg, i);
	const struct hdp_port_cfg *need = &f->cfg->ports[i];
	char fix[96];

	/* What sets the frame is what to lower: max_frame (the MTUs follow), or the MTU. */
	if (f->cfg->max_frame)
		snprintf(fix, sizeof(fix), "max_frame to %u (every MTU then %u at most)", room,
			 room - HDP_FWD_MTU_OVERHEAD);
	else
		snprintf(fix, sizeof(fix), "the MTU to %u", room - HDP_FWD_MTU_OVERHEAD);
	hdp_log(HDP_LOG_ERR, "port %s:%u: frames of up to %u bytes (%s) take chains of %u "
		"frames of %u bytes, and the socket%s%s cannot be bound for multi-buffer AF_XDP "
		"(XDP_USE_SG): %s (%s). The largest frame one frame takes is %u bytes: lower %s%s",
		need->ifname, need->queue, max_frame,
		f->cfg->max_frame ? "max_frame" : "the MTUs of the interface and its peer",
		hdp_fwd_frames_for(max_frame, f->cfg->frame_size), f->cfg->frame_size,
		i == (unsigned)(p - f->ports) ? "" : " sharing its UMEM on ",
		i == (unsigned)(p - f->ports) ? "" : p->cfg.ifname,
		strerror(-err), err == -EOPNOTSUPP ? "the driver cannot in zero copy: "
		"zero_copy = off" : "it came with Linux 6.6", room,
		fix, f->cfg->frame_size == 2048 &&
		max_frame <= hdp_fwd_frame_room(4096) ? ", or set frame_size = 4096" : "");
}

/* @need: the port that needs multi-buffer (neediest_port, once for all), or -1. */
static int open_port(struct hdp_fwd *f, struct fwd_port *p, int need, bool quiet_busy)
{
	struct xsk_socket_config scfg = {
		.rx_size = f->cfg->ring_size,
		.tx_size = f->cfg->ring_size,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
		.bind_flags = XDP_USE_NEED_WAKEUP |
			      (f->cfg->zero_copy == HDP_ZC_ON ? XDP_ZEROCOPY
			       : f->cfg->zero_copy == HDP_ZC_OFF ? XDP_COPY : 0),
	};
	struct hdp_xdp_prog *prog = prog_for(f, p->cfg.ifname);
	int ret, map;

	if (!prog)
		return -errno ? -errno : -EINVAL;
	p->max_frame = hdp_fwd_port_max_frame(f->cfg, (unsigned)(p - f->ports));
	/* One port's need binds them all (neediest_port): say what the kernel does. */
	p->sg = need >= 0;
	if (p->sg)
		scfg.bind_flags |= XDP_USE_SG;
	ret = xsk_socket__create_shared(&p->xsk, p->cfg.ifname, p->cfg.queue, f->umem,
					&p->rx, &p->tx, &p->fill, &p->comp, &scfg);
	if (ret) {
		p->xsk = NULL;
		/* Only the first socket's bind flags reach the kernel (libxdp). */
		if (p->sg && p == f->ports && (ret == -EINVAL || ret == -EOPNOTSUPP)) {
			no_multi_buffer(f, p, (unsigned)need, ret);
			return -EOPNOTSUPP;	/* what the kernel cannot: status 2 */
		}
		if (ret != -EBUSY || !quiet_busy)
			hdp_log(HDP_LOG_ERR, "port %s:%u: cannot open an AF_XDP socket: %s%s",
				p->cfg.ifname, p->cfg.queue, strerror(-ret),
				ret == -EOPNOTSUPP && f->cfg->zero_copy == HDP_ZC_ON
				? " (zero_copy = on, and this driver cannot: use auto or off)" : "");
		return ret;
	}
	p->fd = xsk_socket__fd(p->xsk);
	p->zerocopy = socket_is_zerocopy(p->fd);
	p->xdp_mode = hdp_xdp_attach_mode(p->cfg.ifname);
	map = hdp_xdp_prog_map_fd(prog, "xsks_map");
	ret = map < 0 ? map : xsk_socket__update_xskmap(p->xsk, map);
	if (ret) {
		hdp_log(HDP_LOG_ERR, "port %s:%u: cannot register the socket with the XDP program: %s",
			p->cfg.ifname, p->cfg.queue, strerror(-ret));
		return ret;
	}
	return 0;
}

/* l2 with no src_mac: the output interface's own address. */
static void default_src_mac(struct fwd_port *p)
{
	if (!p->cfg.has_src_mac)
		hdp_mac_of_interface(p->cfg.ifname, p->cfg.src_mac);
}

/*
 * Linux maps only base pages PROT_MTE (anonymous memory, THP included, and
 * shmem), never hugetlb pages: a UMEM whose frames MTE tags, from the start
 * (tag=mte, or auto where the CPU has MTE) or after a switch at run time
 * (soft tags on a CPU with MTE), takes plain pages, unless hugetlbfs was
 * asked for by name (then tag=mte is refused, saying why). A UMEM with
 * tags off keeps its hugepages; switching it to mte later is refused.
 */
bool hdp_fwd_umem_on_plain_pages(const struct hdp_fwd_cfg *c)
{
	struct hdp_profile p;

	if (c->huge_dir[0])
		return false;
	hdp_harden_config_resolve(&c->harden, HDP_FWD_UMEM_POOL, &p);
	return p.tag == HDP_TAG_MTE || (p.tag != HDP_TAG_OFF && hdp_tag_mte_available());
}

/* The UMEM pool: one description, for the pool and for the check of its profile. */
static struct hdp_pool_params umem_params(const struct hdp_fwd_cfg *c)
{
	return (struct hdp_pool_params){
		.name = HDP_FWD_UMEM_POOL,
		.obj_size = c->frame_size,
		.obj_align = c->frame_size,
		.obj_count = c->frames,
		.mem = c->huge_dir[0] ? HDP_MEM_HUGE_FILE
		       : hdp_fwd_umem_on_plain_pages(c) ? HDP_MEM_PLAIN : HDP_MEM_AUTO,
		.huge_dir = c->huge_dir[0] ? c->huge_dir : NULL,
	};
}

/*
 * Protections judge a profile against the pool when they attach (a
 * quarantine may hold at most half its objects): the same pool on plain
 * pages, where nothing is reserved or pinned and the region is never
 * touched, gives the same answer as the UMEM will.
 */
int hdp_fwd_umem_profile_check(const struct hdp_fwd_cfg *cfg)
{
	struct hdp_pool_params params = umem_params(cfg);
	struct hdp_pool *pool;
	int ret;

	params.mem = HDP_MEM_PLAIN;
	params.huge_dir = NULL;
	pool = hdp_pool_create(&params);
	if (!pool) {
		ret = -errno;
		hdp_log(HDP_LOG_ERR, "cannot make a pool of %u frames of %u bytes to check the "
			"UMEM pool's profile on: %s", cfg->frames, cfg->frame_size, strerror(-ret));
		return ret;
	}
	ret = hdp_pool_configure(pool, &cfg->harden);
	hdp_pool_destroy(pool);
	return ret ? -EINVAL : 0;
}

static int64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void close_sockets(struct hdp_fwd *f)
{
	for (unsigned i = 0; i < f->nports; i++) {
		if (f->ports[i].xsk)
			xsk_socket__delete(f->ports[i].xsk);
		f->ports[i].xsk = NULL;
	}
	if (f->umem)
		xsk_umem__delete(f->umem);
	f->umem = NULL;
}

/* The UMEM over the pool's region, then one socket per port. */
static int try_open_sockets(struct hdp_fwd *f, bool quiet_busy)
{
	struct hdp_fwd_cfg *cfg = f->cfg;
	struct xsk_umem_config ucfg = {
		.fill_size = cfg->fill_size,
		.comp_size = cfg->fill_size,
		.frame_size = cfg->frame_size,
		.frame_headroom = 0,
	};
	int need, ret;

	ret = xsk_umem__create(&f->umem, (void *)f->frames.lay.base, f->frames.lay.span,
			       &f->ports[0].fill, &f->ports[0].comp, &ucfg);
	if (ret) {
		hdp_log(HDP_LOG_ERR, "cannot register the UMEM (%u frames of %u bytes): %s",
			cfg->frames, cfg->frame_size, strerror(-ret));
		f->umem = NULL;
		return ret;
	}
	need = neediest_port(f);
	for (unsigned i = 0; i < f->nports; i++) {
		struct fwd_port *p = &f->ports[i];

		p->cfg = cfg->ports[i];
		ret = open_port(f, p, need, quiet_busy);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The kernel lets go of a queue some time after the last socket bound to it
 * closed (the release is deferred to a work item), so a forwarder started
 * right after another AF_XDP program, or restarted by its service manager,
 * can find a queue still taken: EBUSY. Wait for it, a bounded time, saying
 * so once. A failed socket leaves libxdp's UMEM state half set up (its
 * rings), so every try starts again from a new UMEM.
 */
static int open_sockets(struct hdp_fwd *f)
{
	int64_t until = monotonic_ms() + HDP_FWD_QUEUE_WAIT_MS;
	bool said = false;
	int ret;

	for (;;) {
		bool last = monotonic_ms() >= until;

		ret = try_open_sockets(f, !last);
		if (ret != -EBUSY || last)
			break;
		close_sockets(f);
		if (!said) {
			hdp_log(HDP_LOG_WARN, "a queue is still held by an AF_XDP socket being "
				"closed (EBUSY): waiting up to %d s for the kernel to release it",
				HDP_FWD_QUEUE_WAIT_MS / 1000);
			said = true;
		}
		usleep(50 * 1000);
	}
	if (ret == -EBUSY)
		hdp_log(HDP_LOG_ERR, "a queue was still held after %d s: another program has "
			"an AF_XDP socket on it", HDP_FWD_QUEUE_WAIT_MS / 1000);
	return ret;
}

struct hdp_fwd *hdp_fwd_create(struct hdp_fwd_cfg *cfg)
{
	struct hdp_fwd *f = calloc(1, sizeof(*f));
	struct hdp_pool_params params;
	int ret;

	if (!f)
		return NULL;
	f->cfg = cfg;
	f->nports = cfg->nports;
	f->keeper.fd = -1;
	atomic_init(&f->idle_spin_us, cfg->idle_spin_us);
	if (cfg->busy_poll) {
		ret = fwd_busy_keeper_start(f);
		if (ret) {
			hdp_log(HDP_LOG_ERR, "busy polling: cannot start the process that puts "
				"interface settings back: %s", strerror(-ret));
			goto err;
		}
	}
	params = umem_params(cfg);
	ret = fwd_frames_create(&f->frames, &params, &cfg->harden);
	if (ret)
		goto err;
	ret = open_sockets(f);
	if (ret)
		goto err;
	fwd_mtu_init(f);
	for (unsigned i = 0; i < f->nports; i++)
		default_src_mac(&f->ports[i]);
	if (cfg->busy_poll && fwd_busy_setup(f)) {
		ret = -EOPNOTSUPP;	/* the kernel cannot: a usage matter, status 2 */
		goto err;
	}
	/* The kernel needs frames to receive into. */
	fwd_fill_all(f);
	return f;

err:
	hdp_fwd_destroy(f);
	errno = ret < 0 ? -ret : EINVAL;
	return NULL;
}

/* Pinned from its first instruction: a CPU it may not use fails here. */
static int start_worker(struct fwd_worker *w)
{
	pthread_attr_t attr;
	cpu_set_t set;
	int ret;

	ret = pthread_attr_init(&attr);
	if (ret)
		return ret;
	if (w->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET((size_t)w->cpu, &set);
		ret = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	}
	if (!ret)
		ret = pthread_create(&w->tid, &attr, fwd_worker_main, w);
	pthread_attr_destroy(&attr);
	return ret;
}

int hdp_fwd_start(struct hdp_fwd *f)
{
	f->nworkers = f->cfg->ncores;
	for (unsigned i = 0; i < f->nports; i++) {
		struct fwd_worker *w = &f->workers[hdp_fwd_port_worker(i, f->nworkers)];

		w->dirs[w->ndirs++] = (struct fwd_dir){
			.in = &f->ports[i],
			.out = &f->ports[f->ports[i].cfg.peer],
		};
	}
	for (unsigned i = 0; i < f->nworkers; i++) {
		struct fwd_worker *w = &f->workers[i];
		int ret;

		w->f = f;
		w->cpu = f->cfg->cores[i];
		if (!w->ndirs)
			continue;
		ret = start_worker(w);
		if (ret) {
			hdp_log(HDP_LOG_ERR, "cannot start worker %u (CPU %d, -1: any): %s", i,
				w->cpu, strerror(ret));
			hdp_fwd_stop(f);
			return -ret;
		}
		w->started = true;
	}
	return 0;
}

/*
 * What a configuration read again may change while the forwarder runs:
 * the pools' profiles (through the same locked, epoch-starting path as
 * hdp-ctl set), how long an idle worker spins, the status line interval
 * and the metrics file's mode. The rest is built into the running
 * forwarder (hdp_fwd_cfg_restart_key() says which key).
 */
int hdp_fwd_reconfigure(struct hdp_fwd *f, struct hdp_fwd_cfg *running,
			const struct hdp_fwd_cfg *next)
{
	int ret = hdp_pool_configure(f->frames.pool, &next->harden);

	if (ret)
		return ret;
	/* Only the main thread reads these; the workers never do. */
	running->harden = next->harden;
	running->stats_interval = next->stats_interval;
	running->metrics_mode = next->metrics_mode;
	running->idle_spin_us = next->idle_spin_us;
	/* The workers read this copy, each at its next idle pass. */
	atomic_store_explicit(&f->idle_spin_us, next->idle_spin_us, memory_order_relaxed);
	return 0;
}

void hdp_fwd_stop(struct hdp_fwd *f)
{
	atomic_store(&f->stop, true);
}

bool hdp_fwd_stopping(const struct hdp_fwd *f)
{
	return atomic_load(&f->stop);
}

void hdp_fwd_join(struct hdp_fwd *f)
{
	for (unsigned i = 0; i < f->nworkers; i++) {
		if (f->workers[i].started)
			pthread_join(f->workers[i].tid, NULL);
		f->workers[i].started = false;
	}
}

/* Let queued TX finish (at most half a second) so those frames come home. */
static void drain_tx(struct hdp_fwd *f)
{
	struct timespec nap = { .tv_nsec = 1000000 };

	for (int tries = 0; tries < 500; tries++) {
		bool pending = false;

		for (unsigned i = 0; i < f->nports; i++) {
			struct fwd_port *p = &f->ports[i];

			if (!p->xsk || !p->tx_outstanding)
				continue;
			sendto(p->fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
			fwd_complete(f, p);
			pending |= p->tx_outstanding != 0;
		}
		if (!pending)
			return;
		nanosleep(&nap, NULL);
	}
}

unsigned hdp_fwd_destroy(struct hdp_fwd *f)
{
	unsigned lost;

	if (!f)
		return 0;
	hdp_fwd_stop(f);
	hdp_fwd_join(f);
	if (f->frames.pool && f->umem)
		drain_tx(f);
	close_sockets(f);
	for (unsigned i = 0; i < f->nprogs; i++)
		hdp_xdp_prog_close(f->progs[i].prog);
	fwd_busy_restore(f);
	lost = fwd_frames_destroy(&f->frames);
	free(f);
	return lost;
}

struct hdp_pool *hdp_fwd_pool(struct hdp_fwd *f)
{
	return f->frames.pool;
}

unsigned hdp_fwd_nports(const struct hdp_fwd *f)
{
	return f->nports;
}

const struct hdp_port_cfg *hdp_fwd_port_cfg(const struct hdp_fwd *f, unsigned i)
{
	return &f->ports[i].cfg;
}
