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
#include <hdp/protection.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

enum { KEY_ON, KEY_BYTES };
enum { C_CHECKED, C_BYTES_CHECKED, C_UNCHECKED };
enum { V_OVERWRITTEN };

struct redzone_pool {
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
 * is 1..2^31 - 1 while one is on, and never reused (harden.h). (Folding a
 * 48-bit epoch into 31 bits once took records 2^31 - 1 epochs apart for
 * each other.)
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

HDP_COLD static void report(const struct hdp_protection_burst *b, unsigned char *obj,
			    uint32_t end, size_t first, size_t len, uint64_t pattern)
{
	char detail[128];

	snprintf(detail, sizeof(detail),
		 "byte %zu written, %zu past the end of the data (which ends at byte %u); "
		 "it should hold %s", (size_t)end + first, first + 1, end,
		 pattern ? "the canary" : "zero");
	hdp_protection_violation(b, V_OVERWRITTEN, obj + end + first,
				 b->pool->obj_size, detail);
	/* The policy let it go on: put the window back for the next owner. */
	fill(obj, end + first, len - first, pattern);
}

#define PREFETCH_AHEAD 8

static inline void prefetch_window(const struct hdp_protection_burst *b, void *obj,
				   uint32_t end)
{
	const char *w = (const char *)hdp_deref(obj) + end;

	__builtin_prefetch(w);
	__builtin_prefetch(w + b->values[KEY_BYTES] - 1);
}

static uint64_t redzone_on_free(const struct hdp_protection_burst *b, void *const *objs,
				const struct hdp_extent *ext, unsigned n)
{
	struct redzone_pool *rz = b->pool->state;
	size_t size = b->pool->obj_size;
	/* The built-in wipe runs after this and leaves the whole object zero. */
	bool zeroed = b->core_flags & HDP_HF_INIT_FREE;
	uint32_t gen = era_of(b->epoch);
	uint64_t checked = 0, bytes = 0, unchecked = 0;

	/*
	 * Nobody touched the window since the last free: its lines are cold.
	 * Ask for the first few, then for each one PREFETCH_AHEAD frames
	 * ahead, so that misses overlap without flooding the fill buffers.
	 */
	for (unsigned i = 0; ext && i < n && i < PREFETCH_AHEAD; i++)
		prefetch_window(b, objs[i], ext[i].end);
	for (unsigned i = 0; i < n; i++) {
		unsigned char *obj = hdp_deref(objs[i]);

		if (ext && i + PREFETCH_AHEAD < n)
			prefetch_window(b, objs[i + PREFETCH_AHEAD], ext[i + PREFETCH_AHEAD].end);
		uint32_t idx, a, end, start;
		size_t in_slot, len, first;

		if ((b->refused >> i & 1) ||
		    !hdp_layout_slot(b->pool->layout, (uintptr_t)hdp_untag(objs[i]), &idx, &in_slot))
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

			len = size - end < b->values[KEY_BYTES] ? size - end : b->values[KEY_BYTES];
			first = first_other(obj, end, len, pat);
			if (hdp_unlikely(first < len))
				report(b, obj, end, first, len, pat);
			checked++;
			bytes += len;
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
	hdp_protection_count(b, C_CHECKED, checked);
	hdp_protection_count(b, C_BYTES_CHECKED, bytes);
	hdp_protection_count(b, C_UNCHECKED, unchecked);
	return 0;
}

/* init_on_alloc zeroed the canary away: the window now holds zeros. */
static void redzone_on_alloc(const struct hdp_protection_burst *b, void **objs, unsigned n)
{
	struct redzone_pool *rz = b->pool->state;
	uint32_t idx;
	size_t in_slot;

	if (!(b->core_flags & HDP_HF_INIT_ALLOC))
		return;
	for (unsigned i = 0; i < n; i++)
		if (hdp_layout_slot(b->pool->layout, (uintptr_t)hdp_untag(objs[i]), &idx, &in_slot) &&
		    armed_now(rz->armed[idx], era_of(b->epoch)))
			rz->armed[idx] = era_of(b->epoch) << 1;
}

static int redzone_attach(struct hdp_protection_pool *pp, const uint32_t *values,
			  const char **why)
{
	struct redzone_pool *rz = pp->state;
	uint64_t c = 0;

	(void)values;
	if (rz)
		return 0;
	rz = calloc(1, sizeof(*rz));
	if (rz)
		rz->armed = calloc(pp->obj_count, sizeof(*rz->armed));
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
	pp->state = rz;
	return 0;
}

static void redzone_detach(struct hdp_protection_pool *pp)
{
	struct redzone_pool *rz = pp->state;

	if (rz)
		free(rz->armed);
	free(rz);
	pp->state = NULL;
}

static const struct hdp_protection_key redzone_keys[] = {
	[KEY_ON] = { "redzone", HDP_VALUE_BOOL, .def = 0,
		     .doc = "check, at free, that the bytes past the end of a frame's data "
			    "were not written" },
	[KEY_BYTES] = { "redzone_bytes", HDP_VALUE_SIZE, .min = 1, .max = 65535, .def = 64,
			.doc = "how many bytes past the end of the data are checked (at most "
			       "to the end of the object)" },
};

static const struct hdp_protection_name redzone_counters[] = {
	[C_CHECKED] = { "redzone_checks", "frees whose window was checked" },
	[C_BYTES_CHECKED] = { "redzone_bytes_checked", "bytes read in those windows" },
	[C_UNCHECKED] = { "redzone_unchecked",
			  "frees not checked: the first in an epoch, or without a "
			  "write extent" },
};

static const struct hdp_protection_name redzone_violations[] = {
	[V_OVERWRITTEN] = { "redzone_overwritten",
			    "bytes past the end of a frame's data were written" },
};


const struct hdp_protection hdp_redzone = {
	.name = "redzone",
	.doc = "writes past the end of a frame's data, found at free",
	.keys = redzone_keys, .nkeys = HDP_ARRAY_SIZE(redzone_keys),
	.counters = redzone_counters, .ncounters = HDP_ARRAY_SIZE(redzone_counters),
	.violations = redzone_violations, .nviolations = HDP_ARRAY_SIZE(redzone_violations),
	.attach = redzone_attach,
	.detach = redzone_detach,
	.on_alloc = redzone_on_alloc,
	.on_free = redzone_on_free,
};
