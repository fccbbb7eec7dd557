// SPDX-License-Identifier: BSD-3-Clause
/*
 * The built-in protections' keys in a profile, from their descriptions:
 * where each value lives, its default, what a layer of settings copies,
 * and the flags a profile turns on (builtin_internal.h says why these
 * three are wired in this way).
 */
#include "builtin_internal.h"

#include <stdbool.h>
#include <string.h>

const struct hdp_builtin *const hdp_builtins[HDP_BUILTINS] = {
	&hdp_builtin_bounds, &hdp_builtin_init, &hdp_builtin_tag,
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
	for (unsigned i = 0; i < HDP_BUILTINS; i++)
		for (unsigned j = 0; j < hdp_builtins[i]->desc->nkeys; j++)
			if (strcmp(hdp_builtins[i]->desc->keys[j].name, name) == 0) {
				*k = j;
				return hdp_builtins[i];
			}
	return NULL;
}

void hdp_builtin_defaults(struct hdp_profile *p)
{
	for (unsigned i = 0; i < HDP_BUILTINS; i++)
		for (unsigned k = 0; k < hdp_builtins[i]->desc->nkeys; k++)
			hdp_builtin_store(p, &hdp_builtins[i]->fields[k],
					  hdp_builtins[i]->desc->keys[k].def);
}

void hdp_builtin_apply(struct hdp_profile *out, const struct hdp_profile *in)
{
	for (unsigned i = 0; i < HDP_BUILTINS; i++)
		for (unsigned k = 0; k < hdp_builtins[i]->desc->nkeys; k++) {
			const struct hdp_builtin_field *f = &hdp_builtins[i]->fields[k];

			if (in->set & f->set_bit)
				hdp_builtin_store(out, f, hdp_builtin_value(in, f));
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
