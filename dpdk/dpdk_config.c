// SPDX-License-Identifier: BSD-3-Clause
/*
 * Profiles for DPDK pools: HDP_CONFIG (INI file) below HDP_HARDEN
 * (string), read once per process, the first time a pool is made (or the
 * application's own configuration). DPDK names its pools itself, so any
 * valid pool name is accepted in both.
 */
#include "dpdk_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static struct hdp_harden_config config;
static int config_status;
static const struct hdp_harden_config *given;	/* by the application */
static bool from_application;			/* what was loaded came from it */
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static void config_load(void)
{
	const char *file = getenv("HDP_CONFIG"), *spec = getenv("HDP_HARDEN");

	if (given) {
		config = *given;
		from_application = true;
	} else {
		hdp_harden_config_init(&config);
		config.any_pool = true;
		if (file && *file && hdp_harden_config_load_file(&config, file, NULL, NULL))
			config_status = -EINVAL;
		else if (spec && *spec &&
			 hdp_harden_config_parse_string(&config, spec, "HDP_HARDEN"))
			config_status = -EINVAL;
	}
	if (!config_status && hdp_harden_config_validate(&config))
		config_status = -EINVAL;
}

int hdp_dpdk_use_config(const struct hdp_harden_config *cfg)
{
	given = cfg;
	pthread_once(&config_once, config_load);
	return from_application ? config_status : -EBUSY;
}

int hdp_dpdk_config(const struct hdp_harden_config **out)
{
	pthread_once(&config_once, config_load);
	*out = &config;
	return config_status;
}

int hdp_dpdk_profile_for(const char *name, struct hdp_profile *p, uint32_t *excluded,
			 char *why, size_t why_len)
{
	const struct hdp_harden_config *cfg;

	if (hdp_dpdk_config(&cfg)) {
		hdp_log(HDP_LOG_ERR, "mempool %s: HDP_CONFIG / HDP_HARDEN are invalid (above): "
			"refusing to make the pool rather than make it unhardened", name);
		return -EINVAL;
	}
	if (!hdp_pool_name_valid(name)) {
		hdp_log(HDP_LOG_ERR, "mempool %s: not a name hdp profiles can address", name);
		return -EINVAL;
	}
	hdp_harden_config_resolve(cfg, name, p);
	/*
	 * DPDK code (PMDs, the application) dereferences mbufs directly: a
	 * tag in the pointer would fault it. auto means off here; asking
	 * for tags by name is refused, not ignored.
	 */
	if ((p->set & HDP_KEY_TAG) && p->tag != HDP_TAG_OFF && p->tag != HDP_TAG_AUTO) {
		hdp_log(HDP_LOG_ERR, "mempool %s: key 'tag', value '%s': DPDK dereferences its "
			"objects directly, so pointer tags cannot protect a DPDK pool (use tag=off)",
			name, hdp_tag_mode_name(p->tag));
		return -EINVAL;
	}
	p->tag = HDP_TAG_OFF;
	*excluded = hdp_harden_config_excluded(cfg, name, why, why_len);
	return 0;
}
