// SPDX-License-Identifier: BSD-3-Clause
/* Pool counters: summing the per-thread ones (the pipeline's with them), and printing them. */
#include "pool_internal.h"

#include <hdp/strbuf.h>

#include <stdio.h>
#include <string.h>

struct totals {
	uint64_t allocs, frees, alloc_fails, cache_hits, cache_misses;
};

static void add_counters(struct totals *t, struct pool_counters *c)
{
	t->allocs += hdp_counter_read(&c->allocs);
	t->frees += hdp_counter_read(&c->frees);
	t->alloc_fails += hdp_counter_read(&c->alloc_fails);
	t->cache_hits += hdp_counter_read(&c->cache_hits);
	t->cache_misses += hdp_counter_read(&c->cache_misses);
}

void hdp_pool_stats_get(struct hdp_pool *pool, struct hdp_pool_stats *out)
{
	struct totals t = { 0 };
	uint64_t refused;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&pool->lock);
	add_counters(&t, &pool->uncached);
	for (struct pool_cache *c = pool->caches; c; c = c->next)
		add_counters(&t, &c->stats);
	out->free_shared = pool->free_len;
	out->caches = pool->ncaches;
	refused = hdp_counter_read(&pool->double_frees_dropped);
	pthread_mutex_unlock(&pool->lock);

	memcpy(out->name, pool->name, sizeof(out->name));
	out->obj_count = pool->obj_count;
	out->obj_size = pool->hp.layout.obj_size;
	out->obj_stride = pool->hp.layout.stride;
	out->allocs = t.allocs;
	/* A refused double free was counted as a free when it was made. */
	out->frees = t.frees - refused;
	out->alloc_fails = t.alloc_fails;
	out->cache_hits = t.cache_hits;
	out->cache_misses = t.cache_misses;
	hdp_harden_stats_get(&pool->hp, &out->harden);
	out->held_cut_short = out->harden.held_cut_short;
	/* Frees count when objects reach a cache; held ones were freed too. */
	out->held = out->harden.held;
	out->frees += out->held;
	out->in_use = out->allocs > out->frees ? out->allocs - out->frees : 0;
	if (out->free_shared + out->in_use + out->held <= out->obj_count)
		out->free_cached = out->obj_count - out->free_shared - out->in_use - out->held;
	out->region_bytes = pool->map.len;
	out->page_size = pool->map.page_size;
	out->pages = pool->map.len / pool->map.page_size;
	out->huge = pool->map.kind != HDP_MEM_PLAIN;
	out->fallback = pool->map.fallback;
	out->mem = pool->map.kind;
}

#define U(x) ((unsigned long long)(x))

int hdp_pool_stats_json(const struct hdp_pool_stats *st, char *buf, size_t len)
{
	struct hdp_strbuf o = hdp_strbuf_init(buf, len);

	/* Pool names are [A-Za-z0-9_-]: nothing to escape. */
	hdp_strbuf_printf(&o, "{\"name\":\"%s\",\"obj_count\":%llu,\"obj_size\":%llu,"
		"\"obj_stride\":%llu,\"in_use\":%llu,\"free_shared\":%llu,"
		"\"free_cached\":%llu,\"held\":%llu,\"held_cut_short\":%llu,\"allocs\":%llu,\"frees\":%llu,"
		"\"alloc_fails\":%llu,\"cache_hits\":%llu,\"cache_misses\":%llu,"
		"\"caches\":%llu,\"region_bytes\":%llu,\"page_size\":%llu,"
		"\"pages\":%llu,\"huge\":%s,\"fallback\":%s,\"mem\":\"%s\",\"harden\":{",
	    st->name, U(st->obj_count), U(st->obj_size), U(st->obj_stride),
	    U(st->in_use), U(st->free_shared), U(st->free_cached), U(st->held),
	    U(st->held_cut_short), U(st->allocs), U(st->frees), U(st->alloc_fails),
	    U(st->cache_hits), U(st->cache_misses), U(st->caches),
	    U(st->region_bytes), U(st->page_size), U(st->pages),
	    st->huge ? "true" : "false", st->fallback ? "true" : "false",
	    hdp_mem_kind_name(st->mem));
	hdp_harden_stats_json(&o, &st->harden);
	hdp_strbuf_printf(&o, "}}");
	return (int)o.used;
}

int hdp_pool_stats_text(const struct hdp_pool_stats *st, char *buf, size_t len)
{
	struct hdp_strbuf o = hdp_strbuf_init(buf, len);

	hdp_strbuf_printf(&o, "pool %s: %llu objects of %llu bytes (stride %llu), %llu %s pages of %llu KiB%s\n",
	    st->name, U(st->obj_count), U(st->obj_size), U(st->obj_stride),
	    U(st->pages), hdp_mem_kind_name(st->mem), U(st->page_size >> 10),
	    st->fallback ? " (fallback: no hugepages were free)" : "");
	hdp_strbuf_printf(&o, "  in use %llu, free %llu shared + %llu cached + %llu held "
	    "(%llu handed out early), %llu thread caches\n", U(st->in_use), U(st->free_shared),
	    U(st->free_cached), U(st->held), U(st->held_cut_short), U(st->caches));
	hdp_strbuf_printf(&o, "  allocs %llu, frees %llu, alloc fails %llu, cache hits %llu, misses %llu\n",
	    U(st->allocs), U(st->frees), U(st->alloc_fails), U(st->cache_hits),
	    U(st->cache_misses));
	hdp_harden_stats_text(&o, &st->harden);
	return (int)o.used;
}
