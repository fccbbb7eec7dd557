// SPDX-License-Identifier: BSD-3-Clause
/*
 * The layered configuration: built-in defaults < file < string, each layer
 * with settings for all pools and for named ones, and the init_exclude
 * list with its built-in entries.
 */
#include "harden_internal.h"
#include "protection_internal.h"

#include <hdp/log.h>
#include <hdp/profile.h>
#include <hdp/tag.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Pools whose objects the kernel or the NIC fills before anyone reads
 * them: zeroing them at allocation is wasted work (the AF_XDP RX frames of
 * a UMEM). Wiping on free, and the write-after-free check, still apply.
 */
static const struct {
	const char *pattern;
	uint32_t mask;
} builtin_excludes[] = {
	{ "umem*", HDP_KEY_INIT_ON_ALLOC },
	{ "rx*", HDP_KEY_INIT_ON_ALLOC },
};

/* The built-in list's masks for @pool, said in @why after its first @used bytes. */
static uint32_t builtin_excluded(const char *pool, char *why, size_t why_len, size_t used)
{
	for (size_t i = 0; i < HDP_ARRAY_SIZE(builtin_excludes); i++) {
		if (!hdp_glob_match(builtin_excludes[i].pattern, pool))
			continue;
		if (used < why_len)
			snprintf(why + used, why_len - used, "%sbuilt-in '%s' (init_on_alloc)",
				 used ? ", " : "", builtin_excludes[i].pattern);
		return builtin_excludes[i].mask;
	}
	return 0;
}

void hdp_harden_config_init(struct hdp_harden_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
}

struct hdp_harden_config *hdp_harden_config_new(void)
{
	/* calloc: the same empty configuration hdp_harden_config_init makes. */
	return calloc(1, sizeof(struct hdp_harden_config));
}

void hdp_harden_config_free(struct hdp_harden_config *cfg)
{
	free(cfg);
}

static bool is_known(const struct hdp_harden_config *cfg, const char *pool)
{
	for (unsigned i = 0; i < cfg->nknown; i++)
		if (strcmp(cfg->known[i], pool) == 0)
			return true;
	return false;
}

int hdp_harden_config_declare(struct hdp_harden_config *cfg, const char *pool)
{
	if (!hdp_pool_name_valid(pool))
		return -EINVAL;
	if (is_known(cfg, pool))
		return 0;
	if (cfg->fixed_pools)
		return -ENOENT;
	if (cfg->nknown == HDP_PROFILE_POOLS_MAX)
		return -ENOSPC;
	strcpy(cfg->known[cfg->nknown++], pool);
	return 0;
}

static struct hdp_profile *layer_pool(struct hdp_profile_layer *l,
				      const char *pool, bool create)
{
	for (unsigned i = 0; i < l->npools; i++)
		if (strcmp(l->pools[i].name, pool) == 0)
			return &l->pools[i].p;
	if (!create || l->npools == HDP_PROFILE_POOLS_MAX)
		return NULL;
	memset(&l->pools[l->npools], 0, sizeof(l->pools[0]));
	strcpy(l->pools[l->npools].name, pool);
	return &l->pools[l->npools++].p;
}

HDP_PRINTF(7, 8)
static void config_error(bool from_string, const char *source, int line,
			 const char *pool, const char *key, const char *value,
			 const char *fmt, ...)
{
	char why[256], where[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (from_string)
		snprintf(where, sizeof(where), "%s, item %d", source, line);
	else
		snprintf(where, sizeof(where), "%s:%d", source, line);
	hdp_log(HDP_LOG_ERR, "%s: %s%s%skey '%s', value '%s': %s", where,
		pool ? "pool '" : "", pool ? pool : "", pool ? "', " : "", key,
		value, why);
}

/* "none", "default", names and globs, comma separated. */
static int set_exclude(struct hdp_exclude *ex, const char *value, bool from_string,
		       const char *source, int line)
{
	struct hdp_exclude next = { .set = true };
	char buf[1024], *save = NULL, *tok;

	if (strlen(value) >= sizeof(buf)) {
		config_error(from_string, source, line, NULL, "init_exclude", value,
			     "list longer than %zu characters", sizeof(buf) - 1);
		return -EINVAL;
	}
	strcpy(buf, value);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *end = tok + strlen(tok);

		/* "a, b" in a file reads as "a,b". */
		while (*tok == ' ' || *tok == '\t')
			tok++;
		while (end > tok && (end[-1] == ' ' || end[-1] == '\t'))
			*--end = '\0';
		if (!*tok)
			continue;
		if (strcmp(tok, "none") == 0) {
			next.no_builtin = true;
			continue;
		}
		if (strcmp(tok, "default") == 0)
			continue;
		if (strlen(tok) >= sizeof(next.names[0]) ||
		    strspn(tok, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-*?") !=
			    strlen(tok)) {
			config_error(from_string, source, line, NULL, "init_exclude",
				     value, "'%s' is not a pool name or glob", tok);
			return -EINVAL;
		}
		if (next.n == HDP_EXCLUDE_MAX) {
			config_error(from_string, source, line, NULL, "init_exclude",
				     value, "more than %d entries", HDP_EXCLUDE_MAX);
			return -EINVAL;
		}
		strcpy(next.names[next.n++], tok);
	}
	*ex = next;
	return 0;
}

/* Is @key the configuration's list (the key table's LIST key), not a pool's key? */
static bool is_list(const char *key)
{
	int k = hdp_core_key_find(key);

	return k >= 0 && hdp_core_key((enum hdp_core_key)k)->type == HDP_VALUE_LIST;
}

int hdp_harden_config_set(struct hdp_harden_config *cfg, bool from_string,
			  const char *pool, const char *key, const char *value,
			  const char *source, int line)
{
	struct hdp_profile_layer *l = from_string ? &cfg->string : &cfg->file;
	struct hdp_profile *p;
	const char *why;
	int ret;

	if (is_list(key)) {
		if (pool) {
			config_error(from_string, source, line, pool, key, value,
				     "%s is one list for all pools: set it in [pool:default] or "
				     "as a bare key", key);
			return -EINVAL;
		}
		return set_exclude(&l->exclude, value, from_string, source, line);
	}
	if (pool && !is_known(cfg, pool) &&
	    !(cfg->any_pool && hdp_harden_config_declare(cfg, pool) == 0)) {
		/* A program's pools are fixed; a library's caller declares its own. */
		if (!strcmp(pool, "default"))
			config_error(from_string, source, line, pool, key, value,
				     "no pool is called 'default' (a key for every pool is "
				     "given alone: KEY=VALUE)");
		else if (cfg->fixed_pools)
			config_error(from_string, source, line, pool, key, value,
				     "no pool is called '%s'", pool);
		else
			config_error(from_string, source, line, pool, key, value,
				     "no pool '%s' is declared in this configuration (declare "
				     "it first: hdp_harden_config_declare)", pool);
		return -EINVAL;
	}
	p = pool ? layer_pool(l, pool, true) : &l->all;
	if (!p) {
		config_error(from_string, source, line, pool, key, value,
			     "too many pools");
		return -EINVAL;
	}
	ret = hdp_profile_set_key(p, key, value, &why);
	if (ret) {
		config_error(from_string, source, line, pool, key, value, "%s", why);
		return -EINVAL;
	}
	return 0;
}

/* pool.NAME.KEY=VALUE or KEY=VALUE; bare words continue an init_exclude list. */
int hdp_harden_config_parse_string(struct hdp_harden_config *cfg,
				   const char *spec, const char *source)
{
	struct hdp_harden_config *next;
	char *buf, *save = NULL, *tok;
	char list[1024] = "";
	int item = 0, list_item = 0, errors = 0;
	bool list_refused = false;	/* the rest of a refused list: said once */

	if (!spec)
		return -EINVAL;
	next = malloc(sizeof(*next));
	buf = strdup(spec);
	if (!next || !buf) {
		free(next);
		free(buf);
		return -ENOMEM;
	}
	*next = *cfg;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(tok, '='), *key = tok, *pool = NULL;

		item++;
		if (!eq) {
			/* "init_exclude=a,b,c": b and c belong to the list. */
			if (list_item && strlen(list) + strlen(tok) + 2 <= sizeof(list)) {
				strcat(list, ",");
				strcat(list, tok);
				continue;
			}
			if (list_refused)
				continue;
			if (list_item) {
				hdp_log(HDP_LOG_ERR, "%s, item %d: init_exclude list longer than %zu characters",
					source, list_item, sizeof(list) - 1);
				list_item = 0;
				list_refused = true;
			} else {
				hdp_log(HDP_LOG_ERR, "%s, item %d: '%s' is not key=value", source,
					item, tok);
			}
			errors++;
			continue;
		}
		list_refused = false;
		if (list_item) {
			errors += set_exclude(&next->string.exclude, list, true, source,
					      list_item) != 0;
			list_item = 0;
		}
		*eq = '\0';
		if (strncmp(key, "pool.", 5) == 0) {
			char *dot = strchr(key + 5, '.');

			if (!dot || dot == key + 5 || !dot[1]) {
				hdp_log(HDP_LOG_ERR, "%s, item %d: '%s' should read pool.NAME.KEY",
					source, item, key);
				errors++;
				continue;
			}
			*dot = '\0';
			pool = key + 5;
			key = dot + 1;
		}
		if (is_list(key) && !pool) {
			/* Never cut: a list cut short can widen into a glob that matches all. */
			if (strlen(eq + 1) >= sizeof(list)) {
				hdp_log(HDP_LOG_ERR, "%s, item %d: init_exclude list longer than %zu characters",
					source, item, sizeof(list) - 1);
				errors++;
				list_refused = true;
				continue;
			}
			strcpy(list, eq + 1);
			list_item = item;
			continue;
		}
		errors += hdp_harden_config_set(next, true, pool, key, eq + 1, source,
						item) != 0;
	}
	if (list_item)
		errors += set_exclude(&next->string.exclude, list, true, source, list_item) != 0;
	if (!errors)
		*cfg = *next;
	free(next);
	free(buf);
	return errors ? -EINVAL : 0;
}

static void apply(struct hdp_profile *out, const struct hdp_profile *in)
{
	for (uint32_t m = in->set; m; m &= m - 1) {
		enum hdp_core_key k = (enum hdp_core_key)__builtin_ctz(m);

		hdp_core_store(out, k, hdp_core_value(in, k));
	}
	out->set |= in->set;
	/* Third parties' keys, one bit each. */
	for (uint32_t m = in->pset; m; m &= m - 1)
		out->pval[__builtin_ctz(m)] = in->pval[__builtin_ctz(m)];
	out->pset |= in->pset;
}

void hdp_harden_config_resolve(const struct hdp_harden_config *cfg,
			       const char *pool, struct hdp_profile *out)
{
	const struct hdp_profile_layer *layers[2] = { &cfg->file, &cfg->string };

	hdp_profile_defaults(out);
	for (int i = 0; i < 2; i++) {
		apply(out, &layers[i]->all);
		if (pool) {
			for (unsigned j = 0; j < layers[i]->npools; j++)
				if (strcmp(layers[i]->pools[j].name, pool) == 0)
					apply(out, &layers[i]->pools[j].p);
		}
	}
	hdp_profile_normalize(out);
}

uint32_t hdp_harden_config_excluded(const struct hdp_harden_config *cfg,
				    const char *pool, char *why, size_t why_len)
{
	const struct hdp_exclude *ex = cfg->string.exclude.set ? &cfg->string.exclude
				     : &cfg->file.exclude;
	uint32_t mask = 0;
	size_t used = 0;

	if (why_len)
		why[0] = '\0';
	for (unsigned i = 0; ex->set && i < ex->n; i++) {
		if (hdp_glob_match(ex->names[i], pool)) {
			mask |= HDP_KEY_INIT_ON_ALLOC | HDP_KEY_INIT_ON_FREE |
				HDP_KEY_INIT_CHECK;
			if (used < why_len)
				used += (size_t)snprintf(why + used, why_len - used,
						 "%sinit_exclude '%s'", used ? ", " : "",
						 ex->names[i]);
			break;
		}
	}
	if (!ex->no_builtin)
		mask |= builtin_excluded(pool, why, why_len, used);
	return mask;
}

uint32_t harden_builtin_excluded(const char *pool, char *why, size_t why_len)
{
	if (why_len)
		why[0] = '\0';
	return builtin_excluded(pool, why, why_len, 0);
}

static int validate_one(const struct hdp_harden_config *cfg, const char *pool)
{
	struct hdp_profile p;
	const char *who = pool ? pool : "default", *why;

	hdp_harden_config_resolve(cfg, pool, &p);
	if (hdp_profile_check(&p, &why)) {
		hdp_log(HDP_LOG_ERR, "pool '%s': %s", who, why);
		return -EINVAL;
	}
	if (p.tag == HDP_TAG_MTE && !hdp_tag_mte_available()) {
		hdp_log(HDP_LOG_ERR, "pool '%s': tag=mte, but this CPU or kernel has no MTE (use tag=auto or soft)",
			who);
		return -EINVAL;
	}
	return 0;
}

int hdp_harden_config_validate(const struct hdp_harden_config *cfg)
{
	int errors = validate_one(cfg, NULL) != 0;

	for (unsigned i = 0; i < cfg->nknown; i++)
		errors += validate_one(cfg, cfg->known[i]) != 0;
	return errors ? -EINVAL : 0;
}
