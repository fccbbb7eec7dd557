/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Memory tagging's two backends: "soft" (the object's tag in hdp's record,
 * compared with the pointer's by hdp's checked copies and frees)
 * everywhere, and "mte" (arm64 Memory Tagging Extension: the CPU checks
 * every access) where the CPU and the kernel offer it. tag=auto picks mte
 * where this says yes.
 */
#ifndef HDP_TAG_H
#define HDP_TAG_H

#include <stdbool.h>

#include <hdp/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Does this CPU and kernel support MTE for user memory? Cheap after the first call. */
HDP_API bool hdp_tag_mte_available(void);

/*
 * MTE's tag check modes (the kernel's kasan.mode has the same three):
 * sync stops a read or a write with a bad tag at the instruction, with its
 * address; async lets it complete and delivers the fault at the thread's
 * next entry into the kernel, with no address; asymm (MTE3) checks reads
 * synchronously and writes asynchronously, at about async's cost.
 *
 * The mode is the process's, not a pool's: the kernel keeps it per thread,
 * and hdp sets it on every thread that uses an MTE pool (the thread that
 * turns MTE on, the threads it starts afterwards, and any other thread
 * when it first takes or gives back objects of such a pool). Ask before the first MTE pool is
 * configured (hdp_tag_check_request, else the environment variable
 * HDP_TAG_CHECK=sync|async|asymm; default sync); hdp then finds out what
 * the CPU and the kernel give, by a probe (a bad read and a bad write, in
 * children), and says once, at that point, when that is not what was
 * asked, and what it checks in instead.
 */
enum hdp_tag_check {
	HDP_TAG_CHECK_SYNC,
	HDP_TAG_CHECK_ASYNC,
	HDP_TAG_CHECK_ASYMM,
	HDP_TAG_CHECK_NONE,	/* in force: no tag checks at all */
};

/* "sync", "async", "asymm": 0, or -1 for anything else. */
HDP_API int hdp_tag_check_parse(const char *s, enum hdp_tag_check *mode);
HDP_API const char *hdp_tag_check_name(enum hdp_tag_check mode);

/* Ask for @mode. 0; -EBUSY once MTE is on in this process with another mode asked. */
HDP_API int hdp_tag_check_request(enum hdp_tag_check mode);

/* What was asked (the request, else HDP_TAG_CHECK, else sync). */
HDP_API enum hdp_tag_check hdp_tag_check_wanted(void);

/*
 * The mode in force, as probed when the first MTE pool turned MTE on; -1
 * before that (or with no MTE). @why (may be NULL) gets "" or the line
 * that said why it is not the mode asked for.
 */
HDP_API int hdp_tag_check_in_force(const char **why);

#ifdef __cplusplus
}
#endif

#endif /* HDP_TAG_H */
