// SPDX-License-Identifier: BSD-3-Clause
/*
 * A slot layout (hdp/layout.h) made once: the stride's shift or
 * reciprocal, and for several chunks their order by address and the map
 * that finds an address's chunk in one step.
 */
#include <hdp/layout.h>
#include <hdp/log.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int chunk_by_base(const void *a, const void *b)
{
	const struct hdp_layout_chunk *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

static int chunk_by_first(const void *a, const void *b)
{
	const struct hdp_layout_chunk *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Do two chunks claim one slot number? (Sorted by number: neighbours tell.) */
static bool numbers_overlap(struct hdp_layout_chunk *c, uint32_t n, size_t stride)
{
	qsort(c, n, sizeof(*c), chunk_by_first);
	for (uint32_t i = 0; i + 1 < n; i++)
		if (c[i + 1].first - c[i].first < c[i].len / stride)
			return true;
	return false;
}

#define CHUNK_MAP_MAX (1u << 20)	/* 4 MiB of map at most */

/*
 * Granules no longer than the shortest chunk, so that no granule sees
 * more than one chunk start after its own; no map when the span would
 * need more than CHUNK_MAP_MAX granules (the binary search works, slower).
 */
static void build_chunk_map(struct hdp_layout *l)
{
	size_t shortest = SIZE_MAX, len;
	uint32_t shift, c = 0;

	for (uint32_t i = 0; i < l->chunk_count; i++)
		shortest = l->chunks[i].len < shortest ? l->chunks[i].len : shortest;
	shift = 63 - (uint32_t)__builtin_clzl(shortest);
	len = ((l->span - 1) >> shift) + 1;
	if (len > CHUNK_MAP_MAX)
		return;
	l->chunk_map = malloc(len * sizeof(*l->chunk_map));
	if (!l->chunk_map)
		return;
	for (size_t g = 0; g < len; g++) {
		uintptr_t start = l->base + (g << shift);

		while (c + 1 < l->chunk_count && l->chunks[c + 1].base <= start)
			c++;
		l->chunk_map[g] = c;
	}
	l->map_len = len;
	l->map_shift = shift;
}

/*
 * Each chunk a whole number of slots inside the layout's, none
 * overlapping another in memory or in numbers; sorted by address. base
 * and span become their span.
 */
static int take_chunks(struct hdp_layout *l, const struct hdp_layout_desc *d)
{
	struct hdp_layout_chunk *c = malloc(d->chunk_count * sizeof(*c));

	if (!c)
		return -ENOMEM;
	memcpy(c, d->chunks, d->chunk_count * sizeof(*c));
	if (numbers_overlap(c, d->chunk_count, d->stride)) {
		hdp_log(HDP_LOG_ERR, "pool '%s': two of its %u chunks claim the same slots",
			d->name, d->chunk_count);
		free(c);
		return -EINVAL;
	}
	qsort(c, d->chunk_count, sizeof(*c), chunk_by_base);
	for (uint32_t i = 0; i < d->chunk_count; i++) {
		size_t slots = c[i].len / d->stride;

		if (c[i].len % d->stride || slots > d->slots || c[i].first > d->slots - slots ||
		    (i + 1 < d->chunk_count && c[i + 1].base - c[i].base < c[i].len)) {
			hdp_log(HDP_LOG_ERR, "pool '%s': chunk %u (%zu bytes at %#lx, slot %u) "
				"overlaps another or lies outside the pool's %u slots", d->name,
				i, c[i].len, (unsigned long)c[i].base, c[i].first, d->slots);
			free(c);
			return -EINVAL;
		}
	}
	l->chunks = c;
	l->chunk_count = d->chunk_count;
	l->base = c[0].base;
	l->span = c[d->chunk_count - 1].base + c[d->chunk_count - 1].len - c[0].base;
	build_chunk_map(l);
	return 0;
}

bool hdp_layout_slot_chunked(const struct hdp_layout *l, uintptr_t a, uint32_t *idx,
			     size_t *in_slot)
{
	const struct hdp_layout_chunk *c;
	uint32_t lo = 0, hi = l->chunk_count, i;
	size_t off;

	if (a < l->base)
		return false;
	if (l->chunk_map) {
		size_t g = (a - l->base) >> l->map_shift;

		if (g >= l->map_len)
			return false;
		lo = l->chunk_map[g];
		if (lo + 1 < l->chunk_count && a >= l->chunks[lo + 1].base)
			lo++;
	} else {
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (l->chunks[mid].base <= a)
				lo = mid;
			else
				hi = mid;
		}
	}
	c = &l->chunks[lo];
	off = a - c->base;
	if (a < c->base || off >= c->len)
		return false;
	i = hdp_layout_div(l, off);
	*idx = c->first + i;
	*in_slot = off - (size_t)i * l->stride;
	return true;
}

bool hdp_layout_holds_slow(const struct hdp_layout *l, uint64_t off, uint32_t len)
{
	uint32_t idx;
	size_t in_slot;

	return off < l->span && hdp_layout_slot(l, l->base + (uintptr_t)off, &idx, &in_slot) &&
	       in_slot + len <= l->obj_size && !hdp_layout_is_gap(l, idx);
}

/*
 * ceil(2^64 / stride) when it divides every offset in a chunk exactly
 * (offset * stride < 2^64: the rounded-up reciprocal's error stays under
 * one stride), else 0 and hdp_layout_div divides.
 */
static uint64_t stride_magic(const struct hdp_layout *l)
{
	size_t longest = l->chunks ? 0 : l->span;

	if (l->stride_shift != UINT32_MAX || l->stride < 2)
		return 0;
	for (uint32_t i = 0; l->chunks && i < l->chunk_count; i++)
		longest = l->chunks[i].len > longest ? l->chunks[i].len : longest;
	if (longest > UINT64_MAX / l->stride)
		return 0;
	return UINT64_MAX / l->stride + 1;
}

int hdp_layout_init(struct hdp_layout *l, const struct hdp_layout_desc *d)
{
	int ret;

	*l = (struct hdp_layout){
		.base = d->base, .span = d->stride * d->slots, .obj_size = d->obj_size,
		.stride = d->stride, .slots = d->slots,
		.stride_shift = (d->stride & (d->stride - 1)) ? UINT32_MAX
							       : (uint32_t)__builtin_ctzl(d->stride),
		.gap_period = d->gap_period, .gap_objs = d->gap_objs, .starts = d->starts,
	};
	if (d->chunks && d->chunk_count) {
		ret = take_chunks(l, d);
		if (ret)
			return ret;
	}
	l->stride_magic = stride_magic(l);
	/* An AF_XDP UMEM, most pools: an object's check is a mask. */
	l->plain = !l->chunks && l->stride_shift != UINT32_MAX && !l->gap_period && !l->starts;
	return 0;
}

void hdp_layout_fini(struct hdp_layout *l)
{
	free(l->chunks);
	free(l->chunk_map);
	l->chunks = NULL;
	l->chunk_map = NULL;
}
