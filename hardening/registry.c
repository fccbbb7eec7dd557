// SPDX-License-Identifier: BSD-3-Clause
/*
 * The registry of the protections beyond the core: hdp's own (quarantine,
 * redzone, shuffle: described in core.c, their keys in the key table,
 * run as steps of the pipeline) and those an application registers before
 * hdp first uses it (run through their hooks), each third party's
 * description checked field by field before anything reads it; listed
 * together by name, third parties' keys, counters and violation kinds
 * numbered after hdp's own; and third parties' keys in profiles.
 */
#include "harden_internal.h"
#include "protection_internal.h"

#include <hdp/log.h>
#include <hdp/strbuf.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const struct hdp_protection *given[HDP_PROTECTIONS_MAX];
static unsigned ngiven;
static bool frozen;		/* in use: what it holds now is what it holds */
static struct hdp_registry registry;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

#define CHOICES_MAX 32

#define NAME_CHARS "abcdefghijklmnopqrstuvwxyz0123456789_"

/* 1-31 of [a-z0-9_], and '-' where @dash (a choice's value). */
static bool name_ok(const char *s, bool dash)
{
	size_t len = s ? strnlen(s, 32) : 0;

	return len > 0 && len < 32 && strspn(s, dash ? NAME_CHARS "-" : NAME_CHARS) == len;
}

/* How many choices @k has (stops at CHOICES_MAX: an array with no NULL). */
static unsigned choice_count(const struct hdp_protection_key *k)
{
	unsigned n = 0;

	while (n < CHOICES_MAX && k->choices[n])
		n++;
	return n;
}

/* Bits a key's values need (the key was checked). */
static unsigned key_bits(const struct hdp_protection_key *k)
{
	uint32_t max = k->max;

	if (k->type == HDP_VALUE_BOOL)
		return 1;
	if (k->type == HDP_VALUE_CHOICE)
		max = choice_count(k) - 1;
	return max ? 32 - (unsigned)__builtin_clz(max) : 1;
}

static const char *choice_problem(const struct hdp_protection_key *k)
{
	unsigned n;

	if (!k->choices || !k->choices[0])
		return "a choice key without choices";
	n = choice_count(k);
	if (n == CHOICES_MAX)
		return "a choice key with 32 or more choices, or whose list has no NULL at its end";
	for (unsigned i = 0; i < n; i++) {
		/* "a,b=c" would make a profile's text read back as something else. */
		if (!name_ok(k->choices[i], true))
			return "a choice that is not 1-31 of [a-z0-9_-]";
		for (unsigned j = 0; j < i; j++)
			if (strcmp(k->choices[i], k->choices[j]) == 0)
				return "a choice listed twice";
	}
	return k->def >= n ? "a choice key whose default is not one of its choices" : NULL;
}

static const char *key_problem(const struct hdp_protection_key *k)
{
	if (!name_ok(k->name, false))
		return "a key name that is not 1-31 of [a-z0-9_]";
	if (k->reserved[0] || k->reserved[1])
		return "a key whose reserved fields are not NULL";
	switch (k->type) {
	case HDP_VALUE_BOOL:
		return k->def > 1 ? "a bool key whose default is not 0 or 1" : NULL;
	case HDP_VALUE_CHOICE:
		return choice_problem(k);
	case HDP_VALUE_UINT:
	case HDP_VALUE_SIZE:
		return k->min > k->max || k->def < k->min || k->def > k->max
		       ? "a number key whose default is outside min..max" : NULL;
	}
	return "a key of unknown type";
}

/* Is key @name taken, by the key table or by one of @n third parties? */
static bool key_taken(const char *name, const struct hdp_protection *const *p, unsigned n)
{
	if (hdp_core_key_find(name) >= 0)
		return true;
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < p[i]->nkeys; k++)
			if (strcmp(p[i]->keys[k].name, name) == 0)
				return true;
	return false;
}

static bool kind_taken(const char *name, const struct hdp_protection *const *p, unsigned n)
{
	for (unsigned k = 0; k < HDP_V__OWN_END; k++)
		if (strcmp(hdp_core_violation_name((enum hdp_violation_kind)k), name) == 0)
			return true;
	for (unsigned i = 0; i < n; i++)
		for (unsigned k = 0; k < p[i]->nviolations; k++)
			if (strcmp(p[i]->violations[k].name, name) == 0)
				return true;
	return false;
}

/* Counters or violation kinds: at most HDP_PROT_NAMES_MAX, each named once. */
static const char *names_problem(const struct hdp_protection_name *names, unsigned n,
				 bool counters)
{
	if (n > HDP_PROT_NAMES_MAX)
		return counters ? "more than 16 counters" : "more than 16 violation kinds";
	if (n && !names)
		return counters ? "counters given as NULL" : "violations given as NULL";
	for (unsigned i = 0; i < n; i++) {
		if (!name_ok(names[i].name, false))
			return counters ? "a counter name that is not 1-31 of [a-z0-9_]"
					      : "a violation name that is not 1-31 of [a-z0-9_]";
		for (unsigned j = 0; j < i; j++)
			if (strcmp(names[i].name, names[j].name) == 0)
				return counters ? "a counter named twice"
						      : "a violation kind named twice";
	}
	return NULL;
}

/* Is @name hdp's: a part of the core, or one of its own protections? */
static const char *name_clash(const char *name)
{
	for (unsigned i = 0; i < HDP_CORE_PARTS; i++)
		if (strcmp(hdp_core[i].name, name) == 0)
			return "a core protection has its name";
	for (unsigned i = 0; i < HDP_OWN__COUNT; i++)
		if (strcmp(hdp_own[i].name, name) == 0)
			return "another protection has its name";
	return NULL;
}

/* The budgets hdp's own protections share with third parties'. */
#define OWN_COUNTERS (HDP_C__OWN_END - HDP_C__CORE)
#define OWN_KINDS (HDP_V__OWN_END - HDP_V__COUNT)

/*
 * Why third party @p cannot join the @n third parties @others, or NULL.
 * Each field is checked before the next one is read by what follows.
 */
static const char *problem(const struct hdp_protection *p, const struct hdp_protection *const *others,
			   unsigned n)
{
	unsigned bits = 0, keys = 0, counters = OWN_COUNTERS, kinds = OWN_KINDS;
	const char *why;

	if (!name_ok(p->name, false))
		return "its name is not 1-31 of [a-z0-9_]";
	for (unsigned i = 0; i < n; i++)
		if (strcmp(others[i]->name, p->name) == 0)
			return "another protection has its name";
	why = name_clash(p->name);
	if (why)
		return why;
	if (HDP_OWN__COUNT + n >= HDP_PROTECTIONS_MAX)
		return "too many protections";
	if (p->nkeys < 1 || p->nkeys > HDP_PROT_KEYS_MAX || !p->keys)
		return "it needs 1 to 8 keys (the first turns it on)";
	why = names_problem(p->counters, p->ncounters, true);
	if (!why)
		why = names_problem(p->violations, p->nviolations, false);
	if (why)
		return why;
	for (unsigned i = 0; i < n; i++) {
		keys += others[i]->nkeys;
		counters += others[i]->ncounters;
		kinds += others[i]->nviolations;
	}
	if (keys + p->nkeys > HDP_PKEYS_MAX)
		return "the protections have more than 32 keys in all";
	if (counters + p->ncounters > HDP_PCOUNTERS_MAX)
		return "the protections have more than 32 counters in all";
	if (kinds + p->nviolations > HDP_PVIOLATIONS_MAX)
		return "the protections have more than 32 violation kinds in all";
	for (unsigned k = 0; k < p->nkeys; k++) {
		why = key_problem(&p->keys[k]);
		if (why)
			return why;
		if (key_taken(p->keys[k].name, others, n))
			return "one of its keys is another's";
		for (unsigned j = 0; j < k; j++)
			if (strcmp(p->keys[j].name, p->keys[k].name) == 0)
				return "a key named twice";
		bits += key_bits(&p->keys[k]);
	}
	if (bits > 64)
		return "its keys' values need more than 64 bits";
	for (unsigned k = 0; k < p->nviolations; k++)
		if (kind_taken(p->violations[k].name, others, n))
			return "one of its violation kinds is another's";
	for (unsigned i = 0; i < HDP_ARRAY_SIZE(p->reserved); i++)
		if (p->reserved[i])
			return "its reserved fields are not NULL";
	if (p->hold && !p->drain)
		return "it holds objects (hold) but cannot give them back (no drain)";
	return NULL;
}

int hdp_protection_register(const struct hdp_protection *p)
{
	const char *why = NULL;
	int ret = 0;

	pthread_mutex_lock(&lock);
	if (!p)
		why = "its description is NULL";
	else if (frozen)
		why = "too late: hdp already uses its registry (register before the first pool, "
		      "profile or key list)";
	else
		why = problem(p, given, ngiven);
	if (why) {
		hdp_log(HDP_LOG_ERR, "protection '%s' is not registered: %s",
			p && p->name && name_ok(p->name, false) ? p->name : "(no valid name)", why);
		ret = frozen ? -EBUSY : strstr(why, "too many") || strstr(why, "in all")
				? -ENOSPC : -EINVAL;
	} else {
		given[ngiven++] = p;
	}
	pthread_mutex_unlock(&lock);
	return ret;
}

static int by_name(const void *a, const void *b)
{
	const struct hdp_protection *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

/* hdp's own, by its description: its bit, counters and kinds are fixed. */
static bool own_index(const struct hdp_protection *p, unsigned *own)
{
	for (unsigned i = 0; i < HDP_OWN__COUNT; i++)
		if (p == &hdp_own[i]) {
			*own = i;
			return true;
		}
	return false;
}

static void number(const struct hdp_protection *p)
{
	struct hdp_registered *r = &registry.r[registry.n];
	unsigned shift = 0, own, bit;

	*r = (struct hdp_registered){ .p = p, .index = registry.n };
	if (own_index(p, &own)) {
		r->own = true;
		r->bit = own;
		r->counter_base = hdp_own_counter_base(own);
		r->violation_base = hdp_own_violation_base(own);
		registry.n++;
		return;
	}
	bit = HDP_OWN__COUNT + registry.nplugins;
	r->bit = bit;
	r->key_base = registry.nkeys;
	r->counter_base = HDP_C__OWN_END + registry.ncounters;
	r->violation_base = HDP_V__OWN_END + registry.nviolations;
	for (unsigned k = 0; k < p->nkeys; k++) {
		r->shift[k] = (uint8_t)shift;
		r->bits[k] = (uint8_t)key_bits(&p->keys[k]);
		shift += r->bits[k];
	}
	registry.nkeys += p->nkeys;
	registry.ncounters += p->ncounters;
	registry.nviolations += p->nviolations;
	if (p->on_alloc)
		registry.hook_mask[HDP_HOOK_ON_ALLOC] |= 1u << bit;
	if (p->on_free)
		registry.hook_mask[HDP_HOOK_ON_FREE] |= 1u << bit;
	if (p->on_copy)
		registry.hook_mask[HDP_HOOK_ON_COPY] |= 1u << bit;
	if (p->hold)
		registry.hook_mask[HDP_HOOK_HOLD] |= 1u << bit;
	if (p->drain)
		registry.hook_mask[HDP_HOOK_DRAIN] |= 1u << bit;
	if (p->pick)
		registry.hook_mask[HDP_HOOK_PICK] |= 1u << bit;
	registry.plugin[registry.nplugins++] = r;
	registry.n++;
}

static void build(void)
{
	const struct hdp_protection *all[HDP_PROTECTIONS_MAX + HDP_OWN__COUNT];
	unsigned n = 0;

	pthread_mutex_lock(&lock);
	frozen = true;
	for (unsigned i = 0; i < HDP_OWN__COUNT; i++)
		all[n++] = &hdp_own[i];
	memcpy(all + n, given, ngiven * sizeof(*given));
	n += ngiven;
	pthread_mutex_unlock(&lock);
	qsort(all, n, sizeof(all[0]), by_name);
	for (unsigned i = 0; i < n; i++)
		number(all[i]);
}

const struct hdp_registry *hdp_registry(void)
{
	pthread_once(&registry_once, build);
	return &registry;
}

unsigned hdp_protection_count_registered(void)
{
	return hdp_registry()->n;
}

const struct hdp_protection *hdp_protection_get(unsigned i)
{
	const struct hdp_registry *reg = hdp_registry();

	return i < reg->n ? reg->r[i].p : NULL;
}

const struct hdp_protection *hdp_protection_find(const char *name)
{
	const struct hdp_registry *reg = hdp_registry();

	for (unsigned i = 0; name && i < reg->n; i++)
		if (strcmp(reg->r[i].p->name, name) == 0)
			return reg->r[i].p;
	return NULL;
}

uint32_t hdp_registry_listing_mask(uint32_t word_bits)
{
	const struct hdp_registry *reg = hdp_registry();
	uint32_t m = 0;

	for (unsigned i = 0; i < reg->n; i++)
		if (word_bits >> reg->r[i].bit & 1)
			m |= 1u << i;
	return m;
}

const struct hdp_registered *hdp_registry_key_find(const char *name, unsigned *k)
{
	const struct hdp_registry *reg = hdp_registry();

	for (unsigned i = 0; i < reg->nplugins; i++)
		for (unsigned j = 0; j < reg->plugin[i]->p->nkeys; j++)
			if (strcmp(reg->plugin[i]->p->keys[j].name, name) == 0) {
				*k = j;
				return reg->plugin[i];
			}
	return NULL;
}

uint64_t hdp_registry_pack(const struct hdp_registered *r, const uint32_t *vals)
{
	uint64_t w = 0;

	for (unsigned k = 0; k < r->p->nkeys; k++)
		w |= (uint64_t)vals[r->key_base + k] << r->shift[k];
	return w;
}

void hdp_registry_unpack(const struct hdp_registered *r, uint64_t packed, uint32_t *vals)
{
	for (unsigned k = 0; k < r->p->nkeys; k++) {
		uint64_t mask = r->bits[k] >= 64 ? UINT64_MAX : (UINT64_C(1) << r->bits[k]) - 1;

		vals[k] = (uint32_t)((packed >> r->shift[k]) & mask);
	}
}

const char *hdp_registry_violation_name(unsigned kind)
{
	const struct hdp_registry *reg = hdp_registry();

	for (unsigned j = 0; j < reg->nplugins; j++) {
		const struct hdp_registered *r = reg->plugin[j];

		if (kind >= r->violation_base && kind < r->violation_base + r->p->nviolations)
			return r->p->violations[kind - r->violation_base].name;
	}
	return NULL;
}

void hdp_registry_defaults(struct hdp_profile *p)
{
	const struct hdp_registry *reg = hdp_registry();

	p->pset = 0;
	memset(p->pval, 0, sizeof(p->pval));
	for (unsigned i = 0; i < reg->nplugins; i++)
		for (unsigned k = 0; k < reg->plugin[i]->p->nkeys; k++)
			p->pval[reg->plugin[i]->key_base + k] = reg->plugin[i]->p->keys[k].def;
}

int hdp_registry_set_key(struct hdp_profile *p, const char *key, const char *value,
			 const char **why)
{
	unsigned k;
	const struct hdp_registered *r = hdp_registry_key_find(key, &k);
	uint32_t v;

	if (!r)
		return -ENOENT;
	if (hdp_value_parse(&r->p->keys[k], value, &v)) {
		*why = hdp_value_expected(&r->p->keys[k]);
		return -EINVAL;
	}
	p->pval[r->key_base + k] = v;
	p->pset |= 1u << (r->key_base + k);
	*why = NULL;
	return 0;
}
