/* SPDX-License-Identifier: BSD-3-Clause */
/* hdp-provoke's cases: each commits one violation against a real pool. */
#ifndef HDP_PROVOKE_H
#define HDP_PROVOKE_H

#include <hdp/pool.h>
#include <hdp/profile.h>

#include <stdbool.h>

enum verdict {
	CAUGHT = 0,	/* hdp saw it (under abort the process never gets here) */
	MISSED = 1,
};

struct provoke_env {
	struct hdp_harden_config *cfg;	/* the case's own settings, then --harden */
	const char *spec;
};

struct provoke_case {
	const char *name;
	const char *what;
	/* Settings the case needs, applied below the user's --harden. */
	const char *needs;
	enum verdict (*run)(struct provoke_env *env);
};

extern const struct provoke_case provoke_cases[];
extern const unsigned provoke_ncases;

/* The cases of hdp's registered protections (protection_cases.c). */
extern const struct provoke_case provoke_protection_cases[];
extern const unsigned provoke_nprotection_cases;

/* The cases of descriptor chains, as hdp-fwd judges them (chain_cases.c). */
extern const struct provoke_case provoke_chain_cases[];
extern const unsigned provoke_nchain_cases;

/* The cases through hdp-fwd's burst loop (fwd_cases.c; with libxdp only). */
extern const struct provoke_case provoke_fwd_cases[];
extern const unsigned provoke_nfwd_cases;

/* Case @i of the whole catalogue: the core's, the chains', the protections'. */
bool provoke_case_at(unsigned i, struct provoke_case *out);

/* Make a plain-page pool configured from env (exits 2 on failure). */
struct hdp_pool *provoke_pool(struct provoke_env *env, const char *name,
			      size_t size, unsigned count);
/* The same, with a guard gap after every @guard_gap objects. */
struct hdp_pool *provoke_pool_gapped(struct provoke_env *env, const char *name,
				     size_t size, unsigned count, unsigned guard_gap);

/* Violations of @kind seen by @pool so far. */
unsigned long long provoke_seen(struct hdp_pool *pool, enum hdp_violation_kind kind);

#endif /* HDP_PROVOKE_H */
