// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: any --harden string is parsed or refused, never crashes; what
 * parsed is in range (every key, from its table) and formats to a string
 * that parses back to the same profile.
 */
#include <hdp/profile.h>
#include <hdp/protection.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

/* @key's value in @p is one its table allows. */
static void key_in_range(const struct hdp_profile *p, const struct hdp_protection_key *key)
{
	uint32_t v, n = 0;

	if (hdp_profile_value(p, key->name, &v))
		abort();
	while (key->type == HDP_VALUE_CHOICE && key->choices[n])
		n++;
	if ((key->type == HDP_VALUE_BOOL && v > 1) || (key->type == HDP_VALUE_CHOICE && v >= n) ||
	    ((key->type == HDP_VALUE_UINT || key->type == HDP_VALUE_SIZE) &&
	     (v < key->min || v > key->max)))
		abort();
}

/* Every key, the core's and the registered protections'. */
static void keys_in_range(const struct hdp_profile *p)
{
	for (unsigned i = 0; i < hdp_protection_core_count(); i++)
		for (unsigned k = 0; k < hdp_protection_core_get(i)->nkeys; k++)
			key_in_range(p, &hdp_protection_core_get(i)->keys[k]);
	for (unsigned i = 0; i < hdp_protection_count_registered(); i++)
		for (unsigned k = 0; k < hdp_protection_get(i)->nkeys; k++)
			key_in_range(p, &hdp_protection_get(i)->keys[k]);
}

/* format, parse, format: the same text (every key, the protections' too). */
static void round_trip(const struct hdp_profile *p)
{
	static struct hdp_harden_config again;
	struct hdp_profile q;
	char text[1024], text2[1024];

	hdp_profile_format(p, text, sizeof(text));
	hdp_harden_config_init(&again);
	if (hdp_harden_config_parse_string(&again, text, "fuzz-again"))
		abort();
	hdp_harden_config_resolve(&again, NULL, &q);
	hdp_profile_format(&q, text2, sizeof(text2));
	if (strcmp(text, text2))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hdp_harden_config cfg;
	struct hdp_profile p;
	const char *bad;
	char *spec = malloc(size + 1);
	char why[128];

	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	fuzz_quiet();
	hdp_harden_config_init(&cfg);
	hdp_harden_config_declare(&cfg, "rx");
	hdp_harden_config_declare(&cfg, "umem");
	if (hdp_harden_config_parse_string(&cfg, spec, "fuzz") == 0) {
		hdp_harden_config_resolve(&cfg, "rx", &p);
		hdp_harden_config_excluded(&cfg, "umem", why, sizeof(why));
		/* What parsed is in range, and obeys the rule table once valid. */
		keys_in_range(&p);
		if (hdp_harden_config_validate(&cfg) == 0 && hdp_profile_check(&p, &bad))
			abort();
		round_trip(&p);
	}
	free(spec);
	return 0;
}
