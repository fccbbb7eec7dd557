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
#include <limits.h>
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

/*
 * Up to @max of what protections hold for this cache's thread (a
 * quarantine), oldest first, back onto the stack; pool->lock held.
 * Returns how many went back; @refused, how many the stack refused.
 */
static unsigned drain_held_locked(struct hdp_pool *pool, struct pool_cache *c, unsigned max,
				  unsigned *refused)
{
	void *held[64];
	unsigned k, got = 0, bad;

	while (got < max && c->hts.holding &&
	       (k = hdp_harden_pool_drain(&pool->hp, &c->hts, held,
					  max - got < 64 ? max - got : 64)) > 0) {
		/* Freed long ago; they count as frees as they reach the pool. */
		hdp_counter_add(&c->stats.frees, k);
		bad = pool_stack_push(pool, held, k);
		*refused += bad;
		got += k - bad;
	}
	return got;
}

/*
 * The cache and the shared stack cannot serve @n, but this thread holds
 * freed objects back (a quarantine deeper than what is left: a small pool,
 * many workers, one of them busy): hand out the oldest early rather than
 * fail, or stall a forwarder whose next frees wait on this allocation, as
 * the DPDK driver's reuse queues cut their wait short. Counted;
 * pool->lock held.
 */
static void cut_wait_short_locked(struct hdp_pool *pool, struct pool_cache *c, unsigned n)
{
	unsigned have = c->len + pool->free_len, refused = 0, got;

	if (hdp_likely(have >= n || !c->hts.holding))
		return;
	got = drain_held_locked(pool, c, n - have, &refused);
	hdp_counter_add(&c->stats.held_cut_short, got);
}

/* Everything a cache has, cached or held, back onto the stack; pool->lock held. */
static unsigned empty_cache_locked(struct hdp_pool *pool, struct pool_cache *c)
{
	unsigned refused = pool_stack_push(pool, c->objs, c->len);

	c->len = 0;
	drain_held_locked(pool, c, UINT_MAX, &refused);
	return refused;
}

/* Fold a cache into its pool and unlink it; pool->lock held. */
static void cache_retire_locked(struct hdp_pool *pool, struct pool_cache *c)
{
	empty_cache_locked(pool, c);
	hdp_counter_add(&pool->retired.allocs, hdp_counter_read(&c->stats.allocs));
	hdp_counter_add(&pool->retired.frees, hdp_counter_read(&c->stats.frees));
	hdp_counter_add(&pool->retired.alloc_fails, hdp_counter_read(&c->stats.alloc_fails));
	hdp_counter_add(&pool->retired.cache_hits, hdp_counter_read(&c->stats.cache_hits));
	hdp_counter_add(&pool->retired.cache_misses, hdp_counter_read(&c->stats.cache_misses));
	hdp_counter_add(&pool->retired.held_cut_short,
			hdp_counter_read(&c->stats.held_cut_short));
	hdp_harden_tls_retire(&pool->hp, &c->hts);
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
	/* Distinct tag streams per thread; the address is as good a seed as any. */
	c->hts.smp.rng = (uint64_t)(uintptr_t)c ^ pool->gen << 32;
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
		/* The pool goes: what its protections keep per thread goes too. */
		hdp_harden_tls_retire(&pool->hp, &c->hts);
		free(c);
	}
	pool->caches = NULL;
	pool->ncaches = 0;
	pthread_mutex_unlock(&pool->lock);
	if (tls_caches[pool->id].gen == pool->gen)
		tls_caches[pool->id].cache = NULL;
}

/* The protections' steps, when any is on: one branch when none is. */
static inline void after_alloc(struct hdp_pool *pool, struct hdp_harden_tls *t,
			       struct hdp_harden_view v, void **objs, unsigned n)
{
	if (hdp_unlikely(hdp_view_flags(v) & HDP_HF_HOOKS) && n)
		hdp_harden_pool_on_alloc(&pool->hp, t, v, objs, n);
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
		c->len += pool_stack_pop(pool, c->objs + c->len, target - c->len);
}

/*
 * A protection reorders the cache (shuffled reuse): give it a cache worth
 * choosing from. A flush leaves a cache nearly empty, and a choice among
 * two objects is barely a choice: top it up to size + n first.
 */
HDP_COLD static void pick_slow(struct hdp_pool *pool, struct pool_cache *c,
			       struct hdp_harden_view v, unsigned n)
{
	if (c->len < refill_target(c, n)) {
		pthread_mutex_lock(&pool->lock);
		refill_locked(pool, c, n);
		pthread_mutex_unlock(&pool->lock);
	}
	hdp_harden_pool_pick(&pool->hp, &c->hts, v, c->objs, c->len, n);
}

static inline void pick(struct hdp_pool *pool, struct pool_cache *c, struct hdp_harden_view v,
			unsigned n)
{
	if (hdp_unlikely(hdp_view_flags(v) & HDP_HF_PROTECTIONS) && n &&
	    hdp_harden_pool_picks(&pool->hp, v))
		pick_slow(pool, c, v, n);
}

/* The cache cannot serve @n alone: go to the shared stack once. */
HDP_COLD static unsigned alloc_slow(struct hdp_pool *pool, struct pool_cache *c,
				    struct hdp_harden_view v, void **objs, unsigned n, bool bulk)
{
	unsigned out = 0;

	pthread_mutex_lock(&pool->lock);
	if (n <= c->cap) {
		/* Refill, then serve from the cache. */
		cut_wait_short_locked(pool, c, n);
		refill_locked(pool, c, n);
		pthread_mutex_unlock(&pool->lock);
		if (c->len >= n || !bulk) {
			out = c->len < n ? c->len : n;
			pick(pool, c, v, out);
			c->len -= out;
			memcpy(objs, c->objs + c->len, sizeof(void *) * out);
		}
	} else {
		/* Larger than any cache: straight from the stack, cache first. */
		cut_wait_short_locked(pool, c, n);
		if (!bulk || c->len + pool->free_len >= n) {
			out = c->len < n ? c->len : n;
			c->len -= out;
			memcpy(objs, c->objs + c->len, sizeof(void *) * out);
			out += pool_stack_pop(pool, objs + out, n - out);
		}
		pthread_mutex_unlock(&pool->lock);
	}
	hdp_counter_add(&c->stats.cache_misses, out);
	if (out < n)
		hdp_counter_add(&c->stats.alloc_fails, 1);
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
	hdp_counter_add(&pool->retired.allocs, out);
	hdp_counter_add(&pool->retired.cache_misses, out);
	if (out < n)
		hdp_counter_add(&pool->retired.alloc_fails, 1);
	pthread_mutex_unlock(&pool->lock);
	return out;
}

/*
 * The view is read twice: before, for the protections that choose which
 * objects go (shuffle); after the objects are ours, for the steps that
 * record them. That one is then at least as new as the view of the free
 * that put each object where this thread took it (the stack's lock, or
 * this thread's own free, orders the two reads), so no record made in an
 * epoch can be followed by an allocation that records nothing
 * (harden.h).
 */
static inline unsigned alloc_n(struct hdp_pool *pool, void **objs, unsigned n, bool bulk)
{
	struct pool_cache *c = cache_of(pool);
	struct hdp_harden_view v = hdp_harden_pool_view(&pool->hp);
	unsigned out;

	if (hdp_unlikely(!c)) {
		out = alloc_uncached(pool, objs, n, bulk);
		pthread_mutex_lock(&pool->lock);
		after_alloc(pool, &pool->orphan_hts, hdp_harden_pool_view(&pool->hp), objs, out);
		pthread_mutex_unlock(&pool->lock);
		return out;
	}
	if (hdp_likely(c->len >= n)) {
		pick(pool, c, v, n);
		c->len -= n;
		memcpy(objs, c->objs + c->len, sizeof(void *) * n);
		hdp_counter_add(&c->stats.cache_hits, n);
		out = n;
	} else {
		out = alloc_slow(pool, c, v, objs, n, bulk);
	}
	hdp_counter_add(&c->stats.allocs, out);
	after_alloc(pool, &c->hts, hdp_harden_pool_view(&pool->hp), objs, out);
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

/* Is @p (untagged) the start of one of this pool's objects? */
static inline bool obj_is_valid(const struct hdp_pool *pool, const void *p)
{
	return hdp_layout_is_object(&pool->hp.layout, (uintptr_t)p);
}

HDP_COLD static void report_invalid(struct hdp_pool *pool, const void *p)
{
	const struct hdp_layout *l = &pool->hp.layout;
	uintptr_t off = (uintptr_t)hdp_untag(p) - l->base;
	enum hdp_violation_kind kind;
	uint32_t idx;
	size_t in_slot;

	if (hdp_layout_slot(l, (uintptr_t)hdp_untag(p), &idx, &in_slot) &&
	    hdp_layout_is_gap(l, idx)) {
		hdp_harden_pool_violation(&pool->hp, HDP_V_FREE_INTERIOR, p, l->obj_size,
					  "in a guard gap, not an object");
		return;
	}
	if (off < l->span)
		kind = HDP_V_FREE_INTERIOR;
	else if (off < pool->map.len || off == l->span)
		kind = HDP_V_FREE_PAST_END;
	else
		kind = HDP_V_FREE_FOREIGN;
	pool_violation(pool, kind, p);
}

/*
 * Put checked, untagged objects into the cache (or straight onto the
 * stack when this thread has none), flushing the cache when it would
 * overflow.
 */
static void free_to_cache(struct hdp_pool *pool, struct pool_cache *c,
			  void *const *objs, unsigned n)
{
	if (hdp_unlikely(!c)) {
		pthread_mutex_lock(&pool->lock);
		hdp_counter_add(&pool->retired.frees, n);
		pool_stack_push(pool, objs, n);
		pthread_mutex_unlock(&pool->lock);
		return;
	}
	hdp_counter_add(&c->stats.frees, n);
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

/*
 * The careful path, in chunks: report bad pointers, run the protections'
 * free steps (which may refuse double frees and stale handles), strip
 * tags. A chunk whose pointers are all valid, the usual case, goes to the
 * steps as it came; only a chunk with a bad one is copied without it.
 */
static unsigned free_checked(struct hdp_pool *pool, struct pool_cache *c,
			     void *const *objs, const struct hdp_extent *ext,
			     unsigned n, struct hdp_harden_view v)
{
	struct hdp_harden_tls *t = c ? &c->hts : &pool->orphan_hts;
	void *good[64], *out[64];
	struct hdp_extent good_ext[64];
	unsigned freed = 0;

	while (n) {
		unsigned k = n < HDP_ARRAY_SIZE(good) ? n : HDP_ARRAY_SIZE(good);
		void *const *chunk = objs;
		const struct hdp_extent *chunk_ext = ext;
		unsigned ngood = k, kept;
		bool all_valid = true;

		for (unsigned i = 0; i < k; i++)
			all_valid &= obj_is_valid(pool, hdp_untag(objs[i]));
		if (hdp_unlikely(!all_valid)) {
			ngood = 0;
			for (unsigned i = 0; i < k; i++) {
				if (!obj_is_valid(pool, hdp_untag(objs[i]))) {
					report_invalid(pool, objs[i]);
					continue;
				}
				if (ext)
					good_ext[ngood] = ext[i];
				good[ngood++] = objs[i];
			}
			chunk = good;
			chunk_ext = ext ? good_ext : NULL;
		}
		if (hdp_view_flags(v) & HDP_HF_HOOKS) {
			if (!c)
				pthread_mutex_lock(&pool->lock);
			kept = hdp_harden_pool_on_free(&pool->hp, t, v, chunk, chunk_ext, out, ngood);
			if (!c)
				pthread_mutex_unlock(&pool->lock);
		} else {
			for (kept = 0; kept < ngood; kept++)
				out[kept] = hdp_untag(chunk[kept]);
		}
		/* Freed, whether or not a protection keeps them a while (a quarantine). */
		freed += kept;
		if (c && ((hdp_view_flags(v) & HDP_HF_PROTECTIONS) || c->hts.holding))
			kept = hdp_harden_pool_hold(&pool->hp, t, v, out, kept,
						    HDP_ARRAY_SIZE(out));
		if (kept)
			free_to_cache(pool, c, out, kept);
		objs += k;
		if (ext)
			ext += k;
		n -= k;
	}
	return freed;
}

/* All valid and untagged? Tags are rare with hardening off: OR them up. */
static inline bool all_plain_and_valid(const struct hdp_pool *pool,
				       void *const *objs, unsigned n)
{
	uintptr_t tags = 0;
	bool ok = true;

	for (unsigned i = 0; i < n; i++) {
		tags |= (uintptr_t)objs[i];
		ok &= obj_is_valid(pool, hdp_untag(objs[i]));
	}
	return ok && !(tags & HDP_TAG_MASK);
}

/* The caller holds the objects: the view read now is as new as their allocation's. */
static inline unsigned free_n(struct hdp_pool *pool, void *const *objs,
			      const struct hdp_extent *ext, unsigned n)
{
	struct pool_cache *c = cache_of(pool);
	struct hdp_harden_view v = hdp_harden_pool_view(&pool->hp);

	if (hdp_likely(!(hdp_view_flags(v) & HDP_HF_HOOKS) && !(c && c->hts.holding) &&
		       all_plain_and_valid(pool, objs, n))) {
		free_to_cache(pool, c, objs, n);
		return n;
	}
	return free_checked(pool, c, objs, ext, n, v);
}

unsigned hdp_pool_free_burst(struct hdp_pool *pool, void *const *objs,
			     unsigned n)
{
	return free_n(pool, objs, NULL, n);
}

unsigned hdp_pool_free_burst_extent(struct hdp_pool *pool, void *const *objs,
				    const struct hdp_extent *ext, unsigned n)
{
	return free_n(pool, objs, ext, n);
}

int hdp_pool_free_bulk(struct hdp_pool *pool, void *const *objs, unsigned n)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < n; i++)
		bad += !obj_is_valid(pool, hdp_untag(objs[i]));
	if (hdp_unlikely(bad)) {
		for (unsigned i = 0; i < n; i++)
			if (!obj_is_valid(pool, hdp_untag(objs[i])))
				report_invalid(pool, objs[i]);
		return -EINVAL;
	}
	return free_n(pool, objs, NULL, n) == n ? 0 : -EINVAL;
}

/* Checked copies and descriptors: the thread's cache carries its counters. */
int hdp_pool_copy_in(struct hdp_pool *pool, void *dst, const void *src, size_t n)
{
	struct pool_cache *c = cache_of(pool);

	return hdp_harden_pool_copy_in(&pool->hp, c ? &c->hts : NULL, dst, src, n);
}

int hdp_pool_copy_out(struct hdp_pool *pool, void *dst, const void *src, size_t n)
{
	struct pool_cache *c = cache_of(pool);

	return hdp_harden_pool_copy_out(&pool->hp, c ? &c->hts : NULL, dst, src, n);
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
	struct pool_cache *c;

	if (!(hdp_view_flags(hdp_harden_pool_view(&pool->hp)) & HDP_HF_BOUNDS))
		return;
	c = cache_of(pool);
	if (c)
		hdp_counter_add(&c->hts.c.n[HDP_C_CHECKS], n);
	else
		atomic_fetch_add_explicit(&pool->hp.retired.n[HDP_C_CHECKS], n,
					  memory_order_relaxed);
}

void hdp_pool_cache_flush(struct hdp_pool *pool)
{
	struct tls_slot *slot = &tls_caches[pool->id];
	struct pool_cache *c = slot->cache;

	if (!c || slot->gen != pool->gen || (!c->len && !c->hts.holding))
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
	pthread_mutex_unlock(&pool->lock);
	return refused;
}
