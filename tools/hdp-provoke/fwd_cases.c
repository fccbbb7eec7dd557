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

/*
 * An RX descriptor naming a frame hdp-fwd did not lend the kernel: one it
 * took back, still on TX behind a busy link, named again. Through the
 * real burst loop of a forwarder whose rings live in memory.
 */
static enum verdict rx_frame_not_lent(struct provoke_env *env)
{
	static struct hdp_fwd_cfg cfg;
	struct hdp_fwd *f;
	struct xdp_desc d;
	uint64_t frame;
	enum verdict v;

	hdp_fwd_cfg_defaults(&cfg);
	cfg.frames = 256;
	cfg.ring_size = cfg.fill_size = 64;
	cfg.harden = *env->cfg;
	f = hdp_fwd_cfg_set_ports(&cfg, "a,b", "provoke") || hdp_fwd_cfg_check(&cfg)
		    ? NULL : hdp_fwd_create_loopback(&cfg);
	if (!f || hdp_fwd_loopback_take(f, 0, &frame, 1) != 1) {
		fprintf(stderr, "hdp-provoke: cannot set up a forwarder\n");
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

const struct provoke_case provoke_fwd_cases[] = {
	{ "rx-frame-not-lent", "an RX descriptor naming a frame on TX, not in a fill ring", "",
	  rx_frame_not_lent },
};

const unsigned provoke_nfwd_cases = HDP_ARRAY_SIZE(provoke_fwd_cases);
