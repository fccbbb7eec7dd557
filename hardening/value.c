// SPDX-License-Identifier: BSD-3-Clause
/*
 * A profile key's value as text, from its table entry alone: parsing with
 * the reason for a refusal, formatting, and the line that documents it.
 * Every key goes through here, the table's and third parties',
 * so that all of them read, refuse and print alike.
 */
#include "protection_internal.h"

#include <hdp/strbuf.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "on", "1", "yes", "true" };
	static const char *const no[] = { "off", "0", "no", "false" };

	for (size_t i = 0; i < HDP_ARRAY_SIZE(yes); i++) {
		if (strcmp(v, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcmp(v, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* Decimal only, with an optional k/m suffix for sizes; no sign, no junk. */
static int parse_number(const char *v, bool size_suffix, uint64_t *out)
{
	uint64_t n = 0;
	const char *s = v;

	if (!*s)
		return -EINVAL;
	for (; *s >= '0' && *s <= '9'; s++) {
		n = n * 10 + (uint64_t)(*s - '0');
		if (n > UINT32_MAX)
			return -ERANGE;
	}
	if (s == v)
		return -EINVAL;
	if (size_suffix && (*s == 'k' || *s == 'K') && !s[1])
		n <<= 10;
	else if (size_suffix && (*s == 'm' || *s == 'M') && !s[1])
		n <<= 20;
	else if (*s)
		return -EINVAL;
	*out = n;
	return 0;
}

/*
 * A choice whose first value is "off" and second is its usual "on" also
 * takes the booleans: init_on_free=1 is init_on_free=on, tag=on is
 * tag=auto.
 */
static bool choice_takes_bool(const struct hdp_protection_key *k)
{
	return strcmp(k->choices[0], "off") == 0 && k->choices[1];
}

int hdp_value_parse(const struct hdp_protection_key *k, const char *value, uint32_t *out)
{
	uint64_t n;
	bool b;

	switch (k->type) {
	case HDP_VALUE_BOOL:
		if (parse_bool(value, &b))
			return -EINVAL;
		*out = b;
		return 0;
	case HDP_VALUE_CHOICE:
		for (uint32_t i = 0; k->choices[i]; i++)
			if (strcmp(value, k->choices[i]) == 0) {
				*out = i;
				return 0;
			}
		if (choice_takes_bool(k) && parse_bool(value, &b) == 0) {
			*out = b;
			return 0;
		}
		return -EINVAL;
	case HDP_VALUE_UINT:
	case HDP_VALUE_SIZE:
		if (parse_number(value, k->type == HDP_VALUE_SIZE, &n) ||
		    n < k->min || n > k->max)
			return -EINVAL;
		*out = (uint32_t)n;
		return 0;
	}
	/* A list (HDP_VALUE_LIST) is no number: the configuration keeps it (harden_config.c). */
	return -EINVAL;
}

/* A size as a reader would write it: 1M, 64k, 100. */
static void size_text(struct hdp_strbuf *o, uint32_t v)
{
	if (v && v % (1u << 20) == 0)
		hdp_strbuf_printf(o, "%uM", v >> 20);
	else if (v && v % 1024 == 0)
		hdp_strbuf_printf(o, "%uk", v >> 10);
	else
		hdp_strbuf_printf(o, "%u", v);
}

/* "a, b or c" */
static void choices_text(struct hdp_strbuf *o, const struct hdp_protection_key *k)
{
	for (unsigned i = 0; k->choices[i]; i++)
		hdp_strbuf_printf(o, "%s%s", i == 0 ? "" : k->choices[i + 1] ? ", " : " or ",
				  k->choices[i]);
}

/* The values @k takes, as the refusal and the documentation say them. */
static void values_text(struct hdp_strbuf *o, const struct hdp_protection_key *k)
{
	switch (k->type) {
	case HDP_VALUE_BOOL:
		hdp_strbuf_printf(o, "on or off");
		return;
	case HDP_VALUE_CHOICE:
		choices_text(o, k);
		return;
	case HDP_VALUE_UINT:
		hdp_strbuf_printf(o, "a whole number from %u to %u", k->min, k->max);
		return;
	case HDP_VALUE_SIZE:
		hdp_strbuf_printf(o, "a size in bytes from ");
		size_text(o, k->min);
		hdp_strbuf_printf(o, " to ");
		size_text(o, k->max);
		hdp_strbuf_printf(o, " (k and M suffixes allowed)");
		return;
	}
	if (k->type == HDP_VALUE_LIST)
		hdp_strbuf_printf(o, "default, none, or pool names and globs, comma-separated");
}

const char *hdp_value_expected(const struct hdp_protection_key *k)
{
	static _Thread_local char why[192];
	struct hdp_strbuf o = hdp_strbuf_init(why, sizeof(why));

	hdp_strbuf_printf(&o, "expected ");
	values_text(&o, k);
	return why;
}

/* A profile built by hand may hold any number. */
static const char *choice_name(const struct hdp_protection_key *k, uint32_t v)
{
	for (uint32_t i = 0; k->choices[i]; i++)
		if (i == v)
			return k->choices[i];
	return "?";
}

/* @v as the key's text: sizes in decimal for profiles (@human: 1M, 64k). */
static void value_text(struct hdp_strbuf *o, const struct hdp_protection_key *k, uint32_t v,
		       bool human)
{
	if (k->type == HDP_VALUE_BOOL)
		hdp_strbuf_printf(o, "%s", v ? "on" : "off");
	else if (k->type == HDP_VALUE_LIST)
		hdp_strbuf_printf(o, "default");
	else if (k->type == HDP_VALUE_CHOICE)
		hdp_strbuf_printf(o, "%s", choice_name(k, v));
	else if (k->type == HDP_VALUE_SIZE && human)
		size_text(o, v);
	else
		hdp_strbuf_printf(o, "%u", v);
}

void hdp_value_format(struct hdp_strbuf *o, const struct hdp_protection_key *k, uint32_t v)
{
	hdp_strbuf_printf(o, "%s=", k->name);
	value_text(o, k, v, false);
}

static void describe_line(struct hdp_strbuf *o, const char *name, const char *protection,
			  const char *def, const char *values, const char *doc)
{
	hdp_strbuf_printf(o, "%-18s %-11s default %s; %s\n%-31s%s\n", name, protection, def,
			  values, "", doc ? doc : "");
}

void hdp_key_describe(struct hdp_strbuf *o, const char *protection,
		       const struct hdp_protection_key *k)
{
	char def[32], values[160];
	struct hdp_strbuf d = hdp_strbuf_init(def, sizeof(def));
	struct hdp_strbuf v = hdp_strbuf_init(values, sizeof(values));

	value_text(&d, k, k->def, true);
	values_text(&v, k);
	describe_line(o, k->name, protection, def, values, k->doc);
}
