// SPDX-License-Identifier: BSD-3-Clause
/* Tag sampling, tag choice, backend selection, and tag's check of copies. */
#include "builtin_internal.h"
#include "harden_internal.h"

#include <errno.h>
#include <stdio.h>

/* Bits set in a 16-bit mask, without a libgcc call where POPCNT is not assumed. */
static inline unsigned popcount16(unsigned x)
{
	x = x - ((x >> 1) & 0x5555);
	x = (x & 0x3333) + ((x >> 2) & 0x3333);
	x = (x + (x >> 4)) & 0x0f0f;
	return (x + (x >> 8)) & 0x1f;
}

unsigned hdp_tag_choose(uint64_t *rng, const unsigned *avoid, unsigned n)
{
	/* Tags 1..15; 0 is the match-all tag and never handed out. */
	unsigned allowed = 0xfffe, k;

	for (unsigned i = 0; i < n; i++)
		allowed &= ~(1u << (avoid[i] & 0xf));
	allowed |= allowed ? 0 : 0xfffe;	/* cannot happen with n <= 3 */
	k = (unsigned)(hdp_xorshift(rng) % popcount16(allowed));
	while (k--)
		allowed &= allowed - 1;
	return (unsigned)__builtin_ctz(allowed);
}

const struct hdp_tag_ops *hdp_tag_backend(enum hdp_tag_mode mode)
{
	switch (mode) {
	case HDP_TAG_OFF:
		return NULL;
	case HDP_TAG_MTE:
		return &hdp_tag_mte_ops;
	case HDP_TAG_SOFT:
		return &hdp_tag_soft_ops;
	case HDP_TAG_AUTO:
	default:
		return hdp_tag_mte_available() ? &hdp_tag_mte_ops : &hdp_tag_soft_ops;
	}
}

bool hdp_tag_mte_available(void)
{
	return hdp_tag_mte_ops.probe();
}

HDP_COLD static int tag_fail(struct hdp_harden_pool *hp, const void *p, uintptr_t at,
			     size_t n, unsigned mtag)
{
	char detail[96];

	snprintf(detail, sizeof(detail), "pointer tag %u, memory tag %u at byte %zu of the access",
		 hdp_tag_of(p), mtag, (size_t)(at - (uintptr_t)hdp_untag(p)));
	hdp_harden_violation(hp, HDP_V_TAG_MISMATCH, p, n, detail);
	return -EFAULT;
}

/*
 * tag's copy hook: every object [p, p + n) touches must carry the
 * pointer's tag. Checked here for both backends, so drop and report can
 * refuse the copy; under MTE the CPU checks the copy again as it happens.
 */
int hdp_tag_on_copy(const struct hdp_protection_burst *pb, const void *p, size_t n,
		    bool into_pool)
{
	const struct hdp_core_burst *cb = hdp_core_burst_of(pb);
	struct hdp_harden_pool *hp = cb->hp;
	uintptr_t u = (uintptr_t)hdp_untag(p), last = u + n - 1;
	unsigned ptag = hdp_tag_of(p);
	uint64_t epoch;

	(void)into_pool;
	/* The match-all tag; and a NULL pointer is bounds' to report, not ours. */
	if (ptag == 0 || u < HDP_NULL_ZONE)
		return 0;
	if (cb->t)
		hdp_counter_add(&cb->t->c.checks, 1);
	epoch = epoch_now(hp);
	for (uintptr_t a = u; a <= last && a >= u;) {
		unsigned mtag = 0;

		if (a - hp->base < hp->objs_len)
			mtag = memory_tag(hp, obj_index(hp, a), epoch);
		if (hdp_unlikely(mtag != ptag))
			return tag_fail(hp, p, a, n, mtag);
		/* On to the next object's first byte. */
		a = a - (a - hp->base) % hp->stride + hp->stride;
	}
	return 0;
}

/* tag on the one interface (builtin_internal.h): its keys, counters, kinds and hooks. */
static const char *const tag_choices[] = { "off", "auto", "mte", "soft", NULL };

const char *hdp_tag_mode_name(enum hdp_tag_mode v)
{
	return (unsigned)v < HDP_ARRAY_SIZE(tag_choices) - 1 ? tag_choices[v] : "?";
}

static const struct hdp_protection_key tag_keys[] = {
	{ "tag", HDP_PKEY_CHOICE, .choices = tag_choices, .def = HDP_TAG_AUTO,
	  .doc = "memory tagging: auto is mte where the CPU and kernel offer it, else soft" },
	{ "tag_sample", HDP_PKEY_UINT, .min = 1, .max = HDP_TAG_SAMPLE_MAX, .def = 1,
	  .doc = "tag the first allocation of each thread, then one in N; 1 tags every "
		 "allocation" },
	{ "tag_sample_min", HDP_PKEY_SIZE, .min = 0, .max = HDP_TAG_SAMPLE_MIN_MAX, .def = 0,
	  .doc = "objects smaller than this are always tagged" },
};

static const struct hdp_protection_name tag_counters[] = {
	{ "objs_tagged", "allocations given a fresh tag" },
};

static const struct hdp_protection_name tag_violations[] = {
	{ "tag_mismatch", "an access through a pointer whose tag is not the memory's" },
	{ "invalid_free", "a free through a stale handle: its tag is not the object's" },
};

static const struct hdp_protection tag_protection = {
	.name = "tag",
	.doc = "sampled memory tagging, soft or arm64 MTE (hardware tag-based KASAN)",
	.keys = tag_keys,
	.nkeys = HDP_ARRAY_SIZE(tag_keys),
	.counters = tag_counters,
	.ncounters = HDP_ARRAY_SIZE(tag_counters),
	.violations = tag_violations,
	.nviolations = HDP_ARRAY_SIZE(tag_violations),
	.on_alloc = hdp_records_on_alloc,
	.on_free = hdp_records_on_free,
	.on_copy = hdp_tag_on_copy,
};

static const struct hdp_builtin_field tag_fields[] = {
	HDP_BUILTIN_FIELD(HDP_KEY_TAG, tag),
	HDP_BUILTIN_FIELD(HDP_KEY_TAG_SAMPLE, tag_sample),
	HDP_BUILTIN_FIELD(HDP_KEY_TAG_SAMPLE_MIN, tag_sample_min),
};

static unsigned tag_flags(const struct hdp_profile *p, uint32_t excluded, size_t obj_size)
{
	(void)excluded;
	if (p->tag == HDP_TAG_OFF)
		return 0;
	/* The pool's objects all have one size: decide the always-tag once. */
	return HDP_HF_TAG | (obj_size < p->tag_sample_min ? HDP_HF_TAG_ALWAYS : 0);
}

const struct hdp_builtin hdp_builtin_tag = {
	.desc = &tag_protection,
	.fields = tag_fields,
	.on_flags = HDP_HF_TAG,
	.refusals = hdp_records_refusals,
	.flags = tag_flags,
};
