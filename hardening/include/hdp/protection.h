/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Writing a protection: one file that describes itself in a struct
 * hdp_protection, registered with hdp_protection_register() before the
 * first pool is made. From that one description hdp parses, validates,
 * formats and documents its profile keys (as pool keys in INI files,
 * --harden strings and the control socket's "set"), keeps its per-pool
 * state, calls its hooks, and counts its counters and violations in every
 * report (text, JSON, Prometheus). This is the extension point for third
 * parties.
 *
 * hdp's own protections are not written this way: the core (bounds,
 * init, tag) and the protections beyond it (quarantine, redzone,
 * shuffle) are plain steps of the pipeline (burst.c says in which
 * order), their keys in the one key table (profile.h); they are
 * described here only for their names, keys, counters and violation
 * kinds, and hdp's own beyond the core are listed with third parties'.
 *
 * The contract:
 *   - keys[0] is the switch: the protection runs in a pool when its value
 *     is not 0. All of a protection's key values are packed into 64 bits
 *     (each key takes the bits its max needs), so that a burst reads them
 *     in one load and a runtime change never tears them.
 *   - Hooks run once per burst of at most 64 objects, never per object
 *     through a pointer, after hdp's own steps on allocation and copies
 *     (the objects are zeroed and tagged), before the core's on free
 *     (the bytes are still as the owner left them; redzone has looked at
 *     them first), and the reuse hooks after the quarantine. Objects are
 *     pool objects the pipeline has validated; they may carry a soft tag
 *     (use hdp_untag()).
 *   - A free hook may refuse objects (a double free it knows of): it
 *     returns their bits, and the pool keeps them.
 *   - Per-pool state is allocated by attach the first time the protection
 *     is turned on in a pool, and lives until the pool goes (detach): a
 *     burst in flight never sees it freed. A burst's epoch (1 to 2^31 - 1,
 *     never reused) changes each time a protection is turned on again, or
 *     the core's records resume (harden.h): what a protection recorded in
 *     an earlier epoch is stale (objects changed hands unwatched).
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

#include <hdp/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Limits: HDP_PROTECTIONS_MAX and HDP_PCOUNTERS_MAX (harden.h),
 * HDP_PKEYS_MAX (profile.h), HDP_PVIOLATIONS_MAX (violation.h).
 */
#define HDP_PROT_KEYS_MAX	8	/* per protection */
#define HDP_PROT_NAMES_MAX	16	/* counters or violation kinds per protection */

/* The values a key takes. */
enum hdp_value_type {
	HDP_VALUE_BOOL,		/* on|off (1|0, yes|no, true|false) */
	HDP_VALUE_CHOICE,	/* one of choices[]; the value is its index */
	HDP_VALUE_UINT,		/* min..max, decimal */
	HDP_VALUE_SIZE,		/* min..max bytes, k and M suffixes allowed */
};

struct hdp_protection_key {
	const char *name;	/* [a-z0-9_], 1-31 characters, unique over all keys */
	enum hdp_value_type type;
	const char *const *choices;	/* CHOICE: NULL-terminated, each [a-z0-9_-] */
	uint32_t min, max;	/* UINT, SIZE */
	uint32_t def;		/* the default */
	const char *doc;	/* one line, for --list-keys and HARDENING.md */
	/*
	 * NULL: room for what a later libhdp.so.1 says of a key, so that an
	 * array of these keeps its stride; a key with anything here is refused.
	 */
	const void *reserved[2];
};

/* Where a protection's violations and counters are described. */
struct hdp_protection_name {
	const char *name;	/* [a-z0-9_]: in reports, JSON and metrics */
	const char *doc;
};

/* What a protection sees of a pool. */
struct hdp_protection_pool {
	struct hdp_harden_pool *hp;	/* for hdp's own calls */
	const struct hdp_layout *layout;	/* which slot an object is in */
	const char *name;
	size_t obj_size;
	uint32_t obj_count;		/* slots */
	bool reuse_hooks;		/* the pool calls hold, drain and pick */
	void *state;			/* attach's to set; zeroed before */
};

/* One burst, as a hook gets it. */
struct hdp_protection_burst {
	struct hdp_protection_pool *pool;
	uint32_t values[HDP_PROT_KEYS_MAX];	/* the keys, as applied */
	uint64_t epoch;			/* the protections' epoch: see above */
	unsigned core_flags;		/* enum hdp_hflag in effect for this burst */
	hdp_counter_t *counters;	/* this thread's, in counters[] order */
	unsigned violation_base;	/* the first of its violation kinds */
	/*
	 * In a free burst: objects (bit i for objs[i]) the core's checks
	 * will refuse, a double free or a stale handle: they belong to
	 * someone else or to nobody, so leave their bytes alone. 0 when the
	 * core keeps no records (tags and init off).
	 */
	uint64_t refused;
	/*
	 * This thread's state of the protection in this pool: NULL until the
	 * protection stores one (hold does, the first time); the pool gives
	 * it back through thread_release when the thread's cache goes.
	 */
	void **thread_state;
};

struct hdp_protection {
	const char *name;	/* [a-z0-9_], 1-31 characters */
	const char *doc;
	const struct hdp_protection_key *keys;
	unsigned nkeys;
	const struct hdp_protection_name *counters;
	unsigned ncounters;
	const struct hdp_protection_name *violations;
	unsigned nviolations;

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
	 * Hooks; each may be NULL. @ext as for hdp_harden_pool_on_free (may
	 * be NULL). on_alloc may replace a handle with another handle of the
	 * same object: the pool gives out what the hooks leave in objs[].
	 * on_free returns the objects it refuses.
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
	/*
	 * NULL (as an initializer leaves it): room for hooks a later
	 * libhdp.so.1 adds without changing this struct's size; a protection
	 * with anything here is refused.
	 */
	void *reserved[8];
};

/*
 * Register @p (it must stay valid for the life of the process), before
 * hdp first uses its registry: before the first pool is made, profile
 * parsed or key listed. Every field is checked first. 0, or a negative
 * errno with the reason logged, naming @p: -EINVAL (a description that
 * breaks the rules above, or a name or key another protection has),
 * -ENOSPC (past a limit), -EBUSY (too late: the registry is in use).
 * Works the same from a static or a shared libhdp.
 */
HDP_API int hdp_protection_register(const struct hdp_protection *p);

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
HDP_API void hdp_protection_violation(const struct hdp_protection_burst *b, unsigned i,
				      const void *addr, size_t size, const char *detail);

/*
 * A thread_release for protections whose thread state is one malloc'd
 * block: free(*thread_state).
 */
HDP_API void hdp_protection_thread_state_free(const struct hdp_protection_burst *b);

/*
 * The protections beyond the core, hdp's own and third parties', in a
 * stable order (by name).
 */
HDP_API unsigned hdp_protection_count_registered(void);
HDP_API const struct hdp_protection *hdp_protection_get(unsigned i);
HDP_API const struct hdp_protection *hdp_protection_find(const char *name);

/*
 * The core, described the same way for its keys, counters and violation
 * kinds (no hooks): "pool" (on_violation, checks, the pool's own kinds),
 * bounds, init and tag. Their values live in struct hdp_profile's named
 * fields, and whether they run is the pool's flags (enum hdp_hflag); they
 * take no bit of the protections' mask.
 */
HDP_API unsigned hdp_protection_core_count(void);
HDP_API const struct hdp_protection *hdp_protection_core_get(unsigned i);

/* Counter @c of listed protection @i (hdp_protection_get), from a pool's stats. */
HDP_API uint64_t hdp_protection_counter(const struct hdp_harden_stats *h, unsigned i, unsigned c);

/* Counter @c of core part @part (hdp_protection_core_get), from a pool's stats. */
HDP_API uint64_t hdp_protection_core_counter(const struct hdp_harden_stats *h, unsigned part,
					     unsigned c);

/* Is listed protection @i on in @hp now? */
HDP_API bool hdp_protection_on(struct hdp_harden_pool *hp, unsigned i);

#ifdef __cplusplus
}
#endif

#endif /* HDP_PROTECTION_H */
