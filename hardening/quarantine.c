// SPDX-License-Identifier: BSD-3-Clause
/*
 * quarantine: a freed object waits behind the next quarantine_depth frees
 * of its thread before the pool can hand it out again. The one mechanism
 * for every back-end: hdp's own pools and the DPDK driver alike.
 *
 * A thread's cache is a stack, and a DPDK lcore's free goes straight back
 * to the ring: without this, the object freed last is among the next
 * ones allocated, and a pointer kept past its free silently aliases the
 * next packet. Held back, the object stays free (wiped, its tag retired)
 * while the stale pointer is still likely to be used: a write through it
 * is found by init_check when the object is handed out again, an access
 * through hdp by its tag, and a free of it is a double free.
 *
 * Per thread and pool, a ring of the objects held, oldest first. hold()
 * puts a burst in and takes as many of the oldest out in their place once
 * the ring is past its depth; a smaller depth set at run time empties the
 * excess a burst at a time, and so does turning it off. Cost: two copies
 * of a pointer per object, and the objects come back cold.
 *
 * Where the pool has no cache per thread (a DPDK mempool: one shared
 * ring), the thread's quarantine is its cache too: objects past their wait
 * stay in it, up to QUARANTINE_SLACK more, and the thread's next
 * allocations take them before the ring's, oldest first. The objects in
 * use then cycle through depth + a burst, warm in the CPU's cache, and a
 * free is a store to the thread's own array instead of an atomic on the
 * shared ring; each still waits behind at least depth frees.
 */
#include "harden_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct hdp_quarantine {
	uint32_t cap;		/* a power of two */
	uint32_t head;		/* the oldest */
	uint32_t len;
	void *objs[];
};

/* Objects past the depth this thread keeps for itself before the back-end gets them. */
static inline uint32_t slack(const struct hdp_harden_pool *hp, uint32_t depth)
{
	return depth && !hp->ops->cache ? QUARANTINE_SLACK : 0;
}

/*
 * The depth in effect: the key's, unless the pool says how many threads
 * hold a quarantine at once, and their depths and slack together would
 * keep more than half its objects from the others: then as deep as half
 * allows (0 where a burst's worth of slack does not fit), said once.
 */
static uint32_t bounded_depth(const struct hdp_harden_pool *hp, uint32_t depth)
{
	uint64_t share, extra = QUARANTINE_SLACK + 64;

	if (!hp->threads)
		return depth;
	share = hp->objects / 2 / hp->threads;
	if (share <= extra)
		return 0;
	return depth < share - extra ? depth : (uint32_t)(share - extra);
}

int quarantine_prepare(struct hdp_harden_pool *hp, const struct hdp_profile *p, uint32_t *depth,
		       const char **why)
{
	*depth = 0;
	if (!p->quarantine)
		return 0;
	/* Each thread may hold depth objects, and a burst more. */
	if (p->quarantine_depth > hp->objects / 2) {
		static _Thread_local char text[128];

		snprintf(text, sizeof(text), "quarantine_depth %u is more than half of the "
			 "pool's %u objects: at most %u", p->quarantine_depth, hp->objects,
			 hp->objects / 2);
		*why = text;
		return -EINVAL;
	}
	*depth = bounded_depth(hp, p->quarantine_depth);
	if (*depth != p->quarantine_depth &&
	    (!hp->applied ||
	     atomic_load_explicit(&hp->quarantine_depth, memory_order_relaxed) != *depth))
		hdp_log(HDP_LOG_WARN, "pool '%s': quarantine %u deep, not %u: %u objects "
			"shared by %u threads' quarantines", hp->name, *depth,
			p->quarantine_depth, hp->objects, hp->threads);
	return 0;
}

/* Room for @need: the ring doubles, keeping its order. false without memory. */
static bool reserve(struct hdp_harden_tls *t, uint32_t need)
{
	struct hdp_quarantine *q = t->quarantine, *g;
	uint32_t cap = 64;

	if (hdp_likely(q && q->cap >= need))
		return true;
	while (cap < need)
		cap *= 2;
	g = malloc(sizeof(*g) + cap * sizeof(void *));
	if (!g)
		return false;
	g->cap = cap;
	g->head = 0;
	g->len = 0;
	for (; q && g->len < q->len; g->len++)
		g->objs[g->len] = q->objs[(q->head + g->len) & (q->cap - 1)];
	free(q);
	t->quarantine = g;
	return true;
}

/* Up to @max of the oldest into @out. */
static unsigned take_oldest(struct hdp_quarantine *q, void **out, unsigned max)
{
	unsigned k = q->len < max ? q->len : max;

	for (unsigned i = 0; i < k; i++)
		out[i] = q->objs[(q->head + i) & (q->cap - 1)];
	q->head = (q->head + k) & (q->cap - 1);
	q->len -= k;
	return k;
}

static inline void note_holding(struct hdp_harden_tls *t)
{
	if (t->quarantine && t->quarantine->len)
		t->holding |= 1u << HDP_OWN_QUARANTINE;
	else
		t->holding &= ~(1u << HDP_OWN_QUARANTINE);
}

unsigned quarantine_hold(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			 struct hdp_harden_view v, void **objs, unsigned n, unsigned cap)
{
	uint32_t depth = atomic_load_explicit(&hp->quarantine_depth, memory_order_relaxed);
	uint32_t keep = depth + slack(hp, depth);
	struct hdp_quarantine *q;
	unsigned out = n;

	if (!hdp_view_own(v, HDP_OWN_QUARANTINE)) {
		/* Turned off: what it held goes back, a burst at a time. */
		if (t->quarantine)
			out += take_oldest(t->quarantine, objs + n, cap - n);
		hdp_counter_add(&t->c.held_out, out - n);
		note_holding(t);
		return out;
	}
	q = t->quarantine;
	/* No memory for the ring: the objects go back unheld, as without it. */
	if (!reserve(t, (q && q->len > keep ? q->len : keep) + n))
		return n;
	q = t->quarantine;
	for (unsigned i = 0; i < n; i++)
		q->objs[(q->head + q->len + i) & (q->cap - 1)] = objs[i];
	q->len += n;
	hdp_counter_add(&t->c.n[HDP_C_QUARANTINED], n);
	out = 0;
	if (q->len > keep)
		out = take_oldest(q, objs, q->len - depth < cap ? q->len - depth : cap);
	if (out < n)
		hdp_counter_add(&t->c.held_in, n - out);
	else
		hdp_counter_add(&t->c.held_out, out - n);
	note_holding(t);
	return out;
}

/*
 * The line where each of @n objects' data starts, asked for with intent
 * to write, a burst ahead: init_check reads it in a moment.
 */
static void prefetch_next(const struct hdp_harden_pool *hp, const struct hdp_quarantine *q,
			  unsigned n)
{
	for (unsigned i = 0; i < n && i < q->len; i++)
		__builtin_prefetch((char *)q->objs[(q->head + i) & (q->cap - 1)] + hp->area_off +
				   hp->data_at, 1, 3);
}

unsigned quarantine_take(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			 struct hdp_harden_view v, void **objs, unsigned n)
{
	uint32_t depth = atomic_load_explicit(&hp->quarantine_depth, memory_order_relaxed);
	struct hdp_quarantine *q = t->quarantine;

	if (!q || !slack(hp, depth) || q->len < depth + n || !hdp_view_own(v, HDP_OWN_QUARANTINE))
		return 0;
	take_oldest(q, objs, n);
	hdp_counter_add(&t->c.held_out, n);
	/* A burst's worth of packets before init_check reads the next ones. */
	if (hp->data_at && (hdp_view_flags(v) & HDP_HF_INIT_CHECK) && q->len >= depth + n)
		prefetch_next(hp, q, n);
	note_holding(t);
	return n;
}

unsigned quarantine_drain(struct hdp_harden_tls *t, void **out, unsigned max)
{
	unsigned got = t->quarantine ? take_oldest(t->quarantine, out, max) : 0;

	hdp_counter_add(&t->c.held_out, got);
	note_holding(t);
	return got;
}

void quarantine_release(struct hdp_harden_tls *t)
{
	free(t->quarantine);
	t->quarantine = NULL;
	t->holding &= ~(1u << HDP_OWN_QUARANTINE);
}
