/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The hardening state of one pool and the burst hooks the pool calls.
 *
 * A pool's effective settings (its profile, minus exclusions, minus what
 * the pool's objects allow) are computed once, when a profile is applied,
 * and packed into one 64-bit word. Every burst loads the word once: a
 * runtime change takes effect between bursts and never in the middle of
 * one. With no protection on, the pool's fast path tests the word's low
 * byte and goes on.
 *
 * Per object, hdp keeps a state word (the memory tag and the previous one;
 * whether it is allocated, wiped, tagged, handed out clean; the epoch in
 * which that was recorded) and the extent the last free wiped. The rule
 * that keeps every check honest, whatever is switched at run time:
 *
 *   A record is trusted only if it was made in the current epoch, and a
 *   new epoch starts whenever recording resumes (the hooks go from off to
 *   on): while they were off, objects changed hands unrecorded. Records
 *   state only what was done: "wiped" means the whole object was zero
 *   after that free, which a partial (init_on_free=used) wipe can only
 *   claim for an object that was zero when it was handed out ("clean");
 *   an object that was not gets the whole wipe once.
 *
 * So turning wiping on or narrowing it, turning init_check or tags on, or
 * any other change never makes an earlier record lie. Epochs are 48 bits
 * and never reused: at the last one, turning the hooks on is refused
 * (2^48 re-enables: centuries at the control socket's pace).
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
#include <hdp/profile.h>
#include <hdp/violation.h>

/*
 * Effective flags. The hook flags sit in the word's low byte, so the fast
 * path with no protection on tests one byte.
 */
enum hdp_hflag {
	HDP_HF_BOUNDS		= 1u << 0,
	HDP_HF_BOUNDS_TREE	= 1u << 1,	/* with BOUNDS: the tree lookup */
	HDP_HF_INIT_ALLOC	= 1u << 2,
	HDP_HF_INIT_FREE	= 1u << 3,
	HDP_HF_INIT_USED	= 1u << 4,	/* with INIT_FREE: wipe the extent written */
	HDP_HF_INIT_CHECK	= 1u << 5,
	HDP_HF_TAG		= 1u << 6,
	HDP_HF_TAG_MTE		= 1u << 7,	/* with TAG: the MTE backend */
	HDP_HF_TAG_ALWAYS	= 1u << 8,	/* objects below tag_sample_min */
	HDP_HF_PROTECTIONS	= 1u << 9,	/* a registered protection is on */
};

/* Flags whose hooks keep per-object records (the epoch rule below). */
#define HDP_HF_RECORDS (HDP_HF_INIT_ALLOC | HDP_HF_INIT_FREE | HDP_HF_INIT_CHECK | \
			HDP_HF_TAG)
/* Flags that need the alloc/free hooks (bounds checks live in copies). */
#define HDP_HF_HOOKS (HDP_HF_RECORDS | HDP_HF_PROTECTIONS)

/*
 * The packed word: flags, policy, tag sampling, sampled full check. What a
 * burst does comes from one load of it. The epoch is a word of its own,
 * stored before the word and loaded after it, so a burst sees the epoch
 * of its word or a later one (and a later one only labels its records
 * with an epoch in which they are true).
 */
#define HDP_HW_FLAGS_BITS	10
#define HDP_HW_POLICY_SHIFT	10	/* 2 bits */
#define HDP_HW_SAMPLE_SHIFT	12	/* 16 bits: tag_sample */
#define HDP_HW_CHECK_SHIFT	28	/* 16 bits: init_check_sample */
#define HDP_HW_PROT_SHIFT	44	/* 20 bits: which registered protections run */
#define HDP_PROTECTIONS_MAX	20
#define HDP_PCOUNTERS_MAX	32	/* counters of registered protections, in all */
#define HDP_EPOCH_MAX		((UINT64_C(1) << 48) - 1)

static inline unsigned hdp_hw_flags(uint64_t w)
{
	return (unsigned)(w & ((1u << HDP_HW_FLAGS_BITS) - 1));
}
static inline enum hdp_policy hdp_hw_policy(uint64_t w)
{
	return (enum hdp_policy)((w >> HDP_HW_POLICY_SHIFT) & 3);
}
static inline uint32_t hdp_hw_sample(uint64_t w)
{
	return (uint32_t)((w >> HDP_HW_SAMPLE_SHIFT) & 0xffff);
}
static inline uint32_t hdp_hw_check_sample(uint64_t w)
{
	return (uint32_t)((w >> HDP_HW_CHECK_SHIFT) & 0xffff);
}
static inline uint32_t hdp_hw_protections(uint64_t w)
{
	return (uint32_t)(w >> HDP_HW_PROT_SHIFT);
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

/* Counters one thread writes (single writer, relaxed). */
struct hdp_harden_counters {
	_Atomic uint64_t bytes_wiped;
	_Atomic uint64_t objs_tagged;
	_Atomic uint64_t checks;
	_Atomic uint64_t prot[HDP_PCOUNTERS_MAX];	/* registered protections' */
	/* Freed objects a protection took (a quarantine), and gave back. */
	_Atomic uint64_t held_in, held_out;
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

/* Per-object state (harden_internal.h). */
struct hdp_obj_meta;

/*
 * A run of object slots one stride apart. A pool is one chunk (AF_XDP's
 * UMEM, hdp's own pools) or several (a DPDK mempool, made of whatever
 * memory EAL had): objects are indexed across all of them.
 */
struct hdp_harden_chunk {
	uintptr_t base;			/* slot 0 of the chunk */
	size_t len;			/* its slots times the stride */
	uint32_t first;			/* the pool index of its slot 0 */
};

struct hdp_harden_pool_desc {
	const char *name;
	uintptr_t base;
	size_t obj_size;
	size_t obj_stride;
	uint32_t obj_count;		/* slots over every chunk */
	enum hdp_policy on_violation;	/* until a profile says otherwise */
	/*
	 * Several chunks, or NULL for one of obj_count slots at base. They
	 * must not overlap; their slots must number 0..obj_count-1 between
	 * them. Copied.
	 */
	const struct hdp_harden_chunk *chunks;
	uint32_t chunk_count;
	/*
	 * The pool calls the reuse hooks (hdp_harden_hold(), _drain(),
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
	/*
	 * Guard gaps (hdp_pool_params.guard_gap): of every gap_period slots,
	 * those from gap_objs on are inaccessible pages, no objects. What
	 * changes the memory's protection (the MTE backend) leaves them so.
	 * 0: none.
	 */
	uint32_t gap_period, gap_objs;
};

/* Per-pool state of the registered protections (protection_pool.c). */
struct hdp_prot_slot;

/* A profile as text (hdp_profile_format), with every protection's keys. */
#define HDP_PROFILE_TEXT_MAX 512

/* A pool's hardening state. Embedded in the pool; do not touch. */
struct hdp_harden_pool {
	_Atomic uint64_t word;
	uintptr_t base;
	size_t obj_size;
	size_t stride;
	size_t objs_len;
	uint32_t count;
	uint32_t stride_shift;		/* log2(stride) or UINT32_MAX */
	uint64_t stride_magic;		/* else ceil(2^64 / stride), or 0: divide */
	/* Several chunks: sorted by address (base and objs_len: their span). */
	struct hdp_harden_chunk *chunks;	/* NULL for one */
	uint32_t chunk_count;
	/*
	 * Which chunk an address is in, in one step: for each granule of
	 * 2^map_shift bytes of the span (no longer than the shortest chunk),
	 * the last chunk starting at or before it. NULL: binary search
	 * (a span too sparse for a table).
	 */
	uint32_t *chunk_map;
	size_t map_len;
	uint32_t map_shift;
	bool cold_objects;
	uint32_t gap_period, gap_objs;	/* as in hdp_harden_pool_desc */
	bool reuse_hooks;
	struct hdp_obj_meta *meta;
	_Atomic uint64_t epoch;		/* 1..HDP_EPOCH_MAX; 0 before any */
	const char *name;
	const struct hdp_tag_ops *tag_ops;
	struct hdp_prot_slot *prot;	/* one per registered protection */
	uint32_t pick_mask;		/* those with a pick hook */
	uint32_t free_mask;		/* those with an on_free hook */

	_Atomic uint64_t violations[HDP_V_MAX] HDP_CACHE_ALIGNED;
	struct hdp_harden_counters retired;	/* from exited threads */
	_Atomic uint64_t changes;
	_Atomic int64_t changed_at;	/* CLOCK_REALTIME seconds */
	/* What was applied: under apply_lock. */
	pthread_mutex_t apply_lock;
	struct hdp_profile current;
	uint32_t excluded;
	char profile_text[HDP_PROFILE_TEXT_MAX];
	char exclude_text[128];
};

__extension__ typedef unsigned __int128 hdp_u128;

/*
 * @off / stride without a division (tens of cycles) where the stride is
 * not a power of two, as a DPDK mbuf's 2176 bytes: a multiply by
 * ceil(2^64 / stride), exact while off * stride < 2^64, which
 * hdp_harden_pool_init made sure of for every offset in the pool.
 */
static inline uint32_t hdp_harden_div_stride(uint32_t shift, uint64_t magic, size_t stride,
					     size_t off)
{
	if (hdp_likely(shift != UINT32_MAX))
		return (uint32_t)(off >> shift);
	if (hdp_likely(magic != 0))
		return (uint32_t)(((hdp_u128)off * magic) >> 64);
	return (uint32_t)(off / stride);
}

/* hdp_harden_slot for a pool of several chunks (harden_pool.c). */
bool hdp_harden_slot_chunked(const struct hdp_harden_pool *hp, uintptr_t a, uint32_t *idx,
			     size_t *in_slot);

/*
 * The slot holding @a: its index and @a's offset inside it. false when no
 * chunk holds @a. One multiply for one chunk; several (a sparse DPDK
 * pool) take a call, out of the way of the usual case.
 */
static inline bool hdp_harden_slot(const struct hdp_harden_pool *hp, uintptr_t a,
				   uint32_t *idx, size_t *in_slot)
{
	size_t off = a - hp->base;
	uint32_t i;

	if (hdp_unlikely(hp->chunks != NULL))
		return hdp_harden_slot_chunked(hp, a, idx, in_slot);
	if (a < hp->base || off >= hp->objs_len)
		return false;
	i = hdp_harden_div_stride(hp->stride_shift, hp->stride_magic, hp->stride, off);
	*idx = i;
	*in_slot = off - (size_t)i * hp->stride;
	return true;
}

/* Set up @hp for a pool: 0, -EINVAL (bad chunks) or -ENOMEM. No protection is on yet. */
int hdp_harden_pool_init(struct hdp_harden_pool *hp,
			 const struct hdp_harden_pool_desc *desc);
void hdp_harden_pool_fini(struct hdp_harden_pool *hp);

/*
 * Apply a resolved profile. @excluded is what hdp_harden_config_excluded()
 * said for this pool, @why its words. Takes effect with the next burst.
 * 0, -EINVAL (tag=mte without MTE), -EOVERFLOW (no epoch left), all
 * logged. Serialise calls per pool.
 */
int hdp_harden_pool_apply(struct hdp_harden_pool *hp, const struct hdp_profile *p,
			  uint32_t excluded, const char *why);

/*
 * Change one key of the profile applied now (the control socket's "set"),
 * keeping the exclusions. 0, or -EINVAL with the reason logged.
 */
int hdp_harden_pool_set_key(struct hdp_harden_pool *hp, const char *key,
			    const char *value);

/*
 * For tests only: set the epoch counter, to reach the end of the epochs
 * without 2^48 re-enables. The next off-to-on change starts @epoch + 1.
 */
void hdp_harden_pool_test_set_epoch(struct hdp_harden_pool *hp, uint64_t epoch);

/* Resolve @cfg for this pool's name and apply it. */
int hdp_harden_pool_configure(struct hdp_harden_pool *hp,
			      const struct hdp_harden_config *cfg);

/* Load the word, once per burst. */
static inline uint64_t hdp_harden_word(struct hdp_harden_pool *hp)
{
	return atomic_load_explicit(&hp->word, memory_order_acquire);
}

/*
 * After @n objects left the pool: the alloc hooks of every protection on
 * (hdp/protection.h), built-in first: check (init_check: the extent the
 * last free wiped, or one allocation in init_check_sample the whole
 * object), zero, pick tags. Tagged objects get their tag in @objs. Never
 * fails: an object found written after free is reported, wiped again and
 * handed out. Costs one metadata load per object plus what the
 * protections do.
 */
void hdp_harden_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			 uint64_t w, void **objs, unsigned n);

/*
 * Before @n objects (already checked to be this pool's, tags still on)
 * go back: the free hooks of every protection on, built-in last: refuse
 * double frees and stale handles, retag, wipe. @ext, if
 * not NULL, gives each object's write extent (for init_on_free=used;
 * clamped to the object); NULL means "anywhere". The accepted objects,
 * untagged, go to @out; returns how many.
 */
unsigned hdp_harden_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			    uint64_t w, void *const *objs, const struct hdp_extent *ext,
			    void **out, unsigned n);

/*
 * hdp_harden_on_free for one object (@ext may be NULL), for callers that
 * free one at a time: the same checks, without a burst's set-up. @idx is
 * the object's slot as hdp_harden_slot() gave it (the caller checked the
 * object is one). True if it was accepted (untagged, in @out).
 */
bool hdp_harden_on_free_one(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
			    void *obj, uint32_t idx, const struct hdp_extent *ext, void **out);

/*
 * Checked copies into and out of pool memory, keeping the kernel's order
 * of checks (zero length, NULL, wrap, region, object), then the tag
 * check. 0 on success; -EFAULT when a violation was found under the drop
 * or report policy (nothing was copied); under abort they do not return.
 */
int hdp_harden_copy_in(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		       void *dst, const void *src, size_t n);
int hdp_harden_copy_out(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			void *dst, const void *src, size_t n);

/*
 * Translate a descriptor (offset from the pool's base, as an AF_XDP UMEM
 * address, and a length) to a pointer, checking that it lies inside the
 * pool and that the length stays inside its chunk. 0 or -EFAULT.
 */
int hdp_harden_desc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		    uint64_t addr, uint32_t len, void **out);

/* Count a violation and act on it under the word's policy. */
void hdp_harden_violation(struct hdp_harden_pool *hp, enum hdp_violation_kind kind,
			  const void *addr, size_t size, const char *detail);

/*
 * After the burst hooks, before the pool takes @n freed objects back:
 * protections that delay reuse keep some and give back older ones in their
 * place (in objs, which has room for @cap). Returns how many objs now go
 * to the pool. Call when the word has HDP_HF_PROTECTIONS or t->holding.
 */
unsigned hdp_harden_hold(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
			 void **objs, unsigned n, unsigned cap);

/* Does a protection that reorders caches run (hdp_harden_pick)? */
static inline bool hdp_harden_picks(const struct hdp_harden_pool *hp, uint64_t w)
{
	return hdp_hw_protections(w) & hp->pick_mask;
}

/*
 * Before a thread takes @n objects off the top of its cache (@stack, @len
 * deep): protections may reorder it (shuffled reuse). Call when
 * hdp_harden_picks(); give them a full cache to choose from.
 */
void hdp_harden_pick(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
		     void **stack, unsigned len, unsigned n);

/*
 * Everything the protections hold for thread state @t, up to @max into
 * @out (the thread's cache is flushed, drained or goes). Returns how many;
 * call until it returns less than @max.
 */
unsigned hdp_harden_drain(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void **out,
			  unsigned max);

/*
 * Fold a thread's counters into the pool's and free the protections'
 * state for it (the thread is leaving; drain it first).
 */
void hdp_harden_tls_retire(struct hdp_harden_pool *hp, struct hdp_harden_tls *t);

struct hdp_harden_stats {
	unsigned flags;			/* enum hdp_hflag */
	enum hdp_policy on_violation;
	uint32_t tag_sample;
	uint32_t tag_sample_min;	/* objects below it are always tagged */
	uint32_t check_sample;		/* init_check_sample */
	uint64_t epoch;
	const char *tag_backend;	/* "off", "soft", "mte" */
	uint64_t bytes_wiped;
	uint64_t objs_tagged;
	uint64_t checks;
	uint64_t changes;
	int64_t changed_at;
	uint64_t violations[HDP_V_MAX];
	uint32_t protections;		/* which registered ones are on (bit i: the i-th) */
	uint64_t prot_counters[HDP_PCOUNTERS_MAX];	/* theirs, in registry order */
	uint64_t held;			/* freed objects protections hold now */
	char profile[HDP_PROFILE_TEXT_MAX];
	char exclude[128];
};

/* Snapshot; @tls_sum adds counters of live threads the caller gathered. */
void hdp_harden_stats_get(struct hdp_harden_pool *hp,
			  const struct hdp_harden_counters *live,
			  struct hdp_harden_stats *out);

/* Accumulate one thread's counters into @sum (plain reads of atomics). */
void hdp_harden_counters_add(struct hdp_harden_counters *sum,
			     const struct hdp_harden_counters *c);

#endif /* HDP_HARDEN_H */
