// SPDX-License-Identifier: BSD-3-Clause
/*
 * quarantine: a freed object waits behind the next quarantine_depth frees
 * of its thread before the pool can hand it out again. hdp's own pools
 * run it here, through the reuse hooks; a DPDK mempool's driver runs it
 * as its per-lcore reuse queues, from the same keys (dpdk/dpdk_reuse.c).
 *
 * A thread's cache is a stack: without this, the object freed last is the
 * next one allocated, and a pointer kept past its free silently aliases
 * the next packet. Held back, the object stays free (wiped, its tag
 * retired) while the stale pointer is still likely to be used: a write
 * through it is found by init_check when the object is handed out again,
 * an access through hdp by its tag, and a free of it is a double free.
 *
 * Per thread and pool, a ring of the objects held, oldest first. hold()
 * puts a burst in and takes as many of the oldest out in their place once
 * the ring is full; a smaller depth set at run time empties the excess a
 * burst at a time, and so does turning it off. Cost: two copies of a
 * pointer per object, and the objects come back cold.
 */
#include <hdp/protection.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { KEY_ON, KEY_DEPTH };
enum { C_QUARANTINED };

struct held {
	uint32_t cap;		/* a power of two */
	uint32_t head;		/* the oldest */
	uint32_t len;
	void *objs[];
};

/* Room for @need: the ring doubles, keeping its order. false without memory. */
static bool reserve(void **state, uint32_t need)
{
	struct held *h = *state, *g;
	uint32_t cap = 64;

	if (h && h->cap >= need)
		return true;
	while (cap < need)
		cap *= 2;
	g = malloc(sizeof(*g) + cap * sizeof(void *));
	if (!g)
		return false;
	g->cap = cap;
	g->head = 0;
	g->len = 0;
	for (; h && g->len < h->len; g->len++)
		g->objs[g->len] = h->objs[(h->head + g->len) & (h->cap - 1)];
	free(h);
	*state = g;
	return true;
}

/* Up to @max of the oldest into @out. */
static unsigned take_oldest(struct held *h, void **out, unsigned max)
{
	unsigned k = h->len < max ? h->len : max;

	for (unsigned i = 0; i < k; i++)
		out[i] = h->objs[(h->head + i) & (h->cap - 1)];
	h->head = (h->head + k) & (h->cap - 1);
	h->len -= k;
	return k;
}

static unsigned quarantine_hold(const struct hdp_protection_burst *b, void **objs,
				unsigned n, unsigned cap)
{
	uint32_t depth = b->values[KEY_DEPTH];
	struct held *h;
	unsigned over;

	h = *b->thread_state;
	/* No memory for the ring: the objects go back unheld, as without it. */
	if (!reserve(b->thread_state, (h && h->len > depth ? h->len : depth) + n))
		return n;
	h = *b->thread_state;
	for (unsigned i = 0; i < n; i++)
		h->objs[(h->head + h->len + i) & (h->cap - 1)] = objs[i];
	h->len += n;
	over = h->len > depth ? h->len - depth : 0;
	hdp_protection_count(b, C_QUARANTINED, n);
	return take_oldest(h, objs, over < cap ? over : cap);
}

static unsigned quarantine_drain(const struct hdp_protection_burst *b, void **out,
				 unsigned max)
{
	struct held *h = *b->thread_state;

	return h ? take_oldest(h, out, max) : 0;
}

/*
 * A pool without reuse hooks keeps its own quarantine from these keys (a
 * DPDK mempool: the driver's per-lcore reuse queues, made quarantine_depth
 * deep when the pool is): nothing runs here for it, but the keys are its.
 */
static int quarantine_attach(struct hdp_protection_pool *pp, const uint32_t *values,
			     const char **why)
{
	/* Each thread may hold depth objects, and a burst more. */
	if (values[KEY_DEPTH] > pp->obj_count / 2) {
		*why = "quarantine_depth is more than half of the pool's objects";
		return -EINVAL;
	}
	return 0;
}

static const struct hdp_protection_key quarantine_keys[] = {
	[KEY_ON] = { "quarantine", HDP_VALUE_BOOL, .def = 0,
		     .doc = "hold a freed object back behind the next quarantine_depth frees "
			    "of its thread (a DPDK pool: of its lcore, in the driver's queues)" },
	[KEY_DEPTH] = { "quarantine_depth", HDP_VALUE_UINT, .min = 1, .max = 65536, .def = 256,
			.doc = "how many frees a freed object waits behind (per thread; at most "
			       "half the pool)" },
};

static const struct hdp_protection_name quarantine_counters[] = {
	[C_QUARANTINED] = { "quarantined", "objects that went into quarantine (the pool's "
			    "\"held\" says how many are there now)" },
};


const struct hdp_protection hdp_quarantine = {
	.name = "quarantine",
	.doc = "freed objects wait behind the next N frees before reuse",
	.keys = quarantine_keys, .nkeys = HDP_ARRAY_SIZE(quarantine_keys),
	.counters = quarantine_counters, .ncounters = HDP_ARRAY_SIZE(quarantine_counters),
	.attach = quarantine_attach,
	.hold = quarantine_hold,
	.drain = quarantine_drain,
	.thread_release = hdp_protection_thread_state_free,
};
