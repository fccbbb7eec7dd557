/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Named pools of fixed-size objects carved from one contiguous,
 * page-aligned region (hugepages when there are any), so that a pool's
 * region can serve directly as an AF_XDP UMEM.
 *
 * Every thread gets its own cache per pool: allocations and frees that the
 * cache can serve take no lock and write no cache line another thread
 * reads. Misses move objects to or from the pool's shared stack in one
 * locked batch.
 *
 * Naming: _bulk is all or nothing, _burst is best effort and returns a
 * count. Constructors return NULL and set errno; other calls that can fail
 * return 0 or a negative errno. Errors a person should read are logged
 * through hdp_log().
 */
#ifndef HDP_POOL_H
#define HDP_POOL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdp/harden.h>
#include <hdp/layout.h>
#include <hdp/profile.h>
#include <hdp/violation.h>

#include <hdp/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HDP_POOL_NAME_MAX	32		/* including the NUL */
#define HDP_POOL_MAX		256		/* pools alive at once */
#define HDP_POOL_OBJ_SIZE_MAX	(1u << 20)	/* 1 MiB */
#define HDP_POOL_OBJ_COUNT_MAX	(1u << 26)
#define HDP_POOL_REGION_MAX	((size_t)16 << 30)	/* 16 GiB */
#define HDP_POOL_ALIGN_MAX	4096u
#define HDP_POOL_ALIGN_DEFAULT	64u
#define HDP_POOL_CACHE_DEFAULT	256u
#define HDP_POOL_CACHE_MAX	1024u

struct hdp_pool;

/* Where a pool's region comes from. */
enum hdp_mem_kind {
	HDP_MEM_AUTO = 0,	/* HUGE_ANON, else PLAIN with a warning */
	HDP_MEM_HUGE_ANON,	/* mmap(MAP_HUGETLB) */
	HDP_MEM_HUGE_MEMFD,	/* memfd_create(MFD_HUGETLB) */
	HDP_MEM_HUGE_FILE,	/* an unlinked file on the hugetlbfs at huge_dir */
	HDP_MEM_PLAIN,		/* ordinary pages, MADV_HUGEPAGE */
};

enum hdp_pool_flags {
	/* Fail with ENOMEM instead of falling back to plain pages. */
	HDP_POOL_F_NO_FALLBACK = 1u << 0,
	/* No per-thread caches: every call goes to the shared stack. */
	HDP_POOL_F_NO_CACHE = 1u << 1,
};

struct hdp_pool_params {
	const char *name;	/* [A-Za-z0-9_-], 1..31 chars, unique */
	size_t obj_size;	/* 1..HDP_POOL_OBJ_SIZE_MAX */
	size_t obj_align;	/* power of two <= 4096; 0: 64 */
	uint32_t obj_count;	/* 1..HDP_POOL_OBJ_COUNT_MAX */
	uint32_t cache_size;	/* per-thread cache, <= obj_count / 2;
				   0: 256, or obj_count / 8 if smaller */
	enum hdp_mem_kind mem;
	const char *huge_dir;	/* hugetlbfs mount, for HDP_MEM_HUGE_FILE */
	unsigned flags;		/* enum hdp_pool_flags */
	enum hdp_policy on_violation;	/* default: abort */
	/*
	 * After every guard_gap objects, a gap of inaccessible pages, as
	 * hardened_malloc puts between slabs: a run off the end of one run
	 * of objects faults (a guard_page violation naming the pool and the
	 * object) instead of landing in the next object. 0: none, only the
	 * guards around the region. Needs plain pages (a hugepage cannot be
	 * split), a stride that divides the page size or is a multiple of it,
	 * and guard_gap objects that end on a page boundary. The gaps take
	 * slots: object indices skip them (hdp_pool_slots says where).
	 */
	uint32_t guard_gap;
	/*
	 * Zero (as an initializer leaves it): room for parameters a later
	 * libhdp.so.1 adds without changing this struct's size. Anything
	 * else here is refused (EINVAL), so that nothing is set by mistake.
	 */
	uint32_t reserved[15];
};

/*
 * Create a pool: map its region, register it, build its free stack.
 * The region is not touched, so memory is committed only as objects are
 * used. Returns NULL with errno: EINVAL (bad parameters), EEXIST (name
 * taken), ENOSPC (HDP_POOL_MAX pools), E2BIG (region above 16 GiB),
 * ENOMEM (no memory, or no hugepages under HDP_POOL_F_NO_FALLBACK),
 * ENOENT or ENOTDIR (huge_dir).
 */
HDP_API struct hdp_pool *hdp_pool_create(const struct hdp_pool_params *params);

/*
 * Unmap and forget the pool. Objects still in use are reported as leaked.
 * No other thread may use the pool during or after this call; their
 * caches go with the pool.
 */
HDP_API void hdp_pool_destroy(struct hdp_pool *pool);

/* The live pool called @name, or NULL. */
HDP_API struct hdp_pool *hdp_pool_find(const char *name);

/* Call @fn for every live pool, in creation order, until it returns non-0. */
HDP_API int hdp_pool_foreach(int (*fn)(struct hdp_pool *pool, void *ctx), void *ctx);

/*
 * Allocate exactly @n objects or none: returns 0 or -ENOMEM. Every
 * allocation and free goes through the hardening pipeline (hdp/harden.h),
 * with the pool as its back-end. Fast path: a thread-local cache pop,
 * plus one predictable branch when no protection is on.
 *
 * Tags: once a profile turns them on (tag=auto, soft or mte; a new pool
 * has them off), a pointer handed out may carry a tag in its top byte.
 * Reach the object's bytes through hdp_deref() (hdp/harden.h): a plain
 * access through a soft-tagged pointer is a bare SIGSEGV. Give the
 * pointer back as it was handed out: its tag is checked on free.
 */
HDP_API int hdp_pool_alloc_bulk(struct hdp_pool *pool, void **objs, unsigned n);

/* Allocate up to @n objects; returns how many were stored in @objs. */
HDP_API unsigned hdp_pool_alloc_burst(struct hdp_pool *pool, void **objs, unsigned n);

/*
 * Free up to @n objects; returns how many were freed. A pointer that is not
 * the start of one of this pool's objects is a violation handled by the
 * pool's policy (abort by default; otherwise counted, reported as
 * configured, and not freed).
 */
HDP_API unsigned hdp_pool_free_burst(struct hdp_pool *pool, void *const *objs,
				     unsigned n);

/*
 * As hdp_pool_free_burst(), telling the pool which bytes of each object
 * were written during its life (struct hdp_extent), so init_on_free=used
 * wipes only those. An extent that misses a written byte breaks "a free
 * object is all zero", which init_check's sampled whole-object check then
 * reports as a write after free: give the widest extent that was written.
 */
HDP_API unsigned hdp_pool_free_burst_extent(struct hdp_pool *pool, void *const *objs,
					    const struct hdp_extent *ext, unsigned n);

/*
 * Free all @n objects, or none if any pointer is invalid: 0 or -EINVAL.
 * (A double free that hardening finds refuses that object alone.)
 */
HDP_API int hdp_pool_free_bulk(struct hdp_pool *pool, void *const *objs, unsigned n);

static inline void *hdp_pool_alloc(struct hdp_pool *pool)
{
	void *obj;

	return hdp_pool_alloc_burst(pool, &obj, 1) ? obj : NULL;
}

/*
 * Free one object: 0, or -EINVAL when the pool refused it (no object of
 * the pool, a double free, a stale handle: a violation, seen here under
 * the drop and report policies; abort does not return).
 */
static inline int hdp_pool_free(struct hdp_pool *pool, void *obj)
{
	return hdp_pool_free_burst(pool, &obj, 1) == 1 ? 0 : -EINVAL;
}

/* Return the calling thread's cached objects to the shared stack. */
HDP_API void hdp_pool_cache_flush(struct hdp_pool *pool);

/*
 * Return every thread's cached objects to the shared stack, checking each
 * for a double free on the way. Only while no other thread allocates from
 * or frees to the pool. Returns the number of double frees found.
 */
HDP_API unsigned hdp_pool_drain(struct hdp_pool *pool);

/*
 * Hardening. A new pool has the built-in profile (bounds, init_on_free
 * with init_check, the built-in exclusions) with tags off and the
 * creator's on_violation, until something else is applied:
 * hdp_pool_configure() resolves @cfg for the pool's name, exclusions
 * included (on_violation stays the creator's unless @cfg names it);
 * hdp_pool_set() changes one key at run time, between bursts, and is
 * refused when it would turn another key off. Both: 0 or -EINVAL
 * (logged); hdp_pool_set() also
 * -EOVERFLOW when turning protections back on would need an epoch and
 * none is left (after 2^32 re-enables of the core's records, 2^31 of the
 * protections beyond the core).
 */
HDP_API int hdp_pool_configure(struct hdp_pool *pool, const struct hdp_harden_config *cfg);
HDP_API int hdp_pool_set(struct hdp_pool *pool, const char *key, const char *value);

/*
 * Copy @n bytes into (copy_in: @dst is pool memory) or out of (copy_out:
 * @src is) the pool, checked as the pool's profile says: bounds (region,
 * pool, object) and tags. 0, or -EFAULT when a violation was found and the
 * policy is drop or report (then nothing was copied).
 */
HDP_API int hdp_pool_copy_in(struct hdp_pool *pool, void *dst, const void *src, size_t n);
HDP_API int hdp_pool_copy_out(struct hdp_pool *pool, void *dst, const void *src, size_t n);

/*
 * Turn a descriptor (offset from the pool's base, length) into a pointer,
 * checking that it lies in the pool and within its chunk when bounds are
 * on. 0 or -EFAULT.
 */
HDP_API int hdp_pool_desc_to_ptr(struct hdp_pool *pool, uint64_t addr, uint32_t len,
				 void **out);

/*
 * A descriptor rule the caller checks itself (a chain's: @kind one of the
 * desc_chain_* kinds), refused: a violation of the pool, under its policy,
 * when its profile has bounds on. -EFAULT.
 */
HDP_API int hdp_pool_desc_refuse(struct hdp_pool *pool, enum hdp_violation_kind kind, uint64_t addr,
				 uint32_t len, const char *detail);

/*
 * An AF_XDP forwarder checks RX descriptors against the layout inline, one
 * compare each (the same test as hdp_pool_desc_to_ptr(), whose report a
 * refused one then gets). This counts @n such checks as the pool's, when
 * its profile has bounds on: one call per burst.
 */
HDP_API void hdp_pool_count_desc_checks(struct hdp_pool *pool, unsigned n);

/* The pool's hardening state, for the hdp_harden_pool_* calls. */
HDP_API struct hdp_harden_pool *hdp_pool_harden(struct hdp_pool *pool);

/*
 * The pool's slot layout (hdp/layout.h): where its objects are, one
 * stride apart from base, and its guard gaps. Valid while the pool lives.
 */
HDP_API const struct hdp_layout *hdp_pool_slots(const struct hdp_pool *pool);

/* The pool's mapping: its objects, the guard gaps' slots and the rest of its last page. */
struct hdp_pool_region {
	void *base;		/* page aligned; the layout's base */
	size_t len;		/* a multiple of page_size */
	size_t page_size;
	int id;			/* in the region registry */
};

HDP_API void hdp_pool_region(const struct hdp_pool *pool, struct hdp_pool_region *out);
HDP_API const char *hdp_pool_name(const struct hdp_pool *pool);

/* Index of object @obj (must be valid), and the object at @idx. */
HDP_API uint32_t hdp_pool_obj_index(const struct hdp_pool *pool, const void *obj);
HDP_API void *hdp_pool_obj_at(const struct hdp_pool *pool, uint32_t idx);

/* "auto", "huge-anon", "huge-memfd", "huge-file", "plain". */
HDP_API const char *hdp_mem_kind_name(enum hdp_mem_kind kind);

struct hdp_pool_stats {
	char name[HDP_POOL_NAME_MAX];
	uint64_t obj_count;
	uint64_t obj_size;
	uint64_t obj_stride;
	uint64_t in_use;	/* allocations - accepted frees */
	uint64_t free_shared;	/* in the shared stack */
	uint64_t free_cached;	/* in thread caches */
	uint64_t held;		/* freed, kept a while by a protection (quarantine) */
	uint64_t held_cut_short;	/* held ones handed out early: nothing else was left */
	uint64_t allocs;
	uint64_t frees;
	uint64_t alloc_fails;	/* calls that got fewer objects than asked */
	uint64_t cache_hits;	/* objects served by a thread cache alone */
	uint64_t cache_misses;	/* objects that needed the shared stack */
	uint64_t caches;	/* caches a live thread has */
	uint64_t region_bytes;
	uint64_t page_size;
	uint64_t pages;
	bool huge;		/* backed by hugepages */
	bool fallback;		/* wanted hugepages, got plain pages */
	enum hdp_mem_kind mem;
	struct hdp_harden_stats harden;	/* violations, wiping, tagging */
};

/*
 * A snapshot of the pool's counters. Exact when no other thread is using
 * the pool; otherwise each counter is a recent value of its own.
 */
HDP_API void hdp_pool_stats_get(struct hdp_pool *pool, struct hdp_pool_stats *out);

/*
 * Write @st as one JSON object, or as readable "key value" lines, into
 * @buf. Return the length wanted, as snprintf does.
 */
HDP_API int hdp_pool_stats_json(const struct hdp_pool_stats *st, char *buf, size_t len);
HDP_API int hdp_pool_stats_text(const struct hdp_pool_stats *st, char *buf, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* HDP_POOL_H */
