/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hardening state of one pool, and the pipeline every allocation and
 * free of it goes through.
 *
 * hardening/ owns the sequence; a pool is a back-end that says where free
 * objects live (struct hdp_harden_pool_ops, as DPDK's rte_mempool_ops
 * says it for a mempool): hdp's own pools keep them in a shared stack
 * behind per-thread caches (mempool/), the DPDK driver in an rte_ring
 * (dpdk/). A pool calls hdp_harden_pool_alloc() and hdp_harden_pool_free()
 * once per burst; they run every step in order (burst.c says which) and
 * take objects from the back-end, or hand them to it, at the end.
 *
 * A pool's effective settings (its profile, minus exclusions, minus what
 * the pool's objects allow) are computed once, when a profile is applied,
 * and packed into one 64-bit word. Every burst reads the word once, with
 * the epoch it belongs to (hdp_harden_pool_view): a runtime change takes
 * effect between bursts and never in the middle of one. With no
 * protection on, the pool's fast path tests the word's low bits and goes
 * on.
 *
 * Per object, hdp keeps a record (the memory tag and the previous one;
 * whether it is allocated, wiped, tagged, handed out clean; the epoch in
 * which that was recorded) and the extent the last free wiped; the
 * protections beyond the core keep theirs. The rule that keeps every
 * check honest, whatever is switched at run time:
 *
 *   A record is trusted only if it was made in the current epoch of
 *   whoever keeps it, and a new one starts whenever something that keeps
 *   records is turned on: while it was off, objects changed hands
 *   unrecorded. The core's records and the protections' have an epoch
 *   each: a protection turned on (shuffle, say) says nothing about the
 *   core's, which were kept all along (a new core epoch then would
 *   refuse a live tagged handle's copies, and take a double free across
 *   the switch for a first one). The core's records resuming starts a
 *   new epoch for both. A record from an
 *   earlier epoch says nothing, to every step alike: a free through a
 *   tagged handle, and a checked copy through one, have nothing to
 *   compare the tag with and pass (the handle may be from before the
 *   records stopped, and still good).
 *   Records state only what was done: "wiped" means the whole object was
 *   zero after that free, which a partial (init_on_free=used) wipe can
 *   only claim for an object that was zero when it was handed out
 *   ("clean"); an object that was not gets the whole wipe once.
 *
 * A handle keeps the tag it was handed out with, whatever is switched
 * while it is held; the memory follows. When a pool's memory first takes
 * MTE tags (tag=mte, or auto on an MTE CPU), it is all tag 0: every
 * object the records show held with a tag gets that tag in memory before
 * the switch returns, so that a soft-tagged handle, dereferenced, finds
 * its own tag (tag_mte.c). That is why tag=off keeps the records in a
 * pool that could take MTE tags later (TAG_KEPT, below).
 *
 * For that, a burst labels its records with the epoch of the very word it
 * acts on (never a later one: a burst still acting on an old word must not
 * write into an epoch whose word it has not seen), and reads the word
 * after it holds its objects: an allocation's word is then at least as
 * new as the word of the free that let the object go. Both epochs live
 * in one 64-bit counter, read as one with the word: the core's in the
 * high 32 bits, the protections' in the low 31 (redzone's records keep
 * 31). They are never reused: at the last one, turning on what would
 * need the next is refused (2^31 re-enables: 68 years at one a second).
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
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdp/compiler.h>
#include <hdp/counter.h>
#include <hdp/layout.h>
#include <hdp/profile.h>
#include <hdp/violation.h>

#ifndef __cplusplus
#include <stdatomic.h>
#endif

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The effective flags, one line each: X(FLAG, name). A profile's keys
 * turn them on (core.c); the allocation and free steps test them.
 */
#define HDP_HFLAGS(X)                                                             \
	X(BOUNDS, bounds)                                                          \
	X(BOUNDS_TREE, bounds_tree)	/* with BOUNDS: the tree lookup */          \
	X(INIT_ALLOC, init_alloc)                                                  \
	X(INIT_FREE, init_free)                                                    \
	X(INIT_USED, init_used)		/* with INIT_FREE: wipe the extent written */ \
	X(INIT_CHECK, init_check)                                                  \
	X(INIT_CHECK_HEAD, init_check_head)	/* with INIT_CHECK: the extent's head only */ \
	X(TAG, tag)                                                                \
	X(TAG_KEPT, tag_kept)		/* tag off, tags handed out still kept: below */ \
	X(TAG_ALWAYS, tag_always)	/* objects below tag_sample_min */          \
	X(PROTECTIONS, protections)	/* a protection beyond the core has work here */

enum hdp_hflag_bit {
#define HDP_HF_BIT(FLAG, name) HDP_HFB_##FLAG,
	HDP_HFLAGS(HDP_HF_BIT)
#undef HDP_HF_BIT
	HDP_HF__COUNT
};

enum hdp_hflag {
#define HDP_HF_ENUM(FLAG, name) HDP_HF_##FLAG = 1u << HDP_HFB_##FLAG,
	HDP_HFLAGS(HDP_HF_ENUM)
#undef HDP_HF_ENUM
};

/*
 * Flags whose steps keep the core's per-object records. TAG_KEPT replaces
 * TAG when tag goes off in a pool that handed out tags and may meet them
 * again in memory: one whose memory took MTE tags (its frees must still
 * reset a tag to 0, or the next owner's tag-0 pointer faults on the
 * memory's old tag: Linux has no match-all tag in memory), or one on a
 * CPU with MTE, where a later tag=mte gives every held handle's memory
 * the tag its record says, and only an unbroken record can say it.
 */
#define HDP_HF_RECORDS (HDP_HF_INIT_ALLOC | HDP_HF_INIT_FREE | HDP_HF_INIT_CHECK | \
			HDP_HF_TAG | HDP_HF_TAG_KEPT)
/* Flags that need the allocation and free steps (bounds checks live in copies). */
#define HDP_HF_HOOKS (HDP_HF_RECORDS | HDP_HF_PROTECTIONS)

/*
 * The packed word: flags, policy, tag sampling, sampled whole check, and
 * which protections beyond the core run: hdp's own in the first bits,
 * one line each below (X(NAME, name)), third parties' after them.
 */
#define HDP_WORD_POLICY_SHIFT	HDP_HF__COUNT		/* 2 bits */
#define HDP_WORD_SAMPLE_SHIFT	(HDP_WORD_POLICY_SHIFT + 2)	/* 16 bits: tag_sample */
#define HDP_WORD_CHECK_SHIFT	(HDP_WORD_SAMPLE_SHIFT + 16)	/* 16 bits: init_check_sample */
#define HDP_WORD_PROT_SHIFT	(HDP_WORD_CHECK_SHIFT + 16)	/* the rest */
#define HDP_PROTECTIONS_MAX	(64 - HDP_WORD_PROT_SHIFT)
#define HDP_PCOUNTERS_MAX	32	/* counters beyond the core's, hdp's own included */
#define HDP_EPOCH_MAX		((UINT64_C(1) << 32) - 1)	/* the core's */
#define HDP_PROT_EPOCH_MAX	((UINT64_C(1) << 31) - 1)	/* the protections' */
HDP_STATIC_ASSERT(HDP_PROTECTIONS_MAX >= 16, "room in the word for the protections");

#define HDP_OWN_PROTECTIONS(X)                                                    \
	X(QUARANTINE, quarantine)	/* quarantine.c */                          \
	X(REDZONE, redzone)		/* redzone.c */                             \
	X(SHUFFLE, shuffle)		/* shuffle.c */

enum hdp_own_protection {
#define HDP_OWN_ENUM(NAME, name) HDP_OWN_##NAME,
	HDP_OWN_PROTECTIONS(HDP_OWN_ENUM)
#undef HDP_OWN_ENUM
	HDP_OWN__COUNT			/* third parties' bits from here */
};

/* What one burst acts on: a word and the epochs it belongs to. */
struct hdp_harden_view {
	uint64_t word;
	uint64_t epoch;		/* the core's << 32 | the protections' */
};

/* The core's records' epoch, and the protections', of a view's. */
static inline uint64_t hdp_epoch_core(uint64_t epoch)
{
	return epoch >> 32;
}

static inline uint32_t hdp_epoch_protections(uint64_t epoch)
{
	return (uint32_t)epoch;
}

static inline unsigned hdp_view_flags(struct hdp_harden_view v)
{
	return (unsigned)(v.word & ((1u << HDP_HF__COUNT) - 1));
}
static inline enum hdp_policy hdp_view_policy(struct hdp_harden_view v)
{
	return (enum hdp_policy)((v.word >> HDP_WORD_POLICY_SHIFT) & 3);
}
static inline uint32_t hdp_view_tag_sample(struct hdp_harden_view v)
{
	return (uint32_t)((v.word >> HDP_WORD_SAMPLE_SHIFT) & 0xffff);
}
static inline uint32_t hdp_view_check_sample(struct hdp_harden_view v)
{
	return (uint32_t)((v.word >> HDP_WORD_CHECK_SHIFT) & 0xffff);
}
/* Which protections beyond the core run (bit HDP_OWN_x, then third parties'). */
static inline uint32_t hdp_view_protections(struct hdp_harden_view v)
{
	return (uint32_t)(v.word >> HDP_WORD_PROT_SHIFT);
}
/* Is hdp's own protection @own (enum hdp_own_protection) on? */
static inline bool hdp_view_own(struct hdp_harden_view v, unsigned own)
{
	return hdp_view_protections(v) >> own & 1;
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

/*
 * The core's counters, one line each and grouped by protection:
 * X(COUNTER, name, doc). hdp's own protections' follow them, then third
 * parties'. A counter added at the end of HDP_OWN_COUNTERS keeps the ABI;
 * anywhere else it renumbers those after it (docs/LIBRARY.md).
 */
#define HDP_POOL_COUNTERS(X)                                                      \
	X(CHECKS, checks, "checks done: copies and descriptors checked, frees checked " \
	  "against their record, allocations checked still zero")
#define HDP_INIT_COUNTERS(X)                                                      \
	X(BYTES_WIPED, bytes_wiped, "bytes zeroed by init_on_alloc and init_on_free")
#define HDP_TAG_COUNTERS(X)                                                       \
	X(OBJS_TAGGED, objs_tagged, "allocations given a fresh tag")
#define HDP_CORE_COUNTERS(X) HDP_POOL_COUNTERS(X) HDP_INIT_COUNTERS(X) HDP_TAG_COUNTERS(X)

#define HDP_QUARANTINE_COUNTERS(X)                                                \
	X(QUARANTINED, quarantined, "objects that went into quarantine (the pool's " \
	  "\"held\" says how many are there now)")
#define HDP_REDZONE_COUNTERS(X)                                                   \
	X(REDZONE_CHECKS, redzone_checks, "frees whose window was checked")        \
	X(REDZONE_BYTES_CHECKED, redzone_bytes_checked, "bytes read in those windows") \
	X(REDZONE_UNCHECKED, redzone_unchecked,                                   \
	  "frees not checked: the first in an epoch, or without a write extent")
#define HDP_SHUFFLE_COUNTERS(X)                                                   \
	X(SHUFFLED, shuffled, "objects handed out from a random place in the cache")
#define HDP_OWN_COUNTERS(X)                                                       \
	HDP_QUARANTINE_COUNTERS(X) HDP_REDZONE_COUNTERS(X) HDP_SHUFFLE_COUNTERS(X)

enum hdp_counter {
#define HDP_C_ENUM(COUNTER, name, doc) HDP_C_##COUNTER,
	HDP_CORE_COUNTERS(HDP_C_ENUM)
	HDP_C__CORE,			/* the core's */
	HDP_C__OWN = HDP_C__CORE - 1,
	HDP_OWN_COUNTERS(HDP_C_ENUM)
	HDP_C__OWN_END			/* third parties' from here */
#undef HDP_C_ENUM
};
#define HDP_COUNTERS_MAX (HDP_C__CORE + HDP_PCOUNTERS_MAX)

/* Counters one thread writes (single writer, relaxed). */
struct hdp_harden_counters {
	hdp_counter_t n[HDP_COUNTERS_MAX];	/* enum hdp_counter, then third parties' */
	/* Freed objects a protection took (a quarantine), and gave back. */
	hdp_counter_t held_in, held_out;
	/* Of those given back, the ones an allocation took before their wait. */
	hdp_counter_t held_cut_short;
};

/* A thread's samplers for one pool: what a burst keeps in registers. */
struct hdp_harden_samplers {
	uint32_t sample_countdown;	/* 0: tag the next one */
	uint32_t check_countdown;	/* 0: check the next one whole */
	uint64_t rng;
};

/* A thread's quarantine in one pool (quarantine.c). */
struct hdp_quarantine;

/*
 * One thread's state for one pool; lives in the back-end's per-thread
 * state (a thread's cache, an lcore's entry). Zeroed before first use.
 */
struct hdp_harden_tls {
	struct hdp_harden_samplers smp;
	uint32_t holding;		/* protections that may hold objects for it (bit i) */
	struct hdp_harden_counters c;
	struct hdp_quarantine *quarantine;	/* NULL until it first holds one */
	uint64_t shuffle_rng;		/* 0 until shuffle first draws */
	void *prot_state[HDP_PROTECTIONS_MAX];	/* third parties', for this thread */
};

/*
 * The bytes of an object written during its life, [start, end): where the
 * kernel or the application first wrote (a packet's offset in its frame,
 * or the metadata before it) to the end of the data, widened as the data
 * grows. init_on_free=used wipes exactly this.
 */
struct hdp_extent {
	uint32_t start;
	uint32_t end;
};

struct hdp_harden_pool;
struct hdp_harden_config;

/* One thread state of a pool, for hdp_harden_pool_ops.each_thread. */
typedef void (*hdp_harden_tls_fn_t)(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
				    void *ctx);

/*
 * Where a pool keeps its free objects: the back-end, called by the
 * pipeline once a burst (never per object). An object here is the
 * back-end's handle; its hardened area starts desc.area_off bytes in.
 * Each call gets the thread state the pool handed to the pipeline; a
 * back-end finds its own per-thread state from it (container_of).
 */
struct hdp_harden_pool_ops {
	/*
	 * @n objects that passed every step are free again: keep them.
	 * Cannot fail (a back-end that finds one already free reports it
	 * through hdp_harden_pool_violation and keeps it once).
	 */
	void (*stash)(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void *const *objs,
		      unsigned n);
	/*
	 * Up to @n free objects into @objs (@n or none when @bulk): how
	 * many. @last: no second call follows if this one falls short (the
	 * pipeline gives the back-end objects a quarantine held first, then
	 * asks again): count the failure then.
	 */
	unsigned (*take)(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void **objs,
			 unsigned n, bool bulk, bool last);
	/*
	 * Optional: this thread's cache of free objects, topped up to hold
	 * at least @n (a stack: the next take pops its top @n), so that
	 * shuffle can reorder it; its objects, *@len of them. NULL: the pool
	 * hands objects out in its own order, and shuffle is refused.
	 */
	void **(*cache)(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, unsigned n,
			unsigned *len);
	/*
	 * Optional: the write extents of @n objects freed without one (a
	 * DPDK mbuf's, from its header); called when a step wants them.
	 */
	void (*extents)(struct hdp_harden_pool *hp, void *const *objs, struct hdp_extent *ext,
			unsigned n);
	/*
	 * Optional: @fn on every thread state the pool keeps, so that its
	 * figures count the live threads' counters (hdp_harden_stats_get)
	 * and its end frees what the steps keep for them
	 * (hdp_harden_pool_fini). Never on the fast path; the back-end holds
	 * what keeps its threads' list steady while it walks it.
	 */
	void (*each_thread)(struct hdp_harden_pool *hp, hdp_harden_tls_fn_t fn, void *ctx);
};

struct hdp_harden_pool_desc {
	const char *name;
	struct hdp_layout_desc layout;	/* its name is @name */
	enum hdp_policy on_violation;	/* until a profile says otherwise */
	/* The back-end; NULL for a caller that runs the steps alone (on_alloc, on_free). */
	const struct hdp_harden_pool_ops *ops;
	size_t area_off;		/* a handle + area_off: its hardened area */
	uint32_t objects;		/* the pool's objects (0: the layout's slots) */
	/*
	 * How many threads may hold a quarantine in it at once (EAL's
	 * lcores and one for the rest), so that theirs together keep at
	 * most half the pool; 0: no bound (threads come and go).
	 */
	unsigned threads;
	/*
	 * Why pointer tags cannot protect its objects (code outside hdp
	 * dereferences them: a DPDK mbuf), for the refusal of a tag key;
	 * NULL: they can. tag=auto is off in such a pool.
	 */
	const char *untagged;
	/*
	 * The objects are cold when freed (a large pool used in FIFO order,
	 * as a DPDK mempool without cache): init_on_free=on then writes
	 * zeros over the whole object instead of reading the bytes outside
	 * the write extent to keep hot lines clean; reading cold memory
	 * costs more than writing it. The line at @data_at in each area
	 * (where a fresh object's data starts) is asked for ahead of the
	 * steps that read or write it.
	 */
	bool cold_objects;
	uint32_t data_at;
	/*
	 * The pool's mapping, registered as a region with this state as its
	 * owner, and its guards (@guard bytes each side, and the layout's
	 * guard gaps, made inaccessible here) watched for faults; len 0:
	 * none (a DPDK mempool's memory is EAL's).
	 */
	struct {
		const void *base;
		size_t len, guard;
	} region;
	/* A configuration whose profile for @name is applied at once; NULL: none yet. */
	const struct hdp_harden_config *config;
};

/* Per-object record (harden_internal.h). */
struct hdp_obj_meta;
/* Per-pool state of third parties' protections (protection_internal.h). */
struct hdp_protection_slot;
/* redzone's per-object records (redzone.c). */
struct hdp_redzone;

/* Third parties' hooks, for the masks below. */
#define HDP_HOOKS 6

/*
 * A pool's hardening state. Embedded in the pool; do not touch. Its
 * fields are C11 atomics, for the back-ends (written in C) that embed it
 * and read its word inline: C++ sees the type only incomplete, through a
 * pointer.
 */
#ifndef __cplusplus
struct hdp_harden_pool {
	/* What every burst reads, on one line. */
	_Atomic uint64_t word;
	_Atomic uint64_t epoch;		/* the core's << 32 | the protections'; 0 before any */
	struct hdp_layout layout;
	struct hdp_obj_meta *meta;
	const struct hdp_harden_pool_ops *ops;
	size_t area_off;
	uint32_t data_at;
	bool cold_objects;
	/* hdp's own protections' values, published before the word that turns them on. */
	_Atomic uint32_t quarantine_depth;	/* in effect: the key's, bounded (quarantine.c) */
	_Atomic uint32_t redzone_bytes;
	struct hdp_redzone *redzone;	/* from its first use to the pool's end */
	struct hdp_protection_slot *prot;	/* one per third party's protection */
	uint32_t hook_mask[HDP_HOOKS];	/* theirs with each hook, by word bit */
	uint32_t objects;
	unsigned threads;
	const char *untagged;
	int region_id;			/* -1: none registered */
	size_t region_len;		/* its region's bytes (0: none) */
	unsigned guard_slot;		/* its entry in the guards' table, or UINT_MAX */
	/* Set once under apply_lock; read by bursts with no lock: atomic. */
	_Atomic unsigned char mte;	/* its memory's MTE tags: enum tag_mte_state */
	_Atomic bool tags_seen;		/* tags were on once: records and pointers may carry one */
	const char *name;
	enum hdp_policy policy;		/* its creator's: a profile that does not say keeps it */

	_Atomic uint64_t violations[HDP_V_MAX] HDP_CACHE_ALIGNED;
	struct hdp_harden_counters retired;	/* from exited threads */
	_Atomic uint64_t changes;
	_Atomic int64_t changed_at;	/* CLOCK_REALTIME seconds */
	/* What was applied: under apply_lock. */
	pthread_mutex_t apply_lock;
	bool applied;			/* a profile was applied */
	struct hdp_profile current;
	uint32_t excluded;
	char profile_text[HDP_PROFILE_TEXT_MAX];
	char exclude_text[128];
};

/*
 * The word and its epoch, read together: the epoch before the word and
 * again after it, so that the pair is one that was published (an epoch
 * is published before the word that starts it). A word with no step on
 * needs no epoch (nothing is recorded or read): one load. Otherwise three
 * of one cache line; a change racing them costs another round.
 */
static inline struct hdp_harden_view hdp_harden_pool_view(struct hdp_harden_pool *hp)
{
	struct hdp_harden_view v = {
		.word = atomic_load_explicit(&hp->word, memory_order_acquire),
	};

	if (hdp_likely(!(v.word & HDP_HF_HOOKS)))
		return v;
	do {
		v.epoch = atomic_load_explicit(&hp->epoch, memory_order_acquire);
		v.word = atomic_load_explicit(&hp->word, memory_order_acquire);
	} while (hdp_unlikely(atomic_load_explicit(&hp->epoch, memory_order_relaxed) !=
			      v.epoch));
	return v;
}
#endif /* !__cplusplus */

/*
 * Set up @hp for a pool: its layout, its region and guards, and, with
 * desc.config, its profile. 0, -EINVAL (bad chunks, a refused profile:
 * logged) or -ENOMEM. Without a config no protection is on yet.
 */
HDP_API int hdp_harden_pool_init(struct hdp_harden_pool *hp,
				 const struct hdp_harden_pool_desc *desc);
/* Undo the set-up; every thread state ops.each_thread names is retired first. */
HDP_API void hdp_harden_pool_fini(struct hdp_harden_pool *hp);

/*
 * Apply a resolved profile. @excluded is what hdp_harden_config_excluded()
 * said for this pool, @why its words. Takes effect with the next burst.
 * 0, -EINVAL (tag=mte without MTE, tags where desc.untagged, a protection
 * refusing its values), -EOVERFLOW (no epoch left), all logged.
 * Serialised per pool.
 */
HDP_API int hdp_harden_pool_apply(struct hdp_harden_pool *hp, const struct hdp_profile *p,
				  uint32_t excluded, const char *why);

/*
 * Change one key of the profile applied now (the control socket's "set"),
 * keeping the exclusions. 0, or -EINVAL with the reason logged.
 */
HDP_API int hdp_harden_pool_set_key(struct hdp_harden_pool *hp, const char *key,
				    const char *value);

/* Resolve @cfg for this pool's name and apply it. */
HDP_API int hdp_harden_pool_configure(struct hdp_harden_pool *hp,
				      const struct hdp_harden_config *cfg);

/*
 * The pipeline (burst.c says what runs, in order). @t is the calling
 * thread's state in this pool; calls with one @t never overlap.
 *
 * Allocation: up to @n objects (@n or none when @bulk) from the back-end
 * or the thread's quarantine, through every allocation step, into @objs
 * (tagged handles where tags are on). Returns how many. Never reports a
 * failure of its own: an object found written after free is reported,
 * wiped again and handed out.
 */
HDP_API unsigned hdp_harden_pool_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
				       void **objs, unsigned n, bool bulk);

/*
 * Free: @n handles through every free step (@ext, if not NULL, gives each
 * object's write extent: init_on_free=used and redzone; NULL asks the
 * back-end, or means "anywhere"), then to the quarantine or the
 * back-end. A handle that is no object of the pool, a double free or a
 * stale handle is reported under the pool's policy and kept out. With
 * @bulk, all or nothing: when a handle is no object of the pool, each
 * such handle is reported as what it is and none is freed. Returns how
 * many were taken (the quarantine's included).
 */
HDP_API unsigned hdp_harden_pool_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
				      void *const *objs, const struct hdp_extent *ext, unsigned n,
				      bool bulk);

/*
 * Everything the protections hold for thread state @t (a quarantine),
 * up to @max into @out, oldest first, for the caller to put where its
 * free objects live (its cache is flushed, drained or goes). Returns how
 * many; call until it returns less than @max.
 */
HDP_API unsigned hdp_harden_pool_drain(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
				       void **out, unsigned max);

/*
 * The pool's zeroing alone, for an object that stops short of the
 * pipeline (a DPDK application's per-lcore cache serves most allocations
 * and frees without the driver): as it leaves the pipeline's reach
 * freshly allocated (@freed false: init_on_alloc zeroes its area), or as
 * it is freed (init_on_free: @ext under used, else the whole area).
 * Counted in @t. No record changes: the checks stay with the pipeline.
 */
HDP_API void hdp_harden_pool_zero(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void *obj,
				  const struct hdp_extent *ext, bool freed);

/*
 * The steps alone, for a caller that keeps the objects itself (no back-end
 * and no quarantine), each given the view the burst read after it held
 * its objects.
 *
 * on_alloc, after @n objects left the pool: the core's step per object
 * (init_check: the extent the last free wiped, or one allocation in
 * init_check_sample the whole object; init_on_alloc; a tag if sampled in,
 * handed out in @objs), then redzone's, then third parties' on_alloc.
 */
HDP_API void hdp_harden_pool_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
				      struct hdp_harden_view v, void **objs, unsigned n);

/*
 * on_free, before @n objects (checked to be this pool's, tags still on) go
 * back: redzone and third parties' on_free first (the bytes as the owner
 * left them), told which objects the core will refuse; then the core's
 * step per object (refuse double frees and stale handles, retag, wipe).
 * @ext as for hdp_harden_pool_free (clamped to the object). The accepted
 * objects, untagged, go to @out; returns how many.
 */
HDP_API unsigned hdp_harden_pool_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
					 struct hdp_harden_view v, void *const *objs,
					 const struct hdp_extent *ext, void **out, unsigned n);

/*
 * A checked copy of @n bytes into pool memory (@into_pool: @dst is the
 * pool's) or out of it (@src is): bounds in the kernel's order (zero
 * length, NULL, wrap, region, pool, object), then the tag check, then
 * third parties' on_copy. 0 on success; -EFAULT when a violation was
 * found under the drop or report policy (nothing was copied); under
 * abort it does not return. @t may be NULL (counted nowhere).
 */
HDP_API int hdp_harden_pool_copy(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void *dst,
				 const void *src, size_t n, bool into_pool);

/*
 * Translate a descriptor (offset from the pool's base, as an AF_XDP UMEM
 * address, and a length) to a pointer, checking that it lies inside the
 * pool and that the length stays inside its slot's object. 0 or -EFAULT.
 */
HDP_API int hdp_harden_pool_desc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
				 uint64_t addr, uint32_t len, void **out);

/*
 * A descriptor rule the caller checks itself (a chain's, @kind one of the
 * desc_chain_* kinds): a violation of the pool when its profile has
 * bounds on, as hdp_harden_pool_desc() reports a descriptor's. -EFAULT.
 */
HDP_API int hdp_harden_pool_desc_refuse(struct hdp_harden_pool *hp, enum hdp_violation_kind kind,
					uint64_t addr, uint32_t len, const char *detail);

/*
 * @n descriptors the caller checked inline (hdp_layout_holds) count as
 * checks of thread state @t (NULL: the pool's own) when bounds is on.
 */
HDP_API void hdp_harden_pool_count_checks(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
					  unsigned n);

/* Count a violation and act on it under the pool's policy now. */
HDP_API void hdp_harden_pool_violation(struct hdp_harden_pool *hp, enum hdp_violation_kind kind,
				       const void *addr, size_t size, const char *detail);

/*
 * Fold a thread's counters into the pool's and free what the protections
 * keep for it (the thread is leaving; drain it first): for a back-end
 * that frees a thread's state before the pool goes. hdp_harden_pool_fini
 * retires every state ops.each_thread names.
 */
HDP_API void hdp_harden_tls_retire(struct hdp_harden_pool *hp, struct hdp_harden_tls *t);

struct hdp_harden_stats {
	unsigned flags;			/* enum hdp_hflag */
	enum hdp_policy on_violation;
	uint64_t epoch;			/* the core's records' */
	uint64_t protections_epoch;	/* the protections' */
	const char *tag_backend;	/* "off", "soft", "mte" */
	const char *tag_check;		/* mte: the mode in force (tag.h); else "none" */
	uint64_t counters[HDP_COUNTERS_MAX];	/* enum hdp_counter, then third parties' */
	uint64_t changes;
	int64_t changed_at;
	uint64_t violations[HDP_V_MAX];
	uint32_t protections;		/* which listed ones are on (bit i: hdp_protection_get(i)) */
	uint64_t held;			/* freed objects protections hold now */
	uint64_t held_cut_short;	/* held objects an allocation took before their wait */
	uint32_t quarantine_depth;	/* in effect (0: quarantine off) */
	bool profiled;			/* a profile was applied (every pool has one: the built-in at creation) */
	struct hdp_profile profile;	/* as applied, every key */
	char profile_text[HDP_PROFILE_TEXT_MAX];
	char exclude[128];
};

/* Snapshot: the retired threads' counters and the live ones' (ops.each_thread). */
HDP_API void hdp_harden_stats_get(struct hdp_harden_pool *hp, struct hdp_harden_stats *out);

/*
 * The hardening part of a pool's report, from the protections'
 * descriptions: the flags, policy, tags, epoch, profile, each protection's
 * counters and on/off, and every violation kind. JSON members (no braces:
 * the pool's object holds them) or indented text lines.
 */
struct hdp_strbuf;
HDP_API void hdp_harden_stats_json(struct hdp_strbuf *o, const struct hdp_harden_stats *h);
HDP_API void hdp_harden_stats_text(struct hdp_strbuf *o, const struct hdp_harden_stats *h);

/*
 * Of that, the protections beyond the core alone: "protections":{"NAME":
 * {"on":...,counters...},...} for JSON, one line each ("  NAME: on;
 * counter N, ...") for text.
 */
HDP_API void hdp_protection_stats_json(struct hdp_strbuf *o, const struct hdp_harden_stats *h);
HDP_API void hdp_protection_stats_text(struct hdp_strbuf *o, const struct hdp_harden_stats *h);

/*
 * Every figure of @h a report names, one call each: @fn gets its name
 * and either a number or (@text not NULL) a word: the policy, each
 * violation kind's count, each protection's "on"/"off" and its counters.
 * For reports in another shape (DPDK telemetry).
 */
typedef void (*hdp_stats_fn_t)(void *ctx, const char *name, uint64_t value,
			       const char *text);
HDP_API void hdp_harden_stats_each(const struct hdp_harden_stats *h, hdp_stats_fn_t fn, void *ctx);

/* "bounds,init_free,..." for @flags, or "none". */
HDP_API void hdp_hflags_format(struct hdp_strbuf *o, unsigned flags);

#ifdef __cplusplus
}
#endif

#endif /* HDP_HARDEN_H */
