// SPDX-License-Identifier: BSD-3-Clause
/* Zeroing and the zero check (init_on_alloc, init_on_free, init_check). */
#include "harden_internal.h"

#include <string.h>

/*
 * Is [p, p + n) all zero? Word at a time; the first non-zero byte's offset
 * goes to @first_dirty. Objects are at least 8-byte aligned in practice,
 * but nothing here relies on it.
 */
bool zero_is_clear(const void *p, size_t n, size_t *first_dirty)
{
	const unsigned char *b = p;
	size_t i = 0;

	for (; i < n && ((uintptr_t)(b + i) & 7); i++)
		if (b[i])
			goto dirty;
	for (; i + 8 <= n; i += 8) {
		uint64_t v;

		memcpy(&v, b + i, 8);
		if (v)
			break;
	}
	for (; i < n; i++)
		if (b[i])
			goto dirty;
	return true;
dirty:
	*first_dirty = i;
	return false;
}

void zero_wipe(void *p, size_t n)
{
	/* memset, not explicit_bzero: the object is live memory, not dead. */
	memset(p, 0, n);
}
