/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hardening state of one pool and the burst hooks the pool calls.
 *
 * A pool's effective settings (its profile, minus exclusions, minus what
 * the pool's objects allow) are computed once, when a profile is applied,
 * and packed into one 64-bit word. Every burst loads the word once: a
 * runtime change takes effect between bursts and never in the middle of
 * one. With no protection on, the pool's fast path tests the word's low
 * byte and goes on.
 *
 * Per object, hdp keeps 32 bits of metadata: the memory tag and the
 * previous one, whether it is allocated, wiped, tagged, and the epoch in
 * which that was recorded. Turning tracking on starts a new epoch, so
 * nothing recorded before (or not recorded while protections were off) is
 * trusted.
 *
 * Soft tags live in the top byte of the pointer (bits 56..59, where arm64
 * MTE keeps them); such a pointer must go through hdp's accessors
 * (hdp_untag(), the checked copies) on CPUs without top-byte-ignore.
 * Tag 0 is the match-all tag: pointers carrying it are never checked, and
 * it is never handed out to a sampled-in object.
 */
#ifndef HDP_HARDEN_H
#define HDP_HARDEN_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdp/compiler.h>
#include <hdp/profile.h>
#include <hdp/violation.h>

/* Effective flags: the word's low byte. */
enum hdp_hflag {
	HDP_HF_BOUNDS		= 1u << 0,
	HDP_HF_BOUNDS_TREE	= 1u << 1,
	HDP_HF_INIT_ALLOC	= 1u << 2,
	HDP_HF_INIT_FREE	= 1u << 3,
	HDP_HF_INIT_USED	= 1u << 4,	/* with INIT_FREE: wipe used bytes */
	HDP_HF_INIT_CHECK	= 1u << 5,
	HDP_HF_TAG		= 1u << 6,
	HDP_HF_TAG_MTE		= 1u << 7,	/* with TAG: the MTE backend */
};

/* Flags that need the alloc/free hooks (bounds checks live in copies). */
#define HDP_HF_HOOKS (HDP_HF_INIT_ALLOC | HDP_HF_INIT_FREE | HDP_HF_INIT_CHECK | \
		      HDP_HF_TAG)

/* The packed word: flags, policy, sampling, epoch. */
#define HDP_HW_POLICY_SHIFT	8
#define HDP_HW_SAMPLE_SHIFT	10	/* 16 bits */
#define HDP_HW_SMIN_SHIFT	26	/* 21 bits */
#define HDP_HW_EPOCH_SHIFT	47	/* 16 bits */

static inline unsigned hdp_hw_flags(uint64_t w) { return (unsigned)(w & 0xff); }
static inline enum hdp_policy hdp_hw_policy(uint64_t w)
{
	return (enum hdp_policy)((w >> HDP_HW_POLICY_SHIFT) & 3);
}
static inline uint32_t hdp_hw_sample(uint64_t w)
{
	return (uint32_t)((w >> HDP_HW_SAMPLE_SHIFT) & 0xffff);
}
static inline uint32_t hdp_hw_sample_min(uint64_t w)
{
	return (uint32_t)((w >> HDP_HW_SMIN_SHIFT) & 0x1fffff);
}
static inline uint32_t hdp_hw_epoch(uint64_t w)
{
	return (uint32_t)((w >> HDP_HW_EPOCH_SHIFT) & 0xffff);
}

#define HDP_TAG_SHIFT 56
#define HDP_TAG_MASK ((uintptr_t)0xff << HDP_TAG_SHIFT)

static inline void *hdp_untag(const void *p)
{
	return (void *)((uintptr_t)p & ~HDP_TAG_MASK);
}

/*
 * A pointer the CPU can dereference. arm64 ignores the top byte (TBI), so
 * the tag stays on and MTE checks it; elsewhere the tag has to come off,
 * and with it the soft tag's protection (use the checked copies for that).
 */
static inline void *hdp_deref(const void *p)
{
#if defined(__aarch64__)
	return (void *)p;
#else
	return hdp_untag(p);
#endif
}

static inline unsigned hdp_tag_of(const void *p)
{
	return (unsigned)(((uintptr_t)p >> HDP_TAG_SHIFT) & 0xf);
}

/* Counters one thread writes (single writer, relaxed). */
struct hdp_harden_counters {
	_Atomic uint64_t bytes_wiped;
	_Atomic uint64_t objs_tagged;
	_Atomic uint64_t checks;
};

/* One thread's state for one pool; lives in the pool's per-thread cache. */
struct hdp_harden_tls {
	uint32_t sample_countdown;	/* 0: tag the next one */
	uint64_t rng;
	struct hdp_harden_counters c;
};

struct hdp_harden_pool_desc {
	const char *name;
	uintptr_t base;
	size_t obj_size;
	size_t obj_stride;
	uint32_t obj_count;
	enum hdp_policy on_violation;	/* until a profile says otherwise */
};

/* A pool's hardening state. Embedded in the pool; do not touch. */
struct hdp_harden_pool {
	_Atomic uint64_t word;
	uintptr_t base;
	size_t obj_size;
	size_t stride;
	size_t objs_len;
	uint32_t count;
	uint32_t stride_shift;		/* log2(stride) or UINT32_MAX */
	_Atomic uint32_t *meta;
	const char *name;
	const struct hdp_tag_ops *tag_ops;

	_Atomic uint64_t violations[HDP_V__COUNT] HDP_CACHE_ALIGNED;
	struct hdp_harden_counters retired;	/* from exited threads */
	_Atomic uint64_t changes;
	_Atomic int64_t changed_at;	/* CLOCK_REALTIME seconds */
	/* What was applied: under apply_lock. */
	pthread_mutex_t apply_lock;
	struct hdp_profile current;
	uint32_t excluded;
	char profile_text[256];
	char exclude_text[128];
};

/* Set up @hp for a pool: 0, or -ENOMEM. No protection is on yet. */
int hdp_harden_pool_init(struct hdp_harden_pool *hp,
			 const struct hdp_harden_pool_desc *desc);
void hdp_harden_pool_fini(struct hdp_harden_pool *hp);

/*
 * Apply a resolved profile. @excluded is what hdp_harden_config_excluded()
 * said for this pool, @why its words. Takes effect with the next burst.
 * 0, or -EINVAL (tag=mte without MTE; logged). Serialise calls per pool.
 */
int hdp_harden_pool_apply(struct hdp_harden_pool *hp, const struct hdp_profile *p,
			  uint32_t excluded, const char *why);

/*
 * Change one key of the profile applied now (the control socket's "set"),
 * keeping the exclusions. 0, or -EINVAL with the reason logged.
 */
int hdp_harden_pool_set_key(struct hdp_harden_pool *hp, const char *key,
			    const char *value);

/* Resolve @cfg for this pool's name and apply it. */
int hdp_harden_pool_configure(struct hdp_harden_pool *hp,
			      const struct hdp_harden_config *cfg);

/* Load the word, once per burst. */
static inline uint64_t hdp_harden_word(struct hdp_harden_pool *hp)
{
	return atomic_load_explicit(&hp->word, memory_order_acquire);
}

/*
 * After @n objects left the pool: check (init_check), zero, pick tags.
 * Tagged objects get their tag in @objs. Never fails: an object found
 * written after free is reported, wiped again and handed out.
 */
void hdp_harden_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			 uint64_t w, void **objs, unsigned n);

/*
 * Before @n objects (already checked to be this pool's, tags still on)
 * go back: refuse double frees and stale handles, retag, wipe. @used, if
 * not NULL, says how many bytes of each object may have been written
 * (for init_on_free=used). The accepted objects, untagged, go to @out;
 * returns how many.
 */
unsigned hdp_harden_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			    uint64_t w, void *const *objs, const uint32_t *used,
			    void **out, unsigned n);

/*
 * Checked copies into and out of pool memory, keeping the kernel's order
 * of checks (zero length, NULL, wrap, region, object), then the tag
 * check. 0 on success; -EFAULT when a violation was found under the drop
 * or report policy (nothing was copied); under abort they do not return.
 */
int hdp_harden_copy_in(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		       void *dst, const void *src, size_t n);
int hdp_harden_copy_out(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			void *dst, const void *src, size_t n);

/*
 * Translate a descriptor (offset from the pool's base, as an AF_XDP UMEM
 * address, and a length) to a pointer, checking that it lies inside the
 * pool and that the length stays inside its chunk. 0 or -EFAULT.
 */
int hdp_harden_desc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		    uint64_t addr, uint32_t len, void **out);

/* Count a violation and act on it under the word's policy. */
void hdp_harden_violation(struct hdp_harden_pool *hp, enum hdp_violation_kind kind,
			  const void *addr, size_t size, const char *detail);

/* Fold a thread's counters into the pool's (the thread is leaving). */
void hdp_harden_tls_retire(struct hdp_harden_pool *hp, struct hdp_harden_tls *t);

struct hdp_harden_stats {
	unsigned flags;			/* enum hdp_hflag */
	enum hdp_policy on_violation;
	uint32_t tag_sample;
	uint32_t tag_sample_min;
	const char *tag_backend;	/* "off", "soft", "mte" */
	uint64_t bytes_wiped;
	uint64_t objs_tagged;
	uint64_t checks;
	uint64_t changes;
	int64_t changed_at;
	uint64_t violations[HDP_V__COUNT];
	char profile[256];
	char exclude[128];
};

/* Snapshot; @tls_sum adds counters of live threads the caller gathered. */
void hdp_harden_stats_get(struct hdp_harden_pool *hp,
			  const struct hdp_harden_counters *live,
			  struct hdp_harden_stats *out);

/* Accumulate one thread's counters into @sum (plain reads of atomics). */
void hdp_harden_counters_add(struct hdp_harden_counters *sum,
			     const struct hdp_harden_counters *c);

#endif /* HDP_HARDEN_H */
