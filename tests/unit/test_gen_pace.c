// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-gen --rate: when each frame is due, and how many frames one send
 * carries, against a clock the test moves itself (no wall time).
 */
#include <criterion/criterion.h>

#include "pace.h"

#include <stdint.h>

#define S 1000000000ull
/* A start far from 0, so that nothing works only because t0 is zero. */
#define T0 (1234ull * S + 567)

Test(gen_pace, frame_n_is_due_at_t0_plus_n_over_rate)
{
	cr_assert_eq(hdp_gen_pace_due_ns(T0, 0, 1), T0);
	cr_assert_eq(hdp_gen_pace_due_ns(T0, 9, 1), T0 + 9 * S);
	cr_assert_eq(hdp_gen_pace_due_ns(T0, 1, 3), T0 + 333333333);
	cr_assert_eq(hdp_gen_pace_due_ns(T0, 3, 3), T0 + S);
	cr_assert_eq(hdp_gen_pace_due_ns(T0, 40000, 40000), T0 + S);
	/* Past 2^64 ns it stays at the end of time rather than wrap to the past. */
	cr_assert_eq(hdp_gen_pace_due_ns(T0, UINT64_C(1) << 40, 1), UINT64_MAX);
}

Test(gen_pace, the_count_due_is_the_inverse_of_the_due_time)
{
	static const unsigned long rates[] = { 1, 3, 5, 7, 1000, 40000, 999999937, 1000000000 };

	for (size_t r = 0; r < sizeof(rates) / sizeof(rates[0]); r++) {
		for (uint64_t n = 0; n < 5000; n += 1 + n / 7) {
			uint64_t due = hdp_gen_pace_due_ns(T0, n, rates[r]);

			cr_assert_eq(hdp_gen_pace_due_count(T0, due, rates[r]), n + 1,
				     "rate %lu, frame %llu at its due time", rates[r],
				     (unsigned long long)n);
			if (n)
				cr_assert_eq(hdp_gen_pace_due_count(T0, due - 1, rates[r]), n,
					     "rate %lu, frame %llu 1 ns early", rates[r],
					     (unsigned long long)n);
		}
	}
	cr_assert_eq(hdp_gen_pace_due_count(T0, T0 - 1, 1000), 0);
	cr_assert_eq(hdp_gen_pace_due_count(0, UINT64_MAX, (unsigned long)-1), UINT64_MAX);
}

/*
 * --count 10 --rate 1 with a sender that is never late: one frame a send,
 * the last leaving 9 s after the first. (Each send carried 64 frames' worth
 * of the run, all due or not: 10 frames in 0.01 s.)
 */
Test(gen_pace, a_punctual_run_sends_one_frame_at_a_time)
{
	uint64_t now = T0, sent = 0, last_sent_at = 0;

	while (sent < 10) {
		unsigned n = hdp_gen_pace_batch(T0, now, sent, 1, 10 - (unsigned)sent);

		cr_assert_eq(n, 1, "frame %llu: %u frames in one send", (unsigned long long)sent, n);
		/* What hdp_gen_pace_until does: wait for the first frame's time. */
		if (now < hdp_gen_pace_due_ns(T0, sent, 1))
			now = hdp_gen_pace_due_ns(T0, sent, 1);
		last_sent_at = now;
		sent += n;
		now += 20000;	/* the send itself */
	}
	cr_assert_geq(last_sent_at, T0 + 9 * S);
}

Test(gen_pace, a_late_sender_sends_what_is_due_and_no_more)
{
	/* 0.5 s into a run of 1000/s, 100 frames sent: frames 100..500 are due. */
	cr_assert_eq(hdp_gen_pace_batch(T0, T0 + S / 2, 100, 1000, 64), 64);
	cr_assert_eq(hdp_gen_pace_batch(T0, T0 + S / 2, 480, 1000, 64), 21);
	cr_assert_eq(hdp_gen_pace_batch(T0, T0 + S / 2, 500, 1000, 64), 1);
	/* Ahead of time: the next frame alone, to wait for. */
	cr_assert_eq(hdp_gen_pace_batch(T0, T0 + S / 2, 900, 1000, 64), 1);
	/* Never past what is due, for any clock. */
	for (uint64_t now = T0; now < T0 + S / 10; now += 777777) {
		uint64_t due = hdp_gen_pace_due_count(T0, now, 40000);

		for (uint64_t sent = 0; sent < 5000; sent += 37) {
			unsigned n = hdp_gen_pace_batch(T0, now, sent, 40000, 64);

			cr_assert(n >= 1 && n <= 64);
			cr_assert(n == 1 || sent + n <= due, "%u frames at %llu sent, %llu due", n,
				  (unsigned long long)sent, (unsigned long long)due);
		}
	}
}

Test(gen_pace, unpaced_runs_send_whole_batches)
{
	cr_assert_eq(hdp_gen_pace_batch(T0, T0, 0, 0, 64), 64);
	cr_assert_eq(hdp_gen_pace_batch(T0, T0 + 5 * S, 12345, 0, 7), 7);
}
