// SPDX-License-Identifier: BSD-3-Clause
#include "crc32c.h"

#include <stdbool.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

/* The reflected Castagnoli polynomial. */
#define POLY 0x82f63b78u

static uint32_t table[256];
static bool use_sse42;

void hdp_crc32c_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
		table[i] = c;
	}
#if defined(__x86_64__)
	use_sse42 = __builtin_cpu_supports("sse4.2");
#endif
}

static uint32_t crc32c_table(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

#if defined(__x86_64__)
/* Only this function may use SSE4.2; the rest of the program runs anywhere. */
__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const uint8_t *p, size_t n)
{
	uint64_t c = crc;

	for (; n >= 8; n -= 8, p += 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		c = _mm_crc32_u64(c, w);
	}
	crc = (uint32_t)c;
	while (n--)
		crc = _mm_crc32_u8(crc, *p++);
	return crc;
}
#endif

uint32_t hdp_crc32c_update(uint32_t crc, const void *p, size_t n)
{
#if defined(__x86_64__)
	if (use_sse42)
		return crc32c_sse42(crc, p, n);
#endif
	return crc32c_table(crc, p, n);
}
