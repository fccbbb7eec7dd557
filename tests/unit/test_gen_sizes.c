// SPDX-License-Identifier: BSD-3-Clause
/* hdp-gen --size: what it accepts, and the lengths a run gets from it. */
#include <criterion/criterion.h>

#include "frame.h"
#include "sizes.h"

#include <stdint.h>

Test(gen_sizes, accepts_lengths_ranges_and_imix)
{
	struct hdp_gen_sizes s;

	cr_assert_eq(hdp_gen_sizes_parse("14", &s), 0);
	cr_assert_eq(s.min, 14);
	cr_assert_eq(hdp_gen_sizes_parse("9014", &s), 0);
	cr_assert_eq(s.max, 9014);
	cr_assert_eq(hdp_gen_sizes_parse("60-9000", &s), 0);
	cr_assert(s.min == 60 && s.max == 9000 && !s.imix);
	cr_assert_eq(hdp_gen_sizes_parse("imix", &s), 0);
	cr_assert(s.imix && s.min == 60 && s.max == 1514);
}

Test(gen_sizes, refuses_what_no_frame_can_be)
{
	static const char *const bad[] = { "13", "9015", "0", "", "-5", "60-", "-60",
					   "100-60", "60-9015", "60x", "IMIX", "imix2",
					   "99999999999999999999" };
	struct hdp_gen_sizes s = { .min = 1, .max = 2 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(hdp_gen_sizes_parse(bad[i], &s), -1, "'%s'", bad[i]);
		cr_assert(s.min == 1 && s.max == 2, "'%s' changed the sizes", bad[i]);
	}
}

Test(gen_sizes, a_range_covers_its_ends_and_stays_inside)
{
	struct hdp_gen_sizes s;
	unsigned seen_min = 0, seen_max = 0;

	cr_assert_eq(hdp_gen_sizes_parse("60-9014", &s), 0);
	for (uint32_t seq = 0; seq < 200000; seq++) {
		unsigned len = hdp_gen_size_of(&s, seq);

		cr_assert(len >= 60 && len <= 9014, "seq %u: %u", seq, len);
		seen_min += len == 60;
		seen_max += len == 9014;
	}
	cr_assert(seen_min && seen_max);
}

Test(gen_sizes, imix_is_7_4_1_in_every_12_and_interleaved)
{
	struct hdp_gen_sizes s;

	cr_assert_eq(hdp_gen_sizes_parse("imix", &s), 0);
	for (uint32_t start = 0; start < 120; start += 12) {
		unsigned small = 0, mid = 0, large = 0, run = 1, longest = 1;

		for (uint32_t seq = start; seq < start + 12; seq++) {
			unsigned len = hdp_gen_size_of(&s, seq);

			small += len == 60;
			mid += len == 590;
			large += len == 1514;
			if (seq > start && len == hdp_gen_size_of(&s, seq - 1))
				longest = ++run > longest ? run : longest;
			else
				run = 1;
		}
		cr_assert(small == 7 && mid == 4 && large == 1);
		cr_assert_leq(longest, 2, "lengths come in blocks");
	}
}
