/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handles held across a runtime switch, for every ordered pair of every
 * key's values: a correct program that must keep running, whatever the
 * switch. Plain C (no Criterion), so that the x86 unit tests and the arm64
 * MTE tests (under qemu, one run per tag check mode) walk the same pairs.
 */
#ifndef HDP_TEST_HELD_HANDLES_H
#define HDP_TEST_HELD_HANDLES_H

#include <stddef.h>

struct hdp_protection_key;

/* Every key of every protection: the core's, then the registered ones'. */
unsigned held_all_keys(const struct hdp_protection_key **keys, unsigned max);

/* The values a walk gives a key: all of a bool's or a choice's; a number's min, min + 1, max. */
#define HELD_VALUES_MAX 8
#define HELD_VALUE_LEN 24
unsigned held_values(const struct hdp_protection_key *k,
		     char values[HELD_VALUES_MAX][HELD_VALUE_LEN]);

enum held_result {
	HELD_OK,
	HELD_REFUSED,	/* a switch was refused (a dependency, no MTE, too deep): nothing to hold across */
	HELD_FAILED,	/* @why says what */
};

/*
 * One pair: a fresh pool with profile @base and @key = @a hands out
 * handles; @key goes to @b, and they are copied into, copied out of (the
 * bytes read back) and written through (hdp_deref); more are handed out;
 * @key goes back to @a, all are used again, then freed with the extent
 * written. No violation may be counted and every object must come back.
 * Under on_violation=abort a false report ends the process.
 */
enum held_result held_across(const char *base, const char *key, const char *a, const char *b,
			     char *why, size_t len);

struct held_walk {
	unsigned pairs;		/* ordered pairs walked */
	unsigned refused;	/* of those, refused on the way */
	unsigned failed;
	char first[256];	/* what went wrong first */
};

/*
 * Every ordered pair of every key's values under @base. @progress, if not
 * NULL, is told each pair before it runs: which one a fault killed.
 */
void held_walk(const char *base, struct held_walk *w,
	       void (*progress)(const char *key, const char *a, const char *b));

#endif /* HDP_TEST_HELD_HANDLES_H */
