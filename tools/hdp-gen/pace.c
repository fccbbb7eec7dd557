// SPDX-License-Identifier: BSD-3-Clause
/* hdp-gen's pacing: sleep while far from the due time, spin the rest. */
#include "pace.h"

#include <sys/prctl.h>

/*
 * A nanosleep ends up to tens of microseconds late even with a small
 * timer slack (the wake-up, the scheduler): sleep only until this long
 * before the due time, and spin from there. The generator has a core of
 * its own in every benchmark topology, so the spin takes nobody's time.
 */
#define SPIN_NS 60000ull

uint64_t hdp_gen_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

void hdp_gen_pace_init(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

void hdp_gen_pace_until(uint64_t t0_ns, uint64_t nth, unsigned long rate,
			const volatile sig_atomic_t *stop)
{
	uint64_t due, now;

	if (!rate)
		return;
	/* nth * 1e9 overflows past 1.8e10 frames: split it. */
	due = t0_ns + nth / rate * 1000000000ull + nth % rate * 1000000000ull / rate;
	now = hdp_gen_now_ns();
	if (now + SPIN_NS < due) {
		uint64_t nap = due - now - SPIN_NS;
		struct timespec ts = { (time_t)(nap / 1000000000ull), (long)(nap % 1000000000ull) };

		nanosleep(&ts, NULL);	/* EINTR: a signal; *stop says whether to go on */
	}
	while (!*stop && hdp_gen_now_ns() < due)
		;
}
