/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry of protections (protection_registry.c), their keys in
 * profiles (protection_keys.c) and their per-pool state and burst hooks
 * (protection_pool.c).
 */
#ifndef HDP_HARDENING_PROTECTION_INTERNAL_H
#define HDP_HARDENING_PROTECTION_INTERNAL_H

#include <hdp/profile.h>
#include <hdp/protection.h>

/* One registered protection and where its keys, counters and kinds went. */
struct hdp_prot_info {
	const struct hdp_protection *p;
	unsigned index;			/* its bit in the word's mask */
	unsigned key_base;		/* profile pval[] */
	unsigned counter_base;		/* hdp_harden_counters.prot[] */
	unsigned violation_base;	/* kinds from HDP_V__COUNT on */
	uint8_t shift[HDP_PROT_KEYS_MAX];	/* where each key sits in the packed word */
	uint8_t bits[HDP_PROT_KEYS_MAX];
};

struct hdp_prot_registry {
	unsigned n, nkeys, ncounters, nviolations;
	struct hdp_prot_info info[HDP_PROTECTIONS_MAX];
};

/* Built once, at first use; protections that break the rules are left out, logged. */
const struct hdp_prot_registry *hdp_prot_registry(void);

/* The key called @name: its protection and its index there, or NULL. */
const struct hdp_prot_info *hdp_prot_key_find(const char *name, unsigned *k);

/* Pack a protection's values (pval from key_base on) into one word, and back. */
uint64_t hdp_prot_pack(const struct hdp_prot_info *in, const uint32_t *vals);
void hdp_prot_unpack(const struct hdp_prot_info *in, uint64_t packed, uint32_t *vals);

/* Profile keys (protection_keys.c). */
void hdp_prot_defaults(struct hdp_profile *p);
void hdp_prot_all_off(struct hdp_profile *p);
/* 0, -ENOENT (no protection has the key) or -EINVAL with @why. */
int hdp_prot_set_key(struct hdp_profile *p, const char *key, const char *value,
		     const char **why);
/* Append ",key=value" for every protection key. */
struct hdp_strbuf;
void hdp_prot_format(const struct hdp_profile *p, struct hdp_strbuf *o);

/* Per pool (protection_pool.c). */
struct hdp_prot_slot {
	const struct hdp_prot_info *info;
	_Atomic uint64_t packed;
	_Atomic uint32_t generation;
	bool attached;
	struct hdp_protection_pool pp;
};

int hdp_prot_pool_init(struct hdp_harden_pool *hp);
void hdp_prot_pool_fini(struct hdp_harden_pool *hp);
/*
 * Compute which protections @p turns on and attach them (nothing is
 * published): the mask, or a negative errno, logged.
 */
int hdp_prot_pool_prepare(struct hdp_harden_pool *hp, const struct hdp_profile *p,
			  uint32_t *mask);
/* Publish the values of @mask's protections (before the word that turns them on). */
void hdp_prot_pool_publish(struct hdp_harden_pool *hp, const struct hdp_profile *p,
			   uint32_t old_mask, uint32_t mask);

void hdp_prot_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
		       void **objs, unsigned n);
/* @refused: what the built-in checks will refuse (see protection.h). */
uint64_t hdp_prot_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
			  void *const *objs, const struct hdp_extent *ext, unsigned n,
			  uint64_t refused);
int hdp_prot_on_copy(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
		     const void *p, size_t n, bool into_pool);

/* Free the protections' state of thread @t (drained already). */
void hdp_prot_tls_release(struct hdp_harden_pool *hp, struct hdp_harden_tls *t);

/* The name of kind HDP_V__COUNT + @i, or NULL. */
const char *hdp_prot_violation_name(unsigned i);

/* The built-in keys only: 0, -EINVAL, or -ENOENT for any other key. */
int hdp_profile_set_builtin_key(struct hdp_profile *p, const char *key, const char *value,
				const char **why);

/* The value parsers every key uses (pkey.c). */
int hdp_parse_bool(const char *v, bool *out);
int hdp_parse_number(const char *v, bool size_suffix, uint64_t *out);

/*
 * A key's value from its table entry (pkey.c): parse (0 or -EINVAL), the
 * reason for a refusal ("expected ..."), "name=value", and its description
 * (name, protection, default, values, then its doc on a second line).
 */
int hdp_pkey_parse(const struct hdp_protection_key *k, const char *value, uint32_t *out);
const char *hdp_pkey_expected(const struct hdp_protection_key *k);
void hdp_pkey_format(struct hdp_strbuf *o, const struct hdp_protection_key *k, uint32_t v);
void hdp_pkey_describe(struct hdp_strbuf *o, const char *protection,
		       const struct hdp_protection_key *k);
/* The description's two lines, for a key no table holds (init_exclude). */
void hdp_pkey_describe_line(struct hdp_strbuf *o, const char *name, const char *protection,
			    const char *def, const char *values, const char *doc);

#endif /* HDP_HARDENING_PROTECTION_INTERNAL_H */
