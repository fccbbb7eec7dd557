// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: forged RX descriptor chains through the forwarder's real burst
 * loop (rings in memory, the kernel played by the input). Each 4-byte
 * record is a descriptor: which frame (of those taken from the fill ring,
 * or one outside the UMEM), its length, whether the packet goes on, and
 * whether the output's link stalls. Whatever the records, nothing crashes,
 * no frame is freed twice or lost, and every packet received is either
 * sent or counted as dropped, once.
 *
 * Any record may name any of the frames taken, any number of times, in
 * one packet or across packets: a frame handed back once (its packet
 * sent, on TX, dropped, back in the pool) is no longer lent, and naming it
 * again is refused (desc_not_lent), never a second free. (The input once
 * had to avoid that, and the chain's memory of 18 frames.) A record with
 * bit 3 of its last byte set is a forged completion of its frame instead,
 * on the port bit 4 names: refused unless that frame is on that port's TX
 * ring. Descriptors waiting to be posted go first, so records act in
 * their order.
 */
#include <hdp/fwd.h>

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

#define TAKEN 48
#define FRAME 2048

static struct hdp_fwd *make(struct hdp_fwd_cfg *cfg, uint8_t knobs)
{
	hdp_fwd_cfg_defaults(cfg);
	cfg->frames = 256;
	cfg->ring_size = cfg->fill_size = 64;
	cfg->batch = 1 + (knobs & 15) * 4;
	cfg->mode = (enum hdp_fwd_mode)((knobs >> 4) % 3);
	if (hdp_fwd_cfg_set_ports(cfg, "a,b", "fuzz"))
		abort();
	for (unsigned i = 0; i < 2; i++) {
		memset(cfg->ports[i].dst_mac, 2, 6);
		cfg->ports[i].has_dst_mac = true;
	}
	if (
	    hdp_harden_config_parse_string(&cfg->harden, knobs & 0x80 ? "bounds=off,tag=off"
					   : "on_violation=drop", "fuzz") ||
	    hdp_fwd_cfg_check(cfg))
		abort();
	return hdp_fwd_create_loopback(cfg);
}

static uint64_t sum_drops(const struct hdp_port_stats *s)
{
	uint64_t sum = 0;

	for (unsigned d = 0; d < HDP_FWD_DROP__COUNT; d++)
		sum += s->drops[d];
	return sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hdp_fwd_cfg cfg;
	struct xdp_desc d[64];
	uint64_t frames[TAKEN];
	unsigned nd = 0;
	struct hdp_port_stats rx, tx;
	struct hdp_fwd *f;
	bool stalled = false;

	fuzz_quiet();
	if (size < 1)
		return 0;
	f = make(&cfg, data[0]);
	if (!f || hdp_fwd_loopback_take(f, 0, frames, TAKEN) != TAKEN)
		abort();
	for (size_t off = 1; off + 4 <= size; off += 4) {
		const uint8_t *r = data + off;
		unsigned which = r[0] % TAKEN;
		bool more = r[3] & 1, outside = r[0] >= 0xf0;
		struct xdp_desc desc = {
			.addr = outside ? (uint64_t)cfg.frames * FRAME + (r[1] << 4)
				: frames[which] + (r[1] & 1 ? HDP_FWD_RX_HEADROOM : r[1]),
			.len = (uint32_t)(r[2] | (r[1] & 0x0e) << 7) % 2200,
			.options = (more ? XDP_PKT_CONTD : 0) | (r[3] & 2),
		};

		if (nd && (r[3] & (4 | 8))) {
			hdp_fwd_loopback_post(f, 0, d, nd);
			nd = 0;
		}
		if (r[3] & 4) {
			stalled = !stalled;
			hdp_fwd_loopback_stall(f, 1, stalled);
		}
		if (r[3] & 8) {
			uint64_t addr = desc.addr;

			hdp_fwd_loopback_complete(f, (r[3] >> 4) & 1, &addr, 1);
		} else {
			d[nd++] = desc;
		}
		if (nd == 64 || (nd && off + 8 > size)) {
			hdp_fwd_loopback_post(f, 0, d, nd);
			nd = 0;
		}
	}
	hdp_fwd_loopback_stall(f, 1, false);
	hdp_fwd_port_stats(f, 0, &rx);
	hdp_fwd_port_stats(f, 1, &tx);
	/* Each packet sent or dropped once; a dropped one still arriving counts at its end. */
	if (tx.tx_packets + sum_drops(&rx) + sum_drops(&tx) < rx.rx_packets ||
	    tx.tx_packets + sum_drops(&rx) + sum_drops(&tx) > rx.rx_packets + 1)
		abort();
	if (hdp_fwd_loopback_destroy(f))
		abort();	/* a frame lost */
	return 0;
}
