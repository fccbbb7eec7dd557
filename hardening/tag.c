// SPDX-License-Identifier: BSD-3-Clause
/* Tag sampling, tag choice, and backend selection. */
#include "harden_internal.h"

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/*
 * KASAN's page_alloc sampling, per thread and pool: objects below
 * tag_sample_min are always tagged and do not count (the pool's flag says
 * so, its object size being fixed); above it the first allocation is
 * tagged, then one in every tag_sample. A countdown left from a larger
 * tag_sample restarts, so a smaller one takes effect at once.
 */
bool tag_sample_this(struct hdp_harden_tls *t, uint64_t w)
{
	if (hdp_hw_flags(w) & HDP_HF_TAG_ALWAYS)
		return true;
	if (t->sample_countdown && t->sample_countdown < hdp_hw_sample(w)) {
		t->sample_countdown--;
		return false;
	}
	t->sample_countdown = hdp_hw_sample(w) - 1;
	return true;
}

/*
 * init_check's sampled whole-object check: the first allocation, then
 * gaps drawn at random with a mean of init_check_sample. Random, not a
 * fixed countdown: a frame that always comes back at the same place in
 * the reuse cycle must not always fall between two checks.
 */
bool check_whole_this(struct hdp_harden_tls *t, uint64_t w)
{
	uint32_t n = hdp_hw_check_sample(w);

	if (t->check_countdown && t->check_countdown < 2 * n - 1) {
		t->check_countdown--;
		return false;
	}
	t->check_countdown = n > 1 ? (uint32_t)(xorshift(&t->rng) % (2 * n - 1)) : 0;
	return true;
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
