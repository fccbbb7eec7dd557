// SPDX-License-Identifier: BSD-3-Clause
/*
 * Taking back what a device kept. net_af_xdp (DPDK 22.11) closes its
 * sockets with the mbufs of its fill rings still on them and never frees
 * them. Once nothing else can hold an object, those are the objects in
 * neither the ring, a reuse queue nor a cache: they go back through the
 * driver like any free, taken as written all over (the whole data room is
 * their extent), since the kernel may have written any of them where no
 * data_len says.
 */
#include "dpdk_internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

struct census {
	struct hdp_dpdk_pool *pd;
	uint8_t *home;		/* per slot: in the ring or a reuse queue */
	void **away;		/* the others */
	unsigned naway;
};

/* The slot of one of the pool's objects, or -1 (not in one: cannot be, inside is checked). */
static int64_t slot_of(const struct census *c, void *obj)
{
	uint32_t idx;
	size_t in_slot;

	return hdp_layout_slot(&c->pd->hp.layout, (uintptr_t)obj + c->pd->area_off, &idx, &in_slot)
	       ? (int64_t)idx : -1;
}

static void mark_home(struct census *c, void *obj)
{
	int64_t idx = slot_of(c, obj);

	if (idx >= 0)
		c->home[idx] = 1;
}

static void note_away(struct rte_mempool *mp, void *opaque, void *obj, unsigned obj_idx)
{
	struct census *c = opaque;
	int64_t idx = slot_of(c, obj);

	(void)mp;
	(void)obj_idx;
	if (idx >= 0 && !c->home[idx])
		c->away[c->naway++] = obj;
}

/* The ring's objects, each marked, back in the order they were. 0 or -ENOBUFS. */
static int mark_ring(struct census *c, void **tmp, unsigned size)
{
	unsigned n = rte_ring_dequeue_burst(c->pd->ring, tmp, size, NULL);

	for (unsigned i = 0; i < n; i++)
		mark_home(c, tmp[i]);
	return n && rte_ring_enqueue_bulk(c->pd->ring, tmp, n, NULL) != n ? -ENOBUFS : 0;
}

static void mark_queues(struct census *c)
{
	for (unsigned l = 0; l <= RTE_MAX_LCORE; l++) {
		const struct hdp_dpdk_reuse *q = &c->pd->lcore[l].reuse;
		uint32_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
		uint32_t tail = atomic_load_explicit(&q->tail, memory_order_relaxed);

		for (uint32_t i = head; q->obj && i != tail; i++)
			mark_home(c, q->obj[i & q->mask]);
	}
}

int hdp_dpdk_pool_reclaim(struct rte_mempool *mp)
{
	struct hdp_dpdk_pool *pd = hdp_dpdk_pool_of(mp);
	struct census c = { .pd = pd };
	int ret;

	if (!pd)
		return -ENOENT;
	if (!pd->hp_ready)
		return -EAGAIN;
	/* What the lcores' caches hold is the pool's: into the driver first. */
	for (unsigned l = 0; l < RTE_MAX_LCORE; l++) {
		struct rte_mempool_cache *cache = rte_mempool_default_cache(mp, l);

		if (cache)
			rte_mempool_cache_flush(cache, mp);
	}
	c.home = calloc(pd->hp.layout.slots, 1);
	c.away = malloc(mp->size * sizeof(*c.away));
	if (!c.home || !c.away) {
		ret = -ENOMEM;
		goto out;
	}
	ret = mark_ring(&c, c.away, mp->size);
	if (ret)
		goto out;
	mark_queues(&c);
	rte_mempool_obj_iter(mp, note_away, &c);
	if (c.naway) {
		/* Kept by a device: written anywhere, for all anyone can say. */
		bool lent = pd->lent_to_kernel;
		unsigned before = rte_mempool_avail_count(mp);

		pd->lent_to_kernel = true;
		ret = rte_mempool_ops_enqueue_bulk(mp, c.away, c.naway) ? -ENOBUFS : 0;
		pd->lent_to_kernel = lent;
		if (ret)
			goto out;
		/* What the hooks refused (a record that says free) stays out: not counted. */
		ret = (int)(rte_mempool_avail_count(mp) - before);
	}
out:
	free(c.home);
	free(c.away);
	return ret;
}
