// SPDX-License-Identifier: BSD-3-Clause
/*
 * What a re-read configuration may change while hdp-fwd runs: the pools'
 * hardening profiles (through the same locked, epoch-starting path as
 * hdp-ctl set), how long an idle worker spins, the status line interval
 * (the metrics file's too) and the metrics file's mode. Everything else
 * (ports, queues, workers, rings, frames, mbufs, the control socket, the
 * metrics file's path, the user) is built into the running forwarder and
 * needs a restart.
 */
#include "afxdp/fwd_internal.h"

#include <hdp/pool.h>

#include <string.h>

static bool same_port(const struct hdp_port_cfg *a, const struct hdp_port_cfg *b)
{
	return strcmp(a->ifname, b->ifname) == 0 && a->queue == b->queue &&
	       a->peer == b->peer && a->has_src_mac == b->has_src_mac &&
	       a->has_dst_mac == b->has_dst_mac &&
	       (!a->has_src_mac || memcmp(a->src_mac, b->src_mac, 6) == 0) &&
	       (!a->has_dst_mac || memcmp(a->dst_mac, b->dst_mac, 6) == 0);
}

const char *hdp_fwd_cfg_restart_key(const struct hdp_fwd_cfg *a, const struct hdp_fwd_cfg *b)
{
	if (a->mode != b->mode)
		return "mode";
	if (a->nports != b->nports)
		return "ports";
	for (unsigned i = 0; i < a->nports; i++)
		if (!same_port(&a->ports[i], &b->ports[i]))
			return "ports (or a [port:IF] key)";
	if (a->ncores != b->ncores || memcmp(a->cores, b->cores, a->ncores * sizeof(a->cores[0])))
		return "cores";
	if (a->frames != b->frames)
		return "frames";
	if (a->frame_size != b->frame_size)
		return "frame_size";
	if (a->max_frame != b->max_frame)
		return "max_frame";
	if (a->batch != b->batch)
		return "batch";
	if (a->ring_size != b->ring_size)
		return "ring_size";
	if (a->fill_size != b->fill_size)
		return "fill_size";
	if (a->mbuf_cache != b->mbuf_cache)
		return "mbuf_cache";
	if (a->duration != b->duration)
		return "duration";
	if (a->busy_poll != b->busy_poll)
		return "busy_poll";
	if (a->busy_budget != b->busy_budget)
		return "busy_budget";
	if (a->tag_check != b->tag_check)
		return "tag_check";
	if (strcmp(a->ctl_path, b->ctl_path))
		return "ctl_socket";
	if (strcmp(a->huge_dir, b->huge_dir))
		return "huge_dir";
	if (strcmp(a->user, b->user))
		return "user";
	if (strcmp(a->metrics_path, b->metrics_path))
		return "metrics_file";
	if (a->xdp_mode != b->xdp_mode)
		return "xdp_mode";
	if (a->zero_copy != b->zero_copy)
		return "zero_copy";
	return NULL;
}

int hdp_fwd_reconfigure(struct hdp_fwd *f, struct hdp_fwd_cfg *running,
			const struct hdp_fwd_cfg *next)
{
	int ret = hdp_pool_configure(hdp_fwd_pool(f), &next->harden);

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
