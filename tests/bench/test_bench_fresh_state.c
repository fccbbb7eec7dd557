// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-bench micro measures every (profile, size) from the state a fresh
 * loopback forwarder starts in: bench_fresh_state() puts it back. After
 * frames of 9000 bytes (chains, which leave each fill ring short: the
 * forwarder refills one frame per frame received) and a shuffle (which
 * scrambles the order frames come out of the pool), each port's fill ring
 * holds its target again, with the same frames in the same order as on a
 * forwarder just made. The state is checked, not the timing.
 */
#include <criterion/criterion.h>

#include <hdp/fwd.h>

#include <string.h>

#include "bench.h"

#define PORTS 2
#define FILL_MAX 65536	/* the largest fill_size hdp-fwd takes */

static struct hdp_fwd_cfg cfg;
static uint64_t fresh[PORTS][FILL_MAX], after[PORTS][FILL_MAX];
static unsigned fresh_n[PORTS], after_n[PORTS];

static struct hdp_fwd *make(void)
{
	struct hdp_fwd *f;

	hdp_fwd_cfg_defaults(&cfg);
	cfg.mode = HDP_FWD_MACSWAP;
	cr_assert_eq(hdp_fwd_cfg_set_ports(&cfg, "a:0,b:0", "test"), 0);
	cr_assert_eq(hdp_fwd_cfg_check(&cfg), 0);
	f = hdp_fwd_create_loopback(&cfg);
	cr_assert_not_null(f, "a loopback forwarder");
	return f;
}

/* What the "kernel" finds in each port's fill ring, in order (taken: the forwarder is done with). */
static void fill_rings(struct hdp_fwd *f, uint64_t frames[][FILL_MAX], unsigned *n)
{
	for (unsigned i = 0; i < PORTS; i++)
		n[i] = hdp_fwd_loopback_take(f, i, frames[i], FILL_MAX);
}

static void steps(struct hdp_fwd *f, const char *profile, uint32_t len, unsigned count)
{
	static uint8_t pkt[BENCH_SIZE_MAX];

	cr_assert_eq(bench_apply_profile(f, profile, CONFIG_DIR), 0, "profile %s", profile);
	bench_packet_fill(pkt, len);
	for (unsigned k = 0; k < count; k++)
		hdp_fwd_loopback_step(f, pkt, len, 64);
}

Test(bench_fresh_state, fill_rings_full_and_frames_in_fresh_order)
{
	struct hdp_fwd *f = make();

	fill_rings(f, fresh, fresh_n);
	cr_assert_eq(hdp_fwd_loopback_destroy(f), 0, "every frame back");
	cr_assert_gt(fresh_n[0], 64, "a fresh fill ring holds more than one burst");

	f = make();
	steps(f, "@default.ini", 9000, 500);
	steps(f, "bounds=off,init_on_free=off,init_check=off,tag=off,shuffle=on", 60, 500);
	steps(f, BENCH_SPEC_OFF, 9000, 500);
	cr_assert_eq(bench_fresh_state(f, CONFIG_DIR), 0);
	fill_rings(f, after, after_n);
	for (unsigned i = 0; i < PORTS; i++) {
		cr_assert_eq(after_n[i], fresh_n[i], "port %u's fill ring holds %u frames, "
			     "its target %u", i, after_n[i], fresh_n[i]);
		for (unsigned k = 0; k < fresh_n[i]; k++)
			cr_assert_eq(after[i][k], fresh[i][k], "port %u, fill entry %u: frame "
				     "%llu, on a fresh forwarder %llu", i, k,
				     (unsigned long long)(after[i][k] / cfg.frame_size),
				     (unsigned long long)(fresh[i][k] / cfg.frame_size));
	}
	cr_assert_eq(hdp_fwd_loopback_destroy(f), 0, "every frame back");
}

/* Measured runs go on from there: the forwarder still forwards, nothing lost. */
Test(bench_fresh_state, forwarding_goes_on)
{
	struct hdp_fwd *f = make();
	static uint8_t pkt[60];

	steps(f, "@strict.ini", 9000, 100);
	cr_assert_eq(bench_fresh_state(f, CONFIG_DIR), 0);
	bench_packet_fill(pkt, sizeof(pkt));
	cr_assert_eq(hdp_fwd_loopback_step(f, pkt, sizeof(pkt), 64), 2 * 64u);
	cr_assert_eq(hdp_fwd_loopback_destroy(f), 0, "every frame back");
}
