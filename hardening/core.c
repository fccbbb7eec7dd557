// SPDX-License-Identifier: BSD-3-Clause
/*
 * The key table and the descriptions: every key hdp defines (profile.h),
 * the counters (harden.h) and violation kinds (violation.h) of the core
 * and of hdp's own protections beyond it, as tables, sliced into the
 * parts that own them: the core's four, and quarantine, redzone and
 * shuffle; and the flags a profile turns on. Nothing here runs in a
 * burst: burst.c's steps test the flags.
 */
#include "harden_internal.h"
#include "protection_internal.h"

/* A CHOICE key's values, in the order of its enum. */
static const char *const hdp_lookup_choices[] = {
	[HDP_LOOKUP_FAST] = "fast", [HDP_LOOKUP_TREE] = "tree", NULL,
};
static const char *const hdp_init_free_choices[] = {
	[HDP_INIT_FREE_OFF] = "off", [HDP_INIT_FREE_ON] = "on", [HDP_INIT_FREE_USED] = "used",
	NULL,
};
static const char *const hdp_check_extent_choices[] = {
	[HDP_CHECK_EXTENT_ALL] = "all", [HDP_CHECK_EXTENT_HEAD] = "head", NULL,
};
static const char *const hdp_tag_choices[] = {
	[HDP_TAG_OFF] = "off", [HDP_TAG_AUTO] = "auto", [HDP_TAG_MTE] = "mte",
	[HDP_TAG_SOFT] = "soft", NULL,
};
static const char *const hdp_policy_choices[] = {
	[HDP_POLICY_ABORT] = "abort", [HDP_POLICY_DROP] = "drop",
	[HDP_POLICY_REPORT] = "report", NULL,
};

static const struct hdp_protection_key core_keys[HDP_CK__ALL] = {
#define KEY(KEY, name, type, ctype, def, lo, hi, choices, doc)                   \
	[HDP_CK_##KEY] = { #name, HDP_VALUE_##type, choices, lo, hi, def, doc },
	HDP_CORE_KEYS(KEY)
	HDP_OWN_KEYS(KEY)
	HDP_CONFIG_KEYS(KEY)
#undef KEY
};

static const struct hdp_protection_name core_counters[HDP_C__OWN_END] = {
#define COUNTER(COUNTER, name, doc) [HDP_C_##COUNTER] = { #name, doc },
	HDP_CORE_COUNTERS(COUNTER)
	HDP_OWN_COUNTERS(COUNTER)
#undef COUNTER
};

static const struct hdp_protection_name core_violations[HDP_V__OWN_END] = {
#define KIND(KIND, name, doc) [HDP_V_##KIND] = { #name, doc },
	HDP_CORE_VIOLATIONS(KIND)
	HDP_OWN_VIOLATIONS(KIND)
#undef KIND
};

/* How many lines each part's lists have. */
#define ONE(...) +1
enum {
	BOUNDS_KEYS = 0 HDP_BOUNDS_KEYS(ONE),
	INIT_KEYS = 0 HDP_INIT_KEYS(ONE),
	TAG_KEYS = 0 HDP_TAG_KEYS(ONE),
	POOL_KEYS = 0 HDP_POOL_KEYS(ONE),
	POOL_COUNTERS = 0 HDP_POOL_COUNTERS(ONE),
	INIT_COUNTERS = 0 HDP_INIT_COUNTERS(ONE),
	TAG_COUNTERS = 0 HDP_TAG_COUNTERS(ONE),
	POOL_KINDS = 0 HDP_POOL_VIOLATIONS(ONE),
	BOUNDS_KINDS = 0 HDP_BOUNDS_VIOLATIONS(ONE),
	INIT_KINDS = 0 HDP_INIT_VIOLATIONS(ONE),
	TAG_KINDS = 0 HDP_TAG_VIOLATIONS(ONE),
	QUARANTINE_KEYS = 0 HDP_QUARANTINE_KEYS(ONE),
	REDZONE_KEYS = 0 HDP_REDZONE_KEYS(ONE),
	SHUFFLE_KEYS = 0 HDP_SHUFFLE_KEYS(ONE),
	QUARANTINE_COUNTERS = 0 HDP_QUARANTINE_COUNTERS(ONE),
	REDZONE_COUNTERS = 0 HDP_REDZONE_COUNTERS(ONE),
	SHUFFLE_COUNTERS = 0 HDP_SHUFFLE_COUNTERS(ONE),
	REDZONE_KINDS = 0 HDP_REDZONE_VIOLATIONS(ONE),
};
#undef ONE

/* A part's slice of a list: its first entry and how many, or none. */
#define SLICE(list, first, count) .list = (count) ? &core_##list[first] : NULL, .n##list = (count)

const struct hdp_protection hdp_core[HDP_CORE_PARTS] = {
	{
		.name = "bounds",
		.doc = "bounds checks on copies into and out of pool memory (hardened usercopy)",
		SLICE(keys, 0, BOUNDS_KEYS),
		SLICE(violations, POOL_KINDS, BOUNDS_KINDS),
	},
	{
		.name = "init",
		.doc = "zero on allocation and free, and the write-after-free check "
		       "(init_on_alloc, init_on_free)",
		SLICE(keys, BOUNDS_KEYS, INIT_KEYS),
		SLICE(counters, POOL_COUNTERS, INIT_COUNTERS),
		SLICE(violations, POOL_KINDS + BOUNDS_KINDS, INIT_KINDS),
	},
	{
		.name = "tag",
		.doc = "sampled memory tagging, soft or arm64 MTE (hardware tag-based KASAN)",
		SLICE(keys, BOUNDS_KEYS + INIT_KEYS, TAG_KEYS),
		SLICE(counters, POOL_COUNTERS + INIT_COUNTERS, TAG_COUNTERS),
		SLICE(violations, POOL_KINDS + BOUNDS_KINDS + INIT_KINDS, TAG_KINDS),
	},
	{
		.name = "pool",
		.doc = "the pool's own keys, counters and checks (a pointer that is no "
		       "object, a double free, a guard fault), on whatever else is on",
		SLICE(keys, BOUNDS_KEYS + INIT_KEYS + TAG_KEYS, POOL_KEYS),
		SLICE(counters, 0, POOL_COUNTERS),
		SLICE(violations, 0, POOL_KINDS),
	},
};

/*
 * hdp's own protections beyond the core, described as third parties'
 * are (their names, keys, counters and kinds for every report), run as
 * steps of the pipeline (quarantine.c, redzone.c, shuffle.c), not
 * through hooks.
 */
#define OWN_KEYS (BOUNDS_KEYS + INIT_KEYS + TAG_KEYS + POOL_KEYS)
#define OWN_COUNTERS HDP_C__CORE
#define OWN_KINDS HDP_V__COUNT

const struct hdp_protection hdp_own[HDP_OWN__COUNT] = {
	[HDP_OWN_QUARANTINE] = {
		.name = "quarantine",
		.doc = "freed objects wait behind the next N frees before reuse",
		SLICE(keys, OWN_KEYS, QUARANTINE_KEYS),
		SLICE(counters, OWN_COUNTERS, QUARANTINE_COUNTERS),
	},
	[HDP_OWN_REDZONE] = {
		.name = "redzone",
		.doc = "writes past the end of a frame's data, found at free",
		SLICE(keys, OWN_KEYS + QUARANTINE_KEYS, REDZONE_KEYS),
		SLICE(counters, OWN_COUNTERS + QUARANTINE_COUNTERS, REDZONE_COUNTERS),
		SLICE(violations, OWN_KINDS, REDZONE_KINDS),
	},
	[HDP_OWN_SHUFFLE] = {
		.name = "shuffle",
		.doc = "a thread's cache hands objects out in a random order",
		SLICE(keys, OWN_KEYS + QUARANTINE_KEYS + REDZONE_KEYS, SHUFFLE_KEYS),
		SLICE(counters, OWN_COUNTERS + QUARANTINE_COUNTERS + REDZONE_COUNTERS,
		      SHUFFLE_COUNTERS),
	},
};
#undef SLICE
_Static_assert(OWN_KEYS + QUARANTINE_KEYS + REDZONE_KEYS + SHUFFLE_KEYS == HDP_CK__PROFILE,
	       "hdp's own keys follow the core's in the table");
_Static_assert(OWN_COUNTERS + QUARANTINE_COUNTERS + REDZONE_COUNTERS + SHUFFLE_COUNTERS ==
	       HDP_C__OWN_END, "hdp's own counters follow the core's");

uint32_t hdp_core_value(const struct hdp_profile *p, enum hdp_core_key k)
{
	switch (k) {
#define GET(KEY, name, ...) case HDP_CK_##KEY: return (uint32_t)p->name;
	HDP_PROFILE_KEYS(GET)
#undef GET
	default:
		return 0;
	}
}

void hdp_core_store(struct hdp_profile *p, enum hdp_core_key k, uint32_t v)
{
	switch (k) {
#define SET(KEY, name, type, ctype, ...) case HDP_CK_##KEY: p->name = (ctype)v; break;
	HDP_PROFILE_KEYS(SET)
#undef SET
	default:
		break;
	}
}

const struct hdp_protection_key *hdp_core_key(enum hdp_core_key k)
{
	return &core_keys[k];
}

int hdp_core_key_find(const char *name)
{
	for (int k = 0; k < HDP_CK__ALL; k++)
		if (strcmp(core_keys[k].name, name) == 0)
			return k;
	return -1;
}

/* The configuration's keys are init's: init_exclude takes pools out of zeroing. */
const char *hdp_core_key_part(enum hdp_core_key k)
{
	for (unsigned i = 0; i < HDP_CORE_PARTS; i++)
		if (&core_keys[k] >= hdp_core[i].keys &&
		    &core_keys[k] < hdp_core[i].keys + hdp_core[i].nkeys)
			return hdp_core[i].name;
	for (unsigned i = 0; i < HDP_OWN__COUNT; i++)
		if (&core_keys[k] >= hdp_own[i].keys &&
		    &core_keys[k] < hdp_own[i].keys + hdp_own[i].nkeys)
			return hdp_own[i].name;
	return k >= HDP_CK__PROFILE ? "init" : "?";
}

unsigned hdp_core_flags(const struct hdp_profile *p, uint32_t excluded, size_t obj_size)
{
	unsigned f = 0;

	if (p->bounds)
		f |= HDP_HF_BOUNDS | (p->bounds_lookup == HDP_LOOKUP_TREE ? HDP_HF_BOUNDS_TREE : 0);
	if (p->init_on_alloc && !(excluded & HDP_KEY_INIT_ON_ALLOC))
		f |= HDP_HF_INIT_ALLOC;
	if (p->init_on_free != HDP_INIT_FREE_OFF && !(excluded & HDP_KEY_INIT_ON_FREE))
		f |= HDP_HF_INIT_FREE |
		     (p->init_on_free == HDP_INIT_FREE_USED ? HDP_HF_INIT_USED : 0);
	/* A check of objects nobody wiped would flag every reuse. */
	if (p->init_check && (f & HDP_HF_INIT_FREE) && !(excluded & HDP_KEY_INIT_CHECK))
		f |= HDP_HF_INIT_CHECK |
		     ((f & HDP_HF_INIT_USED) && p->init_check_extent == HDP_CHECK_EXTENT_HEAD ?
		      HDP_HF_INIT_CHECK_HEAD : 0);
	/* The pool's objects all have one size: decide the always-tag once. */
	if (p->tag != HDP_TAG_OFF)
		f |= HDP_HF_TAG | (obj_size < p->tag_sample_min ? HDP_HF_TAG_ALWAYS : 0);
	return f;
}

const char *hdp_core_counter_name(enum hdp_counter c)
{
	return core_counters[c].name;
}

unsigned hdp_own_counter_base(unsigned own)
{
	return (unsigned)(hdp_own[own].counters - core_counters);
}

unsigned hdp_own_violation_base(unsigned own)
{
	return hdp_own[own].violations ? (unsigned)(hdp_own[own].violations - core_violations)
				       : HDP_V__OWN_END;
}

const char *hdp_core_violation_name(enum hdp_violation_kind kind)
{
	return core_violations[kind].name;
}

/* A profile built by hand may hold any number. */
static const char *choice(const char *const *choices, size_t n, unsigned v)
{
	return v < n - 1 ? choices[v] : "?";
}

const char *hdp_init_free_name(enum hdp_init_free v)
{
	return choice(hdp_init_free_choices, HDP_ARRAY_SIZE(hdp_init_free_choices), v);
}

const char *hdp_check_extent_name(enum hdp_check_extent v)
{
	return choice(hdp_check_extent_choices, HDP_ARRAY_SIZE(hdp_check_extent_choices), v);
}

const char *hdp_tag_mode_name(enum hdp_tag_mode v)
{
	return choice(hdp_tag_choices, HDP_ARRAY_SIZE(hdp_tag_choices), v);
}

const char *hdp_policy_name(enum hdp_policy policy)
{
	return choice(hdp_policy_choices, HDP_ARRAY_SIZE(hdp_policy_choices), policy);
}

uint64_t hdp_protection_core_counter(const struct hdp_harden_stats *h, unsigned part,
				     unsigned c)
{
	if (part >= HDP_CORE_PARTS || c >= hdp_core[part].ncounters)
		return 0;
	return h->counters[(size_t)(hdp_core[part].counters - core_counters) + c];
}

unsigned hdp_protection_core_count(void)
{
	return HDP_CORE_PARTS;
}

const struct hdp_protection *hdp_protection_core_get(unsigned i)
{
	return i < HDP_CORE_PARTS ? &hdp_core[i] : NULL;
}
