/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Hardening profiles: what protects each pool, from built-in defaults, an
 * INI file and a kernel-parameter style string, in that order of
 * precedence.
 *
 *   [pool:default]            bounds = on          tag_sample = 10
 *   [pool:rx]                 init_on_free = used
 *   --harden "init_on_free=1,init_exclude=none,pool.rx.tag_sample=4"
 *
 * Keys (per pool; [pool:default] and bare keys in a string apply to all):
 *   bounds = on|off               bounds_lookup = fast|tree
 *   init_on_alloc = on|off        init_on_free = on|off|used
 *   init_check = on|off           init_check_sample = 1..65535
 *   init_exclude = default|none|NAME[,NAME...]
 *   tag = off|auto|mte|soft       tag_sample = 1..65535
 *   tag_sample_min = BYTES        on_violation = abort|drop|report
 * init_exclude is one list for all pools (globs allowed): set it in
 * [pool:default] or as a bare key. "none" drops the built-in exclusions,
 * "default" keeps only them, names add to them ("none,a,b": only a and b).
 */
#ifndef HDP_PROFILE_H
#define HDP_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include <hdp/region.h>
#include <hdp/violation.h>

#define HDP_PROFILE_POOLS_MAX	256
#define HDP_EXCLUDE_MAX		64
#define HDP_TAG_SAMPLE_MAX	65535u
#define HDP_CHECK_SAMPLE_MAX	65535u
#define HDP_CHECK_SAMPLE_DEFAULT 64u
#define HDP_TAG_SAMPLE_MIN_MAX	(1u << 20)
#define HDP_PKEYS_MAX		32	/* keys of registered protections, in all */

enum hdp_init_free {
	HDP_INIT_FREE_OFF = 0,
	HDP_INIT_FREE_ON,	/* wipe the whole object */
	HDP_INIT_FREE_USED,	/* wipe the bytes the pool was told were written */
};

enum hdp_tag_mode {
	HDP_TAG_OFF = 0,
	HDP_TAG_AUTO,		/* mte where the CPU and kernel offer it, else soft */
	HDP_TAG_MTE,
	HDP_TAG_SOFT,
};

/* Which keys a profile sets; unset keys fall through to the layer below. */
enum hdp_key {
	HDP_KEY_BOUNDS		= 1u << 0,
	HDP_KEY_BOUNDS_LOOKUP	= 1u << 1,
	HDP_KEY_INIT_ON_ALLOC	= 1u << 2,
	HDP_KEY_INIT_ON_FREE	= 1u << 3,
	HDP_KEY_INIT_CHECK	= 1u << 4,
	HDP_KEY_TAG		= 1u << 5,
	HDP_KEY_TAG_SAMPLE	= 1u << 6,
	HDP_KEY_TAG_SAMPLE_MIN	= 1u << 7,
	HDP_KEY_ON_VIOLATION	= 1u << 8,
	HDP_KEY_INIT_CHECK_SAMPLE = 1u << 9,
};

struct hdp_profile {
	uint32_t set;			/* enum hdp_key bits */
	bool bounds;
	enum hdp_region_lookup bounds_lookup;
	bool init_on_alloc;
	enum hdp_init_free init_on_free;
	bool init_check;
	uint32_t init_check_sample;	/* 1: every allocation checked whole */
	enum hdp_tag_mode tag;
	uint32_t tag_sample;
	uint32_t tag_sample_min;
	enum hdp_policy on_violation;
	/*
	 * The registered protections' keys (protection.h), in registry
	 * order: which are set, and their values.
	 */
	uint32_t pset;
	uint32_t pval[HDP_PKEYS_MAX];
};

struct hdp_exclude {
	bool set;			/* this layer gave init_exclude */
	bool no_builtin;		/* "none" */
	unsigned n;
	char names[HDP_EXCLUDE_MAX][32];
};

/* One source of settings: the file, or the string. */
struct hdp_profile_layer {
	struct hdp_profile all;		/* [pool:default] / bare keys */
	unsigned npools;
	struct {
		char name[32];
		struct hdp_profile p;
	} pools[HDP_PROFILE_POOLS_MAX];
	struct hdp_exclude exclude;
};

struct hdp_harden_config {
	struct hdp_profile_layer file;
	struct hdp_profile_layer string;
	/*
	 * Pools the application declared; per-pool keys must name one, unless
	 * any_pool: pools are created later by someone else (DPDK), so any
	 * valid name is taken at its word.
	 */
	bool any_pool;
	unsigned nknown;
	char known[HDP_PROFILE_POOLS_MAX][32];
};

/*
 * The built-in defaults: every protection on (bounds fast, init_on_free on,
 * init_check on with init_check_sample 64, tag auto with tag_sample 1),
 * init_on_alloc off (redundant with init_on_free), on_violation abort.
 */
void hdp_profile_defaults(struct hdp_profile *p);

/*
 * Which keys need which, in one table (profile.c). hdp_profile_normalize()
 * gives a key that needs another and was not set explicitly the value its
 * needs allow (init_check is on by default only where something wipes);
 * hdp_profile_check() refuses a key set explicitly against its needs:
 * 0, or -EINVAL with @why saying which key needs which. Used at start-up,
 * on every runtime change, and for what is shown.
 */
void hdp_profile_normalize(struct hdp_profile *p);
int hdp_profile_check(const struct hdp_profile *p, const char **why);

/* An empty configuration (built-in defaults only). */
void hdp_harden_config_init(struct hdp_harden_config *cfg);

/*
 * Declare a pool name that per-pool keys may refer to. [pool:NAME] sections
 * declare their pool too. 0, -EINVAL (bad name) or -ENOSPC.
 */
int hdp_harden_config_declare(struct hdp_harden_config *cfg, const char *pool);

/*
 * Parse "key=value,key=value,pool.NAME.key=value" into the string layer.
 * @source names it in messages (e.g. "--harden"). Nothing is changed unless
 * the whole string is valid. 0 or -EINVAL, with every error logged.
 */
int hdp_harden_config_parse_string(struct hdp_harden_config *cfg,
				   const char *spec, const char *source);

/*
 * Read an INI file into the file layer: [pool:default] and [pool:NAME]
 * sections with the keys above; other sections ([global], [port:IF]) are
 * left to their owners through @other, which may be NULL (then they are
 * errors). @other is called once with @key and @value NULL when one of its
 * sections opens, @line being the header's (errors about the section
 * itself name that line; an empty section is still seen), then once per
 * key. Keys of a section refused at its header are not handed on. Errors
 * name the file, line, key and value. 0, -EINVAL, -ENOENT (or another
 * errno from opening), or -EOPNOTSUPP without libinih.
 */
typedef int (*hdp_ini_section_fn_t)(void *ctx, const char *section,
				    const char *key, const char *value,
				    const char *file, int line);
int hdp_harden_config_load_file(struct hdp_harden_config *cfg, const char *path,
				hdp_ini_section_fn_t other, void *ctx);

/*
 * Set one key from a source at a line: used by both parsers, and by the
 * control socket. @pool NULL means all pools. 0 or -EINVAL (logged).
 */
int hdp_harden_config_set(struct hdp_harden_config *cfg, bool from_string,
			  const char *pool, const char *key, const char *value,
			  const char *source, int line);

/*
 * Reject contradictions before anything starts: init_check=on set
 * explicitly while init_on_free resolves to off; tag=mte without MTE.
 * Checks the defaults and every declared pool. 0 or -EINVAL (logged).
 */
int hdp_harden_config_validate(const struct hdp_harden_config *cfg);

/* The profile @pool gets: defaults < file all < file pool < string all < string pool. */
void hdp_harden_config_resolve(const struct hdp_harden_config *cfg,
			       const char *pool, struct hdp_profile *out);

/* Set one key of a profile from text: 0, or -EINVAL with @why filled in. */
int hdp_profile_set_key(struct hdp_profile *p, const char *key,
			const char *value, const char **why);

/*
 * Is @pool excluded from zeroing, and why? Fills @why with "built-in
 * 'umem*' (init_on_alloc)" or "init_exclude 'NAME'". Returns a mask of the
 * mechanisms it is excluded from (HDP_KEY_INIT_ON_ALLOC | _FREE | _CHECK).
 */
uint32_t hdp_harden_config_excluded(const struct hdp_harden_config *cfg,
				    const char *pool, char *why, size_t why_len);

/* Write the profile as "key=value,..." (all keys). Returns as snprintf. */
int hdp_profile_format(const struct hdp_profile *p, char *buf, size_t len);

/* Names for values, as the parser reads them. */
const char *hdp_init_free_name(enum hdp_init_free v);
const char *hdp_tag_mode_name(enum hdp_tag_mode v);

/*
 * Is @name a valid pool name: 1 to 31 characters from [A-Za-z0-9_-]? (No
 * dots, commas, '=' or glob characters, so that "pool.NAME.KEY" and
 * exclusion lists parse.)
 */
bool hdp_pool_name_valid(const char *name);

/* Glob match with * and ?, as init_exclude uses. */
bool hdp_glob_match(const char *pattern, const char *name);

#endif /* HDP_PROFILE_H */
