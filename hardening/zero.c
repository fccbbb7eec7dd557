// SPDX-License-Identifier: BSD-3-Clause
/* The zero check (init_check, and init_on_free=on outside the write extent). */
#include "harden_internal.h"

#include <string.h>

/* The first non-zero byte of [b, b + n), which is known to hold one. */
HDP_COLD static size_t first_dirty_byte(const unsigned char *b, size_t n)
{
	size_t i = 0;

	while (i < n && !b[i])
		i++;
	return i;
}

/* 16 bytes, as SSE2 and NEON hold them; unaligned loads through memcpy. */
typedef uint64_t v2u64 __attribute__((vector_size(16)));

static inline v2u64 load16(const unsigned char *p)
{
	v2u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * Is [p, p + n) all zero? 64 bytes a round as four vector loads ORed
 * together, one branch a round, so a whole 2 KiB frame costs about what
 * reading it costs; the first non-zero byte's offset goes to @first_dirty.
 * Nothing here relies on alignment.
 */
bool zero_is_clear(const void *p, size_t n, size_t *first_dirty)
{
	const unsigned char *b = p;
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		v2u64 acc = load16(b + i) | load16(b + i + 16) | load16(b + i + 32) |
			    load16(b + i + 48);

		if (hdp_unlikely(acc[0] | acc[1]))
			goto dirty;
	}
	/*
	 * A packet's extent is mostly under 64 bytes: 16 at a time, and the
	 * last 16 once more from the end (overlapping), with one branch.
	 */
	if (n - i >= 16) {
		v2u64 acc = load16(b + n - 16);

		for (size_t j = i; j + 16 <= n; j += 16)
			acc |= load16(b + j);
		if (hdp_likely(!(acc[0] | acc[1])))
			return true;
		goto dirty;
	}
	for (; i < n; i++)
		if (hdp_unlikely(b[i]))
			goto dirty;
	return true;
dirty:
	*first_dirty = i + first_dirty_byte(b + i, n - i);
	return false;
}
