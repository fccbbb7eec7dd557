/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What hardening's source files share about the core: the per-object
 * record, the zero check and wipe, the samplers, the MTE backend, and the
 * core's keys and descriptions (core.c).
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
 * The core described for its keys, counters and violation kinds (core.c):
 * "pool", bounds, init, tag, in the order their keys are formatted.
 */
#define HDP_CORE_PARTS 4
extern const struct hdp_protection hdp_core[HDP_CORE_PARTS];

/* Core key @k of @p as a number, and back. */
uint32_t hdp_core_value(const struct hdp_profile *p, enum hdp_core_key k);
void hdp_core_store(struct hdp_profile *p, enum hdp_core_key k, uint32_t v);
/* The core key called @name, or -1. */
int hdp_core_key_find(const char *name);
/* Its table entry (name, type, range, default, doc). */
const struct hdp_protection_key *hdp_core_key(enum hdp_core_key k);
/* The core part (hdp_core[]) a key belongs to. */
const char *hdp_core_key_part(enum hdp_core_key k);

/*
 * The flags @p turns on in a pool whose objects are @obj_size bytes,
 * @excluded (enum hdp_key bits) being what init_exclude takes from it.
 */
unsigned hdp_core_flags(const struct hdp_profile *p, uint32_t excluded, size_t obj_size);

/* A core counter's name (c < HDP_C__CORE). */
const char *hdp_core_counter_name(enum hdp_counter c);

/* A core violation kind's name (kind < HDP_V__COUNT). */
const char *hdp_core_violation_name(enum hdp_violation_kind kind);

#endif /* HDP_HARDENING_HARDEN_INTERNAL_H */
