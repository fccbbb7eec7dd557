// SPDX-License-Identifier: BSD-3-Clause
/*
 * The registered protections' keys in a profile: defaults, parsing with
 * the reason for a refusal, formatting. All from their key tables,
 * through pkey.c as the built-in keys.
 */
#include "protection_internal.h"

#include <hdp/strbuf.h>

#include <errno.h>
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

int hdp_prot_set_key(struct hdp_profile *p, const char *key, const char *value,
		     const char **why)
{
	unsigned k;
	const struct hdp_prot_info *in = hdp_prot_key_find(key, &k);
	uint32_t v;

	if (!in)
		return -ENOENT;
	if (hdp_pkey_parse(&in->p->keys[k], value, &v)) {
		*why = hdp_pkey_expected(&in->p->keys[k]);
		return -EINVAL;
	}
	p->pval[in->key_base + k] = v;
	p->pset |= 1u << (in->key_base + k);
	*why = NULL;
	return 0;
}

void hdp_prot_format(const struct hdp_profile *p, struct hdp_strbuf *o)
{
	const struct hdp_prot_registry *r = hdp_prot_registry();

	for (unsigned i = 0; i < r->n; i++)
		for (unsigned k = 0; k < r->info[i].p->nkeys; k++) {
			hdp_strbuf_printf(o, ",");
			hdp_pkey_format(o, &r->info[i].p->keys[k], p->pval[r->info[i].key_base + k]);
		}
}
