// SPDX-License-Identifier: BSD-3-Clause
/*
 * Each pool's per-lcore reuse queues, its quarantine: one per EAL lcore
 * and one for non-EAL threads, made when the pool's profile turns on,
 * quarantine_depth deep where the profile has quarantine on (the same
 * keys as hdp's own pools), none where it is off.
 */
#include "dpdk_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <stdlib.h>

#include <rte_malloc.h>

/*
 * The queues may hide at most half the pool from the other lcores: each
 * holds up to depth + slack + one put. A smaller pool gets a shallower
 * queue (said in the log), not allocations that fail while half the
 * pool is free elsewhere.
 */
static uint32_t depth_for(const struct rte_mempool *mp, unsigned queues, uint32_t depth)
{
	uint64_t share = mp->size / 2 / queues, extra = HDP_REUSE_SLACK + HDP_REUSE_PUT_MAX;

	if (share <= extra)
		return 0;
	return depth < share - extra ? depth : (uint32_t)(share - extra);
}

/* quarantine_depth where the pool's profile has quarantine on, else 0. */
static uint32_t wanted_depth(const struct hdp_dpdk_pool *pd)
{
	uint32_t on = 0, depth = 0;

	if (hdp_profile_value(&pd->hp.current, "quarantine", &on) || !on ||
	    hdp_profile_value(&pd->hp.current, "quarantine_depth", &depth))
		return 0;
	return depth;
}

int hdp_dpdk_reuse_setup(struct hdp_dpdk_pool *pd)
{
	unsigned queues = rte_lcore_count() + 1;
	uint32_t wanted = wanted_depth(pd), depth = depth_for(pd->mp, queues, wanted), cap;

	pd->reuse_depth = depth;
	if (depth != wanted)
		hdp_log(HDP_LOG_WARN, "mempool %s: quarantine %u deep, not %u: %u objects "
			"shared by %u lcores' queues", pd->mp->name, depth, wanted,
			pd->mp->size, queues);
	if (!depth)
		return 0;
	cap = rte_align32pow2(depth + HDP_REUSE_SLACK + HDP_REUSE_PUT_MAX);
	for (unsigned i = 0; i <= RTE_MAX_LCORE; i++) {
		struct hdp_dpdk_reuse *q = &pd->lcore[i].reuse;

		/* EAL lcores and the non-EAL threads' entry; others go to the ring. */
		if (i < RTE_MAX_LCORE && !rte_lcore_is_enabled(i))
			continue;
		q->obj = rte_malloc_socket("hdp_reuse", cap * sizeof(*q->obj), 0,
					   pd->mp->socket_id);
		if (!q->obj)
			return -ENOMEM;
		q->mask = cap - 1;
		q->depth = depth;
	}
	return 0;
}

int hdp_reuse_spill(struct hdp_dpdk_reuse *q, uint32_t n, struct rte_ring *ring)
{
	uint32_t head = atomic_load_explicit(&q->head, memory_order_relaxed);
	uint32_t at = head & q->mask, first = q->mask + 1 - at;

	if (first > n)
		first = n;
	/* Two bulks where the oldest wrap round the end of the array. */
	if (!rte_ring_mp_enqueue_bulk(ring, q->obj + at, first, NULL) ||
	    (n > first && !rte_ring_mp_enqueue_bulk(ring, q->obj, n - first, NULL)))
		return -1;
	atomic_store_explicit(&q->head, head + n, memory_order_relaxed);
	return 0;
}

int hdp_reuse_get_slow(struct hdp_dpdk_reuse *q, void **objs, uint32_t n,
		       struct rte_ring *ring)
{
	if (!q->obj || !hdp_reuse_count(q) || hdp_reuse_spill(q, hdp_reuse_count(q), ring) ||
	    !rte_ring_mc_dequeue_bulk(ring, objs, n, NULL))
		return -1;
	atomic_store_explicit(&q->cut_short,
			      atomic_load_explicit(&q->cut_short, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	return 0;
}

void hdp_dpdk_reuse_teardown(struct hdp_dpdk_pool *pd)
{
	for (unsigned i = 0; i <= RTE_MAX_LCORE; i++)
		rte_free(pd->lcore[i].reuse.obj);
}

void hdp_dpdk_reuse_totals(const struct hdp_dpdk_pool *pd, uint64_t *queued,
			   uint64_t *cut_short)
{
	*queued = 0;
	*cut_short = 0;
	for (unsigned i = 0; i <= RTE_MAX_LCORE; i++) {
		const struct hdp_dpdk_reuse *q = &pd->lcore[i].reuse;

		if (!q->obj)
			continue;
		*queued += hdp_reuse_count(q);
		*cut_short += atomic_load_explicit(&q->cut_short, memory_order_relaxed);
	}
}
