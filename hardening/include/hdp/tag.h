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

/* Does this CPU and kernel support MTE for user memory? Cheap after the first call. */
bool hdp_tag_mte_available(void);

#endif /* HDP_TAG_H */
