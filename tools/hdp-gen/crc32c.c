// SPDX-License-Identifier: BSD-3-Clause
#include "crc32c.h"

#include <stdbool.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

/* The reflected Castagnoli polynomial. */
#define POLY 0x82f63b78u
/*
 * The instruction takes 3 cycles but can start one every cycle: three
 * streams over blocks of BLOCK bytes, joined by shifting the first two
 * forward, run about three times as fast as one.
 */
#define BLOCK 256u

static uint32_t table[256];
/* shift[k][j][b]: byte b at byte j of a CRC, moved on past (k + 1) * BLOCK zeros. */
static uint32_t shift[2][4][256];
static bool use_sse42;

static uint32_t crc32c_table(uint32_t crc, const uint8_t *p, size_t n)
{
	while (n--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

static uint32_t zeros(uint32_t crc, size_t n)
{
	while (n--)
		crc = table[crc & 0xff] ^ (crc >> 8);
	return crc;
}

void hdp_crc32c_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
		table[i] = c;
	}
	/* Shifting is linear: tables built from one shifted bit each. */
	for (unsigned k = 0; k < 2; k++) {
		uint32_t bit[32];

		for (unsigned i = 0; i < 32; i++)
			bit[i] = zeros(1u << i, (k + 1) * BLOCK);
		for (unsigned j = 0; j < 4; j++)
			for (unsigned b = 0; b < 256; b++) {
				uint32_t v = 0;

				for (unsigned i = 0; i < 8; i++)
					if (b >> i & 1)
						v ^= bit[8 * j + i];
				shift[k][j][b] = v;
			}
	}
#if defined(__x86_64__)
	use_sse42 = __builtin_cpu_supports("sse4.2");
#endif
}

static uint32_t shifted(unsigned k, uint32_t crc)
{
	return shift[k][0][crc & 0xff] ^ shift[k][1][crc >> 8 & 0xff] ^
	       shift[k][2][crc >> 16 & 0xff] ^ shift[k][3][crc >> 24];
}

#if defined(__x86_64__)
/* Only this function may use SSE4.2; the rest of the program runs anywhere. */
__attribute__((target("sse4.2")))
static uint32_t crc32c_sse42(uint32_t crc, const uint8_t *p, size_t n)
{
	uint64_t c = crc;

	for (; n >= 3 * BLOCK; n -= 3 * BLOCK, p += 3 * BLOCK) {
		uint64_t c1 = 0, c2 = 0;

		for (unsigned i = 0; i < BLOCK; i += 8) {
			uint64_t w0, w1, w2;

			memcpy(&w0, p + i, 8);
			memcpy(&w1, p + BLOCK + i, 8);
			memcpy(&w2, p + 2 * BLOCK + i, 8);
			c = _mm_crc32_u64(c, w0);
			c1 = _mm_crc32_u64(c1, w1);
			c2 = _mm_crc32_u64(c2, w2);
		}
		c = shifted(1, (uint32_t)c) ^ shifted(0, (uint32_t)c1) ^ (uint32_t)c2;
	}
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
