// SPDX-License-Identifier: BSD-3-Clause
/*
 * Software tags: the memory tag is the object's shadow in its metadata
 * (kept by the common code), and hdp's accessors compare it with the
 * pointer's. Setting a tag is therefore only the zeroing.
 */
#include "harden_internal.h"

static bool soft_probe(void)
{
	return true;
}

static int soft_attach(struct hdp_harden_pool *hp)
{
	(void)hp;
	return 0;
}

static void soft_set_tag(struct hdp_harden_pool *hp, void *obj, unsigned tag,
			 size_t zero_start, size_t zero_end)
{
	(void)hp;
	(void)tag;
	if (zero_end > zero_start)
		zero_wipe((char *)obj + zero_start, zero_end - zero_start);
}

const struct hdp_tag_ops hdp_tag_soft_ops = {
	.name = "soft",
	.probe = soft_probe,
	.pool_attach = soft_attach,
	.set_tag = soft_set_tag,
	.hardware_checks = false,
};
