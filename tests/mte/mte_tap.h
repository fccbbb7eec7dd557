/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the arm64 MTE tests share: TAP counting, the memory tag of an
 * address, and children that must die of a tag check fault, judged by the
 * signal, the line hdp wrote and whether they ran on past the bad access
 * (a flag in shared memory): that tells a fault at the access from one
 * delivered later. Plain C, since Criterion is not available for arm64.
 */
#ifndef HDP_TEST_MTE_TAP_H
#define HDP_TEST_MTE_TAP_H

#include <hdp/tag.h>

#include <stdbool.h>
#include <stddef.h>
#include <unistd.h>

extern int mte_failed;

/* The shared flag; 0 when MTE is there, else "1..0 # SKIP" said and 1. */
int mte_tap_start(void);
void ok(int cond, const char *what);
unsigned memory_tag_of(const void *p);
/* Set by a child right after its bad access: it ran on, the fault came later. */
extern volatile int *mte_ran_on;

/*
 * After a bad access: mark that the thread ran on, then enter the kernel.
 * Inline, so that the mark is made in the same stretch of code as the
 * access: qemu delivers an asynchronous fault when that stretch ends.
 */
static inline void after_access(void)
{
	*mte_ran_on = 1;
	getppid();
}
/*
 * Run @fn in a child; it should die of @sig having written @words (NULL:
 * anything), and have run on past its bad access (@later 1) or not (0);
 * -1: either.
 */
void dies_when(void (*fn)(void), int sig, const char *words, int later, const char *what);
/*
 * Run @fn in a child, which must end with exit status 0 (a correct
 * program that hdp must let run); if not, the end of what it wrote to
 * stderr is shown.
 */
void lives(void (*fn)(void), const char *what);
/* The words a fault report has in mode @m: synchronous ones name the pool. */
const char *fault_words(enum hdp_tag_check m, bool write, const char *pool, char *buf,
			size_t len);

#endif /* HDP_TEST_MTE_TAP_H */
