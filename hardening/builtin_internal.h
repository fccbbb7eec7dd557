/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in protections, bounds, init and tag, on the one interface
 * (hdp/protection.h): each describes itself in a struct hdp_protection
 * (its keys with their types, ranges, defaults and documentation, its
 * counters, violation kinds and hooks) in its own file, and everything
 * that reads, refuses, formats, resolves or lists a key, or runs a hook,
 * goes through that description.
 *
 * What stays their own: their values live in named fields of struct
 * hdp_profile (every user of the library reads p->init_on_free, not a
 * packed word), bound here by offset; whether they run in a pool is the
 * flags they put in its word when a profile is applied (flags() below),
 * where a registered protection puts its bit; and their hooks get the
 * pool and the thread through struct hdp_core_burst. init and tag share
 * one record per object that both read and write in a single pass over a
 * burst (the epoch rule of harden.h), so they name the same alloc and
 * free hooks, and the pass runs once.
 */
#ifndef HDP_HARDENING_BUILTIN_INTERNAL_H
#define HDP_HARDENING_BUILTIN_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdp/profile.h>
#include <hdp/protection.h>

/* Where one key's value lives in struct hdp_profile. */
struct hdp_builtin_field {
	uint32_t set_bit;	/* enum hdp_key */
	uint16_t offset;
	uint8_t size;		/* bool: 1; enums and numbers: 4 */
};

#define HDP_BUILTIN_FIELD(bit, member)                                            \
	{ .set_bit = (bit), .offset = offsetof(struct hdp_profile, member),         \
	  .size = sizeof(((struct hdp_profile *)0)->member) }

struct hdp_builtin {
	const struct hdp_protection *desc;
	const struct hdp_builtin_field *fields;	/* one per desc->keys[] */
	unsigned on_flags;	/* it runs when the word has any of these */
	/*
	 * With an on_free hook: which of n <= 64 objects it will refuse,
	 * without acting, for the registered hooks that run before it.
	 */
	uint64_t (*refusals)(const struct hdp_protection_burst *b, void *const *objs,
			     unsigned n);
	/*
	 * The hook flags (enum hdp_hflag) @p turns on in a pool whose objects
	 * are @obj_size bytes, @excluded (enum hdp_key bits) being what
	 * init_exclude takes from it.
	 */
	unsigned (*flags)(const struct hdp_profile *p, uint32_t excluded, size_t obj_size);
};

extern const struct hdp_builtin hdp_builtin_bounds;	/* bounds.c */
extern const struct hdp_builtin hdp_builtin_init;	/* init.c */
extern const struct hdp_builtin hdp_builtin_tag;	/* tag.c */
extern const struct hdp_builtin hdp_builtin_pool;	/* on_violation: builtin.c */

/*
 * A built-in hook's burst: the public part (pool, core_flags, and in a
 * free burst refused; nothing else is filled in) and what the pool's own
 * passes need. The dispatcher (dispatch.c) makes one per burst and hands
 * the hooks &cb->b.
 */
struct hdp_core_burst {
	struct hdp_protection_burst b;
	struct hdp_harden_pool *hp;
	struct hdp_harden_tls *t;	/* NULL for a copy from outside a pool thread */
	uint64_t w;
};

static inline const struct hdp_core_burst *hdp_core_burst_of(const struct hdp_protection_burst *b)
{
	return (const struct hdp_core_burst *)((const char *)b -
					       offsetof(struct hdp_core_burst, b));
}

/*
 * The built-in hooks. The dispatcher compares a descriptor's pointer with
 * these and calls them directly when it is one of them (the kernel's
 * INDIRECT_CALL_* wrappers do the same): an indirect call per burst costs
 * a DPDK pool that frees one mbuf at a time one per object.
 */
void hdp_records_on_alloc(const struct hdp_protection_burst *b, void **objs, unsigned n);
uint64_t hdp_records_on_free(const struct hdp_protection_burst *b, void *const *objs,
			     const struct hdp_extent *ext, unsigned n);
/*
 * hdp_records_on_free that also puts the objects it accepts, untagged and
 * in order, in @out: how many. For the dispatcher when the pass is the
 * only built-in free hook (as it is), so the burst is walked once.
 */
unsigned hdp_records_free_into(const struct hdp_protection_burst *b, void *const *objs,
			       const struct hdp_extent *ext, unsigned n, void **out);
/* What hdp_records_on_free will refuse, without acting (for the hooks before it). */
uint64_t hdp_records_refusals(const struct hdp_protection_burst *b, void *const *objs,
			      unsigned n);
int hdp_bounds_on_copy(const struct hdp_protection_burst *b, const void *p, size_t n,
		       bool into_pool);
int hdp_tag_on_copy(const struct hdp_protection_burst *b, const void *p, size_t n,
		    bool into_pool);

/* In the order their keys are formatted and their hooks run: bounds, init, tag. */
#define HDP_BUILTINS 3
extern const struct hdp_builtin *const hdp_builtins[HDP_BUILTINS];

uint32_t hdp_builtin_value(const struct hdp_profile *p, const struct hdp_builtin_field *f);
void hdp_builtin_store(struct hdp_profile *p, const struct hdp_builtin_field *f, uint32_t v);

/*
 * The rest covers every key with a field, the pool's on_violation too.
 * The built-in key called @name: its protection, and its index there; or NULL.
 */
const struct hdp_builtin *hdp_builtin_key_find(const char *name, unsigned *k);

/* Every built-in key at its default (the "set" bits untouched). */
void hdp_builtin_defaults(struct hdp_profile *p);

/* Copy the built-in keys @in sets into @out. */
void hdp_builtin_apply(struct hdp_profile *out, const struct hdp_profile *in);

/* "key=value,..." for every built-in key, in profile order. */
struct hdp_strbuf;
void hdp_builtin_format(struct hdp_strbuf *o, const struct hdp_profile *p);

/* The flags of every built-in protection (see flags() above). */
unsigned hdp_builtin_flags(const struct hdp_profile *p, uint32_t excluded, size_t obj_size);

#endif /* HDP_HARDENING_BUILTIN_INTERNAL_H */
