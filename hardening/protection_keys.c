// SPDX-License-Identifier: BSD-3-Clause
/*
 * The registered protections' keys in a profile: defaults, parsing with
 * the reason for a refusal, formatting. All from their key tables.
 */
#include "protection_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

void hdp_prot_defaults(struct hdp_profile *p)
{
	const struct hdp_prot_registry *r = hdp_prot_registry();

	p->pset = 0;
	memset(p->pval, 0, sizeof(p->pval));
	for (unsigned i = 0; i < r->n; i++)
		for (unsigned k = 0; k < r->info[i].p->nkeys; k++)
			p->pval[r->info[i].key_base + k] = r->info[i].p->keys[k].def;
}

void hdp_prot_all_off(struct hdp_profile *p)
{
	const struct hdp_prot_registry *r = hdp_prot_registry();

	for (unsigned i = 0; i < r->n; i++)
		p->pval[r->info[i].key_base] = 0;
}

/* The message for a refused value, from the key's own table entry. */
static const char *expected(const struct hdp_protection_key *k)
{
	static _Thread_local char why[160];
	size_t used = 0;

	switch (k->type) {
	case HDP_PKEY_BOOL:
		return "expected on or off";
	case HDP_PKEY_CHOICE:
		used = (size_t)snprintf(why, sizeof(why), "expected ");
		for (unsigned i = 0; k->choices[i] && used < sizeof(why); i++)
			used += (size_t)snprintf(why + used, sizeof(why) - used, "%s%s",
						 i == 0 ? "" : k->choices[i + 1] ? ", " : " or ",
						 k->choices[i]);
		return why;
	case HDP_PKEY_UINT:
		snprintf(why, sizeof(why), "expected a whole number from %u to %u",
			 k->min, k->max);
		return why;
	case HDP_PKEY_SIZE:
		snprintf(why, sizeof(why), "expected a size in bytes from %u to %u "
			 "(k and M suffixes allowed)", k->min, k->max);
		return why;
	}
	return "unexpected value";
}

static int parse_value(const struct hdp_protection_key *k, const char *value, uint32_t *out)
{
	uint64_t n;
	bool b;

	switch (k->type) {
	case HDP_PKEY_BOOL:
		if (hdp_parse_bool(value, &b))
			return -EINVAL;
		*out = b;
		return 0;
	case HDP_PKEY_CHOICE:
		for (uint32_t i = 0; k->choices[i]; i++)
			if (strcmp(value, k->choices[i]) == 0) {
				*out = i;
				return 0;
			}
		return -EINVAL;
	case HDP_PKEY_UINT:
	case HDP_PKEY_SIZE:
		if (hdp_parse_number(value, k->type == HDP_PKEY_SIZE, &n) ||
		    n < k->min || n > k->max)
			return -EINVAL;
		*out = (uint32_t)n;
		return 0;
	}
	return -EINVAL;
}

int hdp_prot_set_key(struct hdp_profile *p, const char *key, const char *value,
		     const char **why)
{
	unsigned k;
	const struct hdp_prot_info *in = hdp_prot_key_find(key, &k);
	uint32_t v;

	if (!in)
		return -ENOENT;
	if (parse_value(&in->p->keys[k], value, &v)) {
		*why = expected(&in->p->keys[k]);
		return -EINVAL;
	}
	p->pval[in->key_base + k] = v;
	p->pset |= 1u << (in->key_base + k);
	*why = NULL;
	return 0;
}

/* A profile built by hand may hold any number. */
static const char *choice_name(const struct hdp_protection_key *k, uint32_t v)
{
	for (uint32_t i = 0; k->choices[i]; i++)
		if (i == v)
			return k->choices[i];
	return "?";
}

int hdp_prot_format(const struct hdp_profile *p, char *buf, size_t len)
{
	const struct hdp_prot_registry *r = hdp_prot_registry();
	int total = 0, n;

	for (unsigned i = 0; i < r->n; i++) {
		for (unsigned k = 0; k < r->info[i].p->nkeys; k++) {
			const struct hdp_protection_key *key = &r->info[i].p->keys[k];
			uint32_t v = p->pval[r->info[i].key_base + k];
			char *at = buf && (size_t)total < len ? buf + total : NULL;
			size_t room = at ? len - (size_t)total : 0;

			if (key->type == HDP_PKEY_BOOL)
				n = snprintf(at, room, ",%s=%s", key->name, v ? "on" : "off");
			else if (key->type == HDP_PKEY_CHOICE)
				n = snprintf(at, room, ",%s=%s", key->name, choice_name(key, v));
			else
				n = snprintf(at, room, ",%s=%u", key->name, v);
			total += n;
		}
	}
	return total;
}
