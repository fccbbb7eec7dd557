// SPDX-License-Identifier: BSD-3-Clause
/*
 * arm64 MTE: the CPU compares the pointer's tag (bits 56..59) with the
 * tag of every 16-byte granule it touches. hdp maps pool memory PROT_MTE,
 * asks for synchronous tag-check faults, sets tags with STG (or STZG to
 * tag and zero in one pass), and turns a SEGV_MTESERR into its own
 * violation report.
 */
#include "harden_internal.h"

#include <errno.h>

#include "config.h"

#if defined(__aarch64__) && HDP_HAVE_MTE
#include "tag_mte_arm64.h"
#else
static bool mte_probe(void)
{
	return false;
}

static int mte_attach(struct hdp_harden_pool *hp)
{
	(void)hp;
	return -EOPNOTSUPP;
}

static void mte_set_tag(struct hdp_harden_pool *hp, void *obj, unsigned tag,
			size_t zero_len)
{
	(void)hp;
	(void)obj;
	(void)tag;
	(void)zero_len;
}
#endif

const struct hdp_tag_ops hdp_tag_mte_ops = {
	.name = "mte",
	.probe = mte_probe,
	.pool_attach = mte_attach,
	.set_tag = mte_set_tag,
	.hardware_checks = true,
};
