// SPDX-License-Identifier: BSD-3-Clause
/* Zeroing and the zero check (init_on_alloc, init_on_free, init_check). */
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

/*
 * Is [p, p + n) all zero? 64 bytes a round, ORed together with no branch
 * inside (the compiler turns it into vector ORs), so a whole 2 KiB frame
 * costs about as much as reading it; the first non-zero byte's offset goes
 * to @first_dirty. Nothing here relies on alignment.
 */
bool zero_is_clear(const void *p, size_t n, size_t *first_dirty)
{
	const unsigned char *b = p;
	size_t i = 0;

	for (; i + 64 <= n; i += 64) {
		uint64_t w[8], acc = 0;

		memcpy(w, b + i, sizeof(w));
		for (int k = 0; k < 8; k++)
			acc |= w[k];
		if (hdp_unlikely(acc))
			goto dirty;
	}
	/* A packet's extent is mostly under 64 bytes: words, then the last few. */
	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, b + i, sizeof(w));
		if (hdp_unlikely(w))
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

void zero_wipe(void *p, size_t n)
{
	/* memset, not explicit_bzero: the object is live memory, not dead. */
	memset(p, 0, n);
}
