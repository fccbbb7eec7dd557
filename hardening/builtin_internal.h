/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in protections, bounds, init and tag, on the one interface
 * (hdp/protection.h): each describes itself in a struct hdp_protection
 * (its keys with their types, ranges, defaults and documentation, its
 * counters and violation kinds) in its own file, and everything that reads,
 * refuses, formats, resolves or lists a key goes through that description.
 *
 * What stays their own: their values live in named fields of struct
 * hdp_profile (every user of the library reads p->init_on_free, not a
 * packed word), bound here by offset; and their hooks are not called
 * through the interface's pointers. init and tag share one record per
 * object that both read and write in a single pass over a burst (the epoch
 * rule of harden.h), and bounds runs on every checked copy, where an
 * indirect call would cost more than the check. So hooks.c and bounds.c
 * call them directly, and each contributes its flags to the pool's word
 * through flags() when a profile is applied, as the registered protections
 * contribute their bit.
 */
#ifndef HDP_HARDENING_BUILTIN_INTERNAL_H
#define HDP_HARDENING_BUILTIN_INTERNAL_H

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
	/*
	 * The hook flags (enum hdp_hflag) @p turns on in a pool whose objects
	 * are @obj_size bytes, @excluded (enum hdp_key bits) being what
	 * init_exclude takes from it.
	 */
	unsigned (*flags)(const struct hdp_profile *p, uint32_t excluded, size_t obj_size);
};

extern const struct hdp_builtin hdp_builtin_bounds;	/* bounds.c */
extern const struct hdp_builtin hdp_builtin_init;	/* zero.c */
extern const struct hdp_builtin hdp_builtin_tag;	/* tag.c */
extern const struct hdp_builtin hdp_builtin_pool;	/* on_violation: builtin.c */

/* In the order their keys are formatted: bounds, init, tag. */
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
