// SPDX-License-Identifier: BSD-3-Clause
/* One profile: its keys, the table's and third parties', their values, defaults and text. */
#include "harden_internal.h"
#include "protection_internal.h"

#include <hdp/strbuf.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hdp_profile_defaults(struct hdp_profile *p)
{
	*p = (struct hdp_profile){ .set = 0 };
	for (int k = 0; k < HDP_CK__PROFILE; k++)
		hdp_core_store(p, (enum hdp_core_key)k, hdp_core_key((enum hdp_core_key)k)->def);
	hdp_registry_defaults(p);
}

int hdp_profile_set_key(struct hdp_profile *p, const char *key,
			const char *value, const char **why)
{
	int k = hdp_core_key_find(key), ret;
	uint32_t v;

	*why = NULL;
	if (k >= HDP_CK__PROFILE) {
		*why = "not a pool's key: one list for all pools, set with the configuration";
		return -EINVAL;
	}
	if (k >= 0) {
		if (hdp_value_parse(hdp_core_key((enum hdp_core_key)k), value, &v)) {
			*why = hdp_value_expected(hdp_core_key((enum hdp_core_key)k));
			return -EINVAL;
		}
		hdp_core_store(p, (enum hdp_core_key)k, v);
		p->set |= 1u << k;
		return 0;
	}
	ret = hdp_registry_set_key(p, key, value, why);
	if (ret == -ENOENT)
		*why = "unknown key";
	return ret;
}

int hdp_profile_value(const struct hdp_profile *p, const char *key, uint32_t *out)
{
	int k = hdp_core_key_find(key);
	const struct hdp_registered *r;
	unsigned i;

	if (k >= 0 && k < HDP_CK__PROFILE) {
		*out = hdp_core_value(p, (enum hdp_core_key)k);
		return 0;
	}
	r = k < 0 ? hdp_registry_key_find(key, &i) : NULL;
	if (!r)
		return -ENOENT;
	*out = p->pval[r->key_base + i];
	return 0;
}

int hdp_profile_format(const struct hdp_profile *p, char *buf, size_t len)
{
	struct hdp_strbuf o = hdp_strbuf_init(buf, len);
	const struct hdp_registry *reg = hdp_registry();

	for (int k = 0; k < HDP_CK__PROFILE; k++) {
		hdp_strbuf_printf(&o, "%s", k ? "," : "");
		hdp_value_format(&o, hdp_core_key((enum hdp_core_key)k),
				 hdp_core_value(p, (enum hdp_core_key)k));
	}
	for (unsigned i = 0; i < reg->nplugins; i++) {
		const struct hdp_registered *r = reg->plugin[i];

		for (unsigned k = 0; k < r->p->nkeys; k++) {
			hdp_strbuf_printf(&o, ",");
			hdp_value_format(&o, &r->p->keys[k], p->pval[r->key_base + k]);
		}
	}
	return (int)o.used;
}

static bool init_check_on(const struct hdp_profile *p)
{
	return p->init_check;
}

static bool something_wipes_on_free(const struct hdp_profile *p)
{
	return p->init_on_free != HDP_INIT_FREE_OFF;
}

static void init_check_follows(struct hdp_profile *p)
{
	p->init_check = something_wipes_on_free(p);
}

/*
 * The dependencies between keys, all of them. @key, when on, needs
 * @needs(); not set explicitly, it follows (@follow) what its needs allow.
 */
static const struct key_rule {
	uint32_t key;
	bool (*on)(const struct hdp_profile *p);
	bool (*needs)(const struct hdp_profile *p);
	void (*follow)(struct hdp_profile *p);
	const char *why;
} key_rules[] = {
	{ HDP_KEY_INIT_CHECK, init_check_on, something_wipes_on_free, init_check_follows,
	  "init_check=on needs init_on_free=on or used: nothing else guarantees a free "
	  "object is zero (set init_check=off with init_on_free=off)" },
};

void hdp_profile_normalize(struct hdp_profile *p)
{
	for (size_t i = 0; i < HDP_ARRAY_SIZE(key_rules); i++)
		if (!(p->set & key_rules[i].key))
			key_rules[i].follow(p);
}

void hdp_profile_pin_on(struct hdp_profile *p)
{
	for (size_t i = 0; i < HDP_ARRAY_SIZE(key_rules); i++)
		if (key_rules[i].on(p))
			p->set |= key_rules[i].key;
}

int hdp_profile_check(const struct hdp_profile *p, const char **why)
{
	for (size_t i = 0; i < HDP_ARRAY_SIZE(key_rules); i++) {
		const struct key_rule *r = &key_rules[i];

		if (r->on(p) && !r->needs(p)) {
			*why = r->why;
			return -EINVAL;
		}
	}
	*why = NULL;
	return 0;
}

bool hdp_glob_match(const char *pat, const char *name)
{
	const char *star = NULL, *resume = NULL;

	while (*name) {
		if (*pat == '*') {
			star = pat++;
			resume = name;
		} else if (*pat == '?' || *pat == *name) {
			pat++;
			name++;
		} else if (star) {
			pat = star + 1;
			name = ++resume;
		} else {
			return false;
		}
	}
	while (*pat == '*')
		pat++;
	return *pat == '\0';
}

int hdp_profile_keys_describe(char *buf, size_t len)
{
	struct hdp_strbuf o = hdp_strbuf_init(buf, len);
	const struct hdp_registry *reg = hdp_registry();

	/* The core's parts, the configuration's keys beside their part's; then the listing. */
	for (unsigned i = 0; i < HDP_CORE_PARTS; i++) {
		for (unsigned k = 0; k < hdp_core[i].nkeys; k++)
			hdp_key_describe(&o, hdp_core[i].name, &hdp_core[i].keys[k]);
		for (int k = HDP_CK__PROFILE; k < HDP_CK__ALL; k++)
			if (strcmp(hdp_core_key_part((enum hdp_core_key)k), hdp_core[i].name) == 0)
				hdp_key_describe(&o, hdp_core[i].name,
						 hdp_core_key((enum hdp_core_key)k));
	}
	for (unsigned i = 0; i < reg->n; i++)
		for (unsigned k = 0; k < reg->r[i].p->nkeys; k++)
			hdp_key_describe(&o, reg->r[i].p->name, &reg->r[i].p->keys[k]);
	return (int)o.used;
}
