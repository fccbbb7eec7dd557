/* SPDX-License-Identifier: BSD-3-Clause */
/* TAP for the DPDK test programs: one line per check, failures counted. */
#ifndef HDP_TESTS_DPDK_TAP_H
#define HDP_TESTS_DPDK_TAP_H

#include <stdbool.h>
#include <stdio.h>

static int n, failed;

static inline void ok(bool cond, const char *what)
{
	n++;
	if (!cond)
		failed++;
	printf("%sok %d - %s\n", cond ? "" : "not ", n, what);
}

#endif /* HDP_TESTS_DPDK_TAP_H */
