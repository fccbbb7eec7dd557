/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-object metadata and helpers shared by hardening's source files. */
#ifndef HDP_HARDENING_HARDEN_INTERNAL_H
#define HDP_HARDENING_HARDEN_INTERNAL_H

#include <hdp/counter.h>
#include <hdp/harden.h>
#include <hdp/tag.h>

/*
 * One object's record (harden.h says what may be trusted). The state word
 * is atomic because neighbours' tags are read by other threads; the wiped
 * extent is read only by the object's next owner, after the pool handed
 * the object over.
 */
struct hdp_obj_meta {
	_Atomic uint64_t state;
	_Atomic uint32_t wiped_start;	/* what the last free wiped */
	_Atomic uint32_t wiped_end;
};

#define META_TAG(m)	((unsigned)(m) & 0xf)
#define META_PREV(m)	(((unsigned)(m) >> 4) & 0xf)
#define META_ALLOCATED	(1u << 8)
#define META_WIPED	(1u << 9)	/* free, and the whole object is zero */
#define META_TAGGED	(1u << 10)
#define META_CLEAN	(1u << 11)	/* allocated, and was all zero then */
#define META_EPOCH_SHIFT 16
#define META_EPOCH(m)	((m) >> META_EPOCH_SHIFT)

static inline uint32_t obj_index(const struct hdp_harden_pool *hp, uintptr_t u)
{
	uintptr_t off = u - hp->base;

	if (hdp_likely(hp->stride_shift != UINT32_MAX))
		return (uint32_t)(off >> hp->stride_shift);
	return (uint32_t)(off / hp->stride);
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

static inline void meta_store(struct hdp_harden_pool *hp, uint32_t idx,
			      uint64_t epoch, unsigned bits)
{
	atomic_store_explicit(&hp->meta[idx].state, epoch << META_EPOCH_SHIFT | bits,
			      memory_order_relaxed);
}

/* The tag the memory of object @idx has now (0: none or unknown). */
static inline unsigned memory_tag(struct hdp_harden_pool *hp, uint32_t idx,
				  uint64_t epoch)
{
	uint64_t m = meta_now(hp, idx, epoch);

	return (m & META_TAGGED) ? META_TAG(m) : 0;
}

/* Zeroing (zero.c). */
bool zero_is_clear(const void *p, size_t n, size_t *first_dirty);
void zero_wipe(void *p, size_t n);

/* Sampling: should this allocation be tagged? Checked whole? (tag.c) */
bool tag_sample_this(struct hdp_harden_tls *t, uint64_t w);
bool check_whole_this(struct hdp_harden_tls *t, uint64_t w);

#endif /* HDP_HARDENING_HARDEN_INTERNAL_H */
