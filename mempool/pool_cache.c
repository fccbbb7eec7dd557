// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp's pools as a back-end of the hardening pipeline (hdp/harden.h):
 * where free objects live, a per-thread cache in front of a shared stack
 * of object indices, and the calls that hand a burst to the pipeline
 * with the calling thread's state. What runs on allocation and free, and
 * in which order, is the pipeline's: this file only keeps objects.
 *
 * Each thread finds its cache for a pool in a thread-local table indexed
 * by the pool's slot and checked against the pool's generation, so a slot
 * reused by a newer pool is never mistaken for the old one. A cache hit
 * takes no lock and writes nothing shared; a miss takes the pool's lock
 * once and refills to cache_size + n. A thread that exits gives its
 * cached and held objects back (pthread key destructor), so nothing is
 * lost when worker threads come and go, and leaves its cache idle for the
 * next thread the pool sees: a pool keeps as many caches as it had
 * threads at once, and each cache's thread state (its counters, its
 * quarantine's room) lives as long as the pool, which is all the pipeline
 * asks of a back-end. Every push to the shared stack
 * checks a per-object bit: an object already on it is a double free,
 * caught with hardening off too.
 */
#include "pool_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define container_of(p, type, member) ((type *)((char *)(p) - offsetof(type, member)))

struct tls_slot {
	struct pool_cache *cache;
	uint64_t gen;
};

static _Thread_local struct tls_slot tls_caches[HDP_POOL_MAX];
static _Thread_local bool tls_key_set;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* --- The shared stack, pool->lock held ------------------------------------- */

int pool_stack_build(struct hdp_pool *pool)
{
	const struct hdp_layout *l = &pool->hp.layout;
	size_t words = (l->slots + 63) / 64;

	pool->free_stack = malloc(sizeof(uint32_t) * pool->obj_count);
	pool->free_bitmap = calloc(words, sizeof(uint64_t));
	if (!pool->free_stack || !pool->free_bitmap)
		return -ENOMEM;
	/* Lowest addresses on top, so a fresh pool hands out its start first. */
	pool->free_len = 0;
	for (uint32_t i = l->slots; i-- > 0;) {
		if (hdp_layout_is_gap(l, i))
			continue;
		pool->free_stack[pool->free_len++] = i;
		pool->free_bitmap[i / 64] |= UINT64_C(1) << (i % 64);
	}
	return 0;
}

/*
 * Up to @n objects off the stack into @dst, backwards, so that the
 * stack's top (the most recently freed, hottest object) ends up last: on
 * top of a cache it refills.
 */
static unsigned stack_pop(struct hdp_pool *pool, void **dst, unsigned n)
{
	const struct hdp_layout *l = &pool->hp.layout;

	if (n > pool->free_len)
		n = pool->free_len;
	for (unsigned i = 0; i < n; i++) {
		uint32_t idx = pool->free_stack[--pool->free_len];

		pool->free_bitmap[idx / 64] &= ~(UINT64_C(1) << (idx % 64));
		dst[n - 1 - i] = (void *)hdp_layout_slot_addr(l, idx);
	}
	return n;
}

/* @n objects onto the stack: the double frees it refused, each reported. */
static unsigned stack_push(struct hdp_pool *pool, void *const *src, unsigned n)
{
	const struct hdp_layout *l = &pool->hp.layout;
	unsigned refused = 0;

	for (unsigned i = 0; i < n; i++) {
		uint32_t idx = hdp_layout_div(l, (uintptr_t)src[i] - l->base);
		uint64_t bit = UINT64_C(1) << (idx % 64);

		/* Already on the stack: the second free of one object. */
		if (hdp_unlikely(pool->free_bitmap[idx / 64] & bit)) {
			hdp_harden_pool_violation(&pool->hp, HDP_V_DOUBLE_FREE, src[i],
						  l->obj_size, NULL);
			hdp_counter_add(&pool->double_frees_dropped, 1);
			refused++;
			continue;
		}
		pool->free_bitmap[idx / 64] |= bit;
		pool->free_stack[pool->free_len++] = idx;
	}
	return refused;
}

/* --- Caches ----------------------------------------------------------------- */

/* What the pipeline holds for thread state @t (a quarantine) onto the stack; pool->lock held. */
static unsigned drain_held_locked(struct hdp_pool *pool, struct hdp_harden_tls *t,
				  pool_counter_t *frees)
{
	void *held[64];
	unsigned k, refused = 0;

	while (t->holding && (k = hdp_harden_pool_drain(&pool->hp, t, held, 64)) > 0) {
		/* Freed long ago; they count as frees as they reach the pool. */
		hdp_counter_add(frees, k);
		refused += stack_push(pool, held, k);
	}
	return refused;
}

/* Everything a cache has, cached or held, back onto the stack; pool->lock held. */
static unsigned empty_cache_locked(struct hdp_pool *pool, struct pool_cache *c)
{
	unsigned refused = stack_push(pool, c->objs, c->len);

	c->len = 0;
	return refused + drain_held_locked(pool, &c->hts, &c->stats.frees);
}

/* A leaving thread's cache: emptied, and idle until another thread takes it; pool->lock held. */
static void cache_leave_locked(struct hdp_pool *pool, struct pool_cache *c)
{
	empty_cache_locked(pool, c);
	c->idle = true;
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
			cache_leave_locked(pool, c);
			pthread_mutex_unlock(&pool->lock);
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

/* A cache a thread left, taken for this one; NULL when every cache has its thread. */
static struct pool_cache *cache_reuse(struct hdp_pool *pool)
{
	struct pool_cache *c;

	pthread_mutex_lock(&pool->lock);
	for (c = pool->caches; c && !c->idle; c = c->next)
		;
	if (c) {
		c->idle = false;
		pool->ncaches++;
	}
	pthread_mutex_unlock(&pool->lock);
	return c;
}

static struct pool_cache *cache_new(struct hdp_pool *pool)
{
	uint32_t cap = pool->cache_size * 2;
	size_t bytes = sizeof(struct pool_cache) + sizeof(void *) * cap;
	struct pool_cache *c;

	bytes = (bytes + HDP_CACHE_LINE - 1) & ~(size_t)(HDP_CACHE_LINE - 1);
	c = aligned_alloc(HDP_CACHE_LINE, bytes);
	if (!c)
		return NULL;
	memset(c, 0, sizeof(*c));
	/* Distinct tag streams per thread; the address is as good a seed as any. */
	c->hts.smp.rng = (uint64_t)(uintptr_t)c ^ pool->gen << 32;
	c->size = pool->cache_size;
	c->cap = cap;
	c->pool = pool;

	pthread_mutex_lock(&pool->lock);
	c->next = pool->caches;
	pool->caches = c;
	pool->ncaches++;
	pthread_mutex_unlock(&pool->lock);
	return c;
}

HDP_COLD static struct pool_cache *cache_create(struct hdp_pool *pool)
{
	struct pool_cache *c;

	pthread_once(&exit_key_once, make_exit_key);
	if (!tls_key_set) {
		pthread_setspecific(exit_key, tls_caches);
		tls_key_set = true;
	}
	c = cache_reuse(pool);
	if (!c)
		c = cache_new(pool);
	if (c)
		tls_caches[pool->id] = (struct tls_slot){ .cache = c, .gen = pool->gen };
	return c;
}

/* This thread's cache for @pool, if it has one. */
static inline struct pool_cache *cache_if_any(const struct hdp_pool *pool)
{
	struct tls_slot *slot = &tls_caches[pool->id];

	return hdp_likely(slot->cache && slot->gen == pool->gen) ? slot->cache : NULL;
}

/* This thread's cache for @pool, made at its first use (NULL without memory). */
static inline struct pool_cache *cache_of(struct hdp_pool *pool)
{
	struct pool_cache *c = cache_if_any(pool);

	return hdp_likely(c != NULL) ? c : cache_create(pool);
}

/* After hdp_harden_pool_fini, which retired every cache's thread state (each_thread). */
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

/* --- The back-end's ops ----------------------------------------------------- */

static inline struct hdp_pool *pool_of(struct hdp_harden_pool *hp)
{
	return container_of(hp, struct hdp_pool, hp);
}

/* The cache whose thread state @t is; NULL for a thread without one (pool->lock held). */
static inline struct pool_cache *cache_with(struct hdp_pool *pool, struct hdp_harden_tls *t)
{
	return t == &pool->orphan_hts ? NULL : container_of(t, struct pool_cache, hts);
}

/* A cache about to serve @n is filled to size + n, at most its cap. */
static inline unsigned refill_target(const struct pool_cache *c, unsigned n)
{
	return c->size + n < c->cap ? c->size + n : c->cap;
}

/* Fill the cache to its refill target from the shared stack; pool->lock held. */
static void refill_locked(struct hdp_pool *pool, struct pool_cache *c, unsigned n)
{
	unsigned target = refill_target(c, n);

	if (c->len < target)
		c->len += stack_pop(pool, c->objs + c->len, target - c->len);
}

/* Checked objects into the cache, flushed whole to the stack when it would overflow. */
static void stash(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void *const *objs,
		  unsigned n)
{
	struct hdp_pool *pool = pool_of(hp);
	struct pool_cache *c = cache_with(pool, t);

	if (hdp_unlikely(!c)) {
		hdp_counter_add(&pool->uncached.frees, n);
		stack_push(pool, objs, n);
		return;
	}
	hdp_counter_add(&c->stats.frees, n);
	if (hdp_likely(c->len + n <= c->cap)) {
		memcpy(c->objs + c->len, objs, sizeof(void *) * n);
		c->len += n;
		return;
	}
	pthread_mutex_lock(&pool->lock);
	stack_push(pool, c->objs, c->len);
	c->len = 0;
	if (n > c->cap) {
		stack_push(pool, objs, n);
		n = 0;
	}
	pthread_mutex_unlock(&pool->lock);
	memcpy(c->objs, objs, sizeof(void *) * n);
	c->len = n;
}

/* The cache cannot serve @n alone: go to the shared stack once. */
HDP_COLD static unsigned take_slow(struct hdp_pool *pool, struct pool_cache *c, void **objs,
				   unsigned n, bool bulk)
{
	unsigned out = 0;

	pthread_mutex_lock(&pool->lock);
	if (n <= c->cap) {
		/* Refill, then serve from the cache. */
		refill_locked(pool, c, n);
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
			out += stack_pop(pool, objs + out, n - out);
		}
		pthread_mutex_unlock(&pool->lock);
	}
	hdp_counter_add(&c->stats.cache_misses, out);
	return out;
}

static unsigned take(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void **objs,
		     unsigned n, bool bulk, bool last)
{
	struct hdp_pool *pool = pool_of(hp);
	struct pool_cache *c = cache_with(pool, t);
	struct pool_counters *count = c ? &c->stats : &pool->uncached;
	unsigned out;

	if (hdp_unlikely(!c)) {
		out = !bulk || pool->free_len >= n ? stack_pop(pool, objs, n) : 0;
		hdp_counter_add(&count->cache_misses, out);
	} else if (hdp_likely(c->len >= n)) {
		c->len -= n;
		memcpy(objs, c->objs + c->len, sizeof(void *) * n);
		hdp_counter_add(&c->stats.cache_hits, n);
		out = n;
	} else {
		out = take_slow(pool, c, objs, n, bulk);
	}
	hdp_counter_add(&count->allocs, out);
	if (out < n && last)
		hdp_counter_add(&count->alloc_fails, 1);
	return out;
}

/*
 * For protections that reorder what a thread takes (shuffle): its cache,
 * topped up first, since a flush leaves it nearly empty, and a choice
 * among two objects is barely a choice.
 */
static void **cache(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, unsigned n,
		    unsigned *len)
{
	struct hdp_pool *pool = pool_of(hp);
	struct pool_cache *c = cache_with(pool, t);

	*len = 0;
	if (!c)
		return NULL;
	if (c->len < refill_target(c, n)) {
		pthread_mutex_lock(&pool->lock);
		refill_locked(pool, c, n);
		pthread_mutex_unlock(&pool->lock);
	}
	*len = c->len;
	return c->objs;
}

/* Every cache's thread state, and the one of threads without a cache. */
static void each_thread(struct hdp_harden_pool *hp, hdp_harden_tls_fn_t fn, void *ctx)
{
	struct hdp_pool *pool = pool_of(hp);

	pthread_mutex_lock(&pool->lock);
	fn(hp, &pool->orphan_hts, ctx);
	for (struct pool_cache *c = pool->caches; c; c = c->next)
		fn(hp, &c->hts, ctx);
	pthread_mutex_unlock(&pool->lock);
}

const struct hdp_harden_pool_ops pool_ops = {
	.stash = stash,
	.take = take,
	.cache = cache,
	.each_thread = each_thread,
};

/* --- Bursts, handed to the pipeline with this thread's state ---------------- */

/* No cache could be made for this thread (out of memory): the stack, under the lock. */
HDP_COLD static unsigned alloc_uncached(struct hdp_pool *pool, void **objs, unsigned n,
					bool bulk)
{
	unsigned out;

	pthread_mutex_lock(&pool->lock);
	out = hdp_harden_pool_alloc(&pool->hp, &pool->orphan_hts, objs, n, bulk);
	pthread_mutex_unlock(&pool->lock);
	return out;
}

static inline unsigned alloc_n(struct hdp_pool *pool, void **objs, unsigned n, bool bulk)
{
	struct pool_cache *c = cache_of(pool);

	if (hdp_unlikely(!c))
		return alloc_uncached(pool, objs, n, bulk);
	return hdp_harden_pool_alloc(&pool->hp, &c->hts, objs, n, bulk);
}

int hdp_pool_alloc_bulk(struct hdp_pool *pool, void **objs, unsigned n)
{
	return alloc_n(pool, objs, n, true) == n ? 0 : -ENOMEM;
}

unsigned hdp_pool_alloc_burst(struct hdp_pool *pool, void **objs, unsigned n)
{
	return alloc_n(pool, objs, n, false);
}

HDP_COLD static unsigned free_uncached(struct hdp_pool *pool, void *const *objs,
				       const struct hdp_extent *ext, unsigned n, bool bulk)
{
	unsigned taken;

	pthread_mutex_lock(&pool->lock);
	taken = hdp_harden_pool_free(&pool->hp, &pool->orphan_hts, objs, ext, n, bulk);
	pthread_mutex_unlock(&pool->lock);
	return taken;
}

/* The caller holds the objects: the view the pipeline reads is as new as their allocation's. */
static inline unsigned free_n(struct hdp_pool *pool, void *const *objs,
			      const struct hdp_extent *ext, unsigned n, bool bulk)
{
	struct pool_cache *c = cache_of(pool);

	if (hdp_unlikely(!c))
		return free_uncached(pool, objs, ext, n, bulk);
	return hdp_harden_pool_free(&pool->hp, &c->hts, objs, ext, n, bulk);
}

unsigned hdp_pool_free_burst(struct hdp_pool *pool, void *const *objs, unsigned n)
{
	return free_n(pool, objs, NULL, n, false);
}

unsigned hdp_pool_free_burst_extent(struct hdp_pool *pool, void *const *objs,
				    const struct hdp_extent *ext, unsigned n)
{
	return free_n(pool, objs, ext, n, false);
}

/* All or nothing: a handle that is no object of the pool is reported, none is freed. */
int hdp_pool_free_bulk(struct hdp_pool *pool, void *const *objs, unsigned n)
{
	return free_n(pool, objs, NULL, n, true) == n ? 0 : -EINVAL;
}

/* Checked copies and descriptors: the thread's cache carries its counters. */
int hdp_pool_copy_in(struct hdp_pool *pool, void *dst, const void *src, size_t n)
{
	struct pool_cache *c = cache_of(pool);

	return hdp_harden_pool_copy(&pool->hp, c ? &c->hts : NULL, dst, src, n, true);
}

int hdp_pool_copy_out(struct hdp_pool *pool, void *dst, const void *src, size_t n)
{
	struct pool_cache *c = cache_of(pool);

	return hdp_harden_pool_copy(&pool->hp, c ? &c->hts : NULL, dst, src, n, false);
}

int hdp_pool_desc_to_ptr(struct hdp_pool *pool, uint64_t addr, uint32_t len,
			 void **out)
{
	struct pool_cache *c = cache_of(pool);

	return hdp_harden_pool_desc(&pool->hp, c ? &c->hts : NULL, addr, len, out);
}

int hdp_pool_desc_refuse(struct hdp_pool *pool, enum hdp_violation_kind kind, uint64_t addr,
			 uint32_t len, const char *detail)
{
	return hdp_harden_pool_desc_refuse(&pool->hp, kind, addr, len, detail);
}

void hdp_pool_count_desc_checks(struct hdp_pool *pool, unsigned n)
{
	struct pool_cache *c = cache_if_any(pool);

	hdp_harden_pool_count_checks(&pool->hp, c ? &c->hts : NULL, n);
}

void hdp_pool_cache_flush(struct hdp_pool *pool)
{
	struct pool_cache *c = cache_if_any(pool);

	if (!c || (!c->len && !c->hts.holding))
		return;
	pthread_mutex_lock(&pool->lock);
	empty_cache_locked(pool, c);
	pthread_mutex_unlock(&pool->lock);
}

unsigned hdp_pool_drain(struct hdp_pool *pool)
{
	unsigned refused = 0;

	pthread_mutex_lock(&pool->lock);
	for (struct pool_cache *c = pool->caches; c; c = c->next)
		refused += empty_cache_locked(pool, c);
	refused += drain_held_locked(pool, &pool->orphan_hts, &pool->uncached.frees);
	pthread_mutex_unlock(&pool->lock);
	return refused;
}
