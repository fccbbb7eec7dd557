/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sequence numbers seen by hdp-sink --verify: one bit each, so duplicates
 * are exact however late they come, and what never came is counted. Order
 * is judged per flow: hdp-gen numbers frames across its flows in turn, and
 * a forwarder with several queues or workers keeps each flow's order, not
 * the order between flows. Frames too short to carry a number (frame.h)
 * are counted, not numbered: of a run of expect frames, those that came
 * unnumbered leave expect - unnumbered numbers to arrive, so that a lost
 * frame of either kind is one number short, and a number past them is
 * lost or extra by the same count.
 */
#ifndef HDP_SINK_SEQS_H
#define HDP_SINK_SEQS_H

#include <stdbool.h>
#include <stdint.h>

struct seqs {
	uint64_t *bits;
	uint64_t nbits;		/* sequence numbers the bitmap covers */
	uint64_t expect;	/* 0: grow as numbers come */
	uint64_t unique;	/* distinct numbers below expect (or any) */
	uint64_t reordered;	/* below the highest seen in its flow, first time */
	uint64_t duplicated;	/* seen before */
	uint64_t extra;		/* at or past expect */
	uint64_t unnumbered;	/* frames that carry no number */
	uint32_t highest;
	bool any;
	uint64_t *flow_next;	/* per flow: 1 + its highest seen, 0 before any */
};

/* Track a run of @expect frames (0: as many as come). 0 or -ENOMEM. */
int seqs_init(struct seqs *s, uint64_t expect);
void seqs_fini(struct seqs *s);

/* Account for an intact frame numbered @seq of @flow. 0, or -ENOMEM (not counted). */
int seqs_add(struct seqs *s, uint32_t seq, uint32_t flow);

/* Account for an intact frame too short to carry a number. */
void seqs_add_unnumbered(struct seqs *s);

/*
 * Frames that never arrived: numbers below expect less the unnumbered
 * frames that came, or (without expect) below the highest seen.
 */
uint64_t seqs_lost(const struct seqs *s);

/*
 * Frames past the run: numbers at or past expect, and unnumbered frames
 * beyond the run's count with the numbers that came.
 */
uint64_t seqs_extra(const struct seqs *s);

/*
 * The first run of lost numbers at or after @from: 0 and [*first, *last],
 * or -1 when there is none. For messages, not the fast path.
 */
int seqs_next_gap(const struct seqs *s, uint64_t from, uint64_t *first, uint64_t *last);

#endif /* HDP_SINK_SEQS_H */
