// SPDX-License-Identifier: BSD-3-Clause
/*
 * The configuration of DPDK pools: HDP_CONFIG (INI file) below HDP_HARDEN
 * (string), read once per process, the first time a pool is made (or the
 * application's own configuration). DPDK names its pools itself, so any
 * valid pool name is accepted in both. Each pool's profile is resolved
 * from it by name when its last object arrives (hdp_mempool.c).
 */
#include "dpdk_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

static struct hdp_harden_config config;
static int config_status;
static const struct hdp_harden_config *given;	/* by the application */
static bool from_application;			/* what was loaded came from it */
static pthread_once_t config_once = PTHREAD_ONCE_INIT;

static void config_load(void)
{
	const char *file = NULL, *spec = NULL;

	if (given) {
		config = *given;
		from_application = true;
	} else {
		file = getenv("HDP_CONFIG");
		spec = getenv("HDP_HARDEN");
	}
	config_status = hdp_harden_config_from(&config, file, spec, "HDP_HARDEN") ? -EINVAL : 0;
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
