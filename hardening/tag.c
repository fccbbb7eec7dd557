// SPDX-License-Identifier: BSD-3-Clause
/* Tag sampling, tag choice, and backend selection. */
#include "harden_internal.h"

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
