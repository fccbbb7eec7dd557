// SPDX-License-Identifier: BSD-3-Clause
/*
 * The registered protections' cases (hdp/protection.h), run against a
 * real pool like the catalogue's own: each case gets hdp_provoke_ops over
 * an hdp_pool made from the case's needs and --harden.
 */
#include "provoke.h"

#include <hdp/protection.h>

#include <string.h>

static const struct hdp_protection_case *running;

static struct hdp_provoke_pool *ops_pool(void *env, const char *name, size_t obj_size,
					 unsigned count)
{
	return (struct hdp_provoke_pool *)provoke_pool(env, name, obj_size, count);
}

static void *ops_alloc(struct hdp_provoke_pool *p)
{
	return hdp_pool_alloc((struct hdp_pool *)p);
}

static void ops_free(struct hdp_provoke_pool *p, void *obj, uint32_t data_start,
		     uint32_t data_end)
{
	struct hdp_extent ext = { data_start, data_end };

	hdp_pool_free_burst_extent((struct hdp_pool *)p, &obj, &ext, 1);
}

static uint64_t ops_seen(struct hdp_provoke_pool *p, const char *violation)
{
	for (unsigned k = 0; k < hdp_violation_kinds(); k++)
		if (strcmp(hdp_violation_name((enum hdp_violation_kind)k), violation) == 0)
			return provoke_seen((struct hdp_pool *)p, (enum hdp_violation_kind)k);
	return 0;
}

static enum verdict run_running(struct provoke_env *env)
{
	const struct hdp_provoke_ops ops = {
		.pool = ops_pool, .alloc = ops_alloc, .free = ops_free, .seen = ops_seen,
		.env = env,
	};

	return running->run(&ops) ? CAUGHT : MISSED;
}

/* The @i-th of every protection's cases, as a catalogue entry; false past the last. */
bool provoke_protection_case(unsigned i, struct provoke_case *out)
{
	for (unsigned p = 0; p < hdp_protection_count_registered(); p++) {
		const struct hdp_protection *prot = hdp_protection_get(p);

		if (i >= prot->ncases) {
			i -= prot->ncases;
			continue;
		}
		*out = (struct provoke_case){
			.name = prot->cases[i].name, .what = prot->cases[i].what,
			.needs = prot->cases[i].needs ? prot->cases[i].needs : "",
			.run = run_running,
		};
		running = &prot->cases[i];
		return true;
	}
	return false;
}
