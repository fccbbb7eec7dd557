/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What hardening's source files share: the per-object record, the zero
 * check and wipe, the samplers, the MTE backend, the core's steps, hdp's
 * own protections beyond the core (their steps, called once a burst from
 * burst.c), the guards, and the key table and descriptions (core.c).
 */
#ifndef HDP_HARDENING_HARDEN_INTERNAL_H
#define HDP_HARDENING_HARDEN_INTERNAL_H

#include <hdp/counter.h>
#include <hdp/harden.h>
#include <hdp/tag.h>
#include <hdp/protection.h>

#include <stdatomic.h>
#include <string.h>

#include "config.h"

/*
 * One object's record (harden.h says what may be trusted). The state word
 * is atomic because neighbours' tags are read by other threads; the wiped
 * extent is read only by the object's next owner, after the pool handed
 * the object over.
 */
struct hdp_obj_meta {
	_Atomic uint64_t state;
	_Atomic uint64_t wiped;		/* what the last free wiped: start | end << 32 */
};

#define META_TAG(m)	((unsigned)(m) & 0xf)
#define META_PREV(m)	(((unsigned)(m) >> 4) & 0xf)
#define META_ALLOCATED	(1u << 8)
#define META_WIPED	(1u << 9)	/* free, and the whole object is zero */
#define META_TAGGED	(1u << 10)
#define META_CLEAN	(1u << 11)	/* allocated, and was all zero then */
#define META_EPOCH_SHIFT 16
#define META_EPOCH(m)	((m) >> META_EPOCH_SHIFT)

/* Like ZERO_OR_NULL_PTR: the first page is never valid. */
#define HDP_NULL_ZONE 4096

/* The zero check (zero.c): is [p, p + n) all zero? If not, where first. */
bool zero_is_clear(const void *p, size_t n, size_t *first_dirty);

/*
 * Zeroing: memset, not explicit_bzero (the object is live memory, not
 * dead), called from where it is needed rather than through a wrapper:
 * a packet's extent is a few dozen bytes, and a second call was a
 * measurable share of wiping them.
 */
static inline void zero_wipe(void *p, size_t n)
{
	memset(p, 0, n);
}

typedef uint64_t hdp_v2u64 __attribute__((vector_size(16)));
#define ZERO_SHORT_MAX 128

/*
 * Is [p, p + n) zero? Inline for the short ranges a packet's extent
 * usually is: 16 bytes at a time, the last 16 once more from the end,
 * overlapping; zero_is_clear for the rest. (Wiping stays with memset:
 * overlapping vector stores followed by the next owner's loads stall
 * store forwarding.)
 */
static inline bool zero_is_clear_short(const void *p, size_t n, size_t *first_dirty)
{
	const char *c = p;
	hdp_v2u64 acc, v;

	if (n < 16 || n > ZERO_SHORT_MAX)
		return zero_is_clear(p, n, first_dirty);
	memcpy(&acc, c + n - 16, 16);
	for (size_t j = 0; j + 16 <= n; j += 16) {
		memcpy(&v, c + j, 16);
		acc |= v;
	}
	return hdp_likely(!(acc[0] | acc[1])) || zero_is_clear(p, n, first_dirty);
}

/*
 * Zero [p, p + n) for a caller whose bytes are not read again soon (a
 * DPDK mbuf freed alone waits a whole quarantine): up to 64 bytes as
 * overlapping 16-byte stores, no call.
 */
static inline void zero_wipe_short(void *p, size_t n)
{
	static const hdp_v2u64 zero;
	char *c = p;

	if (n < 16 || n > 64) {
		if (n)
			zero_wipe(p, n);
		return;
	}
	memcpy(c, &zero, 16);
	memcpy(c + n - 16, &zero, 16);
	if (n > 32) {
		memcpy(c + 16, &zero, 16);
		memcpy(c + n - 32, &zero, 16);
	}
}

static inline uint64_t hdp_xorshift(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/*
 * The bounds check of a copy of [p, p + n) (bounds.c), in the kernel's
 * order: 0, or -EFAULT after the violation was handled.
 */
int bounds_check(struct hdp_harden_pool *hp, unsigned flags, const void *p, size_t n);

/*
 * arm64 MTE (tag_mte.c); on other CPUs probe says no and the rest is
 * never called. attach maps the pool's objects PROT_MTE (not its guard
 * gaps), asks for the process's tag check mode, and gives every object
 * the records show held with a tag that tag in memory; set gives @obj's
 * @size bytes the tag and zeroes [zstart, zend) with it (STZG); choose is
 * IRG, avoiding 0 and @avoid.
 */
bool tag_mte_probe(void);
int tag_mte_attach(struct hdp_harden_pool *hp);
/*
 * The page size @addr is mapped with, in KiB (/proc/self/smaps; 0 when
 * unknown): Linux maps only base pages PROT_MTE (anonymous memory, THP
 * included, and shmem), so attach fails with EINVAL on hugetlb pages.
 */
unsigned long tag_mte_page_kb(const void *addr);

/*
 * A pool's memory and MTE (hp->mte). SWITCHING lasts while attach maps it
 * PROT_MTE (every tag 0) and tags the objects held: a burst that meets it
 * waits (tag_mte_wait), so that only attach writes tags meanwhile.
 */
enum tag_mte_state {
	TAG_MTE_NO,
	TAG_MTE_SWITCHING,
	TAG_MTE_YES,
};

/* The pool's state once no switch is under way (NO or YES). */
enum tag_mte_state tag_mte_wait(struct hdp_harden_pool *hp);

static inline enum tag_mte_state tag_mte_state(struct hdp_harden_pool *hp)
{
	unsigned s = atomic_load_explicit(&hp->mte, memory_order_acquire);

	return hdp_unlikely(s == TAG_MTE_SWITCHING) ? tag_mte_wait(hp) : (enum tag_mte_state)s;
}

/*
 * Could a pool's memory take MTE tags while a burst runs? Not in a build
 * without MTE: the bursts' catching up (burst.c) compiles away there.
 */
static inline bool tag_mte_built(void)
{
#if defined(__aarch64__) && HDP_HAVE_MTE
	return true;
#else
	return false;
#endif
}
/* A thread takes or frees MTE objects: give it the process's tag check mode, once. */
void tag_mte_adopt_thread(void);
/* An MTE pool goes away (the asynchronous report no longer names it). */
void tag_mte_forget(struct hdp_harden_pool *hp);
void tag_mte_set(void *obj, size_t size, unsigned tag, size_t zstart, size_t zend);
unsigned tag_mte_choose(void *obj, const unsigned *avoid, unsigned n);

/*
 * The tag check mode (tag_check.c): settle fixes the mode wanted when MTE
 * goes on; explain words why @got is not @wanted ("" when it is), with
 * what the CPU and kernel said; record keeps what is in force and logs
 * the reason once.
 */
enum hdp_tag_check tag_check_settle(void);
void tag_check_explain(enum hdp_tag_check wanted, enum hdp_tag_check got, bool have_mte3,
		       const char *preferred, char *out, size_t len);
void tag_check_record(enum hdp_tag_check got, const char *why);

/*
 * The core's steps per object, on its records (core_steps.c), called once
 * a burst by burst.c:
 * core_on_alloc: init_check, init_on_alloc, a tag, the record.
 * core_verdicts: which of @n (at most 64) objects a free will refuse (a
 *   double free, a stale handle), as bits, their records into @rec, without
 *   acting, for the steps that must know before the wipe.
 * core_on_free: refuse (@rec not NULL: as core_verdicts judged, @verdicts),
 *   wipe, retag, record; the accepted, untagged, into @out (when not
 *   NULL); the refused as bits.
 * core_free_one: the same for one object in slot @idx, without a burst's
 *   set-up (a DPDK PMD frees mbuf by mbuf); true if it was accepted.
 */
void core_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		   struct hdp_harden_view v, void **objs, unsigned n);
uint64_t core_verdicts(struct hdp_harden_pool *hp, struct hdp_harden_view v,
		       void *const *objs, unsigned n, uint64_t *rec);
uint64_t core_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		      struct hdp_harden_view v, void *const *objs, const uint64_t *rec,
		      uint64_t verdicts, const struct hdp_extent *ext, unsigned n, void **out);
bool core_free_one(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		   struct hdp_harden_view v, void *obj, uint32_t idx,
		   const struct hdp_extent *ext);

/*
 * hdp's own protections beyond the core, each a file; their keys are in
 * the table (profile.h), their on/off a bit of the word (HDP_OWN_*).
 * prepare checks a profile's values against the pool and sets up what
 * the protection keeps in it (0, or a negative errno with @why); the
 * steps run once a burst.
 *
 * quarantine.c: hold puts @n freed objects in the thread's quarantine and
 * takes as many older ones out into @objs (room for @cap): how many go to
 * the back-end now (turned off: what it held, a burst at a time). take
 * hands out @n that waited their depth, in a pool without thread caches,
 * or none. drain takes up to @max of the oldest, whatever their wait.
 */
#define QUARANTINE_SLACK 128u	/* held past the depth where the pool has no thread caches */
int quarantine_prepare(struct hdp_harden_pool *hp, const struct hdp_profile *p,
		       uint32_t *depth, const char **why);
unsigned quarantine_hold(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			 struct hdp_harden_view v, void **objs, unsigned n, unsigned cap);
unsigned quarantine_take(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			 struct hdp_harden_view v, void **objs, unsigned n);
unsigned quarantine_drain(struct hdp_harden_tls *t, void **out, unsigned max);
void quarantine_release(struct hdp_harden_tls *t);

/*
 * redzone.c: on_free checks the window past each object's data (objects
 * in @refused are skipped) and arms it for the next free; on_alloc notes
 * the windows init_on_alloc zeroed. @objs are areas, tags still on.
 */
int redzone_prepare(struct hdp_harden_pool *hp, const struct hdp_profile *p, const char **why);
void redzone_fini(struct hdp_harden_pool *hp);
void redzone_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		     struct hdp_harden_view v, void *const *objs, const struct hdp_extent *ext,
		     unsigned n, uint64_t refused);
void redzone_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_view v, void **objs,
		      unsigned n);

/* shuffle.c: the top @n of a thread's cache (@stack, @len deep) in a random order. */
int shuffle_prepare(struct hdp_harden_pool *hp, const struct hdp_profile *p, const char **why);
void shuffle_pick(struct hdp_harden_tls *t, void **stack, unsigned len, unsigned n);

/*
 * guard.c: a pool's guard gaps made inaccessible, and its guards (the
 * @guard bytes each side of its region) and gaps watched, a fault in one
 * reported as the pool's; 0 or a negative errno (logged).
 */
int guard_watch(struct hdp_harden_pool *hp, const void *base, size_t len, size_t guard);
void guard_unwatch(struct hdp_harden_pool *hp);

/*
 * The core described for its keys, counters and violation kinds (core.c):
 * "pool", bounds, init, tag, in the order their keys are formatted; and
 * hdp's own protections beyond it, in HDP_OWN_* order.
 */
#define HDP_CORE_PARTS 4
extern const struct hdp_protection hdp_core[HDP_CORE_PARTS];
extern const struct hdp_protection hdp_own[HDP_OWN__COUNT];

/* Profile key @k of @p as a number, and back (k < HDP_CK__PROFILE). */
uint32_t hdp_core_value(const struct hdp_profile *p, enum hdp_core_key k);
void hdp_core_store(struct hdp_profile *p, enum hdp_core_key k, uint32_t v);
/* The table's key called @name, or -1. */
int hdp_core_key_find(const char *name);
/* Its table entry (name, type, range, default, doc). */
const struct hdp_protection_key *hdp_core_key(enum hdp_core_key k);
/* The part (hdp_core[], hdp_own[]) a key belongs to. */
const char *hdp_core_key_part(enum hdp_core_key k);

/*
 * The built-in init_exclude list's keys for @pool (enum hdp_key bits),
 * and in @why which entry took them (harden_config.c).
 */
uint32_t harden_builtin_excluded(const char *pool, char *why, size_t why_len);

/*
 * A change at run time turns no key off but the one it names: the keys
 * the rules between keys govern (profile.c) that are on in @p count as
 * set, so that one turned off under them is refused, not followed.
 */
void hdp_profile_pin_on(struct hdp_profile *p);

/*
 * The flags @p turns on in a pool whose objects are @obj_size bytes,
 * @excluded (enum hdp_key bits) being what init_exclude takes from it.
 */
unsigned hdp_core_flags(const struct hdp_profile *p, uint32_t excluded, size_t obj_size);

/* A counter's name, the core's or hdp's own (c < HDP_C__OWN_END). */
const char *hdp_core_counter_name(enum hdp_counter c);
/* Where hdp's own protection @own's counters and kinds start (enum hdp_counter, kinds). */
unsigned hdp_own_counter_base(unsigned own);
unsigned hdp_own_violation_base(unsigned own);

/* A violation kind's name, the core's or hdp's own (kind < HDP_V__OWN_END). */
const char *hdp_core_violation_name(enum hdp_violation_kind kind);

/*
 * A freed handle that is no object of the pool (report.c): reported as
 * the kind it is (interior, past the end, foreign, in a guard gap).
 */
void report_invalid_free(struct hdp_harden_pool *hp, const void *obj);

/* Accumulate one thread's counters into @sum (plain reads of atomics; harden_stats.c). */
void hdp_harden_counters_add(struct hdp_harden_counters *sum,
			     const struct hdp_harden_counters *c);

#endif /* HDP_HARDENING_HARDEN_INTERNAL_H */
