// SPDX-License-Identifier: BSD-3-Clause
#include "held_handles.h"

#include <hdp/pool.h>
#include <hdp/protection.h>
#include <hdp/violation.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#define OBJS 64
#define OBJ_SIZE 256
#define HANDLES 4
#define SPAN 64		/* bytes copied in, then as many written through the handle */

unsigned held_all_keys(const struct hdp_protection_key **keys, unsigned max)
{
	unsigned n = 0;

	for (unsigned i = 0; i < hdp_protection_core_count(); i++) {
		const struct hdp_protection *p = hdp_protection_core_get(i);

		for (unsigned k = 0; k < p->nkeys && n < max; k++)
			keys[n++] = &p->keys[k];
	}
	for (unsigned i = 0; i < hdp_protection_count_registered(); i++) {
		const struct hdp_protection *p = hdp_protection_get(i);

		for (unsigned k = 0; k < p->nkeys && n < max; k++)
			keys[n++] = &p->keys[k];
	}
	return n;
}

unsigned held_values(const struct hdp_protection_key *k,
		     char values[HELD_VALUES_MAX][HELD_VALUE_LEN])
{
	unsigned n = 0;

	switch (k->type) {
	case HDP_VALUE_BOOL:
		snprintf(values[n++], HELD_VALUE_LEN, "on");
		snprintf(values[n++], HELD_VALUE_LEN, "off");
		break;
	case HDP_VALUE_CHOICE:
		for (; k->choices[n] && n < HELD_VALUES_MAX; n++)
			snprintf(values[n], HELD_VALUE_LEN, "%s", k->choices[n]);
		break;
	case HDP_VALUE_UINT:
	case HDP_VALUE_SIZE:
		snprintf(values[n++], HELD_VALUE_LEN, "%u", k->min);
		snprintf(values[n++], HELD_VALUE_LEN, "%u", k->min + 1);
		snprintf(values[n++], HELD_VALUE_LEN, "%u", k->max);
		break;
	}
	return n;
}

HDP_PRINTF(3, 4)
static bool fail(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
	return false;
}

static struct hdp_pool *make_pool(const char *base)
{
	static struct hdp_harden_config cfg;
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "held", .obj_size = OBJ_SIZE, .obj_align = 16, .obj_count = OBJS,
		.mem = HDP_MEM_PLAIN,
	});

	if (!pool)
		return NULL;
	hdp_harden_config_init(&cfg);
	hdp_harden_config_declare(&cfg, "held");
	if (hdp_harden_config_parse_string(&cfg, base, "test") || hdp_pool_configure(pool, &cfg)) {
		hdp_pool_destroy(pool);
		return NULL;
	}
	return pool;
}

/*
 * Each handle: @seed's bytes copied into its first SPAN bytes and read
 * back, the next SPAN written through hdp_deref() and read back, both
 * through checked copies.
 */
static bool use(struct hdp_pool *pool, void *const *h, unsigned n, unsigned char seed,
		const char *when, char *why, size_t len)
{
	unsigned char in[SPAN], out[SPAN];

	for (unsigned i = 0; i < n; i++) {
		unsigned char *raw = hdp_deref(h[i]);

		memset(in, seed + i, SPAN);
		if (hdp_pool_copy_in(pool, h[i], in, SPAN))
			return fail(why, len, "%s: a copy into handle %u (tag %u) was refused", when,
				    i, hdp_tag_of(h[i]));
		if (hdp_pool_copy_out(pool, out, h[i], SPAN) || memcmp(in, out, SPAN))
			return fail(why, len, "%s: handle %u (tag %u) did not read back what was copied in",
				    when, i, hdp_tag_of(h[i]));
		memset(raw + SPAN, seed ^ 0x5a, SPAN);
		memset(in, seed ^ 0x5a, SPAN);
		if (hdp_pool_copy_out(pool, out, (char *)h[i] + SPAN, SPAN) || memcmp(in, out, SPAN))
			return fail(why, len, "%s: handle %u (tag %u) did not read back what was written "
				    "through it", when, i, hdp_tag_of(h[i]));
	}
	return true;
}

static unsigned long long violations_of(struct hdp_pool *pool)
{
	struct hdp_pool_stats st;
	unsigned long long sum = 0;

	hdp_pool_stats_get(pool, &st);
	for (unsigned k = 0; k < hdp_violation_kinds(); k++)
		sum += st.harden.violations[k];
	return sum;
}

/* The held handles' life across the switches; false with @why on the first fault. */
static bool hold(struct hdp_pool *pool, const char *key, const char *a, const char *b,
		 bool *refused, char *why, size_t len)
{
	struct hdp_extent ext[HANDLES];
	void *h1[HANDLES], *h2[HANDLES];
	struct hdp_pool_stats st;
	char when[96];

	if (hdp_pool_alloc_bulk(pool, h1, HANDLES))
		return fail(why, len, "no handles under %s=%s", key, a);
	snprintf(when, sizeof(when), "under %s=%s", key, a);
	if (!use(pool, h1, HANDLES, 0x10, when, why, len))
		return false;
	*refused = hdp_pool_set(pool, key, b) != 0;
	snprintf(when, sizeof(when), "held from %s=%s into %s", key, a, b);
	if (!use(pool, h1, HANDLES, 0x20, when, why, len))
		return false;
	if (hdp_pool_alloc_bulk(pool, h2, HANDLES))
		return fail(why, len, "no handles under %s=%s", key, b);
	if (!use(pool, h2, HANDLES, 0x30, when, why, len))
		return false;
	hdp_pool_set(pool, key, a);
	snprintf(when, sizeof(when), "held from %s=%s to %s and back", key, a, b);
	if (!use(pool, h1, HANDLES, 0x40, when, why, len) ||
	    !use(pool, h2, HANDLES, 0x50, when, why, len))
		return false;
	for (unsigned i = 0; i < HANDLES; i++)
		ext[i] = (struct hdp_extent){ 0, 2 * SPAN };
	if (hdp_pool_free_burst_extent(pool, h1, ext, HANDLES) != HANDLES ||
	    hdp_pool_free_burst_extent(pool, h2, ext, HANDLES) != HANDLES)
		return fail(why, len, "%s: a free was refused", when);
	hdp_pool_stats_get(pool, &st);
	if (st.in_use)
		return fail(why, len, "%s: %llu objects not back", when,
			    (unsigned long long)st.in_use);
	if (violations_of(pool))
		return fail(why, len, "%s: %llu violations counted", when, violations_of(pool));
	return true;
}

enum held_result held_across(const char *base, const char *key, const char *a, const char *b,
			     char *why, size_t len)
{
	struct hdp_pool *pool = make_pool(base);
	bool refused = false, good;

	if (!pool) {
		fail(why, len, "no pool with profile '%s'", base);
		return HELD_FAILED;
	}
	if (hdp_pool_set(pool, key, a)) {
		hdp_pool_destroy(pool);
		return HELD_REFUSED;
	}
	good = hold(pool, key, a, b, &refused, why, len);
	hdp_pool_destroy(pool);
	if (!good)
		return HELD_FAILED;
	return refused ? HELD_REFUSED : HELD_OK;
}

void held_walk(const char *base, struct held_walk *w,
	       void (*progress)(const char *key, const char *a, const char *b))
{
	const struct hdp_protection_key *keys[64];
	unsigned nkeys = held_all_keys(keys, 64);
	char values[HELD_VALUES_MAX][HELD_VALUE_LEN], why[256];

	memset(w, 0, sizeof(*w));
	for (unsigned k = 0; k < nkeys; k++) {
		unsigned nv = held_values(keys[k], values);

		for (unsigned a = 0; a < nv; a++) {
			for (unsigned b = 0; b < nv; b++) {
				enum held_result r;

				if (a == b)
					continue;
				if (progress)
					progress(keys[k]->name, values[a], values[b]);
				r = held_across(base, keys[k]->name, values[a], values[b], why,
						sizeof(why));
				w->pairs++;
				w->refused += r == HELD_REFUSED;
				if (r == HELD_FAILED && !w->failed++)
					snprintf(w->first, sizeof(w->first), "%s", why);
			}
		}
	}
}
