// SPDX-License-Identifier: BSD-3-Clause
/* The zero check (init_check, and init_on_free=on outside the write extent). */
#include "harden_internal.h"

#include <string.h>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

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
 * The last bytes of a range after its 64-byte rounds, from @i: a packet's
 * extent is mostly under 64 bytes, so 16 at a time, and the last 16 once
 * more from the end (overlapping), with one branch. Returns the offset of
 * the round holding the first non-zero byte, or @n if none.
 */
static inline size_t tail_dirty_at(const unsigned char *b, size_t i, size_t n)
{
	if (n - i >= 16) {
		v2u64 acc = load16(b + n - 16);

		for (size_t j = i; j + 16 <= n; j += 16)
			acc |= load16(b + j);
		return hdp_likely(!(acc[0] | acc[1])) ? n : i;
	}
	for (; i < n; i++)
		if (hdp_unlikely(b[i]))
			return i;
	return n;
}

/*
 * Any CPU: 64 bytes a round as four vector loads ORed together, one
 * branch a round. Returns where the first dirty round starts, or @n.
 */
static size_t dirty_at_16(const unsigned char *b, size_t n)
{
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		v2u64 acc = load16(b + i) | load16(b + i + 16) | load16(b + i + 32) |
			    load16(b + i + 48);

		if (hdp_unlikely(acc[0] | acc[1]))
			return i;
	}
	return tail_dirty_at(b, i, n);
}

#if defined(__x86_64__)
/*
 * With AVX2: 128 bytes a round in four 32-byte loads and one vptest, a
 * third of the instructions of the 16-byte loop. What strict pays for
 * its whole checks (two frames' worth a packet) when the frame is in the
 * cache is these instructions; from memory, the loads' wait is the same.
 */
__attribute__((target("avx2"))) static size_t dirty_at_32(const unsigned char *b, size_t n)
{
	size_t i = 0;

	for (; i + 128 <= n; i += 128) {
		__m256i acc = _mm256_or_si256(
			_mm256_or_si256(_mm256_loadu_si256((const __m256i *)(b + i)),
					_mm256_loadu_si256((const __m256i *)(b + i + 32))),
			_mm256_or_si256(_mm256_loadu_si256((const __m256i *)(b + i + 64)),
					_mm256_loadu_si256((const __m256i *)(b + i + 96))));

		if (hdp_unlikely(!_mm256_testz_si256(acc, acc)))
			return i;
	}
	if (i + 64 <= n) {
		__m256i acc = _mm256_or_si256(_mm256_loadu_si256((const __m256i *)(b + i)),
					      _mm256_loadu_si256((const __m256i *)(b + i + 32)));

		if (hdp_unlikely(!_mm256_testz_si256(acc, acc)))
			return i;
		i += 64;
	}
	return tail_dirty_at(b, i, n);
}
#endif

/*
 * Is [p, p + n) all zero? A whole 2 KiB frame costs about what reading it
 * costs; the first non-zero byte's offset goes to @first_dirty. Nothing
 * here relies on alignment.
 */
bool zero_is_clear(const void *p, size_t n, size_t *first_dirty)
{
	const unsigned char *b = p;
	size_t at;

#if defined(__x86_64__)
	/* A load and a test of libgcc's CPU model: no call, no indirection. */
	if (n >= 128 && __builtin_cpu_supports("avx2"))
		at = dirty_at_32(b, n);
	else
#endif
		at = dirty_at_16(b, n);
	if (hdp_likely(at == n))
		return true;
	*first_dirty = at + first_dirty_byte(b + at, n - at);
	return false;
}
