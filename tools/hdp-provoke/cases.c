// SPDX-License-Identifier: BSD-3-Clause
/*
 * The violation catalogue, one function per bug. A case returns CAUGHT
 * when hdp noticed (a violation was counted, or the protection visibly did
 * its work) and MISSED otherwise; under on_violation=abort a caught case
 * never returns.
 */
#include "provoke.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define FRAME 2000	/* object size of the bounds pool: not a power of two */

static char scratch[8192];

static enum verdict seen(struct hdp_pool *pool, enum hdp_violation_kind kind)
{
	return provoke_seen(pool, kind) ? CAUGHT : MISSED;
}

static struct hdp_pool *frames(struct provoke_env *env)
{
	return provoke_pool(env, "frames", FRAME, 8);
}

/* --- bounds ------------------------------------------------------------ */

static enum verdict copy_to_overrun_1(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);
	char *obj = hdp_pool_alloc(p);

	hdp_pool_copy_in(p, obj, scratch, FRAME + 1);
	return seen(p, HDP_V_BOUNDS_OBJECT_END);
}

static enum verdict copy_to_overrun_granule(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);
	char *obj = hdp_pool_alloc(p);

	hdp_pool_copy_in(p, obj + 1000, scratch, FRAME - 1000 + 16);
	return seen(p, HDP_V_BOUNDS_OBJECT_END);
}

static enum verdict copy_from_overrun(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);

	hdp_pool_copy_out(p, scratch, hdp_pool_alloc(p), FRAME + 48);
	return seen(p, HDP_V_BOUNDS_OBJECT_END);
}

static enum verdict copy_span_objects(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);
	struct hdp_pool_region lay;
	const struct hdp_layout *slots;

	hdp_pool_region(p, &lay);
	slots = hdp_pool_slots(p);
	hdp_pool_copy_in(p, (char *)lay.base + slots->stride - 8, scratch, 16);
	return seen(p, HDP_V_BOUNDS_OBJECT_END);
}

static enum verdict copy_past_region(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);
	struct hdp_pool_region lay;

	hdp_pool_region(p, &lay);
	/* The last bytes of the mapping, and 4 beyond: would fault unchecked. */
	hdp_pool_copy_out(p, scratch, (char *)lay.base + lay.len - 4, 8);
	return seen(p, HDP_V_BOUNDS_REGION_END);
}

static enum verdict copy_no_region(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);
	char local[64];

	memset(local, 1, sizeof(local));
	hdp_pool_copy_in(p, local, scratch, sizeof(local));
	return seen(p, HDP_V_BOUNDS_NO_REGION);
}

static enum verdict copy_other_pool(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);
	struct hdp_pool *q = provoke_pool(env, "other", 64, 8);

	hdp_pool_copy_in(p, hdp_pool_alloc(q), scratch, 8);
	return seen(p, HDP_V_BOUNDS_OTHER_POOL);
}

static enum verdict copy_null(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);

	hdp_pool_copy_in(p, NULL, scratch, 8);
	return seen(p, HDP_V_BOUNDS_NULL);
}

static enum verdict copy_wrapped(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);

	hdp_pool_copy_out(p, scratch, (void *)(UINTPTR_MAX >> 8), 4096);
	return seen(p, HDP_V_BOUNDS_WRAP);
}

static enum verdict desc_outside_umem(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);
	void *ptr;

	hdp_pool_desc_to_ptr(p, (uint64_t)8 * 4096, 60, &ptr);
	return seen(p, HDP_V_DESC_OUTSIDE);
}

static enum verdict desc_past_chunk(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);
	void *ptr;

	hdp_pool_desc_to_ptr(p, 256, FRAME - 256 + 1, &ptr);
	return seen(p, HDP_V_DESC_PAST_CHUNK);
}

/* --- init -------------------------------------------------------------- */

static size_t dirty_bytes(const void *p, size_t n)
{
	const unsigned char *b = hdp_deref(p);
	size_t count = 0;

	for (size_t i = 0; i < n; i++)
		count += b[i] != 0;
	return count;
}

static enum verdict init_garbage_realloc(struct provoke_env *env)
{
	static const size_t sizes[] = { 8, 64, 100, 1500, 2048, 4096 };
	char name[16];

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		struct hdp_pool *p;
		void *obj;

		snprintf(name, sizeof(name), "meminit%zu", s);
		p = provoke_pool(env, name, sizes[s], 1);
		obj = hdp_pool_alloc(p);
		memset(hdp_deref(obj), 0xa5, sizes[s]);
		hdp_pool_free(p, obj);
		obj = hdp_pool_alloc(p);
		if (dirty_bytes(obj, sizes[s]))
			return MISSED;
	}
	return CAUGHT;
}

static enum verdict init_freed_reads_zero(struct provoke_env *env)
{
	struct hdp_pool *p = provoke_pool(env, "onfree", 512, 1);
	void *obj = hdp_pool_alloc(p);

	memset(hdp_deref(obj), 0x77, 512);
	hdp_pool_free(p, obj);
	return dirty_bytes(obj, 512) ? MISSED : CAUGHT;
}

static enum verdict init_write_after_free(struct provoke_env *env)
{
	struct hdp_pool *p = provoke_pool(env, "uaf", 256, 1);
	char *obj = hdp_untag(hdp_pool_alloc(p));	/* freed: tag 0 */

	hdp_pool_free(p, obj);
	obj[100] = 'x';
	hdp_pool_alloc(p);
	return seen(p, HDP_V_WRITE_AFTER_FREE);
}

/*
 * Write extents: a frame whose packet (at AF_XDP's 256-byte headroom) was
 * wiped by init_on_free=used, then written after free.
 */
#define HEADROOM 256
#define EXTENT_TRIES 200

static void *frame_with_packet(struct hdp_pool *p, uint32_t len, struct hdp_extent *ext)
{
	char *obj = hdp_pool_alloc(p);

	memset((char *)hdp_deref(obj) + HEADROOM, 0x42, len);
	*ext = (struct hdp_extent){ HEADROOM, HEADROOM + len };
	return obj;
}

static enum verdict init_write_after_free_extent(struct provoke_env *env)
{
	struct hdp_pool *p = provoke_pool(env, "frames", 2048, 1);
	struct hdp_extent ext;
	void *obj;

	/* A first round so that the frame is known clean and checked by extent. */
	for (int i = 0; i < 2; i++) {
		obj = frame_with_packet(p, 200, &ext);
		hdp_pool_free_burst_extent(p, &obj, &ext, 1);
	}
	((char *)hdp_untag(obj))[HEADROOM + 150] = 'x';	/* inside the extent */
	hdp_pool_alloc(p);
	return seen(p, HDP_V_WRITE_AFTER_FREE);
}

static enum verdict init_write_beyond_extent(struct provoke_env *env)
{
	struct hdp_pool *p = provoke_pool(env, "frames", 2048, 1);
	struct hdp_extent ext;
	void *obj;

	for (int i = 0; i < 2; i++) {
		obj = frame_with_packet(p, 60, &ext);
		hdp_pool_free_burst_extent(p, &obj, &ext, 1);
	}
	((char *)hdp_untag(obj))[1500] = 'x';	/* beyond it: the sampled whole check */
	for (int tries = 1; tries <= EXTENT_TRIES; tries++) {
		obj = frame_with_packet(p, 60, &ext);
		if (provoke_seen(p, HDP_V_WRITE_AFTER_FREE)) {
			printf("caught after %d allocations (init_check_sample=16, bound %d)\n",
			       tries, EXTENT_TRIES);
			return CAUGHT;
		}
		hdp_pool_free_burst_extent(p, &obj, &ext, 1);
	}
	printf("not caught in %d allocations\n", EXTENT_TRIES);
	return MISSED;
}

/* The case's own setting excludes cache-*: that pool keeps its bytes. */
static enum verdict init_excluded_not_wiped(struct provoke_env *env)
{
	struct hdp_pool *kept = provoke_pool(env, "cache-1", 256, 1);
	struct hdp_pool *wiped = provoke_pool(env, "msgs", 256, 1);
	void *a = hdp_pool_alloc(kept), *b = hdp_pool_alloc(wiped);

	memset(hdp_deref(a), 0x55, 256);
	memset(hdp_deref(b), 0x55, 256);
	hdp_pool_free(kept, a);
	hdp_pool_free(wiped, b);
	/* Read back through the untagged addresses: both objects are free. */
	return dirty_bytes(hdp_untag(a), 256) == 256 &&
	       dirty_bytes(hdp_untag(b), 256) == 0 ? CAUGHT : MISSED;
}

/* umem is built-in excluded from init_on_alloc; "none" wipes it again. */
static enum verdict init_exclude_none(struct provoke_env *env)
{
	struct hdp_pool *p = provoke_pool(env, "umem", 2048, 1);
	struct hdp_pool_region lay;

	hdp_pool_region(p, &lay);
	memset(lay.base, 0x66, 2048);	/* stale bytes in a free frame */
	return dirty_bytes(hdp_pool_alloc(p), 2048) ? MISSED : CAUGHT;
}

/* --- tag --------------------------------------------------------------- */

static struct hdp_pool *tagged(struct provoke_env *env, unsigned count)
{
	return provoke_pool(env, "tagged", 64, count);
}

static enum verdict tag_read_after_free(struct provoke_env *env)
{
	struct hdp_pool *p = tagged(env, 4);
	void *obj = hdp_pool_alloc(p);

	hdp_pool_free(p, obj);
	hdp_pool_copy_out(p, scratch, obj, 8);
	return seen(p, HDP_V_TAG_MISMATCH);
}

static enum verdict tag_write_after_free(struct provoke_env *env)
{
	struct hdp_pool *p = tagged(env, 4);
	void *obj = hdp_pool_alloc(p);

	hdp_pool_free(p, obj);
	hdp_pool_copy_in(p, obj, scratch, 8);
	return seen(p, HDP_V_TAG_MISMATCH);
}

static enum verdict tag_use_after_reuse(struct provoke_env *env)
{
	struct hdp_pool *p = tagged(env, 1);
	void *old = hdp_pool_alloc(p), *again;

	hdp_pool_free(p, old);
	again = hdp_pool_alloc(p);
	hdp_pool_free(p, again);
	hdp_pool_copy_out(p, scratch, old, 8);
	return seen(p, HDP_V_TAG_MISMATCH);
}

static enum verdict tag_overflow_right(struct provoke_env *env)
{
	struct hdp_pool *p = tagged(env, 4);
	void *objs[2];
	char *left;

	hdp_pool_alloc_bulk(p, objs, 2);
	left = hdp_untag(objs[0]) < hdp_untag(objs[1]) ? objs[0] : objs[1];
	hdp_pool_copy_in(p, left + 60, scratch, 8);
	return seen(p, HDP_V_TAG_MISMATCH);
}

static enum verdict tag_underflow_left(struct provoke_env *env)
{
	struct hdp_pool *p = tagged(env, 4);
	void *objs[2];
	char *right;

	hdp_pool_alloc_bulk(p, objs, 2);
	right = hdp_untag(objs[0]) > hdp_untag(objs[1]) ? objs[0] : objs[1];
	hdp_pool_copy_in(p, right - 4, scratch, 8);
	return seen(p, HDP_V_TAG_MISMATCH);
}

static enum verdict tag_double_free(struct provoke_env *env)
{
	/* Big enough for thread caches, so the pool alone would see it late. */
	struct hdp_pool *p = tagged(env, 64);
	void *obj = hdp_pool_alloc(p);

	hdp_pool_free(p, obj);
	hdp_pool_free(p, obj);
	/* Without hardening the pool finds it only when the cache drains. */
	return seen(p, HDP_V_DOUBLE_FREE);
}

static enum verdict tag_invalid_free_stale(struct provoke_env *env)
{
	struct hdp_pool *p = tagged(env, 1);
	void *old = hdp_pool_alloc(p);

	hdp_pool_free(p, old);
	hdp_pool_alloc(p);
	hdp_pool_free(p, old);	/* frees the new owner's object */
	return seen(p, HDP_V_INVALID_FREE);
}

static enum verdict tag_invalid_free_interior(struct provoke_env *env)
{
	struct hdp_pool *p = tagged(env, 4);

	hdp_pool_free(p, (char *)hdp_pool_alloc(p) + 8);
	return seen(p, HDP_V_FREE_INTERIOR);
}

static enum verdict tag_invalid_free_foreign(struct provoke_env *env)
{
	struct hdp_pool *p = tagged(env, 4);

	hdp_pool_free(p, scratch);
	return seen(p, HDP_V_FREE_FOREIGN);
}

static enum verdict tag_match_all_never_handed_out(struct provoke_env *env)
{
	struct hdp_pool *p = tagged(env, 4);

	for (int i = 0; i < 2000; i++) {
		void *obj = hdp_pool_alloc(p);

		if (hdp_tag_of(obj) == 0)
			return MISSED;
		hdp_pool_free(p, obj);
	}
	return CAUGHT;
}

static enum verdict tag_sampling_first_then_1_in_n(struct provoke_env *env)
{
	struct hdp_pool *p = provoke_pool(env, "sampled", 64, 64);
	void *objs[64];
	enum verdict v = CAUGHT;

	for (int i = 0; i < 64; i++) {
		objs[i] = hdp_pool_alloc(p);
		if ((hdp_tag_of(objs[i]) != 0) != (i % 8 == 0))
			v = MISSED;
	}
	hdp_pool_free_burst(p, objs, 64);
	return v;
}

/* --- guard pages: always there, whatever the profile ------------------ */

static enum verdict guard_write_past_region(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);
	struct hdp_pool_region lay;

	hdp_pool_region(p, &lay);
	/* A store of its own, no checked copy: only the guard can see it. */
	((volatile char *)lay.base)[lay.len] = 1;
	return MISSED;
}

static enum verdict guard_read_before_region(struct provoke_env *env)
{
	struct hdp_pool *p = frames(env);
	struct hdp_pool_region lay;
	volatile char c;

	hdp_pool_region(p, &lay);
	c = ((volatile char *)lay.base)[-1];
	(void)c;
	return MISSED;
}

/*
 * A raw store one byte past the last object before a guard gap: with the
 * gap it faults there; without one it would land in the next object.
 */
static enum verdict guard_gap_overrun(struct provoke_env *env)
{
	struct hdp_pool *p = provoke_pool_gapped(env, "gapped", 2048, 8, 2);
	struct hdp_pool_region lay;
	const struct hdp_layout *slots;

	hdp_pool_region(p, &lay);
	slots = hdp_pool_slots(p);
	((volatile char *)lay.base)[slots->gap_objs * slots->stride] = 1;
	return MISSED;
}

#define TAGS_ONLY "bounds=off"

const struct provoke_case provoke_cases[] = {
	{ "copy-to-overrun-1", "copy into an object, 1 byte past its end", "", copy_to_overrun_1 },
	{ "copy-to-overrun-granule", "copy into an object, 16 bytes past its end", "", copy_to_overrun_granule },
	{ "copy-from-overrun", "copy out of an object past its end", "", copy_from_overrun },
	{ "copy-span-objects", "copy spanning two objects", "", copy_span_objects },
	{ "copy-past-region", "copy past the end of a pool's region", "", copy_past_region },
	{ "copy-no-region", "copy with a pointer in no registered region", "", copy_no_region },
	{ "copy-other-pool", "copy meant for one pool landing in another", "", copy_other_pool },
	{ "copy-null", "copy through a NULL pointer", "", copy_null },
	{ "copy-wrapped", "copy whose range wraps the address space", "", copy_wrapped },
	{ "desc-outside-umem", "RX descriptor outside the UMEM", "", desc_outside_umem },
	{ "desc-past-chunk", "RX descriptor whose length runs past its chunk", "", desc_past_chunk },
	{ "init-garbage-realloc", "garbage written, freed, allocated again (6 sizes)", "", init_garbage_realloc },
	{ "init-freed-reads-zero", "freed memory reads back as zero", "", init_freed_reads_zero },
	{ "init-write-after-free", "write after free, found at the next allocation", "", init_write_after_free },
	{ "init-write-after-free-extent", "write after free inside the extent init_on_free=used wiped: caught every time", "init_on_free=used,init_check_sample=65535", init_write_after_free_extent },
	{ "init-write-beyond-extent", "write after free beyond that extent: caught by the sampled whole-object check", "init_on_free=used,init_check_sample=16", init_write_beyond_extent },
	{ "init-excluded-not-wiped", "an excluded pool keeps its bytes, others are wiped", "init_exclude=cache-*", init_excluded_not_wiped },
	{ "init-exclude-none", "init_exclude=none wipes a built-in excluded pool", "init_on_alloc=on,init_exclude=none", init_exclude_none },
	{ "tag-read-after-free", "read through a pointer after free", TAGS_ONLY, tag_read_after_free },
	{ "tag-write-after-free", "write through a pointer after free", TAGS_ONLY, tag_write_after_free },
	{ "tag-use-after-reuse", "old handle used after its slot was reused and freed", TAGS_ONLY, tag_use_after_reuse },
	{ "tag-overflow-right", "write running into the right neighbour", TAGS_ONLY, tag_overflow_right },
	{ "tag-underflow-left", "write starting in the left neighbour", TAGS_ONLY, tag_underflow_left },
	{ "tag-double-free", "the same object freed twice", TAGS_ONLY, tag_double_free },
	{ "tag-invalid-free-stale", "free through a stale handle after reuse", TAGS_ONLY, tag_invalid_free_stale },
	{ "tag-invalid-free-interior", "free of a pointer inside an object (always checked)", TAGS_ONLY, tag_invalid_free_interior },
	{ "tag-invalid-free-foreign", "free of a pointer from elsewhere (always checked)", TAGS_ONLY, tag_invalid_free_foreign },
	{ "tag-match-all-never-handed-out", "no tagged object gets the match-all tag", TAGS_ONLY, tag_match_all_never_handed_out },
	{ "tag-sampling-first-then-1-in-n", "tag_sample=8: the first, then one in eight", "tag_sample=8", tag_sampling_first_then_1_in_n },
	{ "guard-write-past-region", "store one byte past the end of a pool's region (always caught)", "", guard_write_past_region },
	{ "guard-read-before-region", "load the byte before a pool's region (always caught)", "", guard_read_before_region },
	{ "guard-gap-overrun", "store one byte past the last object before a guard gap (guard_gap=2)", "", guard_gap_overrun },
};

const unsigned provoke_ncases = sizeof(provoke_cases) / sizeof(provoke_cases[0]);
