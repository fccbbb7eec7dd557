/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writing a protection: one file that describes itself in a struct
 * hdp_protection and registers it with HDP_PROTECTION_REGISTER. From that
 * one description hdp parses, validates, formats and documents its profile
 * keys (as pool keys in INI files, --harden strings and the control
 * socket's "set"), keeps its per-pool state, calls its hooks, counts its
 * counters and violations in every report, and runs its hdp-provoke cases.
 *
 * The contract:
 *   - keys[0] is the switch: the protection runs in a pool when its value
 *     is not 0. All of a protection's key values are packed into 64 bits
 *     (each key takes the bits its max needs), so that a burst reads them
 *     in one load and a runtime change never tears them.
 *   - Hooks run once per burst of at most 64 objects, never per object
 *     through a pointer. The built-in protections (bounds, init, tag) are
 *     described and called the same way, and run first: on_alloc of a
 *     registered protection runs after theirs (the objects are zeroed and
 *     tagged), on_free before theirs (the bytes are still as the owner
 *     left them), on_copy after theirs. Objects are pool objects the pool
 *     has validated; they may carry a soft tag (use hdp_untag()).
 *   - Protections that share one pass name the same hook: it runs once a
 *     burst however many of them are on (init and tag share their record
 *     of each object this way).
 *   - A free hook may refuse objects (a double free it knows of): it
 *     returns their bits, and the pool keeps them.
 *   - Per-pool state is allocated by attach the first time the protection
 *     is turned on in a pool, and lives until the pool goes (detach): a
 *     burst in flight never sees it freed. The generation in a burst grows
 *     each time the protection is turned on again: what it recorded in an
 *     earlier generation is stale (objects changed hands unwatched).
 *   - Counters are per thread (one writer); violations go through
 *     hdp_protection_violation(), which counts them and applies the pool's
 *     on_violation policy (under abort it does not return).
 */
#ifndef HDP_PROTECTION_H
#define HDP_PROTECTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <hdp/counter.h>
#include <hdp/harden.h>

/*
 * Limits: HDP_PROTECTIONS_MAX and HDP_PCOUNTERS_MAX (harden.h),
 * HDP_PKEYS_MAX (profile.h), HDP_PVIOLATIONS_MAX (violation.h).
 */
#define HDP_PROT_KEYS_MAX	8	/* per protection */

enum hdp_pkey_type {
	HDP_PKEY_BOOL,		/* on|off (1|0, yes|no, true|false) */
	HDP_PKEY_CHOICE,	/* one of choices[]; the value is its index */
	HDP_PKEY_UINT,		/* min..max, decimal */
	HDP_PKEY_SIZE,		/* min..max bytes, k and M suffixes allowed */
};

struct hdp_protection_key {
	const char *name;	/* [a-z0-9_], unique over all protections */
	enum hdp_pkey_type type;
	const char *const *choices;	/* CHOICE: NULL-terminated */
	uint32_t min, max;	/* UINT, SIZE */
	uint32_t def;		/* the built-in default */
	const char *doc;	/* one line, for --help and HARDENING.md */
};

/* Where a protection's violations and counters are described. */
struct hdp_protection_name {
	const char *name;	/* [a-z0-9_]: in reports, JSON and metrics */
	const char *doc;
};

/* What a protection sees of a pool. */
struct hdp_protection_pool {
	struct hdp_harden_pool *hp;	/* for hdp_harden_slot() */
	const char *name;
	size_t obj_size;
	uint32_t obj_count;
	bool reuse_hooks;		/* the pool calls hold, drain and pick */
	void *state;			/* attach's to set; zeroed before */
};

/* One burst, as a hook gets it. */
struct hdp_protection_burst {
	struct hdp_protection_pool *pool;
	uint32_t values[HDP_PROT_KEYS_MAX];	/* the keys, as applied */
	uint32_t generation;		/* 1, 2, ...: see above */
	unsigned core_flags;		/* enum hdp_hflag in effect for this burst */
	hdp_counter_t *counters;	/* this thread's, in counters[] order */
	unsigned violation_base;	/* the first of its violation kinds */
	/*
	 * In a free burst: objects (bit i for objs[i]) the built-in checks
	 * will refuse, a double free or a stale handle: they belong to
	 * someone else or to nobody, so leave their bytes alone. 0 when the
	 * built-in protections keep no records (tags and init off).
	 */
	uint64_t refused;
	/*
	 * This thread's state of the protection in this pool: NULL until the
	 * protection stores one (hold does, the first time); the pool gives
	 * it back through thread_release when the thread's cache goes.
	 */
	void **thread_state;
};

/*
 * hdp-provoke, for a protection's cases: a real pool (plain pages) set
 * up from the case's needs and the user's --harden, and what to do to it.
 */
struct hdp_provoke_pool;
struct hdp_provoke_ops {
	struct hdp_provoke_pool *(*pool)(void *env, const char *name, size_t obj_size,
					 unsigned count);
	void *(*alloc)(struct hdp_provoke_pool *p);
	/* Free @obj whose owner wrote [data_start, data_end). */
	void (*free)(struct hdp_provoke_pool *p, void *obj, uint32_t data_start,
		     uint32_t data_end);
	/* Violations named @violation the pool has counted. */
	uint64_t (*seen)(struct hdp_provoke_pool *p, const char *violation);
	void *env;
};

struct hdp_protection_case {
	const char *name;	/* "<protection>-..." */
	const char *what;
	const char *needs;	/* profile keys the case needs, below --harden */
	/* true: hdp caught it (under abort it never returns). */
	bool (*run)(const struct hdp_provoke_ops *ops);
};

struct hdp_protection {
	const char *name;
	const char *doc;
	const struct hdp_protection_key *keys;
	unsigned nkeys;
	const struct hdp_protection_name *counters;
	unsigned ncounters;
	const struct hdp_protection_name *violations;
	unsigned nviolations;
	const struct hdp_protection_case *cases;
	unsigned ncases;

	/*
	 * Turned on in a pool (or its values changed while on): prepare
	 * pp->state (allocate it the first time). 0, or a negative errno
	 * with @why saying what is wrong: the profile is then refused.
	 * May be NULL.
	 */
	int (*attach)(struct hdp_protection_pool *pp, const uint32_t *values,
		      const char **why);
	/* The pool goes: free pp->state. May be NULL. */
	void (*detach)(struct hdp_protection_pool *pp);
	/*
	 * Hooks; each may be NULL. @ext as for hdp_harden_on_free (may be
	 * NULL). on_alloc may replace a handle with another handle of the
	 * same object (tag hands out tagged pointers): the pool gives out what
	 * the hooks leave in objs[]. on_free returns the objects it refuses.
	 */
	void (*on_alloc)(const struct hdp_protection_burst *b, void **objs, unsigned n);
	uint64_t (*on_free)(const struct hdp_protection_burst *b, void *const *objs,
			    const struct hdp_extent *ext, unsigned n);
	/* A checked copy of [p, p + n) into (or out of) the pool: 0 or -EFAULT. */
	int (*on_copy)(const struct hdp_protection_burst *b, const void *p, size_t n,
		       bool into_pool);
	/*
	 * Protections that delay or reorder reuse, on pools that call them
	 * (pp->reuse_hooks; attach should refuse others). hold: @n freed
	 * objects, past every check, are about to go back to the pool: keep
	 * any, give back others in their place; objs has room for @cap; the
	 * first ones on return go back. drain: give back up to @max held
	 * objects, whether the protection is on or not (turned off, the
	 * thread's cache flushed or leaving); 0 when none is left.
	 * thread_release: free *thread_state (drained already). The
	 * framework counts what went in and out (the pool's "held").
	 */
	unsigned (*hold)(const struct hdp_protection_burst *b, void **objs, unsigned n,
			 unsigned cap);
	unsigned (*drain)(const struct hdp_protection_burst *b, void **out, unsigned max);
	/*
	 * pick: a thread is about to take @n objects off the top of its
	 * cache, a stack of @len (n <= len): reorder it as you like (the
	 * objects are free; do not touch their bytes).
	 */
	void (*pick)(const struct hdp_protection_burst *b, void **stack, unsigned len,
		     unsigned n);
	void (*thread_release)(const struct hdp_protection_burst *b);
};

/*
 * Register at link time: the description goes into a section of its own
 * that hdp reads at start-up. In a static library, list the file in
 * hardening/meson.build's protections so the linker keeps it.
 */
#define HDP_PROTECTION_REGISTER(prot)                                              \
	const struct hdp_protection *const hdp_protection_ref_##prot                \
		__attribute__((used, section("hdp_protections"))) = &(prot)

/* Count @n at counter @i of the burst's protection. */
static inline void hdp_protection_count(const struct hdp_protection_burst *b, unsigned i,
					uint64_t n)
{
	hdp_counter_add(&b->counters[i], n);
}

/*
 * Report violation @i (an index into the protection's violations[]) at
 * @addr: counted in the pool, acted on under its policy.
 */
void hdp_protection_violation(const struct hdp_protection_burst *b, unsigned i,
			      const void *addr, size_t size, const char *detail);

/*
 * A thread_release for protections whose thread state is one malloc'd
 * block: free(*thread_state).
 */
void hdp_protection_thread_state_free(const struct hdp_protection_burst *b);

/* The registered protections, in a stable order (by name). */
unsigned hdp_protection_count_registered(void);
const struct hdp_protection *hdp_protection_get(unsigned i);
const struct hdp_protection *hdp_protection_find(const char *name);

/*
 * The built-in protections, bounds, init and tag, described the same way:
 * keys, counters, violation kinds and hooks (no cases: hdp-provoke's
 * catalogue holds theirs). Their keys parse, refuse, format and document
 * from these tables, and their hooks run from them. They are not in the
 * registry above and take no bit of its mask: their values live in
 * struct hdp_profile's named fields, and whether they run is the pool's
 * flag word (enum hdp_hflag).
 */
unsigned hdp_protection_builtin_count(void);
const struct hdp_protection *hdp_protection_builtin_get(unsigned i);

/*
 * Every profile key, built-in and registered, two lines each: name,
 * protection, default and the values it takes, then its documentation
 * (hdp-fwd --list-keys). Returns as snprintf.
 */
int hdp_profile_keys_describe(char *buf, size_t len);

/* Counter @c of registered protection @i, from a pool's stats. */
uint64_t hdp_protection_counter(const struct hdp_harden_stats *h, unsigned i, unsigned c);

/* Is registered protection @i on in @hp now? */
bool hdp_protection_on(struct hdp_harden_pool *hp, unsigned i);

/*
 * The protections in a pool's report: "protections":{"NAME":{"on":...,
 * counters...},...} for JSON, one line each ("  NAME: on; counter N, ...")
 * for text.
 */
struct hdp_strbuf;
void hdp_protection_stats_json(struct hdp_strbuf *o, const struct hdp_harden_stats *h);
void hdp_protection_stats_text(struct hdp_strbuf *o, const struct hdp_harden_stats *h);

#endif /* HDP_PROTECTION_H */
