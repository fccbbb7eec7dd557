/* SPDX-License-Identifier: BSD-3-Clause */
/* Dropping privileges on every thread of the process (privileges_threads.c). */
#ifndef HDP_DATAPLANE_PRIVILEGES_INTERNAL_H
#define HDP_DATAPLANE_PRIVILEGES_INTERNAL_H

/* What each thread does for itself, in order: system calls only. */
void hdp_priv_no_new_privs_and_bounding(void);
void hdp_priv_no_capabilities(void);

#include <stdbool.h>

/*
 * Every thread but the caller runs @fn (in a signal handler); waited for,
 * two seconds at most (a thread that does not answer is for the
 * read-back to name). 0, or a negative errno (no /proc/self/task).
 */
int hdp_priv_on_other_threads(void (*fn)(void));

enum hdp_priv_stage {
	HDP_PRIV_BOUNDING,	/* no_new_privs set, and the bounding set gone if @bounding */
	HDP_PRIV_ALL,		/* and no capability in any set */
};

/*
 * Every thread, the caller too, read back from /proc after @stage: 0, or
 * -EPERM with each thread that still holds something named in the log.
 * @bounding: the bounding set could be dropped (the caller had
 * CAP_SETPCAP); without it, no_new_privs keeps exec from using it.
 */
int hdp_priv_all_threads_dropped(enum hdp_priv_stage stage, bool bounding);

#endif
