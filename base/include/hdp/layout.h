/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pool's slot layout: where its objects are, and which slot an address
 * is in. One description, owned here and used by everyone who asks: the
 * pool's own pointer checks, the bounds and tag checks, the guard
 * handler, the DPDK driver and the forwarder (as the kernel's usercopy
 * asks the allocator, __check_heap_object, rather than keep a copy).
 *
 * Slots sit one stride apart from base, numbered 0..slots-1: in one run
 * (hdp's own pools, an AF_XDP UMEM) or in several chunks (a DPDK mempool,
 * made of whatever memory EAL had), numbered across all of them. Guard
 * gaps take slots too: of every gap_period slots, those from gap_objs on
 * are inaccessible pages, no objects.
 */
#ifndef HDP_LAYOUT_H
#define HDP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdp/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A run of slots one stride apart, and the number of its first slot. */
struct hdp_layout_chunk {
	uintptr_t base;
	size_t len;			/* its slots times the stride */
	uint32_t first;
};

struct hdp_layout_desc {
	uintptr_t base;			/* slot 0 (ignored with chunks) */
	size_t obj_size;		/* bytes of each slot that are the object's */
	size_t stride;
	uint32_t slots;			/* over every chunk, gaps included */
	uint32_t gap_period, gap_objs;	/* guard gaps; 0: none */
	/*
	 * Several chunks, or NULL for one run of @slots at @base. They must
	 * not overlap, and their slots must number 0..slots-1 between them.
	 * Copied.
	 */
	const struct hdp_layout_chunk *chunks;
	uint32_t chunk_count;
	/*
	 * Where in its slot each slot's object starts (a DPDK mempool's
	 * objects keep off page boundaries, so they are not evenly spaced),
	 * UINT32_MAX in a slot that holds none; NULL: at its first byte.
	 * Not copied: it must live as long as the layout.
	 */
	const uint32_t *starts;
	const char *name;		/* for messages */
};

/* Read on every burst; do not touch. */
struct hdp_layout {
	uintptr_t base;			/* with chunks: the first chunk's */
	size_t span;			/* bytes from base the slots cover */
	size_t obj_size;
	size_t stride;
	uint32_t slots;
	uint32_t stride_shift;		/* log2(stride), or UINT32_MAX */
	uint64_t stride_magic;		/* else ceil(2^64 / stride), or 0: divide */
	uint32_t gap_period, gap_objs;
	const uint32_t *starts;		/* as given; NULL: every object at its slot's start */
	bool plain;			/* one run, a power-of-two stride, no gaps, no starts */
	/* Several chunks, sorted by address; NULL for one run. */
	struct hdp_layout_chunk *chunks;
	uint32_t chunk_count;
	/*
	 * For each granule of 2^map_shift bytes of the span (no longer than
	 * the shortest chunk), the last chunk starting at or before it: the
	 * chunk of an address in one step. NULL: a binary search (a span too
	 * sparse for a table).
	 */
	uint32_t *chunk_map;
	size_t map_len;
	uint32_t map_shift;
};

/* 0, -EINVAL (bad chunks, logged) or -ENOMEM. */
HDP_API int hdp_layout_init(struct hdp_layout *l, const struct hdp_layout_desc *d);
HDP_API void hdp_layout_fini(struct hdp_layout *l);

__extension__ typedef unsigned __int128 hdp_u128;

/*
 * @off / stride without a division (tens of cycles) where the stride is
 * not a power of two, as a DPDK mbuf's 2176 bytes: a multiply by
 * ceil(2^64 / stride), exact while off * stride < 2^64, which
 * hdp_layout_init made sure of for every offset in a chunk. The fields
 * apart, for loops that keep them in registers.
 */
static inline uint32_t hdp_layout_div_by(uint32_t shift, uint64_t magic, size_t stride,
					 size_t off)
{
	if (hdp_likely(shift != UINT32_MAX))
		return (uint32_t)(off >> shift);
	if (hdp_likely(magic != 0))
		return (uint32_t)(((hdp_u128)off * magic) >> 64);
	return (uint32_t)(off / stride);
}

static inline uint32_t hdp_layout_div(const struct hdp_layout *l, size_t off)
{
	return hdp_layout_div_by(l->stride_shift, l->stride_magic, l->stride, off);
}

/* hdp_layout_slot for several chunks (layout.c). */
HDP_API bool hdp_layout_slot_chunked(const struct hdp_layout *l, uintptr_t a, uint32_t *idx,
				     size_t *in_slot);

/*
 * The slot holding @a (untagged): its number and @a's offset inside it.
 * false when no slot holds @a. One shift or multiply for one run; several
 * chunks take a call, out of the way of the usual case.
 */
static inline bool hdp_layout_slot(const struct hdp_layout *l, uintptr_t a, uint32_t *idx,
				   size_t *in_slot)
{
	size_t off = a - l->base;
	uint32_t i;

	if (hdp_unlikely(l->chunks != NULL))
		return hdp_layout_slot_chunked(l, a, idx, in_slot);
	if (a < l->base || off >= l->span)
		return false;
	i = hdp_layout_div(l, off);
	*idx = i;
	*in_slot = off - (size_t)i * l->stride;
	return true;
}

/* Is slot @idx in a guard gap (no object)? */
static inline bool hdp_layout_is_gap(const struct hdp_layout *l, uint32_t idx)
{
	return l->gap_period && idx % l->gap_period >= l->gap_objs;
}

/* Is @a the start of an object (where its slot's object starts, not in a gap)? */
static inline bool hdp_layout_is_object(const struct hdp_layout *l, uintptr_t a)
{
	uint32_t idx;
	size_t in_slot;

	if (hdp_likely(l->plain))
		return a - l->base < l->span && !((a - l->base) & (l->stride - 1));
	return hdp_layout_slot(l, a, &idx, &in_slot) &&
	       in_slot == (l->starts ? l->starts[idx] : 0) && !hdp_layout_is_gap(l, idx);
}

/* hdp_layout_holds for layouts that are not plain (layout.c). */
HDP_API bool hdp_layout_holds_slow(const struct hdp_layout *l, uint64_t off, uint32_t len);

/*
 * Do the @len bytes at offset @off from base lie inside one object (a
 * descriptor's check: an AF_XDP RX descriptor, a UMEM address)? A compare
 * and a mask for a plain layout, as a UMEM's is.
 */
static inline bool hdp_layout_holds(const struct hdp_layout *l, uint64_t off, uint32_t len)
{
	if (hdp_likely(l->plain))
		return off < l->span && (off & (l->stride - 1)) + len <= l->obj_size;
	return hdp_layout_holds_slow(l, off, len);
}

/* The first byte of slot @idx, for a layout in one run. */
static inline uintptr_t hdp_layout_slot_addr(const struct hdp_layout *l, uint32_t idx)
{
	return l->base + (uintptr_t)idx * l->stride;
}

#ifdef __cplusplus
}
#endif

#endif /* HDP_LAYOUT_H */
