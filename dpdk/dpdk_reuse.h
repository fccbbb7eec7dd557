/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Each lcore's reuse queue: the objects it freed, oldest first, in front
 * of the pool's shared ring. An object is handed out again only after at
 * least `depth` later frees on the same lcore (or, spilled to the ring
 * once the queue runs past depth + REUSE_SLACK, after them and whatever
 * the ring holds): a bounded, stated reuse distance, where the ring alone
 * gave "about a pool's worth" by accident. What it buys: the objects in
 * use cycle through depth + a burst instead of the whole pool, so the
 * hooks' stores and loads meet lines still in the cache, and a free is a
 * store to the lcore's own array instead of a CAS on the shared ring.
 * Only the owning lcore touches a queue (non-EAL threads share one under
 * the pool's foreign lock); others only read head and tail for counts.
 */
#ifndef HDP_DPDK_REUSE_H
#define HDP_DPDK_REUSE_H

#include <stdatomic.h>
#include <stdint.h>

#include <rte_ring.h>

/* Past depth by this many, the oldest go to the ring down to depth: one ring call. */
#define HDP_REUSE_SLACK 128u
/* Objects one put may add at most (the driver's step through the hooks). */
#define HDP_REUSE_PUT_MAX 64u

struct hdp_dpdk_reuse {
	void **obj;			/* NULL: no queue, frees go to the ring */
	uint32_t mask;			/* capacity - 1 */
	uint32_t depth;
	_Atomic uint32_t head, tail;	/* oldest, next free slot (free-running) */
	_Atomic uint64_t cut_short;	/* allocations that could not wait */
};

static inline uint32_t hdp_reuse_count(const struct hdp_dpdk_reuse *q)
{
	return atomic_load_explicit(&q->tail, memory_order_relaxed) -
	       atomic_load_explicit(&q->head, memory_order_relaxed);
}

/* The @n oldest leave for @out. */
static inline __attribute__((always_inline)) void
hdp_reuse_take(struct hdp_dpdk_reuse *q, void **out, uint32_t n)
{
	uint32_t head = atomic_load_explicit(&q->head, memory_order_relaxed);

	for (uint32_t i = 0; i < n; i++)
		out[i] = q->obj[(head + i) & q->mask];
	atomic_store_explicit(&q->head, head + n, memory_order_relaxed);
}

/* The @n oldest go to @ring (dpdk_reuse.c, off the fast path). 0 or -1 (ring full). */
int hdp_reuse_spill(struct hdp_dpdk_reuse *q, uint32_t n, struct rte_ring *ring);

/* The ring was short: this lcore's queue goes to it, wait cut short (dpdk_reuse.c). */
int hdp_reuse_get_slow(struct hdp_dpdk_reuse *q, void **objs, uint32_t n,
		       struct rte_ring *ring);

/* @n (at most HDP_REUSE_PUT_MAX) freed objects in. 0, or -1 if the ring was full. */
static inline __attribute__((always_inline)) int
hdp_reuse_put(struct hdp_dpdk_reuse *q, void *const *objs, uint32_t n, struct rte_ring *ring)
{
	uint32_t tail, count;

	if (!q->obj)
		return rte_ring_mp_enqueue_bulk(ring, objs, n, NULL) ? 0 : -1;
	tail = atomic_load_explicit(&q->tail, memory_order_relaxed);
	for (uint32_t i = 0; i < n; i++)
		q->obj[(tail + i) & q->mask] = objs[i];
	atomic_store_explicit(&q->tail, tail + n, memory_order_relaxed);
	/* From the tail just written, not a reload of it: only this lcore moves it. */
	count = tail + n - atomic_load_explicit(&q->head, memory_order_relaxed);
	if (__builtin_expect(count > q->depth + HDP_REUSE_SLACK, 0))
		return hdp_reuse_spill(q, count - q->depth, ring);
	return 0;
}

/* Any number of freed objects in, HDP_REUSE_PUT_MAX at a time. 0 or -1. */
static inline int hdp_reuse_put_bulk(struct hdp_dpdk_reuse *q, void *const *objs, uint32_t n,
				     struct rte_ring *ring)
{
	for (uint32_t i = 0; i < n; i += HDP_REUSE_PUT_MAX)
		if (hdp_reuse_put(q, objs + i, n - i < HDP_REUSE_PUT_MAX ? n - i : HDP_REUSE_PUT_MAX,
				  ring))
			return -1;
	return 0;
}

/*
 * @n objects out: the queue's oldest once they have waited depth frees,
 * else the ring's. If the ring has too few, this lcore's queue goes to
 * the ring whatever their wait (counted: a pool too small for its
 * queues) rather than fail while free objects are at hand. 0 or -1.
 */
static inline __attribute__((always_inline)) int
hdp_reuse_get(struct hdp_dpdk_reuse *q, void **objs, uint32_t n, struct rte_ring *ring)
{
	if (q->obj && hdp_reuse_count(q) >= q->depth + n) {
		hdp_reuse_take(q, objs, n);
		return 0;
	}
	if (rte_ring_mc_dequeue_bulk(ring, objs, n, NULL))
		return 0;
	return hdp_reuse_get_slow(q, objs, n, ring);
}

#endif /* HDP_DPDK_REUSE_H */
