// SPDX-License-Identifier: BSD-3-Clause
/*
 * Packets as chains of frames (multi-buffer AF_XDP), through the real burst
 * loop on a forwarder whose rings live in memory: chains of every length go
 * out whole and in order; chains that break a rule (cut off by an invalid
 * descriptor, naming a frame twice, longer than the kernel sends) are
 * dropped whole with their violation; a chain the TX ring cannot take is
 * dropped whole; and whatever happens, every frame comes back to the pool
 * once.
 */
#include <criterion/criterion.h>

#include <hdp/fwd.h>
#include <hdp/log.h>

#include <signal.h>
#include <string.h>

#include "fwd_support.h"
#include "support.h"

#define HEADROOM HDP_FWD_RX_HEADROOM
#define ROOM (2048 - HEADROOM)

static struct hdp_fwd_cfg cfg;
static struct hdp_fwd *fwd;
static uint8_t pkt[HDP_FWD_CHAIN_MAX * ROOM];

static void make_sized(const char *harden, uint32_t max_frame)
{
	hdp_fwd_cfg_defaults(&cfg);
	cfg.max_frame = max_frame;
	cfg.ring_size = 128;
	cfg.fill_size = 256;
	cfg.frames = 2048;
	fwd = loopback_forwarder(&cfg, "a,b", harden);
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)(i * 7 + 3);
}

static void make(const char *harden)
{
	make_sized(harden, 0);
}

static struct hdp_port_stats stats(unsigned port)
{
	struct hdp_port_stats s;

	hdp_fwd_port_stats(fwd, port, &s);
	return s;
}

#define DROPS(s, kind) atomic_load(&(s).drops[HDP_FWD_DROP_##kind])

/* Port @port's drops of the cause the stats call @name. */
static uint64_t drops_named(unsigned port, const char *name)
{
	struct hdp_port_stats s = stats(port);

	for (unsigned d = 0; d < HDP_FWD_DROP__COUNT; d++)
		if (strcmp(hdp_fwd_drop_name(d), name) == 0)
			return atomic_load(&s.drops[d]);
	cr_assert_fail("no drop cause is called %s", name);
	return 0;
}

static void no_leak(void)
{
	struct hdp_pool *umem = hdp_fwd_pool(fwd);

	cr_assert_eq(violations(umem, HDP_V_DOUBLE_FREE), 0, "no frame freed twice");
	cr_assert_eq(hdp_fwd_loopback_destroy(fwd), 0, "every frame back in the pool");
}

TestSuite(fwd_chain);

Test(fwd_chain, packets_of_every_size_go_through_whole)
{
	static const uint32_t sizes[] = { 60, 1500, ROOM, ROOM + 1, 3000, 9014, 9018,
					  HDP_FWD_CHAIN_MAX * ROOM };
	uint64_t packets = 0, frags = 0, bytes = 0;

	make("on_violation=abort");
	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		uint32_t n = hdp_fwd_frames_for(sizes[k], 2048);
		unsigned sent = 0;

		for (int step = 0; step < 50; step++)
			sent += hdp_fwd_loopback_step(fwd, pkt, sizes[k], 8);
		/* What is still on the RX rings, or half gathered: out too. */
		for (int step = 0; step < 10; step++)
			sent += hdp_fwd_loopback_step(fwd, pkt, sizes[k], 0);
		cr_assert_gt(sent, 0, "%u-byte packets forwarded", sizes[k]);
		packets += sent;
		frags += (uint64_t)sent * n;
		bytes += (uint64_t)sent * sizes[k];
		/* Both directions: a's packets leave on b and b's on a. */
		struct hdp_port_stats a = stats(0), b = stats(1);

		cr_assert_eq(a.tx_packets + b.tx_packets, packets, "%u bytes", sizes[k]);
		cr_assert_eq(a.tx_frags + b.tx_frags, frags, "%u bytes: %u frames each",
			     sizes[k], n);
		cr_assert_eq(a.tx_bytes + b.tx_bytes, bytes);
	}
	struct hdp_port_stats a = stats(0), b = stats(1);

	cr_assert_eq(a.rx_packets + b.rx_packets, packets, "nothing dropped, nothing pending");
	cr_assert_eq(a.rx_frags + b.rx_frags, frags);
	no_leak();
}

Test(fwd_chain, a_chain_longer_than_a_pass_is_gathered_across_passes)
{
	make("");
	cfg.batch = 4;	/* a 6-frame chain over two passes */
	for (int step = 0; step < 20; step++)
		hdp_fwd_loopback_step(fwd, pkt, 9014, 3);
	struct hdp_port_stats a = stats(0), b = stats(1);

	cr_assert_gt(b.tx_packets, 0);
	cr_assert_eq(b.tx_frags, 6 * b.tx_packets);
	cr_assert_eq(a.rx_frags, b.tx_frags + 0, "every frame received went out");
	no_leak();
}

/* Frames the "kernel" took from port 0's fill ring. */
static uint64_t frames[256];

static struct xdp_desc frag(unsigned i, uint32_t len, bool more)
{
	return (struct xdp_desc){ .addr = frames[i] + HEADROOM, .len = len,
				  .options = more ? XDP_PKT_CONTD : 0 };
}

static void take(unsigned n)
{
	cr_assert_eq(hdp_fwd_loopback_take(fwd, 0, frames, n), n);
}

Test(fwd_chain, a_chain_that_names_a_frame_twice_is_dropped_whole)
{
	make("on_violation=drop");
	take(3);
	struct xdp_desc d[] = { frag(0, ROOM, true), frag(1, ROOM, true), frag(0, 100, false),
				frag(2, 60, false) };

	hdp_fwd_loopback_post(fwd, 0, d, 4);
	struct hdp_port_stats a = stats(0), b = stats(1);

	cr_assert_eq(DROPS(a, CHAIN_REUSE), 1);
	cr_assert_eq(violations(hdp_fwd_pool(fwd), HDP_V_DESC_CHAIN_REUSE), 1);
	cr_assert_eq(b.tx_packets, 1, "the packet after it goes on");
	cr_assert_eq(a.rx_packets, 2);
	no_leak();
}

Test(fwd_chain, a_chain_cut_by_an_invalid_descriptor_goes_with_its_rest)
{
	make("on_violation=drop");
	take(4);
	struct hdp_pool_region lay;

	hdp_pool_region(hdp_fwd_pool(fwd), &lay);
	struct xdp_desc d[] = {
		frag(0, ROOM, true),
		{ .addr = lay.len + HEADROOM, .len = ROOM, .options = XDP_PKT_CONTD },
		frag(1, ROOM, true),	/* the rest of the cut packet */
		frag(2, 500, false),
		frag(3, 60, false),
	};

	hdp_fwd_loopback_post(fwd, 0, d, 5);
	struct hdp_port_stats a = stats(0), b = stats(1);

	cr_assert_eq(DROPS(a, CHAIN_CUT), 1, "the packet counted once");
	cr_assert_eq(violations(hdp_fwd_pool(fwd), HDP_V_DESC_CHAIN_CUT), 1);
	cr_assert_eq(b.tx_packets, 1);
	cr_assert_eq(b.tx_bytes, 60, "none of the cut packet's frames went out");
	no_leak();
}

Test(fwd_chain, the_rest_of_a_dropped_chain_never_frees_a_frame_twice)
{
	make("on_violation=drop");
	take(3);
	struct xdp_desc d[] = { frag(0, ROOM, true), frag(1, ROOM + 5, true),
				frag(0, ROOM, true), frag(1, ROOM, true), frag(2, 10, false) };

	hdp_fwd_loopback_post(fwd, 0, d, 5);
	cr_assert_eq(DROPS(stats(0), CHAIN_CUT), 1);
	no_leak();
}

/*
 * A chain one of whose fragments names a frame that was in no fill ring
 * (one in the pool): dropped whole as not_lent, its own cause, with a
 * desc_not_lent violation; its lent frame goes back, the other stays in
 * the pool, freed by nobody.
 */
Test(fwd_chain, a_chain_naming_a_frame_not_lent_is_dropped_as_not_lent)
{
	static bool lent[2048];
	uint64_t pool_frame = 0;
	unsigned got;

	make("on_violation=drop");
	/* Every frame of both fill rings, the kernel's now: any other is in the pool. */
	got = hdp_fwd_loopback_take(fwd, 0, frames, 128);
	cr_assert_geq(got, 2);
	got += hdp_fwd_loopback_take(fwd, 1, frames + got, 256 - got);
	for (unsigned i = 0; i < got; i++)
		lent[frames[i] / 2048] = true;
	while (lent[pool_frame])
		pool_frame++;
	struct xdp_desc d[] = {
		frag(0, ROOM, true),
		{ .addr = pool_frame * 2048 + HEADROOM, .len = 60 },
		frag(1, 60, false),
	};

	hdp_fwd_loopback_post(fwd, 0, d, 3);
	cr_assert_eq(drops_named(0, "not_lent"), 1, "the packet, once, as not_lent");
	cr_assert_eq(drops_named(0, "chain_cut"), 0);
	cr_assert_eq(violations(hdp_fwd_pool(fwd), HDP_V_DESC_NOT_LENT), 1);
	cr_assert_eq(stats(1).tx_packets, 1, "the packet after it goes on");
	cr_assert_eq(stats(1).tx_bytes, 60);
	no_leak();
}

Test(fwd_chain, a_fragment_past_its_chunk_cuts_the_chain)
{
	make("on_violation=drop");
	take(2);
	struct xdp_desc d[] = { frag(0, ROOM, true), frag(1, ROOM + 1, false) };

	hdp_fwd_loopback_post(fwd, 0, d, 2);
	cr_assert_eq(DROPS(stats(0), CHAIN_CUT), 1);
	cr_assert_eq(stats(1).tx_packets, 0);
	no_leak();
}

Test(fwd_chain, a_chain_past_the_kernels_limit_is_dropped_whole)
{
	struct xdp_desc d[HDP_FWD_CHAIN_MAX + 3];
	unsigned n = HDP_FWD_CHAIN_MAX + 2;

	make("on_violation=drop");
	take(n + 1);
	for (unsigned i = 0; i < n; i++)
		d[i] = frag(i, ROOM, i + 1 < n);
	d[n] = frag(n, 60, false);
	hdp_fwd_loopback_post(fwd, 0, d, n + 1);
	cr_assert_eq(DROPS(stats(0), CHAIN_LONG), 1);
	cr_assert_eq(violations(hdp_fwd_pool(fwd), HDP_V_DESC_CHAIN_LONG), 1);
	cr_assert_eq(stats(1).tx_packets, 1, "only the packet after it");
	no_leak();
}

Test(fwd_chain, a_chain_of_exactly_the_limit_goes_out)
{
	struct xdp_desc d[HDP_FWD_CHAIN_MAX];

	make("on_violation=abort");
	take(HDP_FWD_CHAIN_MAX);
	for (unsigned i = 0; i < HDP_FWD_CHAIN_MAX; i++)
		d[i] = frag(i, ROOM, i + 1 < HDP_FWD_CHAIN_MAX);
	hdp_fwd_loopback_post(fwd, 0, d, HDP_FWD_CHAIN_MAX);
	cr_assert_eq(stats(1).tx_packets, 1);
	cr_assert_eq(stats(1).tx_frags, HDP_FWD_CHAIN_MAX);
	no_leak();
}

Test(fwd_chain, with_bounds_off_the_rules_still_drop_but_report_nothing)
{
	make("bounds=off");
	take(2);
	struct xdp_desc d[] = { frag(0, ROOM, true), frag(0, ROOM, false) };

	hdp_fwd_loopback_post(fwd, 0, d, 2);
	cr_assert_eq(DROPS(stats(0), CHAIN_REUSE), 1);
	cr_assert_eq(all_violations(hdp_fwd_pool(fwd)), 0);
	hdp_fwd_loopback_destroy(fwd);
}

Test(fwd_chain, under_abort_a_broken_chain_stops_the_process, .signal = SIGABRT)
{
	make("on_violation=abort");
	take(2);
	struct xdp_desc d[] = { frag(0, ROOM, true), frag(0, ROOM, false) };

	hdp_fwd_loopback_post(fwd, 0, d, 2);
}

Test(fwd_chain, a_chain_the_tx_ring_cannot_take_is_dropped_whole)
{
	struct xdp_desc d[256];
	unsigned n = 0;

	make("");
	hdp_fwd_loopback_stall(fwd, 1, true);
	take(cfg.ring_size - 2);
	for (; n < cfg.ring_size - 2; n++)
		d[n] = frag(n, 60, false);
	hdp_fwd_loopback_post(fwd, 0, d, n);
	/* No more lent than the RX ring holds: the chain's frames come after those went. */
	cr_assert_eq(hdp_fwd_loopback_take(fwd, 0, frames + n, 3), 3);
	/* Two slots left on b's TX ring, a packet of three frames. */
	d[0] = frag(n, ROOM, true);
	d[1] = frag(n + 1, ROOM, true);
	d[2] = frag(n + 2, 100, false);
	hdp_fwd_loopback_post(fwd, 0, d, 3);
	struct hdp_port_stats b = stats(1);

	cr_assert_eq(DROPS(b, TX_FULL), 1, "one packet, counted once");
	cr_assert_eq(b.tx_frags, cfg.ring_size - 2, "no part of it went out");
	hdp_fwd_loopback_stall(fwd, 1, false);
	no_leak();
}

Test(fwd_chain, a_chain_for_a_port_without_multi_buffer_is_dropped_as_too_big)
{
	/* A frame fits one frame: the ports are not bound for multi-buffer. */
	make_sized("", 1518);
	take(3);
	struct xdp_desc d[] = { frag(0, ROOM, true), frag(1, 10, false), frag(2, 60, false) };

	hdp_fwd_loopback_post(fwd, 0, d, 3);
	cr_assert_eq(DROPS(stats(0), TOO_BIG), 1);
	cr_assert_eq(stats(1).tx_packets, 1, "the one-frame packet after it");
	cr_assert_eq(stats(1).tx_frags, 1, "no chain on a TX ring the kernel reads without");
	no_leak();
}

Test(fwd_chain, chain_add_alone_judges_each_descriptor_in_order)
{
	struct hdp_pool *p = hardened_pool("umem", 2048, 8, 0, "on_violation=drop");
	struct hdp_fwd_chain c = { 0 };
	enum hdp_fwd_drop why;

	cr_assert_not_null(p);
	/* hardened_pool aligns objects to 16: ask the pool for its stride. */
	uint64_t s = hdp_pool_slots(p)->stride;
	struct xdp_desc a = { 256, 100, XDP_PKT_CONTD }, b = { s + 256, 100, 0 };

	cr_assert_eq(hdp_fwd_chain_add(p, &c, a, true, &why), HDP_FWD_CHAIN_MORE);
	cr_assert_eq(hdp_fwd_chain_add(p, &c, b, true, &why), HDP_FWD_CHAIN_WHOLE);
	cr_assert_eq(c.n, 2);
	c.n = 0;
	/* A one-frame packet with an unknown option bit is whole at once. */
	cr_assert_eq(hdp_fwd_chain_add(p, &c, (struct xdp_desc){ 256, 60, 2 }, true, &why),
		     HDP_FWD_CHAIN_WHOLE);
	c.n = 0;
	cr_assert_eq(hdp_fwd_chain_add(p, &c, a, true, &why), HDP_FWD_CHAIN_MORE);
	cr_assert_eq(hdp_fwd_chain_add(p, &c, (struct xdp_desc){ 1ull << 40, 1, 1 }, true, &why),
		     HDP_FWD_CHAIN_DROP);
	cr_assert_eq(why, HDP_FWD_DROP_CHAIN_CUT);
	cr_assert_eq(c.nback, 1, "the first frame back; the forged one is nobody's");
	cr_assert_eq(c.back[0], a.addr);
	cr_assert(c.discard);
	/*
	 * The rest of it naming the first frame again, taken back already (not
	 * lent, as hdp-fwd would say): not given back twice; lent again since,
	 * it goes back.
	 */
	cr_assert_eq(hdp_fwd_chain_add(p, &c, a, false, &why), HDP_FWD_CHAIN_GONE);
	cr_assert_eq(c.nback, 0);
	cr_assert_eq(hdp_fwd_chain_add(p, &c, (struct xdp_desc){ a.addr, 100, XDP_PKT_CONTD },
				       true, &why), HDP_FWD_CHAIN_GONE);
	cr_assert_eq(c.nback, 1);
	cr_assert_eq(hdp_fwd_chain_add(p, &c, b, true, &why), HDP_FWD_CHAIN_GONE);
	cr_assert_eq(c.nback, 1);
	cr_assert_not(c.discard, "its last descriptor ends the drop");
	cr_assert_eq(hdp_fwd_chain_add(p, &c, b, true, &why), HDP_FWD_CHAIN_WHOLE);
	hdp_pool_destroy(p);
}
