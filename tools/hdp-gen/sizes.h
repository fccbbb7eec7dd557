/* SPDX-License-Identifier: BSD-3-Clause */
/* Which length frame N of a run has: one length, a range, or IMIX. */
#ifndef HDP_GEN_SIZES_H
#define HDP_GEN_SIZES_H

#include <stddef.h>
#include <stdint.h>

struct hdp_gen_sizes {
	unsigned min, max;	/* every length lies in min..max */
	int imix;		/* 7:4:1 of 60, 590, 1514 (min, mid, max) */
};

/*
 * "N", "MIN-MAX" or "imix" (lengths without FCS, HDP_GEN_FRAME_MIN to
 * HDP_GEN_FRAME_MAX): 0, or -1 with @s left as it was.
 */
int hdp_gen_sizes_parse(const char *arg, struct hdp_gen_sizes *s);

/* The length of frame @seq: the same for the same seq in every run. */
static inline unsigned hdp_gen_size_of(const struct hdp_gen_sizes *s, uint32_t seq)
{
	/*
	 * Simple IMIX, interleaved over a cycle of 12 rather than in blocks:
	 * on the wire (with FCS) 64, 594 and 1518 bytes, IPv4 40, 576, 1500.
	 */
	static const unsigned char imix_slot[12] = { 0, 1, 0, 1, 0, 2, 0, 1, 0, 1, 0, 0 };
	static const unsigned short imix_len[3] = { 60, 590, 1514 };
	uint32_t h;

	if (s->imix)
		return imix_len[imix_slot[seq % 12]];
	if (s->min == s->max)
		return s->min;
	/* A hash of seq, so that lengths jump around and a rerun sends the same mix. */
	h = seq * 2654435761u;
	h ^= h >> 15;
	return s->min + h % (s->max - s->min + 1);
}

/* "60", "60-9000" or "imix (60/590/1514)", for messages. */
void hdp_gen_sizes_name(const struct hdp_gen_sizes *s, char *buf, size_t len);

#endif /* HDP_GEN_SIZES_H */
