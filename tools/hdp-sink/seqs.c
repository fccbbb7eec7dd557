// SPDX-License-Identifier: BSD-3-Clause
#include "seqs.h"

#include "frame.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int seqs_init(struct seqs *s, uint64_t expect)
{
	*s = (struct seqs){ .expect = expect };
	s->flow_next = calloc(HDP_GEN_FLOWS_MAX, sizeof(*s->flow_next));
	if (!s->flow_next)
		return -ENOMEM;
	if (!expect)
		return 0;
	s->nbits = (expect + 63) & ~(uint64_t)63;
	s->bits = calloc(s->nbits / 64, sizeof(*s->bits));
	return s->bits ? 0 : -ENOMEM;
}

void seqs_fini(struct seqs *s)
{
	free(s->bits);
	free(s->flow_next);
	s->bits = NULL;
	s->flow_next = NULL;
}

/* Cover @seq, doubling: sequence numbers are 32 bits, so at most 512 MiB. */
static int grow(struct seqs *s, uint32_t seq)
{
	uint64_t n = s->nbits ? s->nbits : 1u << 16;
	uint64_t *bits;

	while (n <= seq)
		n *= 2;
	bits = realloc(s->bits, n / 8);
	if (!bits)
		return -ENOMEM;
	memset(bits + s->nbits / 64, 0, (n - s->nbits) / 8);
	s->bits = bits;
	s->nbits = n;
	return 0;
}

int seqs_add(struct seqs *s, uint32_t seq, uint32_t flow)
{
	uint64_t bit;

	if (s->expect && seq >= s->expect) {
		s->extra++;
		return 0;
	}
	if (seq >= s->nbits && grow(s, seq))
		return -ENOMEM;
	bit = (uint64_t)1 << (seq % 64);
	if (s->bits[seq / 64] & bit) {
		s->duplicated++;
		return 0;
	}
	s->bits[seq / 64] |= bit;
	s->unique++;
	if (flow < HDP_GEN_FLOWS_MAX) {
		if ((uint64_t)seq + 1 < s->flow_next[flow])
			s->reordered++;
		else
			s->flow_next[flow] = (uint64_t)seq + 1;
	}
	if (!s->any || seq > s->highest)
		s->highest = seq;
	s->any = true;
	return 0;
}

void seqs_add_unnumbered(struct seqs *s)
{
	s->unnumbered++;
}

/* The numbers a run of expect frames used: one fewer for each unnumbered frame. */
static uint64_t numbers_expected(const struct seqs *s)
{
	return s->expect > s->unnumbered ? s->expect - s->unnumbered : 0;
}

uint64_t seqs_lost(const struct seqs *s)
{
	uint64_t want = numbers_expected(s);

	if (s->expect)
		return want > s->unique ? want - s->unique : 0;
	return s->any ? (uint64_t)s->highest + 1 - s->unique : 0;
}

uint64_t seqs_extra(const struct seqs *s)
{
	uint64_t came = s->unique + s->unnumbered;

	if (s->expect && came > s->expect)
		return s->extra + came - s->expect;
	return s->extra;
}

static bool seen(const struct seqs *s, uint64_t seq)
{
	return seq < s->nbits && (s->bits[seq / 64] >> (seq % 64) & 1);
}

int seqs_next_gap(const struct seqs *s, uint64_t from, uint64_t *first, uint64_t *last)
{
	uint64_t end = s->expect ? numbers_expected(s) : s->any ? (uint64_t)s->highest + 1 : 0;

	while (from < end && seen(s, from))
		from++;
	if (from >= end)
		return -1;
	*first = from;
	while (from + 1 < end && !seen(s, from + 1))
		from++;
	*last = from;
	return 0;
}
