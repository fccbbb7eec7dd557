/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The protections beyond the core: the registry (registry.c) of hdp's own
 * (described, run as steps of the pipeline) and third parties' (run
 * through their hooks), their state in a pool (protection_pool.c), the
 * one iterator over the hooks a burst runs (burst.c, protection_pool.c),
 * and the value codec every key goes through (value.c).
 */
#ifndef HDP_HARDENING_PROTECTION_INTERNAL_H
#define HDP_HARDENING_PROTECTION_INTERNAL_H

#include <hdp/profile.h>
#include <hdp/protection.h>

/*
 * The values of the configuration's keys in the key table (init_exclude):
 * a list of names and globs, kept by the configuration, not a profile;
 * no protection's key takes it.
 */
#define HDP_VALUE_LIST ((enum hdp_value_type)(HDP_VALUE_SIZE + 1))

/* One listed protection and where its bit, keys, counters and kinds went. */
struct hdp_registered {
	const struct hdp_protection *p;
	unsigned index;			/* in the listing (hdp_protection_get) */
	unsigned bit;			/* in the word's mask: HDP_OWN_*, then third parties' */
	bool own;			/* hdp's: its keys are the table's, its steps compiled */
	unsigned key_base;		/* a third party's: profile pval[] */
	unsigned counter_base;		/* its first counter (enum hdp_counter on) */
	unsigned violation_base;	/* its first kind */
	uint8_t shift[HDP_PROT_KEYS_MAX];	/* where each key sits in the packed word */
	uint8_t bits[HDP_PROT_KEYS_MAX];
};

/* Third parties' hooks, for the masks of hdp_harden_pool.hook_mask. */
enum hdp_hook {
	HDP_HOOK_ON_ALLOC,
	HDP_HOOK_ON_FREE,
	HDP_HOOK_ON_COPY,
	HDP_HOOK_HOLD,
	HDP_HOOK_DRAIN,
	HDP_HOOK_PICK,
};
_Static_assert(HDP_HOOK_PICK + 1 == HDP_HOOKS, "HDP_HOOKS counts the hooks");

/*
 * The listing, by name: hdp's own and third parties'. Third parties'
 * (@nplugins) also by word bit, from HDP_OWN__COUNT on: @plugin[j] has
 * bit HDP_OWN__COUNT + j.
 */
struct hdp_registry {
	unsigned n, nplugins, nkeys, ncounters, nviolations;	/* the last three: third parties' */
	struct hdp_registered r[HDP_PROTECTIONS_MAX];
	const struct hdp_registered *plugin[HDP_PROTECTIONS_MAX];
	uint32_t hook_mask[HDP_HOOKS];	/* which bits have each hook */
};

/* Frozen at first use: hdp's own and the third parties registered before. */
const struct hdp_registry *hdp_registry(void);

/* A third party's key called @name: its protection and its index there, or NULL. */
const struct hdp_registered *hdp_registry_key_find(const char *name, unsigned *k);

/* Pack a third party's values (pval from key_base on) into one word, and back. */
uint64_t hdp_registry_pack(const struct hdp_registered *r, const uint32_t *vals);
void hdp_registry_unpack(const struct hdp_registered *r, uint64_t packed, uint32_t *vals);

/* The name of kind @kind past hdp's own (HDP_V__OWN_END on), or NULL. */
const char *hdp_registry_violation_name(unsigned kind);

/* Per pool, one per third party (protection_pool.c). */
struct hdp_protection_slot {
	const struct hdp_registered *reg;
	_Atomic uint64_t packed;
	bool attached;
	struct hdp_protection_pool pp;
};

int hdp_protection_pool_init(struct hdp_harden_pool *hp);
void hdp_protection_pool_fini(struct hdp_harden_pool *hp);
/*
 * Which third parties' protections @p turns on, attached (nothing is
 * published): their bits, or a negative errno, logged.
 */
int hdp_protection_pool_prepare(struct hdp_harden_pool *hp, const struct hdp_profile *p,
				uint32_t *mask);
/* Publish the values of @mask's protections (before the word that turns them on). */
void hdp_protection_pool_publish(struct hdp_harden_pool *hp, const struct hdp_profile *p,
				 uint32_t mask);

/*
 * Each third party's protection in @mask (word bits) that has @hook, as
 * slot @s: the loop every hook call goes through (as the kernel's
 * lsm_for_each_hook).
 */
#define hdp_for_each_hook(s, hp, mask, hook)                                       \
	for (uint32_t m_ = (mask) & (hp)->hook_mask[hook];                          \
	     m_ && ((s) = &(hp)->prot[__builtin_ctz(m_) - HDP_OWN__COUNT], 1);      \
	     m_ &= m_ - 1)

/* What no thread owns: a copy from outside a pool thread counts and keeps nothing. */
extern _Thread_local hdp_counter_t hdp_unowned_counters[HDP_COUNTERS_MAX];
extern _Thread_local void *hdp_unowned_state;

/* The burst @s's hooks get: its values as applied, this thread's counters and state. */
static inline void hdp_protection_burst_of(struct hdp_protection_slot *s,
					   struct hdp_harden_tls *t, struct hdp_harden_view v,
					   struct hdp_protection_burst *b)
{
	b->pool = &s->pp;
	hdp_registry_unpack(s->reg, atomic_load_explicit(&s->packed, memory_order_acquire),
			    b->values);
	b->epoch = hdp_epoch_protections(v.epoch);
	b->core_flags = hdp_view_flags(v);
	b->counters = (t ? t->c.n : hdp_unowned_counters) + s->reg->counter_base;
	b->violation_base = s->reg->violation_base;
	b->refused = 0;
	if (hdp_likely(t != NULL)) {
		b->thread_state = &t->prot_state[s->reg->bit];
	} else {
		hdp_unowned_state = NULL;
		b->thread_state = &hdp_unowned_state;
	}
}

/*
 * Third parties' reuse hooks, on pools with a back-end: hold (after the
 * quarantine), drain, pick (after shuffle), as quarantine_hold,
 * hdp_harden_pool_drain and shuffle_pick say.
 */
unsigned hdp_plugins_hold(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			  struct hdp_harden_view v, void **objs, unsigned n, unsigned cap);
unsigned hdp_plugins_drain(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void **out,
			   unsigned max);
void hdp_plugins_pick(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		      struct hdp_harden_view v, void **stack, unsigned len, unsigned n);

/* Free the protections' state of thread @t (drained already). */
void hdp_protection_tls_release(struct hdp_harden_pool *hp, struct hdp_harden_tls *t);

/* Profile keys of third parties' protections (registry.c). */
void hdp_registry_defaults(struct hdp_profile *p);
/* 0, -ENOENT (no protection has the key) or -EINVAL with @why. */
int hdp_registry_set_key(struct hdp_profile *p, const char *key, const char *value,
			 const char **why);

/* Which listed protections (bit i: hdp_protection_get(i)) the word's bits turn on. */
uint32_t hdp_registry_listing_mask(uint32_t word_bits);

/*
 * A key's value from its table entry (value.c): parse (0 or -EINVAL), the
 * reason for a refusal ("expected ..."), "name=value", and its description
 * (name, protection, default, values, then its doc on a second line).
 */
struct hdp_strbuf;
int hdp_value_parse(const struct hdp_protection_key *k, const char *text, uint32_t *out);
const char *hdp_value_expected(const struct hdp_protection_key *k);
void hdp_value_format(struct hdp_strbuf *o, const struct hdp_protection_key *k, uint32_t v);
void hdp_key_describe(struct hdp_strbuf *o, const char *protection,
		      const struct hdp_protection_key *k);

#endif /* HDP_HARDENING_PROTECTION_INTERNAL_H */
