// SPDX-License-Identifier: BSD-3-Clause
/*
 * The registry: every struct hdp_protection the link put in the
 * "hdp_protections" section, checked against the rules once, sorted by
 * name, with their keys, counters and violation kinds numbered.
 */
#include "protection_internal.h"

#include <hdp/log.h>

#include "protections_builtin.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Weak: a link without any protection has no such section. */
extern const struct hdp_protection *const __start_hdp_protections[] __attribute__((weak));
extern const struct hdp_protection *const __stop_hdp_protections[] __attribute__((weak));

/*
 * The built-in protections live in a static library, whose members the
 * linker takes only when referenced: reference them (the list comes from
 * hardening/meson.build).
 */
#define HDP_BUILTIN_PROTECTION(name) \
	extern const struct hdp_protection *const hdp_protection_ref_##name;
HDP_BUILTIN_PROTECTIONS
#undef HDP_BUILTIN_PROTECTION
#define HDP_BUILTIN_PROTECTION(name) &hdp_protection_ref_##name,
static const void *const keep_builtin[] __attribute__((used)) = {
	HDP_BUILTIN_PROTECTIONS NULL
};
#undef HDP_BUILTIN_PROTECTION

static struct hdp_prot_registry registry;
static pthread_once_t registry_once = PTHREAD_ONCE_INIT;

static bool name_ok(const char *s)
{
	size_t len = s ? strlen(s) : 0;

	return len > 0 && len < 32 &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_") == len;
}

/* Bits a key's values need. */
static unsigned key_bits(const struct hdp_protection_key *k)
{
	uint32_t max = k->max;

	if (k->type == HDP_PKEY_BOOL)
		return 1;
	if (k->type == HDP_PKEY_CHOICE) {
		max = 0;
		while (k->choices && k->choices[max])
			max++;
		max = max ? max - 1 : 0;
	}
	return max ? 32 - (unsigned)__builtin_clz(max) : 1;
}

static bool key_taken(const char *name, unsigned upto)
{
	struct hdp_profile scratch = { 0 };
	const char *why;
	unsigned k;

	/* A built-in key? Its parser knows it, whatever the value. */
	if (hdp_profile_set_builtin_key(&scratch, name, "", &why) != -ENOENT)
		return true;
	for (unsigned i = 0; i < upto; i++)
		for (k = 0; k < registry.info[i].p->nkeys; k++)
			if (strcmp(registry.info[i].p->keys[k].name, name) == 0)
				return true;
	return false;
}

static const char *key_problem(const struct hdp_protection_key *k)
{
	if (!name_ok(k->name))
		return "a key name that is not 1-31 of [a-z0-9_]";
	switch (k->type) {
	case HDP_PKEY_BOOL:
		return k->def > 1 ? "a bool key whose default is not 0 or 1" : NULL;
	case HDP_PKEY_CHOICE:
		if (!k->choices || !k->choices[0])
			return "a choice key without choices";
		for (uint32_t i = 0; i <= k->def; i++)
			if (!k->choices[i])
				return "a choice key whose default is not one of its choices";
		return NULL;
	case HDP_PKEY_UINT:
	case HDP_PKEY_SIZE:
		return k->min > k->max || k->def < k->min || k->def > k->max
		       ? "a number key whose default is outside min..max" : NULL;
	}
	return "a key of unknown type";
}

/* Why @p cannot be registered after the first @n, or NULL. */
static const char *problem(const struct hdp_protection *p, unsigned n)
{
	unsigned bits = 0;
	const char *why;

	if (!name_ok(p->name))
		return "its name is not 1-31 of [a-z0-9_]";
	for (unsigned i = 0; i < n; i++)
		if (strcmp(registry.info[i].p->name, p->name) == 0)
			return "another protection has its name";
	if (n >= HDP_PROTECTIONS_MAX)
		return "too many protections (at most 20)";
	if (p->nkeys < 1 || p->nkeys > HDP_PROT_KEYS_MAX || !p->keys)
		return "it needs 1 to 8 keys (the first turns it on)";
	if (registry.nkeys + p->nkeys > HDP_PKEYS_MAX)
		return "the protections have more than 32 keys in all";
	if (registry.ncounters + p->ncounters > HDP_PCOUNTERS_MAX)
		return "the protections have more than 32 counters in all";
	if (registry.nviolations + p->nviolations > HDP_PVIOLATIONS_MAX)
		return "the protections have more than 32 violation kinds in all";
	for (unsigned k = 0; k < p->nkeys; k++) {
		why = key_problem(&p->keys[k]);
		if (why)
			return why;
		if (key_taken(p->keys[k].name, n))
			return "one of its keys is another's";
		bits += key_bits(&p->keys[k]);
	}
	if (bits > 64)
		return "its keys' values need more than 64 bits";
	for (unsigned i = 0; i < p->nviolations; i++)
		if (!name_ok(p->violations[i].name))
			return "a violation name that is not 1-31 of [a-z0-9_]";
	for (unsigned i = 0; i < p->ncounters; i++)
		if (!name_ok(p->counters[i].name))
			return "a counter name that is not 1-31 of [a-z0-9_]";
	return NULL;
}

static int by_name(const void *a, const void *b)
{
	const struct hdp_protection *const *x = a, *const *y = b;

	return strcmp((*x)->name, (*y)->name);
}

static void add(const struct hdp_protection *p)
{
	struct hdp_prot_info *in = &registry.info[registry.n];
	const char *why = problem(p, registry.n);
	unsigned shift = 0;

	if (why) {
		hdp_log(HDP_LOG_ERR, "protection '%s' is not registered: %s",
			p->name ? p->name : "(no name)", why);
		return;
	}
	*in = (struct hdp_prot_info){
		.p = p, .index = registry.n, .key_base = registry.nkeys,
		.counter_base = registry.ncounters, .violation_base = registry.nviolations,
	};
	for (unsigned k = 0; k < p->nkeys; k++) {
		in->shift[k] = (uint8_t)shift;
		in->bits[k] = (uint8_t)key_bits(&p->keys[k]);
		shift += in->bits[k];
	}
	registry.nkeys += p->nkeys;
	registry.ncounters += p->ncounters;
	registry.nviolations += p->nviolations;
	registry.n++;
}

static void build(void)
{
	const struct hdp_protection *found[64];
	size_t n = 0;

	(void)keep_builtin;
	for (const struct hdp_protection *const *p = __start_hdp_protections;
	     p && p < __stop_hdp_protections && n < HDP_ARRAY_SIZE(found); p++)
		found[n++] = *p;
	qsort(found, n, sizeof(found[0]), by_name);
	for (size_t i = 0; i < n; i++)
		add(found[i]);
}

const struct hdp_prot_registry *hdp_prot_registry(void)
{
	pthread_once(&registry_once, build);
	return &registry;
}

unsigned hdp_protection_count_registered(void)
{
	return hdp_prot_registry()->n;
}

const struct hdp_protection *hdp_protection_get(unsigned i)
{
	const struct hdp_prot_registry *r = hdp_prot_registry();

	return i < r->n ? r->info[i].p : NULL;
}

const struct hdp_protection *hdp_protection_find(const char *name)
{
	const struct hdp_prot_registry *r = hdp_prot_registry();

	for (unsigned i = 0; name && i < r->n; i++)
		if (strcmp(r->info[i].p->name, name) == 0)
			return r->info[i].p;
	return NULL;
}

const struct hdp_prot_info *hdp_prot_key_find(const char *name, unsigned *k)
{
	const struct hdp_prot_registry *r = hdp_prot_registry();

	for (unsigned i = 0; i < r->n; i++)
		for (unsigned j = 0; j < r->info[i].p->nkeys; j++)
			if (strcmp(r->info[i].p->keys[j].name, name) == 0) {
				*k = j;
				return &r->info[i];
			}
	return NULL;
}

uint64_t hdp_prot_pack(const struct hdp_prot_info *in, const uint32_t *vals)
{
	uint64_t w = 0;

	for (unsigned k = 0; k < in->p->nkeys; k++)
		w |= (uint64_t)vals[in->key_base + k] << in->shift[k];
	return w;
}

void hdp_prot_unpack(const struct hdp_prot_info *in, uint64_t packed, uint32_t *vals)
{
	for (unsigned k = 0; k < in->p->nkeys; k++) {
		uint64_t mask = in->bits[k] >= 64 ? UINT64_MAX : (UINT64_C(1) << in->bits[k]) - 1;

		vals[k] = (uint32_t)((packed >> in->shift[k]) & mask);
	}
}

const char *hdp_prot_violation_name(unsigned i)
{
	const struct hdp_prot_registry *r = hdp_prot_registry();

	for (unsigned j = 0; j < r->n; j++) {
		const struct hdp_prot_info *in = &r->info[j];

		if (i >= in->violation_base && i < in->violation_base + in->p->nviolations)
			return in->p->violations[i - in->violation_base].name;
	}
	return NULL;
}
