/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hardening state of one pool and the burst calls the pool makes.
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
 * which that was recorded) and the extent the last free wiped; registered
 * protections keep theirs. The rule that keeps every check honest,
 * whatever is switched at run time:
 *
 *   A record is trusted only if it was made in the current epoch of
 *   whoever keeps it, and a new one starts whenever something that keeps
 *   records is turned on: while it was off, objects changed hands
 *   unrecorded. The core's records and the registered protections' have
 *   an epoch each: a protection turned on (shuffle, say) says nothing
 *   about the core's, which were kept all along (their epoch once moved
 *   with it: a live tagged handle's copies were refused, and a double
 *   free across the switch was taken for a first one). The core's
 *   records resuming starts a new epoch for both. A record from an
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
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdp/compiler.h>
#include <hdp/counter.h>
#include <hdp/layout.h>
#include <hdp/profile.h>
#include <hdp/violation.h>

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
	X(PROTECTIONS, protections)	/* a registered protection with hooks here is on */

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
 * which registered protections run.
 */
#define HDP_WORD_POLICY_SHIFT	HDP_HF__COUNT		/* 2 bits */
#define HDP_WORD_SAMPLE_SHIFT	(HDP_WORD_POLICY_SHIFT + 2)	/* 16 bits: tag_sample */
#define HDP_WORD_CHECK_SHIFT	(HDP_WORD_SAMPLE_SHIFT + 16)	/* 16 bits: init_check_sample */
#define HDP_WORD_PROT_SHIFT	(HDP_WORD_CHECK_SHIFT + 16)	/* the rest */
#define HDP_PROTECTIONS_MAX	(64 - HDP_WORD_PROT_SHIFT)
#define HDP_PCOUNTERS_MAX	32	/* counters of registered protections, in all */
#define HDP_EPOCH_MAX		((UINT64_C(1) << 32) - 1)	/* the core's */
#define HDP_PROT_EPOCH_MAX	((UINT64_C(1) << 31) - 1)	/* the protections' */
_Static_assert(HDP_PROTECTIONS_MAX >= 16, "room in the word for registered protections");

/* What one burst acts on: a word and the epochs it belongs to. */
struct hdp_harden_view {
	uint64_t word;
	uint64_t epoch;		/* the core's << 32 | the protections' */
};

/* The core's records' epoch, and the registered protections', of a view's. */
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
/* Which registered protections run (bit i: the i-th). */
static inline uint32_t hdp_view_protections(struct hdp_harden_view v)
{
	return (uint32_t)(v.word >> HDP_WORD_PROT_SHIFT);
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
 * X(COUNTER, name, doc). Registered protections' follow them.
 */
#define HDP_POOL_COUNTERS(X)                                                      \
	X(CHECKS, checks, "checks done: copies and descriptors checked, frees checked " \
	  "against their record, allocations checked still zero")
#define HDP_INIT_COUNTERS(X)                                                      \
	X(BYTES_WIPED, bytes_wiped, "bytes zeroed by init_on_alloc and init_on_free")
#define HDP_TAG_COUNTERS(X)                                                       \
	X(OBJS_TAGGED, objs_tagged, "allocations given a fresh tag")
#define HDP_CORE_COUNTERS(X) HDP_POOL_COUNTERS(X) HDP_INIT_COUNTERS(X) HDP_TAG_COUNTERS(X)

enum hdp_counter {
#define HDP_C_ENUM(COUNTER, name, doc) HDP_C_##COUNTER,
	HDP_CORE_COUNTERS(HDP_C_ENUM)
#undef HDP_C_ENUM
	HDP_C__CORE		/* the first registered protection's */
};
#define HDP_COUNTERS_MAX (HDP_C__CORE + HDP_PCOUNTERS_MAX)

/* Counters one thread writes (single writer, relaxed). */
struct hdp_harden_counters {
	hdp_counter_t n[HDP_COUNTERS_MAX];	/* enum hdp_counter, then the registered */
	/* Freed objects a protection took (a quarantine), and gave back. */
	hdp_counter_t held_in, held_out;
};

/* A thread's samplers for one pool: what a burst keeps in registers. */
struct hdp_harden_samplers {
	uint32_t sample_countdown;	/* 0: tag the next one */
	uint32_t check_countdown;	/* 0: check the next one whole */
	uint64_t rng;
};

/* One thread's state for one pool; lives in the pool's per-thread cache. */
struct hdp_harden_tls {
	struct hdp_harden_samplers smp;
	uint32_t holding;		/* protections that may hold objects for it (bit i) */
	struct hdp_harden_counters c;
	void *prot_state[HDP_PROTECTIONS_MAX];	/* theirs, for this thread */
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

/* Per-object record (harden_internal.h). */
struct hdp_obj_meta;

struct hdp_harden_pool_desc {
	const char *name;
	struct hdp_layout_desc layout;	/* its name is @name */
	enum hdp_policy on_violation;	/* until a profile says otherwise */
	/*
	 * The pool calls the reuse hooks (hdp_harden_pool_hold(), _drain(),
	 * _pick()) on its free, flush and allocation paths (hdp's own pools):
	 * protections that delay or shuffle reuse can run on it. DPDK's
	 * mempools do not.
	 */
	bool reuse_hooks;
	/*
	 * The objects are cold when freed (a large pool used in FIFO order,
	 * as a DPDK mempool without cache): init_on_free=on then writes
	 * zeros over the whole object instead of reading the bytes outside
	 * the write extent to keep hot lines clean; reading cold memory
	 * costs more than writing it.
	 */
	bool cold_objects;
};

/* Per-pool state of the registered protections (protection_internal.h). */
struct hdp_protection_slot;

/* The registered protections' hooks, for the masks below. */
#define HDP_HOOKS 6

/* A pool's hardening state. Embedded in the pool; do not touch. */
struct hdp_harden_pool {
	/* What every burst reads, on one line. */
	_Atomic uint64_t word;
	_Atomic uint64_t epoch;		/* the core's << 32 | the protections'; 0 before any */
	struct hdp_layout layout;
	struct hdp_obj_meta *meta;
	struct hdp_protection_slot *prot;	/* one per registered protection */
	uint32_t hook_mask[HDP_HOOKS];	/* registered protections with each hook */
	bool cold_objects;
	bool reuse_hooks;
	/* Set once under apply_lock; read by bursts with no lock: atomic. */
	_Atomic unsigned char mte;	/* its memory's MTE tags: enum tag_mte_state */
	_Atomic bool tags_seen;		/* tags were on once: records and pointers may carry one */
	const char *name;

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

/*
 * Set up @hp for a pool: 0, -EINVAL (bad chunks, logged) or -ENOMEM. No
 * protection is on yet.
 */
int hdp_harden_pool_init(struct hdp_harden_pool *hp,
			 const struct hdp_harden_pool_desc *desc);
void hdp_harden_pool_fini(struct hdp_harden_pool *hp);

/*
 * Apply a resolved profile. @excluded is what hdp_harden_config_excluded()
 * said for this pool, @why its words. Takes effect with the next burst.
 * 0, -EINVAL (tag=mte without MTE, a protection refusing its values),
 * -EOVERFLOW (no epoch left), all logged. Serialised per pool.
 */
int hdp_harden_pool_apply(struct hdp_harden_pool *hp, const struct hdp_profile *p,
			  uint32_t excluded, const char *why);

/*
 * Change one key of the profile applied now (the control socket's "set"),
 * keeping the exclusions. 0, or -EINVAL with the reason logged.
 */
int hdp_harden_pool_set_key(struct hdp_harden_pool *hp, const char *key,
			    const char *value);

/* Resolve @cfg for this pool's name and apply it. */
int hdp_harden_pool_configure(struct hdp_harden_pool *hp,
			      const struct hdp_harden_config *cfg);

/*
 * The burst calls (burst.c), each given the view the burst read after it
 * held its objects. What runs, in order:
 *
 * on_alloc, after @n objects left the pool: the core's step per object
 * (init_check: the extent the last free wiped, or one allocation in
 * init_check_sample the whole object; init_on_alloc; a tag if sampled in,
 * handed out in @objs), then the registered protections' on_alloc. Never
 * fails: an object found written after free is reported, wiped again and
 * handed out. One record load and store per object plus what is on.
 */
void hdp_harden_pool_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			      struct hdp_harden_view v, void **objs, unsigned n);

/*
 * on_free, before @n objects (checked to be this pool's, tags still on) go
 * back: the registered protections' on_free first (the bytes as the owner
 * left them), told which objects the core will refuse; then the core's
 * step per object (refuse double frees and stale handles, retag, wipe).
 * @ext, if not NULL, gives each object's write extent (init_on_free=used;
 * clamped to the object); NULL means "anywhere". The accepted objects,
 * untagged, go to @out; returns how many.
 */
unsigned hdp_harden_pool_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
				 struct hdp_harden_view v, void *const *objs,
				 const struct hdp_extent *ext, void **out, unsigned n);

/*
 * on_free for one object in slot @idx (@ext may be NULL), for callers that
 * free one at a time (DPDK's rte_pktmbuf_free): the same steps without a
 * burst's set-up. True if it was accepted (untagged, in @out).
 */
bool hdp_harden_pool_on_free_one(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
				 struct hdp_harden_view v, void *obj, uint32_t idx,
				 const struct hdp_extent *ext, void **out);

/*
 * Checked copies into and out of pool memory: bounds in the kernel's order
 * (zero length, NULL, wrap, region, pool, object), then the tag check,
 * then the registered protections' on_copy. 0 on success; -EFAULT when a
 * violation was found under the drop or report policy (nothing was
 * copied); under abort they do not return. @t may be NULL (counted nowhere).
 */
int hdp_harden_pool_copy_in(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			    void *dst, const void *src, size_t n);
int hdp_harden_pool_copy_out(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			     void *dst, const void *src, size_t n);

/*
 * Translate a descriptor (offset from the pool's base, as an AF_XDP UMEM
 * address, and a length) to a pointer, checking that it lies inside the
 * pool and that the length stays inside its slot's object. 0 or -EFAULT.
 */
int hdp_harden_pool_desc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			 uint64_t addr, uint32_t len, void **out);

/*
 * A descriptor rule the caller checks itself (a chain's, @kind one of the
 * desc_chain_* kinds): a violation of the pool when its profile has
 * bounds on, as hdp_harden_pool_desc() reports a descriptor's. -EFAULT.
 */
int hdp_harden_pool_desc_refuse(struct hdp_harden_pool *hp, enum hdp_violation_kind kind,
				uint64_t addr, uint32_t len, const char *detail);

/* Count a violation and act on it under the pool's policy now. */
void hdp_harden_pool_violation(struct hdp_harden_pool *hp, enum hdp_violation_kind kind,
			       const void *addr, size_t size, const char *detail);

/*
 * After the free steps, before the pool takes @n freed objects back:
 * protections that delay reuse keep some and give back older ones in
 * their place (in objs, which has room for @cap). Returns how many objs
 * now go to the pool. Call when the view has HDP_HF_PROTECTIONS or
 * t->holding.
 */
unsigned hdp_harden_pool_hold(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			      struct hdp_harden_view v, void **objs, unsigned n, unsigned cap);

/* Does a protection that reorders caches run (hdp_harden_pool_pick)? */
bool hdp_harden_pool_picks(const struct hdp_harden_pool *hp, struct hdp_harden_view v);

/*
 * Before a thread takes @n objects off the top of its cache (@stack, @len
 * deep): protections may reorder it (shuffled reuse). Call when
 * hdp_harden_pool_picks(); give them a full cache to choose from.
 */
void hdp_harden_pool_pick(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			  struct hdp_harden_view v, void **stack, unsigned len, unsigned n);

/*
 * Everything the protections hold for thread state @t, up to @max into
 * @out (the thread's cache is flushed, drained or goes). Returns how many;
 * call until it returns less than @max.
 */
unsigned hdp_harden_pool_drain(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			       void **out, unsigned max);

/*
 * Fold a thread's counters into the pool's and free the protections'
 * state for it (the thread is leaving; drain it first).
 */
void hdp_harden_tls_retire(struct hdp_harden_pool *hp, struct hdp_harden_tls *t);

struct hdp_harden_stats {
	unsigned flags;			/* enum hdp_hflag */
	enum hdp_policy on_violation;
	uint64_t epoch;			/* the core's records' */
	uint64_t protections_epoch;	/* the registered protections' */
	const char *tag_backend;	/* "off", "soft", "mte" */
	const char *tag_check;		/* mte: the mode in force (tag.h); else "none" */
	uint64_t counters[HDP_COUNTERS_MAX];	/* enum hdp_counter, then the registered */
	uint64_t changes;
	int64_t changed_at;
	uint64_t violations[HDP_V_MAX];
	uint32_t protections;		/* which registered ones are on (bit i: the i-th) */
	uint64_t held;			/* freed objects protections hold now */
	bool profiled;			/* a profile was applied ("none" before) */
	struct hdp_profile profile;	/* as applied, every key */
	char profile_text[HDP_PROFILE_TEXT_MAX];
	char exclude[128];
};

/* Snapshot; @live adds counters of live threads the caller gathered. */
void hdp_harden_stats_get(struct hdp_harden_pool *hp,
			  const struct hdp_harden_counters *live,
			  struct hdp_harden_stats *out);

/* Accumulate one thread's counters into @sum (plain reads of atomics). */
void hdp_harden_counters_add(struct hdp_harden_counters *sum,
			     const struct hdp_harden_counters *c);

/*
 * The hardening part of a pool's report, from the protections'
 * descriptions: the flags, policy, tags, epoch, profile, each protection's
 * counters and on/off, and every violation kind. JSON members (no braces:
 * the pool's object holds them) or indented text lines.
 */
struct hdp_strbuf;
void hdp_harden_stats_json(struct hdp_strbuf *o, const struct hdp_harden_stats *h);
void hdp_harden_stats_text(struct hdp_strbuf *o, const struct hdp_harden_stats *h);

/*
 * Of that, the registered protections alone: "protections":{"NAME":{"on":
 * ..., counters...},...} for JSON, one line each ("  NAME: on; counter N,
 * ...") for text.
 */
void hdp_protection_stats_json(struct hdp_strbuf *o, const struct hdp_harden_stats *h);
void hdp_protection_stats_text(struct hdp_strbuf *o, const struct hdp_harden_stats *h);

/* "bounds,init_free,..." for @flags, or "none". */
void hdp_hflags_format(struct hdp_strbuf *o, unsigned flags);

#endif /* HDP_HARDEN_H */
