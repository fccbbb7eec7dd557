/* SPDX-License-Identifier: BSD-3-Clause */
/* The control loop's clock: CLOCK_MONOTONIC, in seconds. */
#ifndef HDP_CONTROL_CLOCK_H
#define HDP_CONTROL_CLOCK_H

#include <time.h>

static inline double hdp_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

#endif /* HDP_CONTROL_CLOCK_H */
