// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: any --harden string is parsed or refused, never crashes; what
 * parsed is in range (the registered protections' keys too) and formats to
 * a string that parses back to the same profile.
 */
#include <hdp/profile.h>
#include <hdp/protection.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static void protection_keys_in_range(const struct hdp_profile *p)
{
	unsigned k = 0;

	for (unsigned i = 0; i < hdp_protection_count_registered(); i++) {
		const struct hdp_protection *prot = hdp_protection_get(i);

		for (unsigned j = 0; j < prot->nkeys; j++, k++) {
			const struct hdp_protection_key *key = &prot->keys[j];
			uint32_t v = p->pval[k];

			if ((key->type == HDP_VALUE_BOOL && v > 1) ||
			    ((key->type == HDP_VALUE_UINT || key->type == HDP_VALUE_SIZE) &&
			     (v < key->min || v > key->max)))
				abort();
		}
	}
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
		if (p.tag_sample < 1 || p.tag_sample > HDP_TAG_SAMPLE_MAX ||
		    p.init_check_sample < 1 || p.init_check_sample > HDP_CHECK_SAMPLE_MAX)
			abort();
		if (hdp_harden_config_validate(&cfg) == 0 && hdp_profile_check(&p, &bad))
			abort();
		protection_keys_in_range(&p);
		round_trip(&p);
	}
	free(spec);
	return 0;
}
