// SPDX-License-Identifier: BSD-3-Clause
/* libFuzzer: any --harden string is parsed or refused, never crashes. */
#include <hdp/profile.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

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
	}
	free(spec);
	return 0;
}
