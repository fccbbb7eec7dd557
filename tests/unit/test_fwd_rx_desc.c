// SPDX-License-Identifier: BSD-3-Clause
/* RX descriptors forged every way we can think of, and the header rewrites. */
#include <criterion/criterion.h>

#include <hdp/fwd.h>

#include <errno.h>
#include <stdint.h>
#include <string.h>

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
