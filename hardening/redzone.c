// SPDX-License-Identifier: BSD-3-Clause
/*
 * redzone: a write past the end of a frame's data, found when the frame
 * is freed. The bounds check sees only what goes through a checked copy;
 * an application that writes a packet's trailer with its own stores, one
 * byte too far, is caught here.
 *
 * The first redzone_bytes past the end of the data (the write extent's
 * end, up to the end of the object) must still hold what they held when
 * the frame was handed out: zeros where init_on_free leaves free objects
 * zero, else a canary byte this protection wrote, chosen per pool at
 * random. Each object's record says which, and in which epoch it was
 * made: one made before the protection was last turned on says nothing
 * (frames changed hands unwatched), and that free is not checked.
 *
 * Cost per free: a read of the window (redzone_bytes, 64 by default, a
 * cache line or two next to the data just written), plus, where zeroing
 * is off, the canary written back over the bytes written (as
 * init_on_free=used writes zeros), and the whole object once per
 * epoch. A frame freed without a write extent is not checked.
 */
#include "harden_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

struct hdp_redzone {
	uint32_t *armed;	/* per object: era << 1 | canary, 0: nothing known */
	/*
	 * Eight random bytes, none zero, repeated along the object: an
	 * overrun that writes one byte value over several bytes (a memset)
	 * cannot match them all.
	 */
	uint64_t canary;
};

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
	       "the pattern words below are for little-endian loads");

/* What the 8 bytes at object offset @off hold: byte j is pattern byte (off + j) % 8. */
static inline uint64_t pattern_at(uint64_t pattern, size_t off)
{
	unsigned r = (unsigned)(off & 7) * 8;

	return r ? pattern >> r | pattern << (64 - r) : pattern;
}

static inline uint8_t pattern_byte(uint64_t pattern, size_t off)
{
	return (uint8_t)(pattern >> (off & 7) * 8);
}

/*
 * A burst's epoch in the 31 bits a record keeps: the protections' epoch
 * is 1..2^31 - 1 while one is on, and never reused (harden.h), so a
 * record's era names one epoch alone.
 */
static inline uint32_t era_of(uint64_t epoch)
{
	return (uint32_t)epoch;
}

/* What the window must hold, and whether it is recorded for this era. */
static inline bool armed_now(uint32_t a, uint32_t era)
{
	return (a >> 1) == era;
}

/*
 * The first byte of obj[off, off + n) that is not the pattern, or n.
 * Eight bytes at a time, OR-ed together: the usual answer, "none", costs
 * no branch per word.
 */
static size_t first_other(const unsigned char *obj, size_t off, size_t n, uint64_t pattern)
{
	uint64_t pw = pattern_at(pattern, off), acc = 0, v;
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		memcpy(&v, obj + off + i, 8);
		acc |= v ^ pw;
	}
	/* The rest: the last 8 bytes once more, overlapping, or byte by byte. */
	if (i < n && n >= 8) {
		memcpy(&v, obj + off + n - 8, 8);
		acc |= v ^ pattern_at(pattern, off + n - 8);
	} else {
		for (; i < n; i++)
			acc |= obj[off + i] ^ pattern_byte(pattern, off + i);
	}
	if (hdp_likely(!acc))
		return n;
	for (i = 0; i < n && obj[off + i] == pattern_byte(pattern, off + i); i++)
		;
	return i;
}

/* Write the pattern over obj[off, off + n). */
static void fill(unsigned char *obj, size_t off, size_t n, uint64_t pattern)
{
	uint64_t pw = pattern_at(pattern, off);
	size_t i = 0;

	if (!pattern) {
		memset(obj + off, 0, n);
		return;
	}
	for (; i + 8 <= n; i += 8)
		memcpy(obj + off + i, &pw, 8);
	for (; i < n; i++)
		obj[off + i] = pattern_byte(pattern, off + i);
}

HDP_COLD static void report(struct hdp_harden_pool *hp, unsigned char *obj, uint32_t end,
			    size_t first, size_t len, uint64_t pattern)
{
	char detail[128];

	snprintf(detail, sizeof(detail),
		 "byte %zu written, %zu past the end of the data (which ends at byte %u); "
		 "it should hold %s", (size_t)end + first, first + 1, end,
		 pattern ? "the canary" : "zero");
	hdp_harden_pool_violation(hp, HDP_V_REDZONE_OVERWRITTEN, obj + end + first,
				  hp->layout.obj_size, detail);
	/* The policy let it go on: put the window back for the next owner. */
	fill(obj, end + first, len - first, pattern);
}

#define PREFETCH_AHEAD 8

static inline void prefetch_window(void *obj, uint32_t end, uint32_t bytes)
{
	const char *w = (const char *)hdp_deref(obj) + end;

	__builtin_prefetch(w);
	__builtin_prefetch(w + bytes - 1);
}

void redzone_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		     struct hdp_harden_view v, void *const *objs, const struct hdp_extent *ext,
		     unsigned n, uint64_t refused)
{
	struct hdp_redzone *rz = hp->redzone;
	size_t size = hp->layout.obj_size;
	uint32_t bytes = atomic_load_explicit(&hp->redzone_bytes, memory_order_relaxed);
	/* The core's wipe runs after this and leaves the whole object zero. */
	bool zeroed = hdp_view_flags(v) & HDP_HF_INIT_FREE;
	uint32_t gen = era_of(v.epoch);
	uint64_t checked = 0, checked_bytes = 0, unchecked = 0;

	/*
	 * Nobody touched the window since the last free: its lines are cold.
	 * Ask for the first few, then for each one PREFETCH_AHEAD frames
	 * ahead, so that misses overlap without flooding the fill buffers.
	 */
	for (unsigned i = 0; ext && i < n && i < PREFETCH_AHEAD; i++)
		prefetch_window(objs[i], ext[i].end, bytes);
	for (unsigned i = 0; i < n; i++) {
		unsigned char *obj = hdp_deref(objs[i]);

		if (ext && i + PREFETCH_AHEAD < n)
			prefetch_window(objs[i + PREFETCH_AHEAD], ext[i + PREFETCH_AHEAD].end, bytes);
		uint32_t idx, a, end, start;
		size_t in_slot, len, first;

		if ((refused >> i & 1) ||
		    !hdp_layout_slot(&hp->layout, (uintptr_t)hdp_untag(objs[i]), &idx, &in_slot))
			continue;
		a = rz->armed[idx];
		if (!ext) {
			/* Where the data ended is unknown: neither checked nor re-armed. */
			unchecked++;
			rz->armed[idx] = zeroed ? gen << 1 : 0;
			continue;
		}
		end = ext[i].end < size ? ext[i].end : (uint32_t)size;
		start = ext[i].start < end ? ext[i].start : end;
		if (armed_now(a, gen)) {
			uint64_t pat = (a & 1) ? rz->canary : 0;

			len = size - end < bytes ? size - end : bytes;
			first = first_other(obj, end, len, pat);
			if (hdp_unlikely(first < len))
				report(hp, obj, end, first, len, pat);
			checked++;
			checked_bytes += len;
		} else {
			unchecked++;
		}
		if (zeroed) {
			rz->armed[idx] = gen << 1;
			continue;
		}
		/* The rest still holds the canary: write it back where data was. */
		if (a == (gen << 1 | 1))
			fill(obj, start, end - start, rz->canary);
		else
			fill(obj, 0, size, rz->canary);
		rz->armed[idx] = gen << 1 | 1;
	}
	if (t) {
		hdp_counter_add(&t->c.n[HDP_C_REDZONE_CHECKS], checked);
		hdp_counter_add(&t->c.n[HDP_C_REDZONE_BYTES_CHECKED], checked_bytes);
		hdp_counter_add(&t->c.n[HDP_C_REDZONE_UNCHECKED], unchecked);
	}
}

/* init_on_alloc zeroed the canary away: the window now holds zeros. */
void redzone_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_view v, void **objs,
		      unsigned n)
{
	struct hdp_redzone *rz = hp->redzone;
	uint32_t idx, gen = era_of(v.epoch);
	size_t in_slot;

	if (!(hdp_view_flags(v) & HDP_HF_INIT_ALLOC))
		return;
	for (unsigned i = 0; i < n; i++)
		if (hdp_layout_slot(&hp->layout, (uintptr_t)hdp_untag(objs[i]), &idx, &in_slot) &&
		    armed_now(rz->armed[idx], gen))
			rz->armed[idx] = gen << 1;
}

/*
 * Its records, the first time it is turned on in the pool; they stay
 * until the pool goes (a burst in flight never sees them freed).
 */
int redzone_prepare(struct hdp_harden_pool *hp, const struct hdp_profile *p, const char **why)
{
	struct hdp_redzone *rz;
	uint64_t c = 0;

	if (!p->redzone || hp->redzone)
		return 0;
	rz = calloc(1, sizeof(*rz));
	if (rz)
		rz->armed = calloc(hp->layout.slots, sizeof(*rz->armed));
	if (!rz || !rz->armed) {
		free(rz);
		*why = "no memory for its per-object records";
		return -ENOMEM;
	}
	/* No byte zero (that is the other pattern); not predictable from outside. */
	if (getrandom(&c, sizeof(c), 0) != sizeof(c))
		c = (uint64_t)(uintptr_t)rz * 0x9e3779b97f4a7c15ull;
	for (unsigned j = 0; j < 8; j++)
		if (!pattern_byte(c, j))
			c |= UINT64_C(0xa5) << j * 8;
	rz->canary = c;
	hp->redzone = rz;
	return 0;
}

void redzone_fini(struct hdp_harden_pool *hp)
{
	struct hdp_redzone *rz = hp->redzone;

	if (rz)
		free(rz->armed);
	free(rz);
	hp->redzone = NULL;
}
