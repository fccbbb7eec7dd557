// SPDX-License-Identifier: BSD-3-Clause
/*
 * What this machine's memset does over buffers laid out as a DPDK mbuf
 * pool is: COUNT data rooms of SIZE bytes, STRIDE apart, zeroed in
 * address order round after round (the order a pool without cache hands
 * them back), so the working set is as large and as cold as the pool's.
 * The bar a whole-data-room wipe is held to (hdp-bench dpdk).
 */
#include "bench.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double bench_memset_gbps(size_t size, size_t stride, size_t count, unsigned trials)
{
	double samples[16];
	struct bench_stat st;
	char *mem;

	if (trials > 16)
		trials = 16;
	mem = aligned_alloc(4096, count * stride);
	if (!mem)
		return 0;
	memset(mem, 1, count * stride);	/* every page there before timing */
	for (unsigned t = 0; t < trials; t++) {
		double start = now_s(), secs;
		unsigned rounds = 0;

		do {
			for (size_t i = 0; i < count; i++)
				memset(mem + i * stride + 128, 0, size);
			/* The compiler may not drop stores that nothing reads. */
			__asm__ volatile("" : : "r"(mem) : "memory");
			rounds++;
		} while ((secs = now_s() - start) < 0.3);
		samples[t] = (double)rounds * (double)count * (double)size / secs / 1e9;
	}
	free(mem);
	bench_stat_of(samples, trials, &st);
	return st.median;
}
