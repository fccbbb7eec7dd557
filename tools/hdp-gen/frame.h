/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The frames hdp-gen sends and hdp-sink --verify checks: the one
 * description of their layout, shared by both, so the two cannot drift.
 *
 *   0  Ethernet (14)   14  IPv4 (20, no options)   34  UDP (8, checksum 0)
 *  42  seq    (4, big-endian): 0, 1, 2, ... per run of hdp-gen
 *  46  check  (4, big-endian): CRC32C over seq and bytes 50..len-1
 *  50  len    (2, big-endian): the frame's length without FCS
 *  52  magic  (2): "hg"
 *  54  payload: bytes of a fixed pseudo-random pattern (never zero), from
 *      an offset that depends on seq, so neighbouring frames differ
 *
 * A stamped frame (hdp-gen --stamp, for hdp-bench latency) says "hT" for
 * its magic and carries its send time in bytes 54..59, before the payload:
 *
 *  54  stamp  (6, big-endian): the low 48 bits of CLOCK_MONOTONIC in ns,
 *      written last, just before the frame is sent (they wrap after 78
 *      hours; a difference taken modulo 2^48 is still right)
 *  60  payload, as above
 *
 * The checksum leaves the stamp out, so that it can be written after the
 * checksum, and a 60-byte frame carries it whole.
 *
 * IPv4 total length and UDP length always match the frame's length.
 * The checksum covers everything after UDP but itself, and the MACs are
 * left out on purpose: a forwarder may rewrite them.
 *
 * Frames shorter than 54 bytes have no room for seq, check and len: they
 * carry no sequence number and use none up (hdp-gen numbers the frames
 * that carry one, 0, 1, 2, ...). From 42 bytes they are Ethernet, IPv4
 * and UDP headers as above and zeros after; below 42 there is no room
 * for both headers, and a frame is "bare":
 *
 *  12  type   (2): 0x88b5, IEEE 802's local experimental EtherType
 *  14  len    (2, big-endian, from 16 bytes on): the frame's length
 *  16  zeros
 *
 * hdp-sink --verify checks these byte for byte too and counts them as
 * unnumbered.
 */
#ifndef HDP_GEN_FRAME_H
#define HDP_GEN_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define HDP_GEN_FRAME_MIN 14u
/* A full frame at MTU 9000: 9000 bytes of IPv4 plus the Ethernet header. */
#define HDP_GEN_FRAME_MAX 9014u
#define HDP_GEN_ETH_HLEN 14u
#define HDP_GEN_SEQ_OFF 42u
#define HDP_GEN_CHECK_OFF 46u
#define HDP_GEN_LEN_OFF 50u
#define HDP_GEN_MAGIC_OFF 52u
#define HDP_GEN_PAYLOAD_OFF 54u
/* The shortest frame that carries all of the above: a sequence number too. */
#define HDP_GEN_TAGGED_MIN HDP_GEN_PAYLOAD_OFF
/* The shortest frame with whole IPv4 and UDP headers; shorter ones are bare. */
#define HDP_GEN_HEADED_MIN 42u
#define HDP_GEN_BARE_TYPE 0x88b5u
#define HDP_GEN_BARE_LEN_OFF 14u
#define HDP_GEN_MAGIC 0x6867u
#define HDP_GEN_MAGIC_STAMPED 0x6854u
#define HDP_GEN_STAMP_OFF 54u
#define HDP_GEN_STAMP_LEN 6u
/* The shortest frame that carries a whole stamp: Ethernet's minimum. */
#define HDP_GEN_STAMPED_MIN (HDP_GEN_STAMP_OFF + HDP_GEN_STAMP_LEN)
#define HDP_GEN_STAMP_MASK ((1ull << 48) - 1)
/* Flows 0..HDP_GEN_FLOWS_MAX - 1 (hdp-gen --flows). */
#define HDP_GEN_FLOWS_MAX 65535u

/* Does a frame of @len bytes carry a sequence number (and so use one up)? */
static inline bool hdp_gen_frame_numbered(unsigned len)
{
	return len >= HDP_GEN_TAGGED_MIN;
}

/* Build the pattern and pick the checksum's implementation. Once. */
void hdp_gen_frame_init(void);

/*
 * Write frame @seq of @len bytes (HDP_GEN_FRAME_MIN..HDP_GEN_FRAME_MAX)
 * for flow @flow into @f: every byte of the @len, nothing after. Flow 0 is
 * 198.18.0.1:9 -> 198.19.0.1:9; flow N moves addresses and ports. A frame
 * too short for a sequence number ignores @seq, and a bare one @flow.
 */
void hdp_gen_frame_build(uint8_t *f, unsigned len, const uint8_t dst[6],
			 const uint8_t src[6], uint32_t seq, uint32_t flow);

/*
 * The same for a stamped frame (@len at least HDP_GEN_STAMPED_MIN): a
 * stamp of 0 until hdp_gen_frame_stamp writes one.
 */
void hdp_gen_frame_build_stamped(uint8_t *f, unsigned len, const uint8_t dst[6],
				 const uint8_t src[6], uint32_t seq, uint32_t flow);

/* Write @ns (CLOCK_MONOTONIC) into a stamped frame: six stores, no checksum. */
static inline void hdp_gen_frame_stamp(uint8_t *f, uint64_t ns)
{
	for (unsigned i = 0; i < HDP_GEN_STAMP_LEN; i++)
		f[HDP_GEN_STAMP_OFF + i] = (uint8_t)(ns >> (8 * (HDP_GEN_STAMP_LEN - 1 - i)));
}

/* What a received frame turned out to be. */
enum hdp_gen_verdict {
	HDP_GEN_INTACT,		/* every byte as built */
	HDP_GEN_CORRUPTED,	/* a checksum, a length field or a payload byte wrong */
	HDP_GEN_TRUNCATED,	/* shorter than its IPv4 header or its len field say */
	HDP_GEN_FOREIGN,	/* not a frame hdp-gen makes: not IPv4/UDP, or too short */
	HDP_GEN_UNNUMBERED,	/* every byte as built, too short to carry a number */
};

struct hdp_gen_check {
	enum hdp_gen_verdict verdict;
	uint32_t seq;		/* valid when INTACT; a hint otherwise */
	uint32_t flow;		/* valid when INTACT, and UNNUMBERED with headers */
	int stamped;		/* the frame says "hT": its stamp is not checked */
	unsigned stated;	/* the length the frame claims, 0 if none */
	const char *why;	/* what was wrong, for a message; "" when INTACT */
};

/*
 * Check a received frame of @len bytes at @f, byte for byte: every header
 * byte but the MACs as hdp-gen writes it for the frame's flow and length,
 * the tag, the checksum, and the payload against the pattern its seq calls
 * for; a frame too short for a number, its headers (or its bare length)
 * and zeros. A forwarder may rewrite the MACs; it may change nothing else.
 * Costs a CRC and a memcmp over the frame. Returns c->verdict.
 */
enum hdp_gen_verdict hdp_gen_frame_check(const uint8_t *f, size_t len,
					 struct hdp_gen_check *c);

#endif /* HDP_GEN_FRAME_H */
