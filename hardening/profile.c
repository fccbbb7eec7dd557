// SPDX-License-Identifier: BSD-3-Clause
/* One profile: its keys, their values, defaults and formatting. */
#include "protection_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void hdp_profile_defaults(struct hdp_profile *p)
{
	*p = (struct hdp_profile){
		.set = 0,
		.bounds = true,
		.bounds_lookup = HDP_LOOKUP_FAST,
		.init_on_alloc = false,
		.init_on_free = HDP_INIT_FREE_ON,
		.init_check = true,
		.init_check_sample = HDP_CHECK_SAMPLE_DEFAULT,
		.tag = HDP_TAG_AUTO,
		.tag_sample = 1,
		.tag_sample_min = 0,
		.on_violation = HDP_POLICY_ABORT,
	};
	hdp_prot_defaults(p);
}

const char *hdp_init_free_name(enum hdp_init_free v)
{
	switch (v) {
	case HDP_INIT_FREE_OFF:  return "off";
	case HDP_INIT_FREE_ON:   return "on";
	case HDP_INIT_FREE_USED: return "used";
	}
	return "?";
}

const char *hdp_tag_mode_name(enum hdp_tag_mode v)
{
	switch (v) {
	case HDP_TAG_OFF:  return "off";
	case HDP_TAG_AUTO: return "auto";
	case HDP_TAG_MTE:  return "mte";
	case HDP_TAG_SOFT: return "soft";
	}
	return "?";
}

int hdp_parse_bool(const char *v, bool *out)
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
int hdp_parse_number(const char *v, bool size_suffix, uint64_t *out)
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

int hdp_profile_set_builtin_key(struct hdp_profile *p, const char *key,
				const char *value, const char **why)
{
	uint64_t n;
	bool b;
	int ret;

	*why = NULL;
	if (strcmp(key, "bounds") == 0) {
		if (hdp_parse_bool(value, &b))
			goto want_bool;
		p->bounds = b;
		p->set |= HDP_KEY_BOUNDS;
	} else if (strcmp(key, "bounds_lookup") == 0) {
		if (hdp_region_lookup_parse(value, &p->bounds_lookup)) {
			*why = "expected fast or tree";
			return -EINVAL;
		}
		p->set |= HDP_KEY_BOUNDS_LOOKUP;
	} else if (strcmp(key, "init_on_alloc") == 0) {
		if (hdp_parse_bool(value, &b))
			goto want_bool;
		p->init_on_alloc = b;
		p->set |= HDP_KEY_INIT_ON_ALLOC;
	} else if (strcmp(key, "init_on_free") == 0) {
		if (strcmp(value, "used") == 0) {
			p->init_on_free = HDP_INIT_FREE_USED;
		} else if (hdp_parse_bool(value, &b) == 0) {
			p->init_on_free = b ? HDP_INIT_FREE_ON : HDP_INIT_FREE_OFF;
		} else {
			*why = "expected on, off or used";
			return -EINVAL;
		}
		p->set |= HDP_KEY_INIT_ON_FREE;
	} else if (strcmp(key, "init_check") == 0) {
		if (hdp_parse_bool(value, &b))
			goto want_bool;
		p->init_check = b;
		p->set |= HDP_KEY_INIT_CHECK;
	} else if (strcmp(key, "init_check_sample") == 0) {
		ret = hdp_parse_number(value, false, &n);
		if (ret || n < 1 || n > HDP_CHECK_SAMPLE_MAX) {
			*why = "expected a whole number from 1 to 65535 (1 checks every allocation whole)";
			return -EINVAL;
		}
		p->init_check_sample = (uint32_t)n;
		p->set |= HDP_KEY_INIT_CHECK_SAMPLE;
	} else if (strcmp(key, "tag") == 0) {
		enum hdp_tag_mode m;

		for (m = HDP_TAG_OFF; m <= HDP_TAG_SOFT; m++)
			if (strcmp(value, hdp_tag_mode_name(m)) == 0)
				break;
		if (m > HDP_TAG_SOFT) {
			if (hdp_parse_bool(value, &b)) {
				*why = "expected off, auto, mte or soft";
				return -EINVAL;
			}
			m = b ? HDP_TAG_AUTO : HDP_TAG_OFF;
		}
		p->tag = m;
		p->set |= HDP_KEY_TAG;
	} else if (strcmp(key, "tag_sample") == 0) {
		ret = hdp_parse_number(value, false, &n);
		if (ret || n < 1 || n > HDP_TAG_SAMPLE_MAX) {
			*why = "expected a whole number from 1 to 65535 (1 tags every allocation)";
			return -EINVAL;
		}
		p->tag_sample = (uint32_t)n;
		p->set |= HDP_KEY_TAG_SAMPLE;
	} else if (strcmp(key, "tag_sample_min") == 0) {
		ret = hdp_parse_number(value, true, &n);
		if (ret || n > HDP_TAG_SAMPLE_MIN_MAX) {
			*why = "expected a size in bytes from 0 to 1M (k and M suffixes allowed)";
			return -EINVAL;
		}
		p->tag_sample_min = (uint32_t)n;
		p->set |= HDP_KEY_TAG_SAMPLE_MIN;
	} else if (strcmp(key, "on_violation") == 0) {
		if (hdp_policy_parse(value, &p->on_violation)) {
			*why = "expected abort, drop or report";
			return -EINVAL;
		}
		p->set |= HDP_KEY_ON_VIOLATION;
	} else {
		*why = "unknown key";
		return -ENOENT;
	}
	return 0;

want_bool:
	*why = "expected on or off";
	return -EINVAL;
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
	int n = snprintf(buf, len,
			"bounds=%s,bounds_lookup=%s,init_on_alloc=%s,init_on_free=%s,"
			"init_check=%s,init_check_sample=%u,tag=%s,tag_sample=%u,"
			"tag_sample_min=%u,on_violation=%s",
			p->bounds ? "on" : "off",
			hdp_region_lookup_name(p->bounds_lookup),
			p->init_on_alloc ? "on" : "off",
			hdp_init_free_name(p->init_on_free),
			p->init_check ? "on" : "off", p->init_check_sample,
			hdp_tag_mode_name(p->tag), p->tag_sample, p->tag_sample_min,
			hdp_policy_name(p->on_violation));

	if (n < 0)
		return n;
	return n + hdp_prot_format(p, (size_t)n < len ? buf + n : NULL,
				   (size_t)n < len ? len - (size_t)n : 0);
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
