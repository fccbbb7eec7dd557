/* SPDX-License-Identifier: BSD-3-Clause */
/* What pool.c, pool_cache.c and pool_stats.c share. Not for other modules. */
#ifndef HDP_MEMPOOL_POOL_INTERNAL_H
#define HDP_MEMPOOL_POOL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <hdp/compiler.h>
#include <hdp/counter.h>
#include <hdp/harden.h>
#include <hdp/pool.h>

#include "mem_map.h"

typedef hdp_counter_t pool_counter_t;

/* Counters written by one thread only, read by anyone. */
struct pool_counters {
	pool_counter_t allocs;
	pool_counter_t frees;
	pool_counter_t alloc_fails;
	pool_counter_t cache_hits;
	pool_counter_t cache_misses;
	pool_counter_t held_cut_short;	/* held objects handed out early: nothing else left */
};

/* One thread's cache for one pool. Only its thread touches objs and len. */
struct pool_cache {
	uint32_t len;
	uint32_t size;		/* refill target */
	uint32_t cap;		/* flush threshold: 2 * size */
	struct hdp_pool *pool;
	struct pool_cache *next;	/* pool->caches, under pool->lock */
	struct pool_cache **pprev;
	struct pool_counters stats HDP_CACHE_ALIGNED;
	struct hdp_harden_tls hts;
	void *objs[];
};

struct hdp_pool {
	/* Read on every call; written only at creation. */
	uint32_t obj_count;		/* objects: the layout's slots less the gaps' */
	uint32_t cache_size;
	uint16_t id;			/* slot in the pool table */
	uint64_t gen;			/* unique per creation */
	char name[HDP_POOL_NAME_MAX];
	struct mem_mapping map;
	int region_id;

	/* The shared free stack and the list of caches. */
	pthread_mutex_t lock HDP_CACHE_ALIGNED;
	uint32_t *free_stack;
	uint32_t free_len;
	uint64_t *free_bitmap;		/* 1: object is in free_stack */
	struct pool_cache *caches;
	struct pool_counters retired;	/* folded in from exited threads */
	uint64_t ncaches;

	pool_counter_t double_frees_dropped;	/* frees counted, then refused */
	struct hdp_harden_tls orphan_hts;	/* threads without a cache; lock held */

	/*
	 * Hardening: its word and the slot layout (where the objects are),
	 * on their own line, read by every burst.
	 */
	struct hdp_harden_pool hp HDP_CACHE_ALIGNED;
};

/* The slot of @p, which lies inside the slots. */
static inline uint32_t pool_index_of(const struct hdp_pool *pool, const void *p)
{
	return hdp_layout_div(&pool->hp.layout, (uintptr_t)p - pool->hp.layout.base);
}

/*
 * Shared stack, pool->lock held. pop fills @dst backwards, so the stack's
 * top (the most recently freed, hottest object) ends up last: on top of a
 * cache it refills. push returns the double frees it refused.
 */
unsigned pool_stack_pop(struct hdp_pool *pool, void **dst, unsigned n);
unsigned pool_stack_push(struct hdp_pool *pool, void *const *src, unsigned n);

/* Count a violation and act on it under the pool's policy. */
void pool_violation(struct hdp_pool *pool, enum hdp_violation_kind kind,
		    const void *addr);

/* Caches: unlink and free every cache of a pool being destroyed. */
void pool_caches_release(struct hdp_pool *pool);

/*
 * The table of live pools. A thread that exits flushes its caches only into
 * pools still in the table under the generation its cache was made for.
 */
void pool_table_lock(void);
void pool_table_unlock(void);
struct hdp_pool *pool_table_get_locked(uint16_t id, uint64_t gen);

#endif /* HDP_MEMPOOL_POOL_INTERNAL_H */
