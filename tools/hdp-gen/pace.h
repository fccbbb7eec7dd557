/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp-gen's pacing: frame N leaves at t0 + N / rate, not in bursts. A
 * latency figure taken at a stated load is only as good as the spacing of
 * its frames: a batch of 64 every 64 ms is not 1000 packets/s to a
 * forwarder that sleeps between packets.
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
 * Return when frame @nth of a run that started at @t0_ns and sends @rate
 * frames a second is due (at once if it is late; @rate 0: at once), or as
 * soon as *@stop is set (a signal). Sleeps while the frame is far off,
 * spins the last stretch.
 */
void hdp_gen_pace_until(uint64_t t0_ns, uint64_t nth, unsigned long rate,
			const volatile sig_atomic_t *stop);

#endif /* HDP_GEN_PACE_H */
