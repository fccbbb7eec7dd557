// SPDX-License-Identifier: BSD-3-Clause
/*
 * RX hands back only frames the kernel was lent. hdp-fwd knows which of
 * its frames sit in a fill ring; a descriptor naming any other (one on
 * TX, one in a chain, one in the pool, one handed back already) is
 * dropped as not_lent, a desc_not_lent violation under bounds, and the
 * frame stays with whoever has it. Before, such a descriptor was taken:
 * one frame went out as two packets and was freed twice, and without
 * records the pool handed it out twice. Through the real burst loop on a
 * forwarder whose rings live in memory, the test playing the kernel.
 */
#include <criterion/criterion.h>

#include <hdp/fwd.h>
#include <hdp/log.h>

#include <string.h>

#include "fwd_support.h"
#include "support.h"

#define FRAME 2048
#define HEADROOM HDP_FWD_RX_HEADROOM
#define ROOM (FRAME - HEADROOM)
#define FRAMES 2048

static struct hdp_fwd_cfg cfg;
static struct hdp_fwd *fwd;
static uint64_t lent[FRAMES];

static void make_rings(const char *harden, uint32_t fill, uint32_t ring)
{
	hdp_fwd_cfg_defaults(&cfg);
	cfg.ring_size = ring;
	cfg.fill_size = fill;
	cfg.frames = FRAMES;
	fwd = loopback_forwarder(&cfg, "a,b", harden);
}

static void make(const char *harden)
{
	make_rings(harden, 256, 128);
}

static struct xdp_desc frag(unsigned i, uint32_t len, bool more)
{
	return (struct xdp_desc){ .addr = lent[i] + HEADROOM, .len = len,
				  .options = more ? XDP_PKT_CONTD : 0 };
}

static struct hdp_port_stats stats(unsigned port)
{
	struct hdp_port_stats s;

	hdp_fwd_port_stats(fwd, port, &s);
	return s;
}

static uint8_t *frame_bytes(uint64_t addr)
{
	struct hdp_pool_region r;

	hdp_pool_region(hdp_fwd_pool(fwd), &r);
	return (uint8_t *)r.base + addr;
}

/* A few rounds of ordinary traffic: every frame has been through a cycle. */
static void warm(void)
{
	static uint8_t pkt[60];

	memset(pkt, 1, sizeof(pkt));
	for (int i = 0; i < 100; i++)
		hdp_fwd_loopback_step(fwd, pkt, sizeof(pkt), 64);
}

static void no_leak(void)
{
	cr_assert_eq(violations(hdp_fwd_pool(fwd), HDP_V_DOUBLE_FREE), 0, "no frame freed twice");
	cr_assert_eq(hdp_fwd_loopback_destroy(fwd), 0, "every frame back in the pool");
}

TestSuite(fwd_lent);

Test(fwd_lent, a_frame_waiting_on_tx_named_again_is_refused)
{
	struct xdp_desc d;

	make("on_violation=report,bounds=on");
	cr_assert_eq(hdp_fwd_loopback_take(fwd, 0, lent, 1), 1);
	d = frag(0, 60, false);
	hdp_fwd_loopback_stall(fwd, 1, true);
	hdp_fwd_loopback_post(fwd, 0, &d, 1);
	hdp_fwd_loopback_post(fwd, 0, &d, 1);	/* the same frame, still on TX */
	hdp_fwd_loopback_stall(fwd, 1, false);
	hdp_fwd_loopback_post(fwd, 0, &d, 0);
	cr_assert_eq(stats(1).tx_packets, 1, "sent once, not twice");
	cr_assert_eq(stats(0).drops[HDP_FWD_DROP_NOT_LENT], 1);
	cr_assert_eq(violations(hdp_fwd_pool(fwd), HDP_V_DESC_NOT_LENT), 1, "%s",
		     captured_logs());
	cr_assert(log_contains("is not in a fill ring"), "%s", captured_logs());
	no_leak();
}

/*
 * Completions hand back only frames on the port's own TX ring, once: one
 * naming a frame in a fill ring, one in the pool, one outside the UMEM,
 * one completed already and one on the other port's TX ring are refused,
 * counted, and nothing is freed for them. (Every completion was freed: a
 * frame in a fill ring went back to the pool while the kernel still had
 * it, and one on another port's TX ring while that port still sent it.)
 */
Test(fwd_lent, a_completion_of_a_frame_not_on_its_tx_ring_is_refused)
{
	struct hdp_pool_stats before, after;
	uint64_t forged[5];
	struct xdp_desc d;

	make("on_violation=report,bounds=on");
	cr_assert_eq(hdp_fwd_loopback_take(fwd, 0, lent, 3), 3);
	d = frag(0, 60, false);
	hdp_fwd_loopback_post(fwd, 0, &d, 1);	/* sent and completed: lent[0] is back */
	cr_assert_eq(stats(1).tx_packets, 1);
	hdp_fwd_loopback_stall(fwd, 1, true);
	d = frag(2, 60, false);
	hdp_fwd_loopback_post(fwd, 0, &d, 1);	/* lent[2] waits on port 1's TX ring */
	hdp_pool_stats_get(hdp_fwd_pool(fwd), &before);
	forged[0] = lent[1];			/* the kernel's, from port 0's fill ring */
	forged[1] = 2000ull * FRAME;		/* in the pool */
	forged[2] = (uint64_t)FRAMES * FRAME;	/* outside the UMEM */
	forged[3] = lent[0];			/* completed already */
	forged[4] = lent[2];			/* on port 1's TX ring, completed on port 0 */
	cr_assert_eq(hdp_fwd_loopback_complete(fwd, 0, forged, 5), 5);
	hdp_pool_stats_get(hdp_fwd_pool(fwd), &after);
	cr_assert_eq(after.in_use, before.in_use, "nothing freed for a forged completion");
	cr_assert_eq(violations(hdp_fwd_pool(fwd), HDP_V_DESC_NOT_LENT), 5, "%s",
		     captured_logs());
	cr_assert_eq(stats(0).comp_refused, 5);
	cr_assert(log_contains("which is not on its TX ring"), "%s", captured_logs());
	hdp_fwd_loopback_stall(fwd, 1, false);	/* sent now: its own completion */
	hdp_pool_stats_get(hdp_fwd_pool(fwd), &before);
	hdp_fwd_loopback_complete(fwd, 1, forged, 0);
	hdp_pool_stats_get(hdp_fwd_pool(fwd), &after);
	cr_assert_eq(after.in_use + 1, before.in_use, "port 1's own completion frees the frame");
	cr_assert_eq(stats(1).comp_refused, 0);
	no_leak();
}

/* Without records (nothing would call it a double free), nothing goes twice either. */
Test(fwd_lent, a_frame_never_lent_is_refused_with_every_protection_off)
{
	static struct xdp_desc d[64];
	static bool kernel_has[FRAMES], in_a_ring[FRAMES];
	struct xdp_desc forged = { .addr = 2000ull * FRAME + HEADROOM, .len = 60 };
	unsigned got, dup = 0;

	make("on_violation=report,bounds=off,init_on_free=off,init_check=off,tag=off,"
	     "quarantine=off,shuffle=off");
	for (unsigned port = 0; port < 2; port++) {
		got = hdp_fwd_loopback_take(fwd, port, lent, FRAMES);
		for (unsigned i = 0; i < got; i++) {
			in_a_ring[lent[i] / FRAME] = true;
			kernel_has[lent[i] / FRAME] = port == 0;
		}
	}
	cr_assert_not(in_a_ring[2000], "frame 2000 is in the pool, in no fill ring");
	hdp_fwd_loopback_post(fwd, 0, &forged, 1);
	cr_assert_eq(stats(0).drops[HDP_FWD_DROP_NOT_LENT], 1);
	/* Port 0's frames back as RX, again and again: none is lent while the kernel has it. */
	for (int round = 0; round < 100 && !dup; round++) {
		unsigned n = 0;

		for (unsigned idx = 0; idx < FRAMES && n < 64; idx++)
			if (kernel_has[idx]) {
				kernel_has[idx] = false;
				d[n++] = (struct xdp_desc){ idx * (uint64_t)FRAME + HEADROOM, 60, 0 };
			}
		hdp_fwd_loopback_post(fwd, 0, d, n);
		got = hdp_fwd_loopback_take(fwd, 0, lent, FRAMES);
		for (unsigned i = 0; i < got; i++) {
			dup += kernel_has[lent[i] / FRAME];
			kernel_has[lent[i] / FRAME] = true;
		}
	}
	cr_assert_eq(dup, 0, "%u frames lent while the kernel had them already", dup);
	cr_assert_eq(hdp_fwd_loopback_destroy(fwd), 0, "every frame back in the pool");
}

/*
 * The rest of a dropped chain naming more frames than the chain remembers
 * (18), one of them twice: each lent frame goes back once. (Past the 18th
 * the second naming freed it again.)
 */
Test(fwd_lent, the_rest_of_a_dropped_chain_gives_each_frame_back_once)
{
	struct xdp_desc d[64];
	unsigned n = 0;

	make("on_violation=report,bounds=on");
	cr_assert_eq(hdp_fwd_loopback_take(fwd, 0, lent, 22), 22);
	for (unsigned i = 0; i < HDP_FWD_CHAIN_MAX; i++)
		d[n++] = frag(i, ROOM, true);	/* the 18th goes on: chain_long */
	d[n++] = frag(18, ROOM, true);
	d[n++] = frag(18, ROOM, true);		/* named again */
	d[n++] = frag(19, 60, false);
	hdp_fwd_loopback_post(fwd, 0, d, n);
	cr_assert_eq(stats(0).drops[HDP_FWD_DROP_CHAIN_LONG], 1);
	cr_assert_eq(stats(1).tx_packets, 0);
	no_leak();
}

/*
 * A dropped chain's frame is wiped whole, whatever a later descriptor of
 * the same packet says about it. (A descriptor naming it again, after it
 * was given back, set its extent to its own byte: init_on_free=used then
 * left 1791 bytes of the packet in a free frame, and init_check called
 * the rest a write after free.)
 */
Test(fwd_lent, a_dropped_chains_frame_named_again_is_still_wiped_whole)
{
	make("on_violation=report,bounds=on,init_on_free=used,init_check=on,init_check_sample=1");
	warm();
	cr_assert_eq(hdp_fwd_loopback_take(fwd, 0, lent, 3), 3);
	memset(frame_bytes(lent[0]) + HEADROOM, 0xab, ROOM);	/* the kernel wrote it */
	{
		struct xdp_desc d[] = {
			frag(0, ROOM, true),
			{ .addr = (uint64_t)FRAMES * FRAME + HEADROOM, .len = 10,
			  .options = XDP_PKT_CONTD },		/* outside: the chain is cut */
			frag(0, 1, true),			/* F0 again, given back already */
			frag(1, 60, false),
		};

		hdp_fwd_loopback_post(fwd, 0, d, 4);
	}
	cr_assert_eq(stats(0).drops[HDP_FWD_DROP_CHAIN_CUT], 1);
	cr_assert_eq(nonzero_bytes(frame_bytes(lent[0]), FRAME), 0,
		     "the dropped chain's first frame holds its packet's bytes");
	warm();
	cr_assert_eq(violations(hdp_fwd_pool(fwd), HDP_V_WRITE_AFTER_FREE), 0, "%s",
		     captured_logs());
	no_leak();
}

/*
 * The rest of a dropped chain naming its first frame again, after that
 * frame went back to the pool and was lent again (the refill after the
 * drop): taken, and given back again. (A memory of the dropped chain's
 * frames said "given back already", and the frame stayed taken, nobody's,
 * until the forwarder stopped.)
 */
Test(fwd_lent, a_frame_lent_again_named_by_the_rest_of_a_dropped_chain_goes_back)
{
	static uint64_t ring[FRAMES];
	struct hdp_pool_stats before, after;
	uint64_t sent;
	unsigned got;
	bool again = false;

	/*
	 * Reused at once: the last frame back is the first handed out, from a
	 * cache that traffic has filled.
	 */
	make("on_violation=report,bounds=on,quarantine=off,shuffle=off");
	warm();
	sent = stats(1).tx_packets;
	cr_assert_eq(hdp_fwd_loopback_take(fwd, 0, lent, 2), 2);
	{
		struct xdp_desc d[] = {
			frag(0, ROOM, true),
			{ .addr = (uint64_t)FRAMES * FRAME + HEADROOM, .len = 10,
			  .options = XDP_PKT_CONTD },		/* outside: the chain is cut */
		};

		hdp_fwd_loopback_post(fwd, 0, d, 2);
	}
	cr_assert_eq(stats(0).drops[HDP_FWD_DROP_CHAIN_CUT], 1);
	got = hdp_fwd_loopback_take(fwd, 0, ring, FRAMES);
	for (unsigned i = 0; i < got; i++)
		again |= ring[i] == lent[0];
	cr_assert(again, "the refill lent the dropped chain's first frame again");
	hdp_pool_stats_get(hdp_fwd_pool(fwd), &before);
	{
		struct xdp_desc d[] = { frag(0, ROOM, true), frag(1, 60, false) };

		hdp_fwd_loopback_post(fwd, 0, d, 2);
	}
	hdp_pool_stats_get(hdp_fwd_pool(fwd), &after);
	cr_assert_eq(after.in_use, before.in_use,
		     "both frames back, two lent in their place: none left taken");
	cr_assert_eq(stats(1).tx_packets, sent, "nothing of the dropped packet sent");
	no_leak();
}

/*
 * Fewer frames than the rings hold, and a fill ring smaller than a port's
 * share of them: the ring is the cap. (The share was, and the kernel was
 * handed 1024 entries through a 64-entry ring.)
 */
Test(fwd_lent, a_fill_ring_smaller_than_its_share_is_never_overrun)
{
	static uint64_t got[FRAMES];

	make_rings("", 64, 2048);
	cr_assert_leq(hdp_fwd_loopback_take(fwd, 0, got, FRAMES), 64);
	cr_assert_leq(hdp_fwd_loopback_take(fwd, 1, got, FRAMES), 64);
	warm();
	no_leak();
}
