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
 * Keys are per pool; [pool:default] and bare keys in a string apply to
 * all. init_exclude = default|none|NAME[,NAME...] is one list for all
 * pools (globs allowed): set it in [pool:default] or as a bare key.
 * "none" drops the built-in exclusions, "default" keeps only them, names
 * add to them ("none,a,b": only a and b).
 */
#ifndef HDP_PROFILE_H
#define HDP_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include <hdp/region.h>
#include <hdp/violation.h>

#include <hdp/compiler.h>
#include <hdp/name.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HDP_PROFILE_POOLS_MAX	256
#define HDP_EXCLUDE_MAX		64
#define HDP_PKEYS_MAX		32	/* keys of third parties' protections, in all */

enum hdp_init_free {
	HDP_INIT_FREE_OFF = 0,
	HDP_INIT_FREE_ON,	/* wipe the whole object */
	HDP_INIT_FREE_USED,	/* wipe the bytes the pool was told were written */
};

/* How much of the extent the last free wiped init_check reads at each allocation. */
enum hdp_check_extent {
	HDP_CHECK_EXTENT_ALL = 0,
	HDP_CHECK_EXTENT_HEAD,	/* its first HDP_CHECK_HEAD_BYTES */
};
#define HDP_CHECK_HEAD_BYTES 64

enum hdp_tag_mode {
	HDP_TAG_OFF = 0,
	HDP_TAG_AUTO,		/* mte where the CPU and kernel offer it, else soft */
	HDP_TAG_MTE,
	HDP_TAG_SOFT,
};

/*
 * The key table: every key hdp itself defines, one line each, grouped by
 * the protection that owns it:
 *   X(KEY, name, type, C type, default, min, max, choices, doc)
 * From these lines come the profile's fields and "set" bits, and the
 * table that parses, refuses, formats and documents every key (core.c,
 * value.c): --list-keys, INI files, --harden, hdp-ctl set, the profile
 * text in JSON, text and metrics. Adding a key is a line here plus its
 * use (docs/HARDENING.md); at the end of HDP_OWN_KEYS it keeps the ABI,
 * anywhere else it renumbers the keys after it: a new soname
 * (docs/LIBRARY.md). min and max bound UINT and SIZE values; a
 * CHOICE's values are its choices[] (core.c), in the order of its enum.
 * Third parties' protections bring their own keys (protection.h).
 */
#define HDP_BOUNDS_KEYS(X)                                                             \
	X(BOUNDS, bounds, BOOL, bool, 1, 0, 1, NULL,                                    \
	  "check every copy into and out of pool memory and every descriptor; off is "  \
	  "the kernel seed's bypass")                                                   \
	X(BOUNDS_LOOKUP, bounds_lookup, CHOICE, enum hdp_region_lookup, HDP_LOOKUP_FAST, \
	  0, 0, hdp_lookup_choices,                                                     \
	  "how a copy finds its region: an O(1) granule table (fast), or a balanced "   \
	  "tree under a lock, as the kernel's find_vmap_area (tree)")
#define HDP_INIT_KEYS(X)                                                               \
	X(INIT_ON_ALLOC, init_on_alloc, BOOL, bool, 0, 0, 1, NULL,                      \
	  "zero objects when they are allocated (skipped when init_on_free already did)") \
	X(INIT_ON_FREE, init_on_free, CHOICE, enum hdp_init_free, HDP_INIT_FREE_ON, 0, 0, \
	  hdp_init_free_choices,                                                        \
	  "zero objects when they are freed; used wipes only the write extent the pool " \
	  "was told")                                                                   \
	X(INIT_CHECK, init_check, BOOL, bool, 1, 0, 1, NULL,                            \
	  "at allocation, verify that a wiped object is still zero where the last free " \
	  "wiped it (on by default only where something wipes)")                        \
	X(INIT_CHECK_SAMPLE, init_check_sample, UINT, uint32_t, 64, 1, 65535, NULL,     \
	  "one allocation in N is checked whole, so a write beyond the extent is still " \
	  "found; 1 checks every allocation whole")                                    \
	X(INIT_CHECK_EXTENT, init_check_extent, CHOICE, enum hdp_check_extent,          \
	  HDP_CHECK_EXTENT_ALL, 0, 0, hdp_check_extent_choices,                         \
	  "how much of the wiped extent the other allocations check: all, or its head " \
	  "(first 64 bytes, where a stale handle into a packet writes its headers; "   \
	  "init_on_free=used only)")
#define HDP_TAG_KEYS(X)                                                                \
	X(TAG, tag, CHOICE, enum hdp_tag_mode, HDP_TAG_AUTO, 0, 0, hdp_tag_choices,     \
	  "memory tagging: auto is mte where the CPU and kernel offer it, else soft")   \
	X(TAG_SAMPLE, tag_sample, UINT, uint32_t, 1, 1, 65535, NULL,                    \
	  "tag the first allocation of each thread, then one in N; 1 tags every "       \
	  "allocation")                                                                 \
	X(TAG_SAMPLE_MIN, tag_sample_min, SIZE, uint32_t, 0, 0, 1u << 20, NULL,          \
	  "objects smaller than this are always tagged")
#define HDP_POOL_KEYS(X)                                                               \
	X(ON_VIOLATION, on_violation, CHOICE, enum hdp_policy, HDP_POLICY_ABORT, 0, 0,  \
	  hdp_policy_choices,                                                           \
	  "what a violation does: abort, or drop what carried it, or report it and "    \
	  "carry on (both counted)")
/* The core: bounds, init, tag and the pool's own. */
#define HDP_CORE_KEYS(X) HDP_BOUNDS_KEYS(X) HDP_INIT_KEYS(X) HDP_TAG_KEYS(X) HDP_POOL_KEYS(X)

/* hdp's own protections beyond the core (quarantine.c, redzone.c, shuffle.c). */
#define HDP_QUARANTINE_KEYS(X)                                                         \
	X(QUARANTINE, quarantine, BOOL, bool, 0, 0, 1, NULL,                            \
	  "hold a freed object back behind the next quarantine_depth frees of its "     \
	  "thread (a DPDK pool: of its lcore)")                                         \
	X(QUARANTINE_DEPTH, quarantine_depth, UINT, uint32_t, 256, 1, 65536, NULL,      \
	  "how many frees a freed object waits behind (per thread; at most half the "   \
	  "pool)")
#define HDP_REDZONE_KEYS(X)                                                            \
	X(REDZONE, redzone, BOOL, bool, 0, 0, 1, NULL,                                  \
	  "check, at free, that the bytes past the end of a frame's data were not "     \
	  "written")                                                                    \
	X(REDZONE_BYTES, redzone_bytes, SIZE, uint32_t, 64, 1, 65535, NULL,             \
	  "how many bytes past the end of the data are checked (at most to the end of " \
	  "the object)")
#define HDP_SHUFFLE_KEYS(X)                                                            \
	X(SHUFFLE, shuffle, BOOL, bool, 0, 0, 1, NULL,                                  \
	  "hand a thread's cached objects out in a random order")
#define HDP_OWN_KEYS(X) HDP_QUARANTINE_KEYS(X) HDP_REDZONE_KEYS(X) HDP_SHUFFLE_KEYS(X)

/*
 * Keys of the whole configuration, not of one pool's profile (struct
 * hdp_exclude holds their values): set in [pool:default] or as a bare key.
 */
#define HDP_CONFIG_KEYS(X)                                                             \
	X(INIT_EXCLUDE, init_exclude, LIST, char, 0, 0, 0, NULL,                        \
	  "pools that are not zeroed: one list for all pools; none drops the built-in " \
	  "exclusions")

/* A profile's keys: every key but the configuration's. */
#define HDP_PROFILE_KEYS(X) HDP_CORE_KEYS(X) HDP_OWN_KEYS(X)

/*
 * Every key of the table by number: the core's first (HDP_CK__COUNT of
 * them), then hdp's own protections' (a profile's end at
 * HDP_CK__PROFILE), then the configuration's (HDP_CK__ALL in all).
 */
enum hdp_core_key {
#define HDP_CK_ENUM(KEY, ...) HDP_CK_##KEY,
	HDP_CORE_KEYS(HDP_CK_ENUM)
	HDP_CK__COUNT,
	HDP_CK__OWN = HDP_CK__COUNT - 1,
	HDP_OWN_KEYS(HDP_CK_ENUM)
	HDP_CK__PROFILE,
	HDP_CK__CONFIG = HDP_CK__PROFILE - 1,
	HDP_CONFIG_KEYS(HDP_CK_ENUM)
	HDP_CK__ALL,
#undef HDP_CK_ENUM
};

/* Which keys a profile sets (unset keys fall through to the layer below). */
enum hdp_key {
#define HDP_KEY_BIT(KEY, ...) HDP_KEY_##KEY = 1u << HDP_CK_##KEY,
	HDP_PROFILE_KEYS(HDP_KEY_BIT)
#undef HDP_KEY_BIT
};
HDP_STATIC_ASSERT(HDP_CK__PROFILE <= 32, "a profile's set bits fit its word");

/*
 * A profile is the same size whatever the table holds, so that a key
 * added at the end of HDP_OWN_KEYS changes neither its size nor where the
 * other fields are (docs/LIBRARY.md, the ABI): the keys' fields come last,
 * then what is left of HDP_PROFILE_KEYS_ROOM bytes, room for the 32 keys
 * the set word holds at 4 bytes each (never all of it: C has no empty
 * array).
 */
#define HDP_PROFILE_KEYS_ROOM	(32 * 4)
#define HDP_PROFILE_FIELD(KEY, name, type, ctype, ...) ctype name;
struct hdp_profile_keys_ {
	HDP_PROFILE_KEYS(HDP_PROFILE_FIELD)
};

struct hdp_profile {
	uint32_t set;			/* enum hdp_key bits */
	/*
	 * Third parties' protections' keys (protection.h), in registry
	 * order: which are set, and their values.
	 */
	uint32_t pset;
	uint32_t pval[HDP_PKEYS_MAX];
	HDP_PROFILE_KEYS(HDP_PROFILE_FIELD)
	unsigned char room_[HDP_PROFILE_KEYS_ROOM - sizeof(struct hdp_profile_keys_)];
};
#undef HDP_PROFILE_FIELD
HDP_STATIC_ASSERT(sizeof(struct hdp_profile_keys_) < HDP_PROFILE_KEYS_ROOM &&
			  __alignof__(struct hdp_profile_keys_) <= 4,
		  "the profile's keys fit its room, each field at most 4 bytes");
HDP_STATIC_ASSERT(sizeof(struct hdp_profile) == 8 + 4 * HDP_PKEYS_MAX + HDP_PROFILE_KEYS_ROOM,
		  "a profile's size does not depend on its keys");

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
	 * valid name is taken at its word. fixed_pools: every pool the
	 * application has is declared already, so a [pool:NAME] section must
	 * name one of them (without it, a section declares its pool).
	 */
	bool any_pool;
	bool fixed_pools;
	unsigned nknown;
	char known[HDP_PROFILE_POOLS_MAX][32];
};

/*
 * The defaults: every key at the default its line above gives: every
 * core protection on (bounds fast, init_on_free on, init_check on with
 * init_check_sample 64, tag auto with tag_sample 1), init_on_alloc off
 * (redundant with init_on_free), on_violation abort, hdp's own
 * protections beyond the core off; third parties' at theirs.
 */
HDP_API void hdp_profile_defaults(struct hdp_profile *p);

/*
 * Which keys need which, in one table (profile.c). hdp_profile_normalize()
 * gives a key that needs another and was not set explicitly the value its
 * needs allow (init_check is on by default only where something wipes);
 * hdp_profile_check() refuses a key set explicitly against its needs:
 * 0, or -EINVAL with @why saying which key needs which. Used at start-up,
 * on every runtime change, and for what is shown.
 */
HDP_API void hdp_profile_normalize(struct hdp_profile *p);
HDP_API int hdp_profile_check(const struct hdp_profile *p, const char **why);

/*
 * A new empty configuration (built-in defaults only), on the heap: what
 * an application uses, so that it never depends on the struct's size
 * (over 160 KB). NULL with errno ENOMEM. Freed by hdp_harden_config_free
 * (NULL is a no-op).
 */
HDP_API struct hdp_harden_config *hdp_harden_config_new(void);
HDP_API void hdp_harden_config_free(struct hdp_harden_config *cfg);

/* Empty a configuration (built-in defaults only); one the caller allocated too. */
HDP_API void hdp_harden_config_init(struct hdp_harden_config *cfg);

/*
 * Declare a pool name that per-pool keys may refer to. [pool:NAME] sections
 * declare their pool too. 0, -EINVAL (bad name), -ENOSPC, or -ENOENT (a
 * name not declared before, once fixed_pools is set).
 */
HDP_API int hdp_harden_config_declare(struct hdp_harden_config *cfg, const char *pool);

/*
 * Parse "key=value,key=value,pool.NAME.key=value" into the string layer.
 * @source names it in messages (e.g. "--harden"). Nothing is changed unless
 * the whole string is valid. 0 or -EINVAL, with every error logged.
 */
HDP_API int hdp_harden_config_parse_string(struct hdp_harden_config *cfg,
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
HDP_API int hdp_harden_config_load_file(struct hdp_harden_config *cfg, const char *path,
					hdp_ini_section_fn_t other, void *ctx);

/*
 * Set one key from a source at a line: used by both parsers, and by the
 * control socket. @pool NULL means all pools. 0 or -EINVAL (logged).
 */
HDP_API int hdp_harden_config_set(struct hdp_harden_config *cfg, bool from_string,
				  const char *pool, const char *key, const char *value,
				  const char *source, int line);

/*
 * Reject contradictions before anything starts: init_check=on set
 * explicitly while init_on_free resolves to off; tag=mte without MTE.
 * Checks the defaults and every declared pool. 0 or -EINVAL (logged).
 */
HDP_API int hdp_harden_config_validate(const struct hdp_harden_config *cfg);

/*
 * A configuration completed whole, as a library takes one from its
 * environment (the DPDK driver: HDP_CONFIG, HDP_HARDEN): @cfg (empty, as
 * hdp_harden_config_init leaves it, or an application's) gets an INI file
 * and above it a string named @spec_source in messages (either NULL or
 * empty for none), any valid pool name taken at its word (someone else
 * makes the pools), and is validated. 0, or -EINVAL with every error
 * logged.
 */
HDP_API int hdp_harden_config_from(struct hdp_harden_config *cfg, const char *file, const char *spec,
				   const char *spec_source);

/* The profile @pool gets: defaults < file all < file pool < string all < string pool. */
HDP_API void hdp_harden_config_resolve(const struct hdp_harden_config *cfg,
				       const char *pool, struct hdp_profile *out);

/*
 * The value of key @key (the table's or a third party's) in @p, as a
 * number (a choice: its index): 0, or -ENOENT for no such key.
 */
HDP_API int hdp_profile_value(const struct hdp_profile *p, const char *key, uint32_t *out);

/* Set one key of a profile from text: 0, or -EINVAL with @why filled in. */
HDP_API int hdp_profile_set_key(struct hdp_profile *p, const char *key,
				const char *value, const char **why);

/*
 * Is @pool excluded from zeroing, and why? Fills @why with "built-in
 * 'umem*' (init_on_alloc)" or "init_exclude 'NAME'". Returns a mask of the
 * mechanisms it is excluded from (HDP_KEY_INIT_ON_ALLOC | _FREE | _CHECK).
 */
HDP_API uint32_t hdp_harden_config_excluded(const struct hdp_harden_config *cfg,
					    const char *pool, char *why, size_t why_len);

/* A profile as text (hdp_profile_format), with every protection's keys. */
#define HDP_PROFILE_TEXT_MAX 512

/* Write the profile as "key=value,..." (all keys). Returns as snprintf. */
HDP_API int hdp_profile_format(const struct hdp_profile *p, char *buf, size_t len);

/*
 * Every profile key, the table's and third parties', two lines each: name,
 * protection, default and the values it takes, then its documentation
 * (hdp-fwd --list-keys). Returns as snprintf.
 */
HDP_API int hdp_profile_keys_describe(char *buf, size_t len);

/* Names for values, as the parser reads them. */
HDP_API const char *hdp_init_free_name(enum hdp_init_free v);
HDP_API const char *hdp_check_extent_name(enum hdp_check_extent v);
HDP_API const char *hdp_tag_mode_name(enum hdp_tag_mode v);

/* Glob match with * and ?, as init_exclude uses. */
HDP_API bool hdp_glob_match(const char *pattern, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* HDP_PROFILE_H */
