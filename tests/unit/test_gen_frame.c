// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-gen's frames against hdp-sink's check: every length builds a frame
 * that checks intact, and every bit flipped, every cut and every byte too
 * many is caught, at the lengths that matter (runt edge, one buffer, jumbo).
 */
#include <criterion/criterion.h>

#include "crc32c.h"
#include "frame.h"

#include <arpa/inet.h>
#include <stdint.h>
#include <string.h>

static const uint8_t dst[6] = { 2, 0, 0, 0, 0, 2 }, src[6] = { 2, 0, 0, 0, 0, 1 };
static uint8_t f[HDP_GEN_FRAME_MAX + 64];

/* The lengths where layouts change: the tag's edge, runts, one buffer, jumbo. */
static const unsigned lengths[] = { 54, 55, 60, 61, 590, 1514, 3500, 4097, 9000, 9014 };

TestSuite(gen_frame, .init = hdp_gen_frame_init);

Test(gen_frame, every_length_checks_intact)
{
	struct hdp_gen_check c;

	for (unsigned len = HDP_GEN_TAGGED_MIN; len <= HDP_GEN_FRAME_MAX; len++) {
		hdp_gen_frame_build(f, len, dst, src, len * 7919u, len % 5);
		cr_assert_eq(hdp_gen_frame_check(f, len, &c), HDP_GEN_INTACT,
			     "%u bytes: %s", len, c.why);
		cr_assert_eq(c.seq, len * 7919u);
		cr_assert_eq(c.stated, len);
	}
}

Test(gen_frame, every_flipped_bit_after_the_macs_is_caught)
{
	struct hdp_gen_check c;

	for (size_t k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++) {
		unsigned len = lengths[k];

		hdp_gen_frame_build(f, len, dst, src, 1000 + len, 3);
		for (unsigned i = 12; i < len; i++) {
			for (unsigned bit = 0; bit < 8; bit++) {
				f[i] ^= (uint8_t)(1u << bit);
				cr_assert_neq(hdp_gen_frame_check(f, len, &c), HDP_GEN_INTACT,
					      "%u bytes, byte %u bit %u flipped", len, i, bit);
				f[i] ^= (uint8_t)(1u << bit);
			}
		}
	}
}

Test(gen_frame, crc32c_is_castagnoli)
{
	static const char check[] = "123456789";
	uint32_t crc = HDP_CRC32C_SEED;

	cr_assert_eq(~hdp_crc32c_update(HDP_CRC32C_SEED, check, 9), 0xe3069283u);
	/* In pieces (the 8-byte steps and the byte tail), the same. */
	crc = hdp_crc32c_update(crc, check, 3);
	crc = hdp_crc32c_update(crc, check + 3, 6);
	cr_assert_eq(~crc, 0xe3069283u);
}

/* Bit by bit, as the polynomial says: nothing shared with crc32c.c. */
static uint32_t crc32c_bitwise(const uint8_t *p, size_t n)
{
	uint32_t crc = 0xffffffffu;

	while (n--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
	}
	return ~crc;
}

/* Every length up to past the three-stream blocks, at odd addresses too. */
Test(gen_frame, crc32c_matches_a_bitwise_reference_at_every_length)
{
	static uint8_t buf[2 * 768 + 64 + 8];
	uint32_t x = 1;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245u + 12345u;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t off = 0; off < 8; off += 3)
		for (size_t n = 0; n + off <= sizeof(buf); n++)
			cr_assert_eq(~hdp_crc32c_update(HDP_CRC32C_SEED, buf + off, n),
				     crc32c_bitwise(buf + off, n), "%zu bytes at +%zu", n, off);
}

/* The wire format, pinned: check = CRC32C over seq and bytes 50..len-1. */
Test(gen_frame, check_field_covers_seq_and_everything_after_it)
{
	for (size_t k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++) {
		unsigned len = lengths[k];
		uint32_t crc;

		hdp_gen_frame_build(f, len, dst, src, 77, 0);
		crc = hdp_crc32c_update(HDP_CRC32C_SEED, f + HDP_GEN_SEQ_OFF, 4);
		crc = ~hdp_crc32c_update(crc, f + HDP_GEN_LEN_OFF, len - HDP_GEN_LEN_OFF);
		cr_assert_eq((uint32_t)f[46] << 24 | (uint32_t)f[47] << 16 |
			     (uint32_t)f[48] << 8 | f[49], crc, "%u bytes", len);
		cr_assert_eq(f[50] << 8 | f[51], len);
		cr_assert_eq(f[42] << 24 | f[43] << 16 | f[44] << 8 | f[45], 77);
	}
}

Test(gen_frame, rewritten_macs_are_fine)
{
	struct hdp_gen_check c;

	hdp_gen_frame_build(f, 1514, dst, src, 5, 0);
	memset(f, 0xaa, 12);
	cr_assert_eq(hdp_gen_frame_check(f, 1514, &c), HDP_GEN_INTACT, "%s", c.why);
}

Test(gen_frame, every_cut_is_caught)
{
	static uint8_t g[HDP_GEN_FRAME_MAX];
	struct hdp_gen_check c;

	for (size_t k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++) {
		unsigned len = lengths[k];

		hdp_gen_frame_build(f, len, dst, src, 42, 0);
		for (unsigned cut = 1; cut < len; cut++) {
			enum hdp_gen_verdict v;

			/* Past the cut: zeros, not the rest of the frame to peek at. */
			memset(g, 0, len);
			memcpy(g, f, cut);
			v = hdp_gen_frame_check(g, cut, &c);

			/* Below Ethernet + IPv4 nothing says what the frame was. */
			cr_assert_eq(v, cut < 34 ? HDP_GEN_FOREIGN : HDP_GEN_TRUNCATED,
				     "%u bytes cut to %u: %s", len, cut, c.why);
			if (cut >= 34)
				cr_assert_eq(c.stated, len);
		}
	}
}

Test(gen_frame, bytes_past_the_stated_length_are_caught_but_padding_is_not)
{
	struct hdp_gen_check c;

	hdp_gen_frame_build(f, 1514, dst, src, 1, 0);
	cr_assert_eq(hdp_gen_frame_check(f, 1515, &c), HDP_GEN_CORRUPTED);
	hdp_gen_frame_build(f, 54, dst, src, 1, 0);
	memset(f + 54, 0, 6);
	cr_assert_eq(hdp_gen_frame_check(f, 60, &c), HDP_GEN_INTACT, "%s", c.why);
}

Test(gen_frame, neighbours_differ_and_cannot_stand_in_for_each_other)
{
	static uint8_t g[HDP_GEN_FRAME_MAX];
	struct hdp_gen_check c;

	hdp_gen_frame_build(f, 1514, dst, src, 7, 0);
	hdp_gen_frame_build(g, 1514, dst, src, 8, 0);
	cr_assert_neq(memcmp(f + HDP_GEN_PAYLOAD_OFF, g + HDP_GEN_PAYLOAD_OFF,
			     1514 - HDP_GEN_PAYLOAD_OFF), 0);
	/* Frame 7's payload under frame 8's tag: a mix-up the check must see. */
	memcpy(g + HDP_GEN_PAYLOAD_OFF, f + HDP_GEN_PAYLOAD_OFF, 1514 - HDP_GEN_PAYLOAD_OFF);
	cr_assert_eq(hdp_gen_frame_check(g, 1514, &c), HDP_GEN_CORRUPTED);
}

Test(gen_frame, foreign_frames_are_never_intact)
{
	struct hdp_gen_check c;

	hdp_gen_frame_build(f, 60, dst, src, 3, 0);
	f[13] = 0xdd;	/* IPv6 */
	cr_assert_eq(hdp_gen_frame_check(f, 60, &c), HDP_GEN_FOREIGN);
	cr_assert_eq(hdp_gen_frame_check(f, 13, &c), HDP_GEN_FOREIGN);
}

/*
 * Frames too short for a sequence number are hdp-gen's all the same:
 * checked as built, padded or not, and told apart from foreign ones (a
 * clean run of --size 14-80 failed with every one of them "foreign").
 */
Test(gen_frame, frames_too_short_for_a_number_check_unnumbered)
{
	static const uint32_t flows[] = { 0, 7, HDP_GEN_FLOWS_MAX - 1 };
	struct hdp_gen_check c;

	cr_assert(hdp_gen_frame_numbered(HDP_GEN_TAGGED_MIN));
	for (unsigned len = HDP_GEN_FRAME_MIN; len < HDP_GEN_TAGGED_MIN; len++) {
		cr_assert_not(hdp_gen_frame_numbered(len), "%u bytes", len);
		for (size_t k = 0; k < sizeof(flows) / sizeof(flows[0]); k++) {
			memset(f, 0xee, 64);
			hdp_gen_frame_build(f, len, dst, src, 3, flows[k]);
			cr_assert_eq(hdp_gen_frame_check(f, len, &c), HDP_GEN_UNNUMBERED,
				     "%u bytes, flow %u: %s", len, flows[k], c.why);
			if (len >= HDP_GEN_HEADED_MIN)
				cr_assert_eq(c.flow, flows[k]);
			/* Ethernet pads it to 60 bytes with zeros. */
			memset(f + len, 0, 60 - len);
			cr_assert_eq(hdp_gen_frame_check(f, 60, &c), HDP_GEN_UNNUMBERED,
				     "%u bytes padded: %s", len, c.why);
		}
	}
}

/* Nothing about a frame too short for a number can be changed unseen either. */
Test(gen_frame, every_flipped_bit_or_cut_of_a_short_frame_is_caught)
{
	static uint8_t g[64];
	struct hdp_gen_check c;

	for (unsigned len = HDP_GEN_FRAME_MIN; len < HDP_GEN_TAGGED_MIN; len++) {
		hdp_gen_frame_build(f, len, dst, src, 0, 1);
		for (unsigned bit = 12 * 8; bit < len * 8; bit++) {
			memcpy(g, f, len);
			g[bit / 8] ^= (uint8_t)(1u << (bit % 8));
			hdp_gen_frame_check(g, len, &c);
			cr_assert(c.verdict != HDP_GEN_UNNUMBERED && c.verdict != HDP_GEN_INTACT,
				  "%u bytes, bit %u flipped", len, bit);
		}
		/* Below 16 bytes a bare frame has no room to say its length. */
		for (unsigned cut = HDP_GEN_BARE_LEN_OFF + 2; cut < len; cut++) {
			enum hdp_gen_verdict v = hdp_gen_frame_check(f, cut, &c);

			cr_assert(v != HDP_GEN_UNNUMBERED && v != HDP_GEN_INTACT,
				  "%u bytes cut to %u: %s", len, cut, c.why);
		}
		/* Longer than it says, and not Ethernet's padding (14 bytes say nothing). */
		memset(f + len, 0, 1);
		if (len > HDP_GEN_FRAME_MIN && len + 1 != 60)
			cr_assert_eq(hdp_gen_frame_check(f, len + 1, &c), HDP_GEN_CORRUPTED,
				     "%u bytes and one more", len);
	}
}

Test(gen_frame, payload_has_no_zero_byte)
{
	hdp_gen_frame_build(f, HDP_GEN_FRAME_MAX, dst, src, 99, 0);
	cr_assert_null(memchr(f + HDP_GEN_PAYLOAD_OFF, 0,
			      HDP_GEN_FRAME_MAX - HDP_GEN_PAYLOAD_OFF));
}

/* A stamped frame: its stamp is written after the checksum and left out of it. */
Test(gen_frame, stamped_frames_check_intact_whatever_their_stamp)
{
	static const uint64_t stamps[] = { 0, 1, 123456789012345ull, HDP_GEN_STAMP_MASK };
	struct hdp_gen_check c;

	for (unsigned len = HDP_GEN_STAMPED_MIN; len <= HDP_GEN_FRAME_MAX; len += 7) {
		hdp_gen_frame_build_stamped(f, len, dst, src, len, 1);
		for (size_t i = 0; i < sizeof(stamps) / sizeof(stamps[0]); i++) {
			hdp_gen_frame_stamp(f, stamps[i]);
			cr_assert_eq(hdp_gen_frame_check(f, len, &c), HDP_GEN_INTACT,
				     "%u bytes: %s", len, c.why);
			cr_assert(c.stamped);
			cr_assert_eq(c.seq, len);
		}
	}
}

Test(gen_frame, a_stamp_is_48_bits_big_endian_at_its_offset)
{
	hdp_gen_frame_build_stamped(f, 60, dst, src, 9, 0);
	cr_assert_eq(f[HDP_GEN_MAGIC_OFF], 'h');
	cr_assert_eq(f[HDP_GEN_MAGIC_OFF + 1], 'T');
	hdp_gen_frame_stamp(f, 0xfedcba9876543210ull);
	cr_assert_eq(memcmp(f + HDP_GEN_STAMP_OFF, "\xba\x98\x76\x54\x32\x10", 6), 0);
}

Test(gen_frame, a_stamped_frames_payload_and_headers_are_still_checked)
{
	struct hdp_gen_check c;

	for (size_t k = 0; k < sizeof(lengths) / sizeof(lengths[0]); k++) {
		unsigned len = lengths[k];

		if (len < HDP_GEN_STAMPED_MIN)
			continue;
		hdp_gen_frame_build_stamped(f, len, dst, src, 5, 0);
		hdp_gen_frame_stamp(f, 777);
		/* Every byte after the MACs but the stamp's six. */
		for (unsigned i = 12; i < len; i++) {
			if (i >= HDP_GEN_STAMP_OFF && i < HDP_GEN_STAMPED_MIN)
				continue;
			f[i] ^= 0x10;
			cr_assert_neq(hdp_gen_frame_check(f, len, &c), HDP_GEN_INTACT,
				      "%u bytes: byte %u flipped and not caught", len, i);
			f[i] ^= 0x10;
		}
	}
}

Test(gen_frame, a_plain_frames_checksum_is_unchanged_by_stamping_support)
{
	/* The checksum of a plain frame still runs over 46..49 and 50..len-1 in one piece. */
	hdp_gen_frame_build(f, 1514, dst, src, 3, 0);
	cr_assert_eq(((uint32_t)f[46] << 24 | (uint32_t)f[47] << 16 | (uint32_t)f[48] << 8 | f[49]),
		     ~hdp_crc32c_update(hdp_crc32c_update(HDP_CRC32C_SEED, f + 42, 4), f + 50,
					1514 - 50));
}

/*
 * A frame whose headers, length field and CRC all agree on more bytes than
 * hdp-gen ever sends (CRC32C is no secret) is foreign; its payload was
 * once compared past the end of the pattern it is held to.
 */
Test(gen_frame, a_frame_stating_more_than_the_largest_is_foreign)
{
	static uint8_t big[16384];
	const unsigned len = 14000;
	uint16_t tot = htons(len - 14), udp = htons(len - 34), l = htons(len), sum;
	uint32_t s = 0, crc;
	struct hdp_gen_check c;

	hdp_gen_frame_build(big, HDP_GEN_FRAME_MAX, dst, src, 0, 0);
	memcpy(big + 16, &tot, 2);
	memset(big + 24, 0, 2);
	for (int i = 14; i < 34; i += 2)
		s += (uint32_t)(big[i] << 8 | big[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	sum = htons((uint16_t)~s);
	memcpy(big + 24, &sum, 2);
	memcpy(big + 38, &udp, 2);
	memcpy(big + HDP_GEN_LEN_OFF, &l, 2);
	crc = hdp_crc32c_update(HDP_CRC32C_SEED, big + 42, 4);
	crc = hdp_crc32c_update(crc, big + HDP_GEN_LEN_OFF, 4);
	crc = htonl(~hdp_crc32c_update(crc, big + 54, len - 54));
	memcpy(big + HDP_GEN_CHECK_OFF, &crc, 4);
	cr_assert_eq(hdp_gen_frame_check(big, len, &c), HDP_GEN_FOREIGN, "%s", c.why);
}
