// SPDX-License-Identifier: BSD-3-Clause
/*
 * The built-in protections' keys in a profile, from their descriptions:
 * where each value lives, its default, what a layer of settings copies,
 * and the flags a profile turns on (builtin_internal.h says why these
 * three are wired in this way).
 */
#include "builtin_internal.h"
#include "protection_internal.h"

#include <hdp/strbuf.h>

#include <stdbool.h>
#include <string.h>

const struct hdp_builtin *const hdp_builtins[HDP_BUILTINS] = {
	&hdp_builtin_bounds, &hdp_builtin_init, &hdp_builtin_tag,
};

/*
 * The pool's own key, on_violation: not a protection (no flags, not
 * listed as one), but bound, parsed, formatted and layered the same way.
 */
static const char *const policy_choices[] = { "abort", "drop", "report", NULL };

static const struct hdp_protection_key pool_keys[] = {
	{ "on_violation", HDP_PKEY_CHOICE, .choices = policy_choices, .def = HDP_POLICY_ABORT,
	  .doc = "what a violation does: abort, or drop what carried it, or report it and "
		 "carry on (both counted)" },
};

static const struct hdp_protection pool_desc = {
	.name = "pool",
	.doc = "the pool's own keys",
	.keys = pool_keys,
	.nkeys = HDP_ARRAY_SIZE(pool_keys),
};

static const struct hdp_builtin_field pool_fields[] = {
	HDP_BUILTIN_FIELD(HDP_KEY_ON_VIOLATION, on_violation),
};

const struct hdp_builtin hdp_builtin_pool = {
	.desc = &pool_desc,
	.fields = pool_fields,
};

/* Every key with a field in struct hdp_profile, in the order profiles print them. */
static const struct hdp_builtin *const bound[] = {
	&hdp_builtin_bounds, &hdp_builtin_init, &hdp_builtin_tag, &hdp_builtin_pool,
};

uint32_t hdp_builtin_value(const struct hdp_profile *p, const struct hdp_builtin_field *f)
{
	const char *at = (const char *)p + f->offset;
	uint32_t v;
	bool b;

	if (f->size == sizeof(bool)) {
		memcpy(&b, at, sizeof(b));
		return b;
	}
	memcpy(&v, at, sizeof(v));
	return v;
}

void hdp_builtin_store(struct hdp_profile *p, const struct hdp_builtin_field *f, uint32_t v)
{
	char *at = (char *)p + f->offset;
	bool b = v != 0;

	if (f->size == sizeof(bool))
		memcpy(at, &b, sizeof(b));
	else
		memcpy(at, &v, sizeof(v));
}

const struct hdp_builtin *hdp_builtin_key_find(const char *name, unsigned *k)
{
	for (unsigned i = 0; i < HDP_ARRAY_SIZE(bound); i++)
		for (unsigned j = 0; j < bound[i]->desc->nkeys; j++)
			if (strcmp(bound[i]->desc->keys[j].name, name) == 0) {
				*k = j;
				return bound[i];
			}
	return NULL;
}

void hdp_builtin_defaults(struct hdp_profile *p)
{
	for (unsigned i = 0; i < HDP_ARRAY_SIZE(bound); i++)
		for (unsigned k = 0; k < bound[i]->desc->nkeys; k++)
			hdp_builtin_store(p, &bound[i]->fields[k], bound[i]->desc->keys[k].def);
}

void hdp_builtin_apply(struct hdp_profile *out, const struct hdp_profile *in)
{
	for (unsigned i = 0; i < HDP_ARRAY_SIZE(bound); i++)
		for (unsigned k = 0; k < bound[i]->desc->nkeys; k++) {
			const struct hdp_builtin_field *f = &bound[i]->fields[k];

			if (in->set & f->set_bit)
				hdp_builtin_store(out, f, hdp_builtin_value(in, f));
		}
}

void hdp_builtin_format(struct hdp_strbuf *o, const struct hdp_profile *p)
{
	for (unsigned i = 0; i < HDP_ARRAY_SIZE(bound); i++)
		for (unsigned k = 0; k < bound[i]->desc->nkeys; k++) {
			if (i || k)
				hdp_strbuf_printf(o, ",");
			hdp_pkey_format(o, &bound[i]->desc->keys[k],
					hdp_builtin_value(p, &bound[i]->fields[k]));
		}
}

unsigned hdp_builtin_flags(const struct hdp_profile *p, uint32_t excluded, size_t obj_size)
{
	unsigned f = 0;

	for (unsigned i = 0; i < HDP_BUILTINS; i++)
		f |= hdp_builtins[i]->flags(p, excluded, obj_size);
	return f;
}

unsigned hdp_protection_builtin_count(void)
{
	return HDP_BUILTINS;
}

const struct hdp_protection *hdp_protection_builtin_get(unsigned i)
{
	return i < HDP_BUILTINS ? hdp_builtins[i]->desc : NULL;
}
