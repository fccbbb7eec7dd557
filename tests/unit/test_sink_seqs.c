// SPDX-License-Identifier: BSD-3-Clause
/* hdp-sink --verify's sequence accounting: lost, duplicated, reordered, extra. */
#include <criterion/criterion.h>

#include "seqs.h"

Test(sink_seqs, an_exact_run_is_clean)
{
	struct seqs s;

	cr_assert_eq(seqs_init(&s, 1000), 0);
	for (uint32_t i = 0; i < 1000; i++)
		cr_assert_eq(seqs_add(&s, i, 0), 0);
	cr_assert(s.unique == 1000 && !s.reordered && !s.duplicated && !s.extra);
	cr_assert_eq(seqs_lost(&s), 0);
	seqs_fini(&s);
}

Test(sink_seqs, gaps_at_the_end_and_in_the_middle_are_lost)
{
	struct seqs s;
	uint64_t first, last;

	cr_assert_eq(seqs_init(&s, 100), 0);
	for (uint32_t i = 0; i < 90; i++)
		if (i != 40)
			seqs_add(&s, i, 0);
	cr_assert_eq(seqs_lost(&s), 11);
	cr_assert_eq(s.reordered, 0);
	cr_assert_eq(seqs_next_gap(&s, 0, &first, &last), 0);
	cr_assert(first == 40 && last == 40);
	cr_assert_eq(seqs_next_gap(&s, last + 1, &first, &last), 0);
	cr_assert(first == 90 && last == 99);
	cr_assert_eq(seqs_next_gap(&s, last + 1, &first, &last), -1);
	seqs_fini(&s);
}

Test(sink_seqs, late_and_repeated_frames_are_told_apart)
{
	struct seqs s;

	cr_assert_eq(seqs_init(&s, 10), 0);
	seqs_add(&s, 0, 0);
	seqs_add(&s, 2, 0);
	seqs_add(&s, 1, 0);	/* late */
	seqs_add(&s, 2, 0);	/* again */
	seqs_add(&s, 0, 0);	/* again, and long after */
	seqs_add(&s, 10, 0);	/* past the run */
	cr_assert_eq(s.reordered, 1);
	cr_assert_eq(s.duplicated, 2);
	cr_assert_eq(s.extra, 1);
	cr_assert_eq(seqs_lost(&s), 7);
	seqs_fini(&s);
}

Test(sink_seqs, without_expect_it_grows_and_counts_gaps)
{
	struct seqs s;

	cr_assert_eq(seqs_init(&s, 0), 0);
	seqs_add(&s, 5, 0);
	seqs_add(&s, 3000000, 0);
	seqs_add(&s, 3000000, 0);
	cr_assert_eq(s.duplicated, 1);
	cr_assert_eq(seqs_lost(&s), 3000001 - 2);
	seqs_fini(&s);
}

/*
 * Order is per flow: hdp-gen numbers frames across its flows in turn, and
 * a forwarder with several queues keeps each flow's order, not the order
 * between flows. (A later flow's frame ahead of an earlier one's was
 * counted reordered, and a multi-queue run failed.)
 */
Test(sink_seqs, order_is_judged_within_a_flow)
{
	struct seqs s;

	cr_assert_eq(seqs_init(&s, 8), 0);
	seqs_add(&s, 1, 1);
	seqs_add(&s, 0, 0);	/* flow 0 behind flow 1: fine */
	seqs_add(&s, 3, 1);
	seqs_add(&s, 2, 0);
	cr_assert_eq(s.reordered, 0);
	seqs_add(&s, 6, 0);
	seqs_add(&s, 4, 0);	/* behind its own flow's 6 */
	seqs_add(&s, 5, 1);
	cr_assert_eq(s.reordered, 1);
	cr_assert_eq(seqs_lost(&s), 1);
	seqs_fini(&s);
}

/*
 * A run of 10 whose frames 2 and 6 were too short for a number: hdp-gen
 * numbered the other 8 as 0..7, and both kinds came. (The short frames
 * used numbers up, and a clean run counted them lost.)
 */
Test(sink_seqs, unnumbered_frames_stand_for_themselves)
{
	struct seqs s;
	uint64_t first, last;

	cr_assert_eq(seqs_init(&s, 10), 0);
	for (uint32_t i = 0; i < 8; i++)
		seqs_add(&s, i, 0);
	seqs_add_unnumbered(&s);
	seqs_add_unnumbered(&s);
	cr_assert_eq(seqs_lost(&s), 0);
	cr_assert_eq(seqs_extra(&s), 0);
	cr_assert_eq(seqs_next_gap(&s, 0, &first, &last), -1);
	seqs_fini(&s);
}

Test(sink_seqs, a_lost_frame_of_either_kind_is_one_lost)
{
	struct seqs s;

	/* Number 3 lost. */
	cr_assert_eq(seqs_init(&s, 10), 0);
	for (uint32_t i = 0; i < 8; i++)
		if (i != 3)
			seqs_add(&s, i, 0);
	seqs_add_unnumbered(&s);
	seqs_add_unnumbered(&s);
	cr_assert_eq(seqs_lost(&s), 1);
	cr_assert_eq(seqs_extra(&s), 0);
	seqs_fini(&s);
	/* An unnumbered one lost. */
	cr_assert_eq(seqs_init(&s, 10), 0);
	for (uint32_t i = 0; i < 8; i++)
		seqs_add(&s, i, 0);
	seqs_add_unnumbered(&s);
	cr_assert_eq(seqs_lost(&s), 1);
	seqs_fini(&s);
}

Test(sink_seqs, unnumbered_frames_past_the_run_are_extra)
{
	struct seqs s;

	cr_assert_eq(seqs_init(&s, 10), 0);
	for (uint32_t i = 0; i < 8; i++)
		seqs_add(&s, i, 0);
	for (int i = 0; i < 3; i++)
		seqs_add_unnumbered(&s);
	cr_assert_eq(seqs_lost(&s), 0);
	cr_assert_eq(seqs_extra(&s), 1);
	seqs_fini(&s);
	/* Without --expect nothing says how many should come: counted, never lost. */
	cr_assert_eq(seqs_init(&s, 0), 0);
	seqs_add(&s, 0, 0);
	seqs_add_unnumbered(&s);
	seqs_add(&s, 1, 0);
	cr_assert_eq(seqs_lost(&s), 0);
	cr_assert_eq(seqs_extra(&s), 0);
	cr_assert_eq(s.unnumbered, 1);
	seqs_fini(&s);
}
