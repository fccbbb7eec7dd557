/* SPDX-License-Identifier: BSD-3-Clause */
/* A count on the command line (frames, a rate), as hdp-gen and hdp-sink read it. */
#ifndef HDP_GEN_COUNT_H
#define HDP_GEN_COUNT_H

#include <stdint.h>

/*
 * Decimal digits only (no sign, space or base prefix), from @min to @max:
 * 0 with *@v set, or -1 (out of range, or not a number).
 */
int hdp_gen_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *v);

#endif
