// SPDX-License-Identifier: BSD-3-Clause
/*
 * A pool's life cycle: its parameters checked, its region mapped, its
 * hardening state set up over it (the slot layout, the region and its
 * guards: hdp/harden.h), its shared stack filled; and what is asked of a
 * pool by name.
 */
#include "pool_internal.h"

#include <hdp/log.h>
#include <hdp/name.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Reject bad parameters with a message naming the one that is wrong. */
static int check_params(const struct hdp_pool_params *p, size_t *stride)
{
	const char *who = p->name && hdp_pool_name_valid(p->name) ? p->name : "?";
	size_t align = p->obj_align ? p->obj_align : HDP_POOL_ALIGN_DEFAULT;

	if (!hdp_pool_name_valid(p->name)) {
		hdp_log(HDP_LOG_ERR, "pool name '%.*s' is invalid: use 1 to %d characters from [A-Za-z0-9_-]",
			HDP_POOL_NAME_MAX, p->name ? p->name : "", HDP_POOL_NAME_MAX - 1);
		return -EINVAL;
	}
	if (p->obj_size == 0 || p->obj_size > HDP_POOL_OBJ_SIZE_MAX) {
		hdp_log(HDP_LOG_ERR, "pool '%s': object size %zu is out of range 1..%u",
			who, p->obj_size, HDP_POOL_OBJ_SIZE_MAX);
		return -EINVAL;
	}
	if (align & (align - 1) || align > HDP_POOL_ALIGN_MAX) {
		hdp_log(HDP_LOG_ERR, "pool '%s': alignment %zu is not a power of two up to %u",
			who, align, HDP_POOL_ALIGN_MAX);
		return -EINVAL;
	}
	if (p->obj_count == 0 || p->obj_count > HDP_POOL_OBJ_COUNT_MAX) {
		hdp_log(HDP_LOG_ERR, "pool '%s': object count %u is out of range 1..%u",
			who, p->obj_count, HDP_POOL_OBJ_COUNT_MAX);
		return -EINVAL;
	}
	if (p->cache_size > HDP_POOL_CACHE_MAX) {
		hdp_log(HDP_LOG_ERR, "pool '%s': cache size %u is above %u", who,
			p->cache_size, HDP_POOL_CACHE_MAX);
		return -EINVAL;
	}
	if (p->cache_size && (uint64_t)p->cache_size * 2 > p->obj_count) {
		hdp_log(HDP_LOG_ERR, "pool '%s': a cache of %u lets one thread hold %u of the %u objects: use at most %u",
			who, p->cache_size, p->cache_size * 2, p->obj_count,
			p->obj_count / 2);
		return -EINVAL;
	}
	if ((unsigned)p->mem > HDP_MEM_PLAIN) {
		hdp_log(HDP_LOG_ERR, "pool '%s': unknown memory kind %d", who, (int)p->mem);
		return -EINVAL;
	}
	if ((unsigned)p->on_violation > HDP_POLICY_REPORT) {
		hdp_log(HDP_LOG_ERR, "pool '%s': unknown violation policy %d", who,
			(int)p->on_violation);
		return -EINVAL;
	}
	if (p->flags & ~(unsigned)(HDP_POOL_F_NO_FALLBACK | HDP_POOL_F_NO_CACHE)) {
		hdp_log(HDP_LOG_ERR, "pool '%s': unknown flags 0x%x", who, p->flags);
		return -EINVAL;
	}
	for (unsigned i = 0; i < HDP_ARRAY_SIZE(p->reserved); i++)
		if (p->reserved[i]) {
			hdp_log(HDP_LOG_ERR, "pool '%s': reserved[%u] is 0x%x: the reserved "
				"parameters must be zero", who, i, p->reserved[i]);
			return -EINVAL;
		}
	*stride = (p->obj_size + align - 1) & ~(align - 1);
	return 0;
}

/*
 * The guard gaps' layout: @gap_slots slots after every guard_gap objects,
 * so that objects stay at one stride from the base (no index arithmetic
 * changes) and every gap is whole pages. The slots in all, or a negative
 * errno with the reason logged.
 */
static int64_t layout_slots(const struct hdp_pool_params *p, size_t stride,
			    uint32_t *gap_slots)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	uint32_t k = p->guard_gap;
	uint64_t slots = p->obj_count;

	*gap_slots = 0;
	if (k) {
		if (p->mem != HDP_MEM_PLAIN) {
			hdp_log(HDP_LOG_ERR, "pool '%s': guard_gap %u needs plain pages (mem plain, "
				"not %s): a hugepage cannot be split around a gap",
				p->name, k, hdp_mem_kind_name(p->mem));
			return -EINVAL;
		}
		if (k >= p->obj_count) {
			hdp_log(HDP_LOG_ERR, "pool '%s': guard_gap %u is not below the object "
				"count %u: there would be no gap", p->name, k, p->obj_count);
			return -EINVAL;
		}
		if (page % stride && stride % page) {
			hdp_log(HDP_LOG_ERR, "pool '%s': guard_gap needs an object stride that "
				"divides the page size (%zu) or is a multiple of it, not %zu",
				p->name, page, stride);
			return -EINVAL;
		}
		if ((uint64_t)k * stride % page) {
			hdp_log(HDP_LOG_ERR, "pool '%s': guard_gap %u: %u objects of %zu bytes do "
				"not end on a page boundary: use a multiple of %zu",
				p->name, k, k, stride, page / stride);
			return -EINVAL;
		}
		*gap_slots = stride >= page ? 1 : (uint32_t)(page / stride);
		slots += (uint64_t)*gap_slots * ((p->obj_count - 1) / k);
	}
	if (stride * slots > HDP_POOL_REGION_MAX) {
		hdp_log(HDP_LOG_ERR, "pool '%s': %u objects of %zu bytes exceed the %zu GiB region limit",
			p->name, p->obj_count, stride, HDP_POOL_REGION_MAX >> 30);
		return -E2BIG;
	}
	return (int64_t)slots;
}

struct hdp_pool *hdp_pool_create(const struct hdp_pool_params *params)
{
	struct hdp_pool *pool;
	uint32_t gap_slots;
	int64_t slots;
	size_t stride;
	int ret;

	if (!params) {
		errno = EINVAL;
		return NULL;
	}
	ret = check_params(params, &stride);
	if (ret)
		goto err;
	slots = layout_slots(params, stride, &gap_slots);
	if (slots < 0) {
		ret = (int)slots;
		goto err;
	}
	pool = calloc(1, sizeof(*pool));
	if (!pool) {
		ret = -ENOMEM;
		goto err;
	}
	strcpy(pool->name, params->name);
	pool->obj_count = params->obj_count;
	/*
	 * A thread's cache holds up to twice its size: a default cache on a
	 * small pool would let one thread hoard every object, so the default
	 * shrinks to an eighth of the pool (none below 8 objects).
	 */
	if (params->flags & HDP_POOL_F_NO_CACHE)
		pool->cache_size = 0;
	else if (params->cache_size)
		pool->cache_size = params->cache_size;
	else
		pool->cache_size = params->obj_count / 8 < HDP_POOL_CACHE_DEFAULT
				 ? params->obj_count / 8 : HDP_POOL_CACHE_DEFAULT;
	pthread_mutex_init(&pool->lock, NULL);

	/* Claim the name first: a duplicate must not map anything. */
	ret = pool_table_insert(pool);
	if (ret)
		goto err_free_pool;

	ret = mem_map(stride * (size_t)slots, params->mem, params->huge_dir,
		      !(params->flags & HDP_POOL_F_NO_FALLBACK), pool->name, &pool->map);
	if (ret)
		goto err_table;
	ret = hdp_harden_pool_init(&pool->hp, &(struct hdp_harden_pool_desc){
		.name = pool->name,
		.layout = {
			.base = (uintptr_t)pool->map.base, .obj_size = params->obj_size,
			.stride = stride, .slots = (uint32_t)slots,
			.gap_objs = gap_slots ? params->guard_gap : 0,
			.gap_period = gap_slots ? params->guard_gap + gap_slots : 0,
		},
		.on_violation = params->on_violation,
		.ops = &pool_ops,
		.region = { pool->map.base, pool->map.len, pool->map.guard },
	});
	if (ret)
		goto err_unmap;
	ret = pool_stack_build(pool);
	if (ret)
		goto err_harden;
	return pool;

err_harden:
	hdp_harden_pool_fini(&pool->hp);
	free(pool->free_stack);
	free(pool->free_bitmap);
err_unmap:
	mem_unmap(&pool->map);
err_table:
	pool_table_remove(pool);
err_free_pool:
	pthread_mutex_destroy(&pool->lock);
	free(pool);
err:
	errno = -ret;
	return NULL;
}

void hdp_pool_destroy(struct hdp_pool *pool)
{
	struct hdp_pool_stats st;

	if (!pool)
		return;
	hdp_pool_stats_get(pool, &st);
	if (st.in_use)
		hdp_log(HDP_LOG_WARN, "pool '%s' destroyed with %llu of %llu objects still in use",
			pool->name, (unsigned long long)st.in_use,
			(unsigned long long)st.obj_count);

	pool_table_remove(pool);
	/* Every thread state first (ops.each_thread walks the caches), then the caches. */
	hdp_harden_pool_fini(&pool->hp);
	pool_caches_release(pool);
	mem_unmap(&pool->map);
	free(pool->free_stack);
	free(pool->free_bitmap);
	pthread_mutex_destroy(&pool->lock);
	free(pool);
}

const struct hdp_layout *hdp_pool_slots(const struct hdp_pool *pool)
{
	return &pool->hp.layout;
}

void hdp_pool_region(const struct hdp_pool *pool, struct hdp_pool_region *out)
{
	*out = (struct hdp_pool_region){
		.base = pool->map.base,
		.len = pool->map.len,
		.page_size = pool->map.page_size,
		.id = pool->hp.region_id,
	};
}

const char *hdp_pool_name(const struct hdp_pool *pool)
{
	return pool->name;
}

uint32_t hdp_pool_obj_index(const struct hdp_pool *pool, const void *obj)
{
	return hdp_layout_div(&pool->hp.layout, (uintptr_t)obj - pool->hp.layout.base);
}

void *hdp_pool_obj_at(const struct hdp_pool *pool, uint32_t idx)
{
	return (void *)hdp_layout_slot_addr(&pool->hp.layout, idx);
}

int hdp_pool_configure(struct hdp_pool *pool, const struct hdp_harden_config *cfg)
{
	return hdp_harden_pool_configure(&pool->hp, cfg);
}

struct hdp_harden_pool *hdp_pool_harden(struct hdp_pool *pool)
{
	return &pool->hp;
}

int hdp_pool_set(struct hdp_pool *pool, const char *key, const char *value)
{
	return hdp_harden_pool_set_key(&pool->hp, key, value);
}
