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
#define NS_PER_S 1000000000ull

/* nth * 1e9 passes 2^64 after 1.8e10 frames: the products are 128 bits wide. */
__extension__ typedef unsigned __int128 u128;

uint64_t hdp_gen_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * NS_PER_S + (uint64_t)t.tv_nsec;
}

void hdp_gen_pace_init(void)
{
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
}

static uint64_t saturate(u128 v)
{
	return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
}

uint64_t hdp_gen_pace_due_ns(uint64_t t0_ns, uint64_t nth, unsigned long rate)
{
	return saturate((u128)t0_ns + (u128)nth * NS_PER_S / rate);
}

/*
 * Frame n is due when floor(n * 1e9 / rate) <= now - t0, that is when
 * n * 1e9 < (now - t0 + 1) * rate: frames 0 to that bound, a ceiling.
 */
uint64_t hdp_gen_pace_due_count(uint64_t t0_ns, uint64_t now_ns, unsigned long rate)
{
	u128 scaled;

	if (now_ns < t0_ns)
		return 0;
	scaled = ((u128)(now_ns - t0_ns) + 1) * rate;
	return saturate((scaled + NS_PER_S - 1) / NS_PER_S);
}

unsigned hdp_gen_pace_batch(uint64_t t0_ns, uint64_t now_ns, uint64_t sent,
			    unsigned long rate, unsigned max)
{
	uint64_t due;

	if (!rate)
		return max;
	due = hdp_gen_pace_due_count(t0_ns, now_ns, rate);
	if (due <= sent)
		return 1;
	return due - sent < max ? (unsigned)(due - sent) : max;
}

void hdp_gen_pace_until(uint64_t t0_ns, uint64_t nth, unsigned long rate,
			const volatile sig_atomic_t *stop)
{
	uint64_t due, now;

	if (!rate)
		return;
	due = hdp_gen_pace_due_ns(t0_ns, nth, rate);
	now = hdp_gen_now_ns();
	if (now + SPIN_NS < due) {
		uint64_t nap = due - now - SPIN_NS;
		struct timespec ts = { (time_t)(nap / NS_PER_S), (long)(nap % NS_PER_S) };

		nanosleep(&ts, NULL);	/* EINTR: a signal; *stop says whether to go on */
	}
	while (!*stop && hdp_gen_now_ns() < due)
		;
}
