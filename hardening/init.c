// SPDX-License-Identifier: BSD-3-Clause
/*
 * init on the one interface (builtin_internal.h): zero on allocation, zero
 * on free (whole, or the write extent), and the write-after-free check of
 * what was wiped. Its keys, counters and kinds, and the flags a profile
 * turns on; the hooks are the records pass it shares with tag
 * (records.c), the check zero.c's. init_exclude is
 * not one of its pool keys: it is one list for all pools (profile.h).
 */
#include "builtin_internal.h"
#include "harden_internal.h"

static const char *const init_free_choices[] = { "off", "on", "used", NULL };

const char *hdp_init_free_name(enum hdp_init_free v)
{
	return (unsigned)v < HDP_ARRAY_SIZE(init_free_choices) - 1 ? init_free_choices[v] : "?";
}

static const struct hdp_protection_key init_keys[] = {
	{ "init_on_alloc", HDP_PKEY_BOOL, .def = 0,
	  .doc = "zero objects when they are allocated (skipped when init_on_free already did)" },
	{ "init_on_free", HDP_PKEY_CHOICE, .choices = init_free_choices,
	  .def = HDP_INIT_FREE_ON,
	  .doc = "zero objects when they are freed; used wipes only the write extent the "
		 "pool was told" },
	{ "init_check", HDP_PKEY_BOOL, .def = 1,
	  .doc = "at allocation, verify that a wiped object is still zero where the last "
		 "free wiped it (on by default only where something wipes)" },
	{ "init_check_sample", HDP_PKEY_UINT, .min = 1, .max = HDP_CHECK_SAMPLE_MAX,
	  .def = HDP_CHECK_SAMPLE_DEFAULT,
	  .doc = "one allocation in N is checked whole, so a write beyond the extent is "
		 "still found; 1 checks every allocation whole" },
};

static const struct hdp_protection_name init_counters[] = {
	{ "bytes_wiped", "bytes zeroed on allocation and free" },
	{ "checks", "allocations checked for a write after free" },
};

static const struct hdp_protection_name init_violations[] = {
	{ "write_after_free", "a wiped free object was not zero at allocation" },
};

static const struct hdp_protection init_protection = {
	.name = "init",
	.doc = "zero on allocation and free, and the write-after-free check "
	       "(init_on_alloc, init_on_free)",
	.keys = init_keys,
	.nkeys = HDP_ARRAY_SIZE(init_keys),
	.counters = init_counters,
	.ncounters = HDP_ARRAY_SIZE(init_counters),
	.violations = init_violations,
	.nviolations = HDP_ARRAY_SIZE(init_violations),
	.on_alloc = hdp_records_on_alloc,
	.on_free = hdp_records_on_free,
};

static const struct hdp_builtin_field init_fields[] = {
	HDP_BUILTIN_FIELD(HDP_KEY_INIT_ON_ALLOC, init_on_alloc),
	HDP_BUILTIN_FIELD(HDP_KEY_INIT_ON_FREE, init_on_free),
	HDP_BUILTIN_FIELD(HDP_KEY_INIT_CHECK, init_check),
	HDP_BUILTIN_FIELD(HDP_KEY_INIT_CHECK_SAMPLE, init_check_sample),
};

static unsigned init_flags(const struct hdp_profile *p, uint32_t excluded, size_t obj_size)
{
	unsigned f = 0;

	(void)obj_size;
	if (p->init_on_alloc && !(excluded & HDP_KEY_INIT_ON_ALLOC))
		f |= HDP_HF_INIT_ALLOC;
	if (p->init_on_free != HDP_INIT_FREE_OFF && !(excluded & HDP_KEY_INIT_ON_FREE)) {
		f |= HDP_HF_INIT_FREE;
		if (p->init_on_free == HDP_INIT_FREE_USED)
			f |= HDP_HF_INIT_USED;
	}
	/* A check of objects nobody wiped would flag every reuse. */
	if (p->init_check && (f & HDP_HF_INIT_FREE) && !(excluded & HDP_KEY_INIT_CHECK))
		f |= HDP_HF_INIT_CHECK;
	return f;
}

const struct hdp_builtin hdp_builtin_init = {
	.desc = &init_protection,
	.fields = init_fields,
	.on_flags = HDP_HF_INIT_ALLOC | HDP_HF_INIT_FREE | HDP_HF_INIT_CHECK,
	.refusals = hdp_records_refusals,
	.flags = init_flags,
};
