// SPDX-License-Identifier: BSD-3-Clause
/* hdp-gen's frames: building them, and checking them byte for byte. */
#include "frame.h"

#include "crc32c.h"

#include <arpa/inet.h>
#include <net/ethernet.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <string.h>

#define IP_OFF HDP_GEN_ETH_HLEN
#define UDP_OFF (IP_OFF + 20u)
/* Ethernet pads a shorter frame to this length (without FCS) with zeros. */
#define ETH_PADDED 60u
#define SADDR_BASE 0xc6120001u
#define DADDR_BASE 0xc6130001u

/*
 * Payloads are windows into one fixed pattern, at one of 4096 offsets
 * chosen by seq: built once, copied with memcpy, so a 9000-byte payload
 * costs a copy, not a loop, and a frame's bytes still depend on its seq.
 */
#define PATTERN_SHIFT 12
#define PATTERN_OFFSETS (1u << PATTERN_SHIFT)
static uint8_t pattern[PATTERN_OFFSETS + HDP_GEN_FRAME_MAX];

static const uint8_t *pattern_for(uint32_t seq)
{
	return pattern + ((seq * 2654435761u) >> (32 - PATTERN_SHIFT));
}

void hdp_gen_frame_init(void)
{
	uint32_t x = 0x9e3779b9u;

	/* xorshift32: the same bytes in every hdp-gen and hdp-sink. */
	for (size_t i = 0; i < sizeof(pattern); i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		/* Never zero: a payload left behind is never taken for a wipe. */
		pattern[i] = (uint8_t)(1 + (x >> 8) % 255);
	}
	hdp_crc32c_init();
}

static uint16_t ip_csum(const struct iphdr *ip)
{
	const uint8_t *p = (const uint8_t *)ip;
	uint32_t sum = 0;

	for (unsigned i = 0; i < sizeof(*ip); i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The payload's first byte: after the stamp in a stamped frame. */
static unsigned payload_off(int stamped)
{
	return stamped ? HDP_GEN_STAMPED_MIN : HDP_GEN_PAYLOAD_OFF;
}

/* Over seq, len, magic and the payload: never the MACs or the stamp. */
static uint32_t frame_crc(const uint8_t *f, unsigned len, int stamped)
{
	uint32_t crc = hdp_crc32c_update(HDP_CRC32C_SEED, f + HDP_GEN_SEQ_OFF, 4);
	unsigned off = payload_off(stamped);

	crc = hdp_crc32c_update(crc, f + HDP_GEN_LEN_OFF, HDP_GEN_PAYLOAD_OFF - HDP_GEN_LEN_OFF);
	return ~hdp_crc32c_update(crc, f + off, len - off);
}

/*
 * EtherType, IPv4 and UDP of a @len-byte frame of @flow, into bytes 12..41
 * of @f. Built in aligned locals and copied: at offset 14 of a frame an
 * IPv4 header is not 4-byte aligned.
 */
static void build_headers(uint8_t *f, unsigned len, uint32_t flow)
{
	uint16_t type = htons(ETHERTYPE_IP);
	struct iphdr ip = { 0 };
	struct udphdr udp = { 0 };

	ip.version = 4;
	ip.ihl = 5;
	ip.ttl = 64;
	ip.protocol = IPPROTO_UDP;
	ip.tot_len = htons((uint16_t)(len - IP_OFF));
	/* 198.18.0.0/15, the benchmarking range: sources in .18, destinations in .19. */
	ip.saddr = htonl(SADDR_BASE + flow);
	ip.daddr = htonl(DADDR_BASE + flow);
	ip.check = htons(ip_csum(&ip));
	udp.source = htons((uint16_t)(flow ? 1024 + flow % 60000 : 9));
	udp.dest = htons((uint16_t)(flow ? 1024 + (flow * 7919u) % 60000 : 9));
	udp.len = htons((uint16_t)(len - UDP_OFF));
	memcpy(f + 12, &type, 2);
	memcpy(f + IP_OFF, &ip, sizeof(ip));
	memcpy(f + UDP_OFF, &udp, sizeof(udp));
}

/* Bytes 12..@len-1 of a frame too short for IPv4 and UDP headers. */
static void build_bare(uint8_t *f, unsigned len)
{
	uint16_t be16 = htons(HDP_GEN_BARE_TYPE);

	memcpy(f + 12, &be16, 2);
	memset(f + HDP_GEN_ETH_HLEN, 0, len - HDP_GEN_ETH_HLEN);
	if (len >= HDP_GEN_BARE_LEN_OFF + 2) {
		be16 = htons((uint16_t)len);
		memcpy(f + HDP_GEN_BARE_LEN_OFF, &be16, 2);
	}
}

static void build(uint8_t *f, unsigned len, const uint8_t dst[6], const uint8_t src[6],
		  uint32_t seq, uint32_t flow, int stamped)
{
	unsigned off = payload_off(stamped);
	uint32_t be32;
	uint16_t be16;

	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	if (len < HDP_GEN_HEADED_MIN) {
		build_bare(f, len);
		return;
	}
	build_headers(f, len, flow);
	if (!hdp_gen_frame_numbered(len)) {
		memset(f + HDP_GEN_HEADED_MIN, 0, len - HDP_GEN_HEADED_MIN);
		return;
	}
	be32 = htonl(seq);
	memcpy(f + HDP_GEN_SEQ_OFF, &be32, 4);
	be16 = htons((uint16_t)len);
	memcpy(f + HDP_GEN_LEN_OFF, &be16, 2);
	be16 = htons(stamped ? HDP_GEN_MAGIC_STAMPED : HDP_GEN_MAGIC);
	memcpy(f + HDP_GEN_MAGIC_OFF, &be16, 2);
	if (stamped)
		memset(f + HDP_GEN_STAMP_OFF, 0, HDP_GEN_STAMP_LEN);
	memcpy(f + off, pattern_for(seq), len - off);
	be32 = htonl(frame_crc(f, len, stamped));
	memcpy(f + HDP_GEN_CHECK_OFF, &be32, 4);
}

void hdp_gen_frame_build(uint8_t *f, unsigned len, const uint8_t dst[6],
			 const uint8_t src[6], uint32_t seq, uint32_t flow)
{
	build(f, len, dst, src, seq, flow, 0);
}

void hdp_gen_frame_build_stamped(uint8_t *f, unsigned len, const uint8_t dst[6],
				 const uint8_t src[6], uint32_t seq, uint32_t flow)
{
	build(f, len, dst, src, seq, flow, 1);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static enum hdp_gen_verdict verdict(struct hdp_gen_check *c, enum hdp_gen_verdict v,
				    const char *why)
{
	c->verdict = v;
	c->why = why;
	return v;
}

/* Are bytes @from..@len-1 of @f all zero? */
static bool zeros_from(const uint8_t *f, size_t from, size_t len)
{
	for (size_t i = from; i < len; i++)
		if (f[i])
			return false;
	return true;
}

/*
 * A bare frame (shorter than 42 bytes): its length field, if it had room
 * for one, and zeros; as long as the field says, or padded to 60 bytes
 * by Ethernet (with zeros, which the check covers too).
 */
static enum hdp_gen_verdict check_short_bare(const uint8_t *f, size_t len,
					     struct hdp_gen_check *c)
{
	size_t zeros_off = HDP_GEN_ETH_HLEN;

	/* 0 there: a frame of 14 or 15 bytes, with no room for the field, padded. */
	if (len >= HDP_GEN_BARE_LEN_OFF + 2) {
		c->stated = get16(f + HDP_GEN_BARE_LEN_OFF);
		zeros_off = HDP_GEN_BARE_LEN_OFF + 2;
	}
	if (c->stated && (c->stated < HDP_GEN_BARE_LEN_OFF + 2 || c->stated >= HDP_GEN_HEADED_MIN))
		return verdict(c, HDP_GEN_CORRUPTED, "bare, with a length field no bare frame has");
	if (len < c->stated)
		return verdict(c, HDP_GEN_TRUNCATED, "shorter than its bare length field");
	if (len != ETH_PADDED && (c->stated ? len > c->stated : len >= HDP_GEN_BARE_LEN_OFF + 2))
		return verdict(c, HDP_GEN_CORRUPTED, "bare, and longer than its length field");
	if (!zeros_from(f, zeros_off, len))
		return verdict(c, HDP_GEN_CORRUPTED, "bare, and a byte after its header not zero");
	return verdict(c, HDP_GEN_UNNUMBERED, "");
}

/*
 * A frame of 42 to 53 bytes by its IPv4 header: its headers as hdp-gen
 * writes them for the flow and length, then zeros; as long as it says, or
 * padded to 60 bytes by Ethernet (with zeros).
 */
static enum hdp_gen_verdict check_short_headed(const uint8_t *f, size_t len,
					       const struct iphdr *ip, struct hdp_gen_check *c)
{
	uint8_t want[HDP_GEN_HEADED_MIN];
	uint32_t flow;

	if (c->stated < HDP_GEN_HEADED_MIN)
		return verdict(c, HDP_GEN_FOREIGN, "states fewer bytes than IPv4 and UDP headers");
	if (len > c->stated && len != ETH_PADDED)
		return verdict(c, HDP_GEN_CORRUPTED, "longer than its IPv4 total length");
	flow = ntohl(ip->saddr) - SADDR_BASE;
	if (flow >= HDP_GEN_FLOWS_MAX)
		return verdict(c, HDP_GEN_CORRUPTED, "IPv4 source not one hdp-gen uses");
	build_headers(want, c->stated, flow);
	if (memcmp(f + 12, want + 12, HDP_GEN_HEADED_MIN - 12))
		return verdict(c, HDP_GEN_CORRUPTED, "IPv4 or UDP header not as sent");
	if (!zeros_from(f, HDP_GEN_HEADED_MIN, len))
		return verdict(c, HDP_GEN_CORRUPTED,
			       "too short for a number, and a byte after UDP not zero");
	c->flow = flow;
	return verdict(c, HDP_GEN_UNNUMBERED, "");
}

enum hdp_gen_verdict hdp_gen_frame_check(const uint8_t *f, size_t len,
					 struct hdp_gen_check *c)
{
	uint8_t want[HDP_GEN_SEQ_OFF];
	struct iphdr ip;
	unsigned ip_stated;
	uint32_t flow;

	*c = (struct hdp_gen_check){ .verdict = HDP_GEN_INTACT, .why = "" };
	if (len < HDP_GEN_ETH_HLEN)
		return verdict(c, HDP_GEN_FOREIGN, "shorter than an Ethernet header");
	if (get16(f + 12) == HDP_GEN_BARE_TYPE)
		return check_short_bare(f, len, c);
	if (len < UDP_OFF)
		return verdict(c, HDP_GEN_FOREIGN, "shorter than Ethernet and IPv4 headers");
	memcpy(&ip, f + IP_OFF, sizeof(ip));
	if (get16(f + 12) != ETHERTYPE_IP || ip.version != 4 || ip.ihl != 5 ||
	    ip.protocol != IPPROTO_UDP)
		return verdict(c, HDP_GEN_FOREIGN, "not IPv4 (no options) carrying UDP");
	if (ip_csum(&ip))
		return verdict(c, HDP_GEN_CORRUPTED, "IPv4 header checksum wrong");
	ip_stated = ntohs(ip.tot_len) + IP_OFF;
	c->stated = ip_stated;
	/* The pattern a payload is held to is as long as the longest frame. */
	if (ip_stated > HDP_GEN_FRAME_MAX)
		return verdict(c, HDP_GEN_FOREIGN, "states more bytes than any frame hdp-gen makes");
	if (len >= HDP_GEN_SEQ_OFF + 4)
		c->seq = get32(f + HDP_GEN_SEQ_OFF);
	if (len < ip_stated)
		return verdict(c, HDP_GEN_TRUNCATED, "shorter than its IPv4 total length");
	if (!hdp_gen_frame_numbered(ip_stated))
		return check_short_headed(f, len, &ip, c);
	c->stamped = get16(f + HDP_GEN_MAGIC_OFF) == HDP_GEN_MAGIC_STAMPED;
	if (get16(f + HDP_GEN_MAGIC_OFF) != HDP_GEN_MAGIC && !c->stamped)
		return verdict(c, HDP_GEN_CORRUPTED, "no hdp-gen magic");
	if (c->stamped && ip_stated < HDP_GEN_STAMPED_MIN)
		return verdict(c, HDP_GEN_CORRUPTED, "stamped, but too short for its stamp");
	c->stated = get16(f + HDP_GEN_LEN_OFF);
	if (len < c->stated)
		return verdict(c, HDP_GEN_TRUNCATED, "shorter than its len field");
	if (c->stated != ip_stated)
		return verdict(c, HDP_GEN_CORRUPTED, "len field and IPv4 total length differ");
	/* Ethernet pads short frames to 60 bytes; past that, extra bytes are wrong. */
	if (len > c->stated && len > ETH_PADDED)
		return verdict(c, HDP_GEN_CORRUPTED, "longer than its len field");
	/* Every header byte but the MACs as hdp-gen writes it for the flow. */
	flow = ntohl(ip.saddr) - SADDR_BASE;
	if (flow >= HDP_GEN_FLOWS_MAX)
		return verdict(c, HDP_GEN_CORRUPTED, "IPv4 source not one hdp-gen uses");
	build_headers(want, c->stated, flow);
	if (memcmp(f + 12, want + 12, HDP_GEN_SEQ_OFF - 12))
		return verdict(c, HDP_GEN_CORRUPTED, "IPv4 or UDP header not as sent");
	c->flow = flow;
	if (get32(f + HDP_GEN_CHECK_OFF) != frame_crc(f, c->stated, c->stamped))
		return verdict(c, HDP_GEN_CORRUPTED, "checksum wrong");
	if (memcmp(f + payload_off(c->stamped), pattern_for(c->seq),
		   c->stated - payload_off(c->stamped)))
		return verdict(c, HDP_GEN_CORRUPTED, "payload not the pattern for its seq");
	return HDP_GEN_INTACT;
}
