// SPDX-License-Identifier: BSD-3-Clause
/* Tag sampling, tag choice, and backend selection. */
#include "harden_internal.h"

/*
 * KASAN's page_alloc sampling, per thread and pool: objects below
 * tag_sample_min are always tagged and do not count; above it the first
 * allocation is tagged, then one in every tag_sample.
 */
bool tag_sample_this(struct hdp_harden_tls *t, uint64_t w, size_t obj_size)
{
	if (obj_size < hdp_hw_sample_min(w))
		return true;
	if (t->sample_countdown) {
		t->sample_countdown--;
		return false;
	}
	t->sample_countdown = hdp_hw_sample(w) - 1;
	return true;
}

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

unsigned hdp_tag_choose(uint64_t *rng, const unsigned *avoid, unsigned n)
{
	/* Tags 1..15; 0 is the match-all tag and never handed out. */
	unsigned allowed = 0xfffe, k;

	for (unsigned i = 0; i < n; i++)
		allowed &= ~(1u << (avoid[i] & 0xf));
	allowed |= allowed ? 0 : 0xfffe;	/* cannot happen with n <= 3 */
	k = (unsigned)(xorshift(rng) % (unsigned)__builtin_popcount(allowed));
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
