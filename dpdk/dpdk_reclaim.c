// SPDX-License-Identifier: BSD-3-Clause
/*
 * Taking back what a device kept. net_af_xdp (DPDK 22.11) closes its
 * sockets with the mbufs of its fill rings still on them and never frees
 * them. Once nothing else can hold an object, those are the objects in
 * neither the ring, a quarantine nor a cache: they go back through the
 * driver like any free, taken as written all over (the whole data room is
 * their extent), since the kernel may have written any of them where no
 * data_len says.
 */
#include "dpdk_internal.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct census {
	void **home;		/* in the ring, sorted */
	unsigned nhome;
	void **away;		/* the others */
	unsigned naway;
};

static int by_address(const void *a, const void *b)
{
	uintptr_t x = (uintptr_t)*(void *const *)a, y = (uintptr_t)*(void *const *)b;

	return (x > y) - (x < y);
}

static void note_away(struct rte_mempool *mp, void *opaque, void *obj, unsigned obj_idx)
{
	struct census *c = opaque;

	(void)mp;
	(void)obj_idx;
	if (!bsearch(&obj, c->home, c->nhome, sizeof(*c->home), by_address))
		c->away[c->naway++] = obj;
}

/* Every lcore's quarantine into the ring: nothing runs now that could take from it. */
static void empty_quarantines(struct hdp_dpdk_pool *pd)
{
	void *held[64];
	unsigned k;

	for (unsigned l = 0; l <= RTE_MAX_LCORE; l++)
		while ((k = hdp_harden_pool_drain(&pd->hp, &pd->lcore[l].tls, held, 64)) > 0)
			rte_ring_enqueue_bulk(pd->ring, held, k, NULL);
}

/* The ring's objects, sorted into @c->home, back in the order they were. 0 or -ENOBUFS. */
static int mark_ring(struct hdp_dpdk_pool *pd, struct census *c, void **tmp, unsigned size)
{
	unsigned n = rte_ring_dequeue_burst(pd->ring, tmp, size, NULL);

	memcpy(c->home, tmp, n * sizeof(*tmp));
	c->nhome = n;
	qsort(c->home, n, sizeof(*c->home), by_address);
	return n && rte_ring_enqueue_bulk(pd->ring, tmp, n, NULL) != n ? -ENOBUFS : 0;
}

int hdp_dpdk_pool_reclaim(struct rte_mempool *mp)
{
	struct hdp_dpdk_pool *pd = hdp_dpdk_pool_of(mp);
	struct census c = { 0 };
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
	empty_quarantines(pd);
	c.home = malloc(mp->size * sizeof(*c.home));
	c.away = malloc(mp->size * sizeof(*c.away));
	if (!c.home || !c.away) {
		ret = -ENOMEM;
		goto out;
	}
	ret = mark_ring(pd, &c, c.away, mp->size);
	if (ret)
		goto out;
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
		/* What the pipeline refused (a record that says free) stays out: not counted. */
		ret = (int)(rte_mempool_avail_count(mp) - before);
	}
out:
	free(c.home);
	free(c.away);
	return ret;
}
