// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-fwd's frame path under MTE (qemu-aarch64 -cpu max). AF_XDP itself
 * does not run under qemu's user mode (no bpf(), no XDP sockets), so the
 * forwarder runs over rings in memory (hdp_fwd_create_loopback): the same
 * UMEM pool, the same burst loop and header rewrite, the same frame
 * bookkeeping as on a real socket, with a "kernel" that writes packets
 * into frames the way the real one does, without tag checks. Its UMEM
 * pool tags every frame with MTE. Checked, in each tag check mode:
 * - every frame handed to the kernel carries its own tag in memory;
 * - packets of one frame and chains of five cross in both directions,
 *   rewritten (macswap) through the frames' tagged pointers, with no
 *   violation, and every frame comes back to the pool;
 * - RX descriptors naming frames the forwarder does not hold (one given
 *   back, its memory retagged; one still on TX) are refused as not_lent
 *   before a byte of them is touched: no tag check fault, nothing sent;
 * - a stale handle to a frame (the pointer the forwarder used while it
 *   held the frame) read or written after the frame was sent and given
 *   back is a tag check fault, caught as the mode says: synchronous ones
 *   at the access, naming the pool umem; asynchronous ones later;
 * - frames handed out under tag=soft and held (lent to the kernel, on
 *   TX) while tag goes to mte at run time are rewritten through the tags
 *   the forwarder remembered, with no fault.
 */
#include <hdp/fwd.h>
#include <hdp/log.h>
#include <hdp/pool.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fwd_internal.h"
#include "mte_tap.h"

#define HEADROOM HDP_FWD_RX_HEADROOM

static struct hdp_fwd_cfg cfg;
static uint8_t pkt[9014];

/*
 * Every frame tagged, by @tag (mte or soft); freed frames wait in
 * quarantine, so none is reused.
 */
static struct hdp_fwd *make(const char *tag)
{
	char spec[256];
	struct hdp_fwd *f;

	hdp_fwd_cfg_defaults(&cfg);
	cfg.mode = HDP_FWD_MACSWAP;
	cfg.max_frame = 9018;
	cfg.ring_size = 128;
	cfg.fill_size = 256;
	cfg.frames = 2048;
	snprintf(spec, sizeof(spec), "pool.umem.tag=%s,pool.umem.tag_sample=1,"
		 "pool.umem.quarantine=on,pool.umem.quarantine_depth=1024,on_violation=abort", tag);
	if (hdp_fwd_cfg_set_ports(&cfg, "a,b", "test") ||
	    hdp_harden_config_parse_string(&cfg.harden, spec, "test") ||
	    hdp_fwd_cfg_check(&cfg) || !(f = hdp_fwd_create_loopback(&cfg))) {
		printf("Bail out! cannot make the forwarder\n");
		exit(1);
	}
	return f;
}

/*
 * One packet through frame @addr, taken from port a's fill ring: posted,
 * rewritten, sent out of b, completed and given back to the pool. Returns
 * the handle the forwarder used for its bytes while it held it.
 */
static volatile uint8_t *send_one(struct hdp_fwd *f, uint64_t *addr)
{
	volatile uint8_t *handle;
	struct xdp_desc d;

	if (hdp_fwd_loopback_take(f, 0, addr, 1) != 1)
		_exit(3);
	handle = fwd_frame_data(f, *addr + HEADROOM);
	d = (struct xdp_desc){ .addr = *addr + HEADROOM, .len = 60 };
	if (hdp_fwd_loopback_post(f, 0, &d, 1) != 1)
		_exit(4);
	/* b's TX completes at its next pass: its frames go back then. */
	hdp_fwd_loopback_step(f, pkt, 60, 0);
	return handle;
}

/*
 * Descriptors for frames the forwarder does not hold, through macswap's
 * rewrite: one sent and given back (retagged in quarantine), one still on
 * TX behind a stalled link. Refused by ownership, they are never written:
 * a rewrite through either would be a tag check fault. Returns whether
 * both were dropped as not_lent, each reported once, and nothing more
 * was sent than the two real packets.
 */
static bool frames_not_held_are_refused(void)
{
	struct hdp_fwd *f = make("mte");
	struct hdp_port_stats a, b;
	struct hdp_pool_stats st;
	uint64_t given_back, on_tx;
	struct xdp_desc d[2];

	if (hdp_pool_set(hdp_fwd_pool(f), "on_violation", "report"))
		return false;
	send_one(f, &given_back);
	if (hdp_fwd_loopback_take(f, 0, &on_tx, 1) != 1)
		return false;
	d[0] = (struct xdp_desc){ .addr = on_tx + HEADROOM, .len = 60 };
	hdp_fwd_loopback_stall(f, 1, true);
	hdp_fwd_loopback_post(f, 0, d, 1);
	d[0] = (struct xdp_desc){ .addr = given_back + HEADROOM, .len = 60 };
	d[1] = (struct xdp_desc){ .addr = on_tx + HEADROOM, .len = 60 };
	hdp_fwd_loopback_post(f, 0, d, 2);
	hdp_fwd_loopback_stall(f, 1, false);
	hdp_fwd_port_stats(f, 0, &a);
	hdp_fwd_port_stats(f, 1, &b);
	hdp_pool_stats_get(hdp_fwd_pool(f), &st);
	return a.drops[HDP_FWD_DROP_NOT_LENT] == 2 && b.tx_packets == 2 &&
	       st.harden.violations[HDP_V_DESC_NOT_LENT] == 2 &&
	       st.harden.violations[HDP_V_TAG_MISMATCH] == 0 && hdp_fwd_loopback_destroy(f) == 0;
}

static void stale_handle_written(void)
{
	struct hdp_fwd *f = make("mte");
	uint64_t addr;
	volatile uint8_t *handle = send_one(f, &addr);

	handle[6] = 0x42;
	after_access();
}

static void stale_handle_read(void)
{
	struct hdp_fwd *f = make("mte");
	uint64_t addr;
	volatile uint8_t *handle = send_one(f, &addr);

	(void)handle[6];
	after_access();
}

/*
 * Frames handed out with soft tags, lent to the kernel's fill rings and
 * on their way out, while the UMEM's memory takes MTE tags (tag=mte at
 * run time): received, rewritten through the tags hdp-fwd remembered for
 * them, sent and given back with no fault; every frame comes back.
 */
static void frames_held_as_mte_comes_on(void)
{
	static const uint32_t lens[] = { 60, 1500, 9014 };
	struct hdp_fwd *f = make("soft");
	struct hdp_pool_stats st;
	unsigned left;

	for (int step = 0; step < 4; step++)
		hdp_fwd_loopback_step(f, pkt, 1500, 4);
	hdp_fwd_loopback_stall(f, 1, true);	/* b's TX holds what it was given */
	hdp_fwd_loopback_step(f, pkt, 60, 4);
	if (hdp_pool_set(hdp_fwd_pool(f), "tag", "mte"))
		_exit(2);
	hdp_fwd_loopback_stall(f, 1, false);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		for (int step = 0; step < 20; step++)
			hdp_fwd_loopback_step(f, pkt, lens[k], 4);
		for (int step = 0; step < 5; step++)
			hdp_fwd_loopback_step(f, pkt, lens[k], 0);
	}
	getppid();
	hdp_pool_stats_get(hdp_fwd_pool(f), &st);
	if (strcmp(st.harden.tag_backend, "mte") ||
	    st.harden.violations[HDP_V_TAG_MISMATCH] || st.harden.violations[HDP_V_DOUBLE_FREE])
		_exit(3);
	left = hdp_fwd_loopback_destroy(f);
	if (left) {
		fprintf(stderr, "%u frames not back\n", left);
		_exit(4);
	}
}

int main(void)
{
	uint64_t frames[64];
	struct hdp_pool_region lay;
	struct hdp_pool_stats st;
	struct hdp_port_stats a, b;
	static const uint32_t sizes[] = { 60, 1500, 9014 };
	unsigned tagged = 0, distinct = 0, seen = 0, got, left;
	uint64_t sent = 0, frags = 0;
	enum hdp_tag_check mode;
	const char *why;
	char words[128], what[200];
	struct xdp_desc d[64];
	struct hdp_fwd *f;

	if (mte_tap_start())
		return 0;
	printf("1..9\n");
	printf("# AF_XDP does not run under qemu's user mode: the forwarder runs over rings "
	       "in memory (hdp_fwd_create_loopback), its frame path unchanged\n");
	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)(i * 7 + 3);
	f = make("mte");
	mode = (enum hdp_tag_check)hdp_tag_check_in_force(&why);
	printf("# tag check mode in force: %s\n", hdp_tag_check_name(mode));
	hdp_pool_stats_get(hdp_fwd_pool(f), &st);
	ok(strcmp(st.harden.tag_backend, "mte") == 0, "hdp-fwd's UMEM pool tags with MTE");

	/* What the kernel gets on the fill ring: each frame tagged in memory. */
	hdp_pool_region(hdp_fwd_pool(f), &lay);
	got = hdp_fwd_loopback_take(f, 0, frames, 64);
	for (unsigned i = 0; i < got; i++) {
		unsigned t = memory_tag_of((char *)lay.base + frames[i]);

		tagged += t != 0;
		distinct += t && !(seen & 1u << t);
		seen |= 1u << t;
		d[i] = (struct xdp_desc){ .addr = frames[i] + HEADROOM, .len = 60 };
	}
	snprintf(what, sizeof(what), "all %u frames on the fill ring carry a tag in memory "
		 "(%u tagged, %u different tags)", got, tagged, distinct);
	ok(got == 64 && tagged == got && distinct > 4, what);
	/* Given back by the kernel as 60-byte packets: forwarded like any. */
	hdp_fwd_loopback_post(f, 0, d, got);
	sent += got;
	frags += got;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		unsigned n = 0;

		for (int step = 0; step < 20; step++)
			n += hdp_fwd_loopback_step(f, pkt, sizes[k], 4);
		for (int step = 0; step < 5; step++)
			n += hdp_fwd_loopback_step(f, pkt, sizes[k], 0);
		sent += n;
		frags += (uint64_t)n * hdp_fwd_frames_for(sizes[k], cfg.frame_size);
	}
	hdp_fwd_port_stats(f, 0, &a);
	hdp_fwd_port_stats(f, 1, &b);
	snprintf(what, sizeof(what), "60-, 1500- and 9014-byte packets (chains of %u) cross both "
		 "ways, rewritten through tagged pointers: %llu packets, %llu frames",
		 hdp_fwd_frames_for(9014, cfg.frame_size), (unsigned long long)sent,
		 (unsigned long long)frags);
	ok(a.tx_packets + b.tx_packets == sent && a.tx_frags + b.tx_frags == frags && sent > 64,
	   what);
	hdp_pool_stats_get(hdp_fwd_pool(f), &st);
	ok(st.harden.violations[HDP_V_TAG_MISMATCH] == 0 &&
	   st.harden.violations[HDP_V_DOUBLE_FREE] == 0,
	   "no tag mismatch and no double free reported");
	left = hdp_fwd_loopback_destroy(f);
	snprintf(what, sizeof(what), "every frame comes back to the pool (%u missing)", left);
	ok(left == 0, what);
	ok(frames_not_held_are_refused(), "RX descriptors naming frames hdp-fwd does not hold "
	   "(given back and retagged, on TX) are dropped as not_lent, never touched");

	snprintf(what, sizeof(what), "%s: a stale frame handle written after the frame went back "
		 "is caught %s", hdp_tag_check_name(mode),
		 mode == HDP_TAG_CHECK_SYNC ? "at the access, in pool umem" : "later");
	dies_when(stale_handle_written, SIGABRT, fault_words(mode, true, "umem", words,
							      sizeof(words)),
		  mode != HDP_TAG_CHECK_SYNC, what);
	snprintf(what, sizeof(what), "%s: a stale frame handle read after the frame went back "
		 "is caught %s", hdp_tag_check_name(mode),
		 mode == HDP_TAG_CHECK_ASYNC ? "later" : "at the access, in pool umem");
	dies_when(stale_handle_read, SIGABRT, fault_words(mode, false, "umem", words,
							   sizeof(words)),
		  mode == HDP_TAG_CHECK_ASYNC, what);
	lives(frames_held_as_mte_comes_on, "frames handed out with soft tags and held (fill rings, "
	      "TX) as the UMEM's memory takes MTE tags are received, rewritten, sent and given "
	      "back with no fault");
	return mte_failed ? 1 : 0;
}
