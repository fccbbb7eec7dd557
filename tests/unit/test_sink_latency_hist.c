// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-sink --latency's histogram (dataplane/bpf/sink_latency.h): every
 * latency falls into the bucket whose range holds it, buckets are at most
 * 1/32 of their value wide, in order, and nothing falls outside the map.
 */
#include <criterion/criterion.h>

#include <linux/types.h>

#include "sink_latency.h"

#include <stdint.h>

static void check(uint64_t ns)
{
	__u32 i = hdp_lat_bucket(ns);

	cr_assert_lt(i, HDP_LAT_BUCKETS, "%llu ns: bucket %u", (unsigned long long)ns, i);
	if (ns >= 1ull << (HDP_LAT_TOP_BIT + 1))
		return;	/* the last bucket takes everything longer */
	cr_assert_leq(hdp_lat_bucket_low(i), ns, "%llu ns below bucket %u", (unsigned long long)ns, i);
	cr_assert_gt(hdp_lat_bucket_low(i) + hdp_lat_bucket_width(i), ns,
		     "%llu ns above bucket %u", (unsigned long long)ns, i);
	cr_assert_leq(hdp_lat_bucket_width(i) * 32, ns > 64 ? ns : 64);
}

Test(sink_latency_hist, every_latency_in_its_own_bucket)
{
	uint64_t x = 88172645463325252ull;

	for (uint64_t ns = 0; ns < 100000; ns++)
		check(ns);
	for (int n = 0; n < 1000000; n++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		check(x >> (x & 31));
	}
	check(UINT64_MAX);
	check((1ull << 30) - 1);
	check(1ull << 30);
}

Test(sink_latency_hist, buckets_in_order_without_gaps)
{
	for (__u32 i = 1; i < HDP_LAT_BUCKETS; i++)
		cr_assert_eq(hdp_lat_bucket_low(i - 1) + hdp_lat_bucket_width(i - 1),
			     hdp_lat_bucket_low(i), "bucket %u", i);
	cr_assert_eq(hdp_lat_bucket(UINT64_MAX), HDP_LAT_BUCKETS - 1);
}
