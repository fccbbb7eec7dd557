/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp-gen's pacing: frame N leaves at t0 + N / rate, not in bursts. A
 * latency figure taken at a stated load is only as good as the spacing of
 * its frames: a batch of 64 every 64 ms is not 1000 packets/s to a
 * forwarder that sleeps between packets. A send carries more than one
 * frame only when the sender fell behind, and then only the frames that
 * are due.
 */
#ifndef HDP_GEN_PACE_H
#define HDP_GEN_PACE_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in ns. */
uint64_t hdp_gen_now_ns(void);

/* Make sleeps end when asked (the default timer slack is 50 us). Once. */
void hdp_gen_pace_init(void);

/*
 * When frame @nth of a run that started at @t0_ns and sends @rate (not 0)
 * frames a second is due: t0 + floor(nth * 1e9 / rate), in ns.
 */
uint64_t hdp_gen_pace_due_ns(uint64_t t0_ns, uint64_t nth, unsigned long rate);

/*
 * How many frames of that run are due at @now_ns: every frame whose due
 * time is @now_ns or earlier (0 before t0).
 */
uint64_t hdp_gen_pace_due_count(uint64_t t0_ns, uint64_t now_ns, unsigned long rate);

/*
 * How many frames to send in one go, the next being frame @sent, at most
 * @max, when the clock reads @now_ns: @max at @rate 0 (as fast as
 * possible); else the frames due by now, or the next one alone when none
 * is due yet (hdp_gen_pace_until then waits for it).
 */
unsigned hdp_gen_pace_batch(uint64_t t0_ns, uint64_t now_ns, uint64_t sent,
			    unsigned long rate, unsigned max);

/*
 * Return when frame @nth of a run that started at @t0_ns and sends @rate
 * frames a second is due (at once if it is late; @rate 0: at once), or as
 * soon as *@stop is set (a signal). Sleeps while the frame is far off,
 * spins the last stretch.
 */
void hdp_gen_pace_until(uint64_t t0_ns, uint64_t nth, unsigned long rate,
			const volatile sig_atomic_t *stop);

#endif /* HDP_GEN_PACE_H */
