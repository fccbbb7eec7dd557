// SPDX-License-Identifier: BSD-3-Clause
/*
 * Which MTE tag check mode the process wants and which it got (tag.h says
 * what the modes are). The wanted mode is settled when the first MTE pool
 * turns MTE on (tag_mte.c), which then records what the CPU and kernel
 * gave and why it differs, if it does. Arch-independent: the parsing, the
 * request and the words are the same on every CPU, and tested on all.
 */
#include "harden_internal.h"

#include <hdp/log.h>
#include <hdp/tag.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const names[] = {
	[HDP_TAG_CHECK_SYNC] = "sync",
	[HDP_TAG_CHECK_ASYNC] = "async",
	[HDP_TAG_CHECK_ASYMM] = "asymm",
	[HDP_TAG_CHECK_NONE] = "none",
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static int requested = -1;	/* -1: nobody asked */
static int decided = -1;	/* the mode wanted when MTE went on; -1: not yet */
static _Atomic int in_force = -1;
static char why_text[320];

int hdp_tag_check_parse(const char *s, enum hdp_tag_check *mode)
{
	for (int m = HDP_TAG_CHECK_SYNC; m <= HDP_TAG_CHECK_ASYMM; m++)
		if (s && strcmp(s, names[m]) == 0) {
			*mode = (enum hdp_tag_check)m;
			return 0;
		}
	return -1;
}

const char *hdp_tag_check_name(enum hdp_tag_check mode)
{
	return (unsigned)mode <= HDP_TAG_CHECK_NONE ? names[mode] : "?";
}

int hdp_tag_check_request(enum hdp_tag_check mode)
{
	int ret = 0;

	if ((unsigned)mode > HDP_TAG_CHECK_ASYMM)
		return -EINVAL;
	pthread_mutex_lock(&lock);
	if (decided >= 0 && decided != (int)mode)
		ret = -EBUSY;	/* threads already check in the other mode */
	else
		requested = (int)mode;
	pthread_mutex_unlock(&lock);
	return ret;
}

/* lock held */
static enum hdp_tag_check wanted_locked(void)
{
	static bool warned;
	const char *env;
	enum hdp_tag_check m;

	if (requested >= 0)
		return (enum hdp_tag_check)requested;
	env = getenv("HDP_TAG_CHECK");
	if (!env || !*env)
		return HDP_TAG_CHECK_SYNC;
	if (!hdp_tag_check_parse(env, &m))
		return m;
	if (!warned)
		hdp_log(HDP_LOG_ERR, "environment HDP_TAG_CHECK='%s': expected sync, async or "
			"asymm; checking in sync", env);
	warned = true;
	return HDP_TAG_CHECK_SYNC;
}

enum hdp_tag_check hdp_tag_check_wanted(void)
{
	enum hdp_tag_check m;

	pthread_mutex_lock(&lock);
	m = decided >= 0 ? (enum hdp_tag_check)decided : wanted_locked();
	pthread_mutex_unlock(&lock);
	return m;
}

enum hdp_tag_check tag_check_settle(void)
{
	enum hdp_tag_check m;

	pthread_mutex_lock(&lock);
	if (decided < 0)
		decided = (int)wanted_locked();
	m = (enum hdp_tag_check)decided;
	pthread_mutex_unlock(&lock);
	return m;
}

void tag_check_explain(enum hdp_tag_check wanted, enum hdp_tag_check got, bool have_mte3,
		       const char *preferred, char *out, size_t len)
{
	if (wanted == got) {
		snprintf(out, len, "%s", "");
	} else if (wanted == HDP_TAG_CHECK_ASYMM && !have_mte3) {
		snprintf(out, len, "tag_check = asymm: this CPU has no MTE3, which asymmetric "
			 "checking needs; checking in %s instead%s", names[got],
			 got == HDP_TAG_CHECK_SYNC ? ", which stops writes at the access too" : "");
	} else if (wanted == HDP_TAG_CHECK_ASYMM) {
		snprintf(out, len, "tag_check = asymm: the kernel picks each CPU's preferred mode "
			 "(/sys/devices/system/cpu/cpu*/mte_tcf_preferred: %s) and gave %s; write "
			 "asymm there for asymmetric checking", preferred ? preferred : "not there",
			 names[got]);
	} else {
		snprintf(out, len, "tag_check = %s: the CPU and kernel gave %s", names[wanted],
			 names[got]);
	}
}

void tag_check_record(enum hdp_tag_check got, const char *why)
{
	pthread_mutex_lock(&lock);
	snprintf(why_text, sizeof(why_text), "%s", why);
	atomic_store(&in_force, (int)got);
	pthread_mutex_unlock(&lock);
	/* Once, where it is decided: the first MTE pool of the process. */
	if (*why)
		hdp_log(HDP_LOG_WARN, "%s", why);
}

int hdp_tag_check_in_force(const char **why)
{
	int m = atomic_load(&in_force);

	if (why)
		*why = m < 0 ? "" : why_text;
	return m;
}
