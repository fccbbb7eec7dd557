// SPDX-License-Identifier: BSD-3-Clause
/*
 * RX descriptors forged every way we can think of: against the UMEM's
 * layout, and through the burst loop against the frames hdp-fwd lent the
 * kernel; and the header rewrites.
 */
#include <criterion/criterion.h>

#include <hdp/fwd.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "fwd_support.h"
#include "support.h"

static struct hdp_pool *umem(const char *spec)
{
	struct hdp_pool *p = hdp_pool_create(&(struct hdp_pool_params){
		.name = "umem", .obj_size = 2048, .obj_align = 2048, .obj_count = 64,
		.mem = HDP_MEM_PLAIN,
	});
	static struct hdp_harden_config cfg;

	cr_assert_not_null(p);
	hdp_harden_config_init(&cfg);
	hdp_harden_config_declare(&cfg, "umem");
	cr_assert_eq(hdp_harden_config_parse_string(&cfg, spec, "test"), 0);
	cr_assert_eq(hdp_pool_configure(p, &cfg), 0);
	return p;
}

TestSuite(fwd_rx_desc, .init = capture_logs);

static const struct {
	uint64_t addr;
	uint32_t len;
	bool ok;
} descs[] = {
	{ 0, 60, true },
	{ 256, 1792, true },			/* headroom + the largest frame */
	{ 63 * 2048 + 256, 1500, true },	/* the last chunk */
	{ 256, 1793, false },			/* one byte past the chunk */
	{ 2047, 2, false },
	{ 64 * 2048, 60, false },		/* one chunk past the UMEM */
	{ UINT64_MAX, 60, false },
	{ UINT64_MAX - 100, 200, false },	/* wraps */
	{ 0, UINT32_MAX, false },
	{ 1ull << 40, 0, false },
};

static void check_all(struct hdp_pool *p)
{
	for (size_t i = 0; i < sizeof(descs) / sizeof(descs[0]); i++) {
		void *data = NULL;
		int ret = hdp_fwd_rx_desc(p, descs[i].addr, descs[i].len, &data);
		struct hdp_pool_region lay;

		hdp_pool_region(p, &lay);
		cr_assert_eq(ret, descs[i].ok ? 0 : -EFAULT, "addr %llu len %u",
			     (unsigned long long)descs[i].addr, descs[i].len);
		if (descs[i].ok)
			cr_assert_eq(data, (char *)lay.base + descs[i].addr);
	}
}

Test(fwd_rx_desc, forged_descriptors_are_refused_with_bounds_on)
{
	struct hdp_pool *p = umem("on_violation=drop,tag=off");

	check_all(p);
	cr_assert_eq(violations(p, HDP_V_DESC_OUTSIDE) + violations(p, HDP_V_DESC_PAST_CHUNK),
		     7);
}

Test(fwd_rx_desc, and_still_refused_with_bounds_off)
{
	struct hdp_pool *p = umem("bounds=off,tag=off");

	check_all(p);
	cr_assert_eq(violations(p, HDP_V_DESC_OUTSIDE), 0, "no violation: a structural drop");
}

Test(fwd_rx_desc, macswap_swaps_and_io_leaves_alone)
{
	uint8_t frame[64], orig[64];
	struct hdp_port_cfg out = { 0 };

	for (int i = 0; i < 64; i++)
		frame[i] = orig[i] = (uint8_t)i;
	cr_assert_eq(hdp_fwd_rewrite(HDP_FWD_IO, frame, 64, &out), 0);
	cr_assert_arr_eq(frame, orig, 64);
	cr_assert_eq(hdp_fwd_rewrite(HDP_FWD_MACSWAP, frame, 64, &out), 0);
	cr_assert_arr_eq(frame, orig + 6, 6);
	cr_assert_arr_eq(frame + 6, orig, 6);
	cr_assert_arr_eq(frame + 12, orig + 12, 52);
}

Test(fwd_rx_desc, l2_writes_the_port_macs)
{
	uint8_t frame[60] = { 0 };
	struct hdp_port_cfg out = {
		.src_mac = { 2, 0, 0, 0, 0xaa, 0xbb }, .dst_mac = { 2, 0, 0, 0, 0, 2 },
	};

	cr_assert_eq(hdp_fwd_rewrite(HDP_FWD_L2, frame, 60, &out), 0);
	cr_assert_arr_eq(frame, out.dst_mac, 6);
	cr_assert_arr_eq(frame + 6, out.src_mac, 6);
}

Test(fwd_rx_desc, runts_are_refused_by_modes_that_parse)
{
	uint8_t frame[60] = { 1 };
	struct hdp_port_cfg out = { 0 };

	cr_assert_eq(hdp_fwd_rewrite(HDP_FWD_MACSWAP, frame, 59, &out), -EINVAL);
	cr_assert_eq(hdp_fwd_rewrite(HDP_FWD_L2, frame, 14, &out), -EINVAL);
	cr_assert_eq(hdp_fwd_rewrite(HDP_FWD_IO, frame, 1, &out), 0);
	cr_assert_eq(frame[0], 1);
}

/* Port @port's drops of the cause the stats call @name. */
static uint64_t drops_named(struct hdp_fwd *f, unsigned port, const char *name)
{
	struct hdp_port_stats s;

	hdp_fwd_port_stats(f, port, &s);
	for (unsigned d = 0; d < HDP_FWD_DROP__COUNT; d++)
		if (strcmp(hdp_fwd_drop_name(d), name) == 0)
			return atomic_load(&s.drops[d]);
	cr_assert_fail("no drop cause is called %s", name);
	return 0;
}

/*
 * Through the burst loop of a forwarder whose rings live in memory, the
 * test playing the kernel: descriptors inside the UMEM naming a frame
 * the kernel was never given (one in the pool), one still in flight (on
 * TX behind a busy link) and one handed back already (sent and
 * completed). Each is dropped as not_lent, a cause of its own (one
 * outside the UMEM stays invalid_desc), with @violations desc_not_lent
 * violations (bounds on: one each; off: none), and the frame stays with
 * whoever holds it: nothing sent twice, freed twice or lost.
 */
static void forge_frames_not_lent(const char *harden, unsigned long long want_violations)
{
	static struct hdp_fwd_cfg cfg;
	static bool lent[512];
	static uint64_t frames[512];
	struct hdp_fwd *f;
	uint64_t pool_frame = 0;
	unsigned got;

	hdp_fwd_cfg_defaults(&cfg);
	cfg.frames = 512;
	cfg.ring_size = cfg.fill_size = 64;
	f = loopback_forwarder(&cfg, "a,b", harden);
	/* Every frame of both fill rings, the kernel's now: any other is in the pool. */
	got = hdp_fwd_loopback_take(f, 0, frames, 64);
	cr_assert_geq(got, 2);
	got += hdp_fwd_loopback_take(f, 1, frames + got, 512 - got);
	for (unsigned i = 0; i < got; i++)
		lent[frames[i] / 2048] = true;
	while (lent[pool_frame])
		pool_frame++;
	struct xdp_desc never = { .addr = pool_frame * 2048 + 256, .len = 60 };
	struct xdp_desc outside = { .addr = 512 * 2048 + 256, .len = 60 };
	struct xdp_desc first = { .addr = frames[0] + 256, .len = 60 };
	struct xdp_desc second = { .addr = frames[1] + 256, .len = 60 };

	hdp_fwd_loopback_post(f, 0, &never, 1);
	hdp_fwd_loopback_post(f, 0, &outside, 1);
	hdp_fwd_loopback_stall(f, 1, true);
	hdp_fwd_loopback_post(f, 0, &first, 1);
	hdp_fwd_loopback_post(f, 0, &first, 1);		/* still on TX */
	hdp_fwd_loopback_stall(f, 1, false);
	hdp_fwd_loopback_post(f, 0, &second, 1);
	hdp_fwd_loopback_post(f, 0, &second, 1);	/* sent and completed already */
	cr_assert_eq(drops_named(f, 0, "not_lent"), 3, "%s", captured_logs());
	cr_assert_eq(drops_named(f, 0, "invalid_desc"), 1);
	cr_assert_eq(violations(hdp_fwd_pool(f), HDP_V_DESC_NOT_LENT), want_violations, "%s",
		     captured_logs());
	{
		struct hdp_port_stats b;

		hdp_fwd_port_stats(f, 1, &b);
		cr_assert_eq(b.tx_packets, 2, "each lent frame sent once");
	}
	cr_assert_eq(violations(hdp_fwd_pool(f), HDP_V_DOUBLE_FREE), 0, "no frame freed twice");
	cr_assert_eq(hdp_fwd_loopback_destroy(f), 0, "every frame back in the pool");
}

Test(fwd_rx_desc, a_frame_not_lent_is_dropped_as_not_lent_and_reported_under_bounds)
{
	forge_frames_not_lent("on_violation=report,bounds=on", 3);
}

Test(fwd_rx_desc, a_frame_not_lent_is_dropped_as_not_lent_with_every_protection_off)
{
	forge_frames_not_lent("on_violation=report,bounds=off,init_on_free=off,init_check=off,"
			      "tag=off,quarantine=off,shuffle=off", 0);
}
