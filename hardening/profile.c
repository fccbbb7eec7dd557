// SPDX-License-Identifier: BSD-3-Clause
/* One profile: its keys, their values, defaults and formatting. */
#include "builtin_internal.h"
#include "protection_internal.h"

#include <hdp/strbuf.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hdp_profile_defaults(struct hdp_profile *p)
{
	*p = (struct hdp_profile){ .set = 0 };
	hdp_builtin_defaults(p);
	hdp_prot_defaults(p);
}

/* Every built-in key is in its protection's table (bounds.c, init.c, tag.c; on_violation: builtin.c). */
int hdp_profile_set_builtin_key(struct hdp_profile *p, const char *key,
				const char *value, const char **why)
{
	unsigned k;
	const struct hdp_builtin *bi = hdp_builtin_key_find(key, &k);
	uint32_t v;

	*why = NULL;
	if (!bi) {
		*why = "unknown key";
		return -ENOENT;
	}
	if (hdp_pkey_parse(&bi->desc->keys[k], value, &v)) {
		*why = hdp_pkey_expected(&bi->desc->keys[k]);
		return -EINVAL;
	}
	hdp_builtin_store(p, &bi->fields[k], v);
	p->set |= bi->fields[k].set_bit;
	return 0;
}

int hdp_profile_set_key(struct hdp_profile *p, const char *key,
			const char *value, const char **why)
{
	int ret = hdp_profile_set_builtin_key(p, key, value, why);

	if (ret == -ENOENT)
		ret = hdp_prot_set_key(p, key, value, why);
	if (ret == -ENOENT)
		*why = "unknown key";
	return ret;
}

int hdp_profile_format(const struct hdp_profile *p, char *buf, size_t len)
{
	struct hdp_strbuf o = hdp_strbuf_init(buf, len);

	hdp_builtin_format(&o, p);
	hdp_prot_format(p, &o);
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

bool hdp_pool_name_valid(const char *name)
{
	size_t len = name ? strnlen(name, 32) : 0;

	if (len == 0 || len >= 32)
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-") == len;
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
	const struct hdp_prot_registry *r = hdp_prot_registry();

	for (unsigned i = 0; i < HDP_BUILTINS; i++)
		for (unsigned k = 0; k < hdp_builtins[i]->desc->nkeys; k++)
			hdp_pkey_describe(&o, hdp_builtins[i]->desc->name,
					  &hdp_builtins[i]->desc->keys[k]);
	/* A list, which no key type holds: its line by hand, in the same layout. */
	hdp_pkey_describe_line(&o, "init_exclude", "init", "default",
			       "default, none, or pool names and globs, comma-separated",
			       "pools that are not zeroed: one list for all pools; none drops "
			       "the built-in exclusions");
	for (unsigned k = 0; k < hdp_builtin_pool.desc->nkeys; k++)
		hdp_pkey_describe(&o, hdp_builtin_pool.desc->name, &hdp_builtin_pool.desc->keys[k]);
	for (unsigned i = 0; i < r->n; i++)
		for (unsigned k = 0; k < r->info[i].p->nkeys; k++)
			hdp_pkey_describe(&o, r->info[i].p->name, &r->info[i].p->keys[k]);
	return (int)o.used;
}
