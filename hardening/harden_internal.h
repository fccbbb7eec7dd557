/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-object metadata and helpers shared by hardening's source files. */
#ifndef HDP_HARDENING_HARDEN_INTERNAL_H
#define HDP_HARDENING_HARDEN_INTERNAL_H

#include <hdp/counter.h>
#include <hdp/harden.h>
#include <hdp/tag.h>

#include <string.h>

/*
 * One object's record (harden.h says what may be trusted). The state word
 * is atomic because neighbours' tags are read by other threads; the wiped
 * extent is read only by the object's next owner, after the pool handed
 * the object over.
 */
struct hdp_obj_meta {
	_Atomic uint64_t state;
	_Atomic uint64_t wiped;		/* what the last free wiped: start | end << 32 */
};

#define META_TAG(m)	((unsigned)(m) & 0xf)
#define META_PREV(m)	(((unsigned)(m) >> 4) & 0xf)
#define META_ALLOCATED	(1u << 8)
#define META_WIPED	(1u << 9)	/* free, and the whole object is zero */
#define META_TAGGED	(1u << 10)
#define META_CLEAN	(1u << 11)	/* allocated, and was all zero then */
#define META_EPOCH_SHIFT 16
#define META_EPOCH(m)	((m) >> META_EPOCH_SHIFT)

/* Like ZERO_OR_NULL_PTR: the first page is never valid. */
#define HDP_NULL_ZONE 4096

static inline uint32_t obj_index(const struct hdp_harden_pool *hp, uintptr_t u)
{
	return hdp_harden_div_stride(hp->stride_shift, hp->stride_magic, hp->stride, u - hp->base);
}

static inline uint64_t epoch_now(struct hdp_harden_pool *hp)
{
	return atomic_load_explicit(&hp->epoch, memory_order_acquire);
}

/* The state if it was recorded in this epoch, else 0 (nothing known). */
static inline uint64_t meta_now(struct hdp_harden_pool *hp, uint32_t idx,
				uint64_t epoch)
{
	uint64_t m = atomic_load_explicit(&hp->meta[idx].state, memory_order_relaxed);

	return META_EPOCH(m) == epoch ? m : 0;
}

/* The tag the memory of object @idx has now (0: none or unknown). */
static inline unsigned memory_tag(struct hdp_harden_pool *hp, uint32_t idx,
				  uint64_t epoch)
{
	uint64_t m = meta_now(hp, idx, epoch);

	return (m & META_TAGGED) ? META_TAG(m) : 0;
}

/* The zero check (zero.c). */
bool zero_is_clear(const void *p, size_t n, size_t *first_dirty);

/*
 * Zeroing: memset, not explicit_bzero (the object is live memory, not
 * dead), called from where it is needed rather than through a wrapper:
 * a packet's extent is a few dozen bytes, and a second call was a
 * measurable share of wiping them.
 */
static inline void zero_wipe(void *p, size_t n)
{
	memset(p, 0, n);
}

/*
 * The check, inline for the short ranges a packet's extent usually is:
 * 16 bytes at a time, the last 16 once more from the end, overlapping.
 * (Wiping stays with memset: overlapping vector stores followed by the
 * next owner's loads stall store forwarding, measured slower.)
 */
typedef uint64_t hdp_v2u64 __attribute__((vector_size(16)));
#define SHORT_MAX 128

static inline bool is_clear(const void *p, size_t n, size_t *first_dirty)
{
	const char *b = p;
	hdp_v2u64 acc, v;

	if (n < 16 || n > SHORT_MAX)
		return zero_is_clear(p, n, first_dirty);
	memcpy(&acc, b + n - 16, 16);
	for (size_t j = 0; j + 16 <= n; j += 16) {
		memcpy(&v, b + j, 16);
		acc |= v;
	}
	return hdp_likely(!(acc[0] | acc[1])) || zero_is_clear(p, n, first_dirty);
}

/*
 * Zero [p, p + n) for a caller whose bytes are not read again soon (a
 * DPDK mbuf freed alone waits a whole reuse queue): up to 64 bytes as
 * overlapping 16-byte stores, no call. (Where the next owner may read at
 * once, overlapping stores defeat store forwarding: zero_wipe.)
 */
static inline void zero_wipe_short(void *p, size_t n)
{
	static const hdp_v2u64 zero;
	char *b = p;

	if (n < 16 || n > 64) {
		if (n)
			zero_wipe(p, n);
		return;
	}
	memcpy(b, &zero, 16);
	memcpy(b + n - 16, &zero, 16);
	if (n > 32) {
		memcpy(b + 16, &zero, 16);
		memcpy(b + n - 32, &zero, 16);
	}
}

static inline uint64_t hdp_xorshift(uint64_t *s)
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
static inline bool tag_sample_this(struct hdp_harden_samplers *t, uint64_t w)
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
static inline bool check_whole_this(struct hdp_harden_samplers *t, uint64_t w)
{
	uint32_t n = hdp_hw_check_sample(w);

	if (t->check_countdown && t->check_countdown < 2 * n - 1) {
		t->check_countdown--;
		return false;
	}
	t->check_countdown = n > 1 ? (uint32_t)(hdp_xorshift(&t->rng) % (2 * n - 1)) : 0;
	return true;
}

#endif /* HDP_HARDENING_HARDEN_INTERNAL_H */
