/* SPDX-License-Identifier: BSD-3-Clause */
/* Per-object metadata and helpers shared by hardening's source files. */
#ifndef HDP_HARDENING_HARDEN_INTERNAL_H
#define HDP_HARDENING_HARDEN_INTERNAL_H

#include <hdp/counter.h>
#include <hdp/harden.h>
#include <hdp/tag.h>

/* 32 bits per object: tag, previous tag, state, epoch. */
#define META_TAG(m)	((unsigned)(m) & 0xf)
#define META_PREV(m)	(((unsigned)(m) >> 4) & 0xf)
#define META_ALLOCATED	(1u << 8)
#define META_WIPED	(1u << 9)
#define META_TAGGED	(1u << 10)
#define META_EPOCH(m)	((m) >> 16)

static inline uint32_t obj_index(const struct hdp_harden_pool *hp, uintptr_t u)
{
	uintptr_t off = u - hp->base;

	if (hdp_likely(hp->stride_shift != UINT32_MAX))
		return (uint32_t)(off >> hp->stride_shift);
	return (uint32_t)(off / hp->stride);
}

/* The metadata if it was recorded in this epoch, else 0 (nothing known). */
static inline uint32_t meta_now(struct hdp_harden_pool *hp, uint32_t idx,
				uint32_t epoch)
{
	uint32_t m = atomic_load_explicit(&hp->meta[idx], memory_order_relaxed);

	return META_EPOCH(m) == epoch ? m : 0;
}

static inline void meta_store(struct hdp_harden_pool *hp, uint32_t idx,
			      uint32_t m)
{
	atomic_store_explicit(&hp->meta[idx], m, memory_order_relaxed);
}

/* The tag the memory of object @idx has now (0: none or unknown). */
static inline unsigned memory_tag(struct hdp_harden_pool *hp, uint32_t idx,
				  uint32_t epoch)
{
	uint32_t m = meta_now(hp, idx, epoch);

	return (m & META_TAGGED) ? META_TAG(m) : 0;
}

/* Zeroing (zero.c). */
bool zero_is_clear(const void *p, size_t n, size_t *first_dirty);
void zero_wipe(void *p, size_t n);

/* Sampling: should this allocation be tagged? (tag.c) */
bool tag_sample_this(struct hdp_harden_tls *t, uint64_t w, size_t obj_size);

#endif /* HDP_HARDENING_HARDEN_INTERNAL_H */
