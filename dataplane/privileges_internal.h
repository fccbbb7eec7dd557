/* SPDX-License-Identifier: BSD-3-Clause */
/* Dropping privileges on every thread of the process (privileges_threads.c). */
#ifndef HDP_DATAPLANE_PRIVILEGES_INTERNAL_H
#define HDP_DATAPLANE_PRIVILEGES_INTERNAL_H

/* What each thread does for itself, in order: system calls only. */
void hdp_priv_no_new_privs_and_bounding(void);
void hdp_priv_no_capabilities(void);

/* Every thread but the caller runs @fn (in a signal handler); waited for. 0 or -errno. */
int hdp_priv_on_other_threads(void (*fn)(void));

/* Every other thread read back from /proc: no capability, no bounding set, no_new_privs. 0 or -EPERM (logged). */
int hdp_priv_all_threads_dropped(void);

#endif
