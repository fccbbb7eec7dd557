// SPDX-License-Identifier: BSD-3-Clause
/*
 * Per-thread caches and the allocation and free paths.
 *
 * Each thread finds its cache for a pool in a thread-local table indexed by
 * the pool's slot and checked against the pool's generation, so a slot
 * reused by a newer pool is never mistaken for the old one. A thread that
 * exits gives its cached objects back (pthread key destructor), so nothing
 * is lost when worker threads come and go.
 */
#include "pool_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct tls_slot {
	struct pool_cache *cache;
	uint64_t gen;
};

static _Thread_local struct tls_slot tls_caches[HDP_POOL_MAX];
static _Thread_local bool tls_key_set;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* Fold a cache into its pool and unlink it; pool->lock held. */
static void cache_retire_locked(struct hdp_pool *pool, struct pool_cache *c)
{
	pool_stack_push(pool, c->objs, c->len);
	c->len = 0;
	counter_add(&pool->retired.allocs, counter_read(&c->stats.allocs));
	counter_add(&pool->retired.frees, counter_read(&c->stats.frees));
	counter_add(&pool->retired.alloc_fails, counter_read(&c->stats.alloc_fails));
	counter_add(&pool->retired.cache_hits, counter_read(&c->stats.cache_hits));
	counter_add(&pool->retired.cache_misses, counter_read(&c->stats.cache_misses));
	*c->pprev = c->next;
	if (c->next)
		c->next->pprev = c->pprev;
	pool->ncaches--;
}

static void thread_exit(void *arg)
{
	struct tls_slot *slots = arg;

	pool_table_lock();
	for (int i = 0; i < HDP_POOL_MAX; i++) {
		struct pool_cache *c = slots[i].cache;
		struct hdp_pool *pool;

		if (!c)
			continue;
		pool = pool_table_get_locked((uint16_t)i, slots[i].gen);
		/* A destroyed pool already freed this cache with itself. */
		if (pool) {
			pthread_mutex_lock(&pool->lock);
			cache_retire_locked(pool, c);
			pthread_mutex_unlock(&pool->lock);
			free(c);
		}
		slots[i].cache = NULL;
	}
	pool_table_unlock();
}

static void make_exit_key(void)
{
	if (pthread_key_create(&exit_key, thread_exit))
		abort();
}

HDP_COLD static struct pool_cache *cache_create(struct hdp_pool *pool)
{
	uint32_t cap = pool->cache_size * 2;
	size_t bytes = sizeof(struct pool_cache) + sizeof(void *) * cap;
	struct pool_cache *c;

	bytes = (bytes + HDP_CACHE_LINE - 1) & ~(size_t)(HDP_CACHE_LINE - 1);
	c = aligned_alloc(HDP_CACHE_LINE, bytes);
	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	c->size = pool->cache_size;
	c->cap = cap;
	c->pool = pool;

	pthread_once(&exit_key_once, make_exit_key);
	if (!tls_key_set) {
		pthread_setspecific(exit_key, tls_caches);
		tls_key_set = true;
	}
	pthread_mutex_lock(&pool->lock);
	c->next = pool->caches;
	if (c->next)
		c->next->pprev = &c->next;
	c->pprev = &pool->caches;
	pool->caches = c;
	pool->ncaches++;
	pthread_mutex_unlock(&pool->lock);

	tls_caches[pool->id] = (struct tls_slot){ .cache = c, .gen = pool->gen };
	return c;
}

static inline struct pool_cache *cache_of(struct hdp_pool *pool)
{
	struct tls_slot *slot = &tls_caches[pool->id];

	if (hdp_likely(slot->cache && slot->gen == pool->gen))
		return slot->cache;
	return cache_create(pool);
}

void pool_caches_release(struct hdp_pool *pool)
{
	struct pool_cache *c, *next;

	pthread_mutex_lock(&pool->lock);
	for (c = pool->caches; c; c = next) {
		next = c->next;
		free(c);
	}
	pool->caches = NULL;
	pool->ncaches = 0;
	pthread_mutex_unlock(&pool->lock);
	if (tls_caches[pool->id].gen == pool->gen)
		tls_caches[pool->id].cache = NULL;
}

static inline void run_alloc_hooks(struct hdp_pool *pool, void **objs, unsigned n)
{
	const struct hdp_pool_hooks *h =
		atomic_load_explicit(&pool->hooks, memory_order_acquire);

	if (hdp_unlikely(h != NULL) && h->on_alloc && n)
		h->on_alloc(h->ctx, pool, objs, n);
}

/* The cache cannot serve @n alone: go to the shared stack once. */
HDP_COLD static unsigned alloc_slow(struct hdp_pool *pool, struct pool_cache *c,
				    void **objs, unsigned n, bool bulk)
{
	unsigned out = 0;

	pthread_mutex_lock(&pool->lock);
	if (n <= c->cap) {
		/* Refill to size + n (at most cap), then serve from the cache. */
		unsigned target = c->size + n < c->cap ? c->size + n : c->cap;

		c->len += pool_stack_refill(pool, c->objs + c->len, target - c->len);
		pthread_mutex_unlock(&pool->lock);
		if (c->len >= n || !bulk) {
			out = c->len < n ? c->len : n;
			c->len -= out;
			memcpy(objs, c->objs + c->len, sizeof(void *) * out);
		}
	} else {
		/* Larger than any cache: straight from the stack, cache first. */
		if (!bulk || c->len + pool->free_len >= n) {
			out = c->len < n ? c->len : n;
			c->len -= out;
			memcpy(objs, c->objs + c->len, sizeof(void *) * out);
			out += pool_stack_pop(pool, objs + out, n - out);
		}
		pthread_mutex_unlock(&pool->lock);
	}
	counter_add(&c->stats.cache_misses, out);
	if (out < n)
		counter_add(&c->stats.alloc_fails, 1);
	return out;
}

/* No cache could be made for this thread (out of memory): use the stack. */
HDP_COLD static unsigned alloc_uncached(struct hdp_pool *pool, void **objs,
					unsigned n, bool bulk)
{
	unsigned out = 0;

	pthread_mutex_lock(&pool->lock);
	if (!bulk || pool->free_len >= n)
		out = pool_stack_pop(pool, objs, n);
	counter_add(&pool->retired.allocs, out);
	counter_add(&pool->retired.cache_misses, out);
	if (out < n)
		counter_add(&pool->retired.alloc_fails, 1);
	pthread_mutex_unlock(&pool->lock);
	return out;
}

static inline unsigned alloc_n(struct hdp_pool *pool, void **objs, unsigned n,
			       bool bulk)
{
	struct pool_cache *c = cache_of(pool);
	unsigned out;

	if (hdp_unlikely(!c)) {
		out = alloc_uncached(pool, objs, n, bulk);
		run_alloc_hooks(pool, objs, out);
		return out;
	}
	if (hdp_likely(c->len >= n)) {
		c->len -= n;
		memcpy(objs, c->objs + c->len, sizeof(void *) * n);
		counter_add(&c->stats.cache_hits, n);
		out = n;
	} else {
		out = alloc_slow(pool, c, objs, n, bulk);
	}
	counter_add(&c->stats.allocs, out);
	run_alloc_hooks(pool, objs, out);
	return out;
}

int hdp_pool_alloc_bulk(struct hdp_pool *pool, void **objs, unsigned n)
{
	return alloc_n(pool, objs, n, true) == n ? 0 : -ENOMEM;
}

unsigned hdp_pool_alloc_burst(struct hdp_pool *pool, void **objs, unsigned n)
{
	return alloc_n(pool, objs, n, false);
}

/* Is @p the start of one of this pool's objects? */
static inline bool obj_is_valid(const struct hdp_pool *pool, const void *p)
{
	uintptr_t off = (uintptr_t)p - pool->base;

	if (hdp_unlikely(off >= pool->objs_len))
		return false;
	if (hdp_likely(pool->stride_shift != UINT32_MAX))
		return (off & (pool->stride - 1)) == 0;
	return off % pool->stride == 0;
}

HDP_COLD static void report_invalid(struct hdp_pool *pool, const void *p)
{
	uintptr_t off = (uintptr_t)p - pool->base;
	enum hdp_violation_kind kind;

	if (off < pool->objs_len)
		kind = HDP_V_FREE_INTERIOR;
	else if (off < pool->map.len || off == pool->objs_len)
		kind = HDP_V_FREE_PAST_END;
	else
		kind = HDP_V_FREE_FOREIGN;
	pool_violation(pool, kind, p);
}

/*
 * Put validated objects into the cache (or straight onto the stack when
 * this thread has none), flushing the cache when it would overflow.
 */
static void free_valid(struct hdp_pool *pool, struct pool_cache *c,
		       void *const *objs, unsigned n)
{
	const struct hdp_pool_hooks *h =
		atomic_load_explicit(&pool->hooks, memory_order_acquire);

	if (hdp_unlikely(h != NULL) && h->on_free)
		h->on_free(h->ctx, pool, objs, n);
	if (hdp_unlikely(!c)) {
		pthread_mutex_lock(&pool->lock);
		counter_add(&pool->retired.frees, n);
		pool_stack_push(pool, objs, n);
		pthread_mutex_unlock(&pool->lock);
		return;
	}
	counter_add(&c->stats.frees, n);
	if (hdp_likely(c->len + n <= c->cap)) {
		memcpy(c->objs + c->len, objs, sizeof(void *) * n);
		c->len += n;
		return;
	}
	pthread_mutex_lock(&pool->lock);
	pool_stack_push(pool, c->objs, c->len);
	c->len = 0;
	if (n > c->cap) {
		pool_stack_push(pool, objs, n);
		n = 0;
	}
	pthread_mutex_unlock(&pool->lock);
	memcpy(c->objs, objs, sizeof(void *) * n);
	c->len = n;
}

/* Some pointers are bad: report each, free the good ones in chunks. */
HDP_COLD static unsigned free_filtered(struct hdp_pool *pool,
				       struct pool_cache *c,
				       void *const *objs, unsigned n)
{
	void *good[64];
	unsigned ngood = 0, freed = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!obj_is_valid(pool, objs[i])) {
			report_invalid(pool, objs[i]);
			continue;
		}
		good[ngood++] = objs[i];
		if (ngood == HDP_ARRAY_SIZE(good)) {
			free_valid(pool, c, good, ngood);
			freed += ngood;
			ngood = 0;
		}
	}
	if (ngood)
		free_valid(pool, c, good, ngood);
	return freed + ngood;
}

static unsigned count_invalid(const struct hdp_pool *pool, void *const *objs,
			      unsigned n)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < n; i++)
		bad += !obj_is_valid(pool, objs[i]);
	return bad;
}

unsigned hdp_pool_free_burst(struct hdp_pool *pool, void *const *objs,
			     unsigned n)
{
	struct pool_cache *c = cache_of(pool);

	if (hdp_unlikely(count_invalid(pool, objs, n)))
		return free_filtered(pool, c, objs, n);
	free_valid(pool, c, objs, n);
	return n;
}

int hdp_pool_free_bulk(struct hdp_pool *pool, void *const *objs, unsigned n)
{
	struct pool_cache *c = cache_of(pool);

	if (hdp_unlikely(count_invalid(pool, objs, n))) {
		for (unsigned i = 0; i < n; i++)
			if (!obj_is_valid(pool, objs[i]))
				report_invalid(pool, objs[i]);
		return -EINVAL;
	}
	free_valid(pool, c, objs, n);
	return 0;
}

void hdp_pool_cache_flush(struct hdp_pool *pool)
{
	struct tls_slot *slot = &tls_caches[pool->id];
	struct pool_cache *c = slot->cache;

	if (!c || slot->gen != pool->gen || !c->len)
		return;
	pthread_mutex_lock(&pool->lock);
	pool_stack_push(pool, c->objs, c->len);
	c->len = 0;
	pthread_mutex_unlock(&pool->lock);
}

unsigned hdp_pool_drain(struct hdp_pool *pool)
{
	unsigned refused = 0;

	pthread_mutex_lock(&pool->lock);
	for (struct pool_cache *c = pool->caches; c; c = c->next) {
		refused += pool_stack_push(pool, c->objs, c->len);
		c->len = 0;
	}
	pthread_mutex_unlock(&pool->lock);
	return refused;
}
