/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the pool's files share. Not for other modules. Each file calls
 * only those below it: pool.c (life cycle) uses pool_cache.c (caches,
 * the shared stack, the back-end), pool_stats.c and pool_table.c;
 * pool_cache.c uses pool_table.c; pool_stats.c and pool_table.c use none.
 */
#ifndef HDP_MEMPOOL_POOL_INTERNAL_H
#define HDP_MEMPOOL_POOL_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
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
};

/* One thread's cache for one pool. Only its thread touches objs and len. */
struct pool_cache {
	uint32_t len;
	uint32_t size;		/* refill target */
	uint32_t cap;		/* flush threshold: 2 * size */
	struct hdp_pool *pool;
	struct pool_cache *next;	/* pool->caches, under pool->lock */
	bool idle;			/* its thread left; the next new thread takes it */
	struct pool_counters stats HDP_CACHE_ALIGNED;
	struct hdp_harden_tls hts;	/* the pipeline's state for this thread */
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

	/* The shared free stack and the list of caches. */
	pthread_mutex_t lock HDP_CACHE_ALIGNED;
	uint32_t *free_stack;
	uint32_t free_len;
	uint64_t *free_bitmap;		/* 1: object is in free_stack */
	struct pool_cache *caches;
	struct pool_counters uncached;	/* threads without a cache */
	uint64_t ncaches;		/* caches a thread has now (idle ones not) */

	pool_counter_t double_frees_dropped;	/* frees counted, then refused */
	struct hdp_harden_tls orphan_hts;	/* threads without a cache; lock held */

	/*
	 * Hardening: its word and the slot layout (where the objects are),
	 * on their own line, read by every burst.
	 */
	struct hdp_harden_pool hp HDP_CACHE_ALIGNED;
};

/*
 * The back-end the pipeline takes objects from and gives them to: the
 * caller's cache, else (no cache could be made) the shared stack under
 * pool->lock, which the caller then holds (pool_cache.c).
 */
extern const struct hdp_harden_pool_ops pool_ops;

/* The shared stack of a new pool, every object on it: 0 or -ENOMEM. */
int pool_stack_build(struct hdp_pool *pool);

/* Caches: free every cache of a pool being destroyed, after hdp_harden_pool_fini. */
void pool_caches_release(struct hdp_pool *pool);

/*
 * The table of live pools (pool_table.c). A thread that exits flushes its
 * caches only into pools still in the table under the generation its
 * cache was made for.
 */
int pool_table_insert(struct hdp_pool *pool);
void pool_table_remove(struct hdp_pool *pool);
void pool_table_lock(void);
void pool_table_unlock(void);
struct hdp_pool *pool_table_get_locked(uint16_t id, uint64_t gen);

#endif /* HDP_MEMPOOL_POOL_INTERNAL_H */
