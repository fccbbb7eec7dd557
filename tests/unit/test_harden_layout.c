// SPDX-License-Identifier: BSD-3-Clause
/*
 * The slot layout (hdp/layout.h), over several chunks of memory as DPDK
 * populates a mempool (PA mode, --legacy-mem, an application's own
 * populate calls): every object of every chunk is indexed to its own
 * record, addresses between chunks belong to none, and chunk tables that
 * would let two objects share a record are refused.
 */
#include <criterion/criterion.h>

#include <hdp/harden.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "support.h"

TestSuite(harden_layout, .init = capture_logs);

#define STRIDE 2112		/* not a power of two: the division path */
#define SLOTS 50

static char *memory;		/* 1 MiB; chunks are carved out of it with gaps */

static void map_memory(void)
{
	memory = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	cr_assert_neq(memory, MAP_FAILED);
}

/* Three chunks, given out of address order, with gaps and odd offsets. */
static void three_chunks(struct hdp_layout_chunk c[3])
{
	c[0] = (struct hdp_layout_chunk){ (uintptr_t)memory + 600000, SLOTS * STRIDE, 0 };
	c[1] = (struct hdp_layout_chunk){ (uintptr_t)memory + 64, SLOTS * STRIDE, SLOTS };
	c[2] = (struct hdp_layout_chunk){ (uintptr_t)memory + 300016, SLOTS * STRIDE, 2 * SLOTS };
}

static int init(struct hdp_harden_pool *hp, const struct hdp_layout_chunk *c, uint32_t n)
{
	struct hdp_harden_pool_desc d = {
		.name = "chunks",
		.layout = { .obj_size = 2048, .stride = STRIDE, .slots = 3 * SLOTS,
			    .chunks = c, .chunk_count = n },
		.on_violation = HDP_POLICY_REPORT,
	};

	return hdp_harden_pool_init(hp, &d);
}

Test(harden_layout, every_slot_of_every_chunk_has_its_own_index)
{
	struct hdp_layout_chunk c[3];
	struct hdp_harden_pool hp;
	unsigned char seen[3 * SLOTS] = { 0 };

	map_memory();
	three_chunks(c);
	cr_assert_eq(init(&hp, c, 3), 0);
	for (int k = 0; k < 3; k++) {
		for (uint32_t s = 0; s < SLOTS; s++) {
			uint32_t idx = UINT32_MAX;
			size_t in_slot = SIZE_MAX;

			cr_assert(hdp_layout_slot(&hp.layout, c[k].base + s * STRIDE + 7, &idx, &in_slot));
			cr_assert_eq(idx, c[k].first + s, "chunk %d slot %u: index %u", k, s, idx);
			cr_assert_eq(in_slot, 7);
			seen[idx]++;
		}
	}
	for (unsigned i = 0; i < 3 * SLOTS; i++)
		cr_assert_eq(seen[i], 1, "index %u seen %u times", i, seen[i]);
	hdp_harden_pool_fini(&hp);
	munmap(memory, 1 << 20);
}

Test(harden_layout, addresses_between_and_around_chunks_are_in_none)
{
	struct hdp_layout_chunk c[3];
	struct hdp_harden_pool hp;
	uintptr_t outside[] = {
		(uintptr_t)memory,				/* below the lowest */
		(uintptr_t)memory + 64 + SLOTS * STRIDE,	/* just past a chunk */
		(uintptr_t)memory + 300015,			/* just before one */
		(uintptr_t)memory + 600000 + SLOTS * STRIDE,	/* past the highest */
		(uintptr_t)memory + (1 << 20) - 1,
	};

	map_memory();
	three_chunks(c);
	cr_assert_eq(init(&hp, c, 3), 0);
	for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
		uint32_t idx;
		size_t in_slot;

		cr_assert_not(hdp_layout_slot(&hp.layout, outside[i], &idx, &in_slot),
			      "address %zu of the list is in no chunk", i);
	}
	hdp_harden_pool_fini(&hp);
	munmap(memory, 1 << 20);
}

Test(harden_layout, objects_of_every_chunk_are_wiped_and_double_frees_caught)
{
	struct hdp_layout_chunk c[3];
	struct hdp_harden_pool hp;
	struct hdp_harden_tls t = { 0 };
	struct hdp_profile p;
	void *objs[3], *out[3];

	map_memory();
	three_chunks(c);
	cr_assert_eq(init(&hp, c, 3), 0);
	hdp_profile_defaults(&p);
	p.init_on_free = HDP_INIT_FREE_ON;
	p.init_check = true;
	p.init_check_sample = 1;
	p.tag = HDP_TAG_OFF;
	p.on_violation = HDP_POLICY_REPORT;
	cr_assert_eq(hdp_harden_pool_apply(&hp, &p, 0, NULL), 0);
	for (int k = 0; k < 3; k++)
		objs[k] = (void *)(c[k].base + (k + 3) * STRIDE);
	hdp_harden_pool_on_alloc(&hp, &t, hdp_harden_pool_view(&hp), objs, 3);
	for (int k = 0; k < 3; k++)
		memset(objs[k], 0xee, 2048);
	cr_assert_eq(hdp_harden_pool_on_free(&hp, &t, hdp_harden_pool_view(&hp), objs, NULL, out, 3), 3);
	for (int k = 0; k < 3; k++)
		cr_assert_eq(nonzero_bytes(objs[k], 2048), 0, "chunk %d's object was wiped", k);
	/* Free again: each one's own record says it is free. */
	cr_assert_eq(hdp_harden_pool_on_free(&hp, &t, hdp_harden_pool_view(&hp), objs, NULL, out, 3), 0);
	cr_assert_eq(atomic_load(&hp.violations[HDP_V_DOUBLE_FREE]), 3);
	/* A stale write into the middle chunk's object is found at its next allocation. */
	((char *)objs[1])[100] = 1;
	hdp_harden_pool_on_alloc(&hp, &t, hdp_harden_pool_view(&hp), objs, 3);
	cr_assert_eq(atomic_load(&hp.violations[HDP_V_WRITE_AFTER_FREE]), 1);
	hdp_harden_pool_fini(&hp);
	munmap(memory, 1 << 20);
}

Test(harden_layout, chunk_tables_that_share_a_record_are_refused)
{
	struct hdp_layout_chunk c[3];
	struct hdp_harden_pool hp;

	map_memory();
	three_chunks(c);
	c[2].base = c[1].base + STRIDE;		/* overlapping memory */
	cr_assert_eq(init(&hp, c, 3), -EINVAL);
	cr_assert(log_contains("overlaps another"));
	three_chunks(c);
	c[2].first = SLOTS + 1;			/* overlapping indexes */
	cr_assert_eq(init(&hp, c, 3), -EINVAL);
	cr_assert(log_contains("claim the same slots"));
	three_chunks(c);
	c[2].first = 2 * SLOTS + 1;		/* past the pool's count */
	cr_assert_eq(init(&hp, c, 3), -EINVAL);
	three_chunks(c);
	c[0].len = SLOTS * STRIDE - 1;		/* not whole slots */
	cr_assert_eq(init(&hp, c, 3), -EINVAL);
	munmap(memory, 1 << 20);
}

Test(harden_layout, tags_are_refused_over_several_chunks)
{
	struct hdp_layout_chunk c[3];
	struct hdp_harden_pool hp;
	struct hdp_profile p;

	map_memory();
	three_chunks(c);
	cr_assert_eq(init(&hp, c, 3), 0);
	hdp_profile_defaults(&p);
	p.tag = HDP_TAG_SOFT;
	cr_assert_eq(hdp_harden_pool_apply(&hp, &p, 0, NULL), -EINVAL);
	cr_assert(log_contains("needs the pool in one chunk"));
	hdp_harden_pool_fini(&hp);
	munmap(memory, 1 << 20);
}

/*
 * The reciprocal that replaces the division by a stride that is not a power
 * of two: exact for every offset up to the bound hdp_layout_init
 * checks (offset * stride < 2^64), around every multiple of the stride.
 */
Test(harden_layout, division_by_the_stride_reciprocal_is_exact)
{
	const size_t strides[] = { 3, 7, 1000, 2112, 2176, 2240, 4160, 9000, 65537, 1048640 };
	uint64_t rng = 88172645463325252ull;

	for (size_t k = 0; k < sizeof(strides) / sizeof(strides[0]); k++) {
		size_t d = strides[k], limit = UINT64_MAX / d;
		uint64_t magic = UINT64_MAX / d + 1;

		for (int i = 0; i < 200000; i++) {
			size_t q, off;

			rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
			q = (size_t)(rng % (limit / d + 1));
			off = q * d + (size_t)(rng >> 40) % d;
			if (i & 1)
				off = q * d - (q ? 1 : 0);	/* just below a multiple */
			if (off > limit)
				continue;
			cr_assert_eq(hdp_layout_div_by(UINT32_MAX, magic, d, off), (uint32_t)(off / d),
				     "stride %zu offset %zu", d, off);
		}
	}
}

/* The slot of @a by walking every chunk: what the map and the search must say. */
static bool slot_by_walking(const struct hdp_layout_chunk *c, uint32_t n, uintptr_t a,
			    uint32_t *idx, size_t *in_slot)
{
	for (uint32_t k = 0; k < n; k++) {
		if (a >= c[k].base && a - c[k].base < c[k].len) {
			*idx = c[k].first + (uint32_t)((a - c[k].base) / STRIDE);
			*in_slot = (a - c[k].base) % STRIDE;
			return true;
		}
	}
	return false;
}

/* Random layouts, dense (the chunk map) and sparse (the binary search). */
static void agree_with_walking(uintptr_t gap_scale)
{
	enum { N = 40 };
	struct hdp_layout_chunk c[N];
	struct hdp_harden_pool hp;
	uint64_t rng = 0x2545f4914f6cdd1dull + gap_scale;
	uintptr_t at = (uintptr_t)1 << 40, lo = at;
	uint32_t first = 0;

	for (int k = 0; k < N; k++) {
		uint32_t slots;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		slots = 1 + (uint32_t)(rng % 900);
		at += (uintptr_t)(rng >> 20) % gap_scale;	/* a gap, maybe none */
		c[k] = (struct hdp_layout_chunk){ at, (size_t)slots * STRIDE, first };
		at += c[k].len;
		first += slots;
	}
	struct hdp_harden_pool_desc d = {
		.name = "random",
		.layout = { .obj_size = 2048, .stride = STRIDE, .slots = first, .chunks = c,
			    .chunk_count = N },
		.on_violation = HDP_POLICY_REPORT,
	};
	cr_assert_eq(hdp_harden_pool_init(&hp, &d), 0);
	cr_assert_eq(hp.layout.chunk_map != NULL, gap_scale < ((uintptr_t)1 << 30),
		     "a map for dense layouts only");
	for (int i = 0; i < 300000; i++) {
		uintptr_t a;
		uint32_t i1 = 0, i2 = 0;
		size_t s1 = 0, s2 = 0;
		bool b1, b2;

		rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
		a = lo - 4096 + (uintptr_t)(rng % (at - lo + 8192));
		b1 = hdp_layout_slot(&hp.layout, a, &i1, &s1);
		b2 = slot_by_walking(c, N, a, &i2, &s2);
		cr_assert_eq(b1, b2, "address %#lx: in a chunk? %d vs %d", (unsigned long)a, b1, b2);
		cr_assert(!b1 || (i1 == i2 && s1 == s2), "address %#lx: slot %u+%zu vs %u+%zu",
			  (unsigned long)a, i1, s1, i2, s2);
	}
	hdp_harden_pool_fini(&hp);
}

Test(harden_layout, the_chunk_map_finds_the_same_slot_as_walking_every_chunk)
{
	agree_with_walking(1);
	agree_with_walking(3 * STRIDE);
	agree_with_walking((uintptr_t)1 << 24);
}

Test(harden_layout, chunks_too_far_apart_for_a_map_are_searched)
{
	agree_with_walking((uintptr_t)1 << 40);
}
