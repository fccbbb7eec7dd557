// SPDX-License-Identifier: BSD-3-Clause
/*
 * Cases through hdp-fwd's own burst loop, on a forwarder whose rings live
 * in memory (built with libxdp only): what hdp-fwd judges beyond a
 * descriptor's bounds and a chain's rules.
 */
#include "provoke.h"

#include <hdp/fwd.h>

#include <stdio.h>
#include <stdlib.h>

/* A forwarder whose rings live in memory, two ports, the case's profile (exits 2 if not). */
static struct hdp_fwd *forwarder(struct provoke_env *env, struct hdp_fwd_cfg *cfg)
{
	struct hdp_fwd *f;

	hdp_fwd_cfg_defaults(cfg);
	cfg->frames = 256;
	cfg->ring_size = cfg->fill_size = 64;
	cfg->harden = *env->cfg;
	f = hdp_fwd_cfg_set_ports(cfg, "a,b", "provoke") || hdp_fwd_cfg_check(cfg)
		    ? NULL : hdp_fwd_create_loopback(cfg);
	if (!f) {
		fprintf(stderr, "hdp-provoke: cannot set up a forwarder\n");
		exit(2);
	}
	return f;
}

/*
 * Every frame both fill rings of @f (made from @cfg) hold, taken as the
 * kernel would take them: @lent[i] says whether frame i was among them.
 * Returns how many.
 */
static unsigned take_all(struct hdp_fwd *f, const struct hdp_fwd_cfg *cfg, bool *lent)
{
	unsigned frames = cfg->frames;
	uint64_t *got = calloc(frames, sizeof(*got));
	unsigned n = 0, k;

	if (!got) {
		fprintf(stderr, "hdp-provoke: out of memory\n");
		exit(2);
	}
	for (unsigned port = 0; port < 2; port++) {
		k = hdp_fwd_loopback_take(f, port, got, frames);
		for (unsigned i = 0; i < k; i++)
			lent[got[i] / cfg->frame_size] = true;
		n += k;
	}
	free(got);
	return n;
}

/*
 * An RX descriptor naming a frame hdp-fwd did not lend the kernel: one it
 * took back, still on TX behind a busy link, named again. Through the
 * real burst loop of a forwarder whose rings live in memory.
 */
static enum verdict rx_frame_not_lent(struct provoke_env *env)
{
	static struct hdp_fwd_cfg cfg;
	struct hdp_fwd *f = forwarder(env, &cfg);
	struct xdp_desc d;
	uint64_t frame;
	enum verdict v;

	if (hdp_fwd_loopback_take(f, 0, &frame, 1) != 1) {
		fprintf(stderr, "hdp-provoke: no frame in the fill ring\n");
		exit(2);
	}
	d = (struct xdp_desc){ .addr = frame + HDP_FWD_RX_HEADROOM, .len = 60 };
	hdp_fwd_loopback_stall(f, 1, true);
	hdp_fwd_loopback_post(f, 0, &d, 1);
	hdp_fwd_loopback_post(f, 0, &d, 1);
	v = provoke_seen(hdp_fwd_pool(f), HDP_V_DESC_NOT_LENT) ? CAUGHT : MISSED;
	hdp_fwd_loopback_stall(f, 1, false);
	hdp_fwd_loopback_destroy(f);
	return v;
}

/* An RX descriptor naming a frame the kernel was never given: one in the pool. */
static enum verdict rx_frame_in_pool(struct provoke_env *env)
{
	static struct hdp_fwd_cfg cfg;
	static bool lent[256];
	struct hdp_fwd *f = forwarder(env, &cfg);
	struct xdp_desc d = { .len = 60 };
	unsigned idx = 0;
	enum verdict v;

	if (take_all(f, &cfg, lent) >= cfg.frames) {
		fprintf(stderr, "hdp-provoke: every frame was lent\n");
		exit(2);
	}
	while (lent[idx])
		idx++;
	d.addr = (uint64_t)idx * cfg.frame_size + HDP_FWD_RX_HEADROOM;
	hdp_fwd_loopback_post(f, 0, &d, 1);
	v = provoke_seen(hdp_fwd_pool(f), HDP_V_DESC_NOT_LENT) ? CAUGHT : MISSED;
	hdp_fwd_loopback_destroy(f);
	return v;
}

/*
 * A completion naming a frame that is in no TX ring: one the kernel holds
 * from a fill ring. Freed, it would go back to the pool, and out again,
 * while the kernel may still write a packet into it.
 */
static enum verdict comp_frame_not_on_tx(struct provoke_env *env)
{
	static struct hdp_fwd_cfg cfg;
	struct hdp_fwd *f = forwarder(env, &cfg);
	uint64_t frame;
	enum verdict v;

	if (hdp_fwd_loopback_take(f, 0, &frame, 1) != 1) {
		fprintf(stderr, "hdp-provoke: no frame in the fill ring\n");
		exit(2);
	}
	hdp_fwd_loopback_complete(f, 1, &frame, 1);
	v = provoke_seen(hdp_fwd_pool(f), HDP_V_DESC_NOT_LENT) ? CAUGHT : MISSED;
	hdp_fwd_loopback_destroy(f);
	return v;
}

const struct provoke_case provoke_fwd_cases[] = {
	{ "rx-frame-not-lent", "an RX descriptor naming a frame on TX, not in a fill ring", "",
	  rx_frame_not_lent },
	{ "rx-frame-in-pool", "an RX descriptor naming a frame in the pool, never lent", "",
	  rx_frame_in_pool },
	{ "comp-frame-not-on-tx", "a completion naming a frame in a fill ring, not on TX", "",
	  comp_frame_not_on_tx },
};

const unsigned provoke_nfwd_cases = HDP_ARRAY_SIZE(provoke_fwd_cases);
