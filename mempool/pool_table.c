// SPDX-License-Identifier: BSD-3-Clause
/* The table of live pools: by slot and generation, by name, and in order of creation. */
#include "pool_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hdp_pool *table[HDP_POOL_MAX];
static uint64_t next_gen = 1;

void pool_table_lock(void)
{
	pthread_mutex_lock(&table_lock);
}

void pool_table_unlock(void)
{
	pthread_mutex_unlock(&table_lock);
}

struct hdp_pool *pool_table_get_locked(uint16_t id, uint64_t gen)
{
	struct hdp_pool *pool = id < HDP_POOL_MAX ? table[id] : NULL;

	return pool && pool->gen == gen ? pool : NULL;
}

int pool_table_insert(struct hdp_pool *pool)
{
	int slot = -1, ret = 0;

	pool_table_lock();
	for (int i = 0; i < HDP_POOL_MAX && !ret; i++) {
		if (table[i] && strcmp(table[i]->name, pool->name) == 0) {
			hdp_log(HDP_LOG_ERR, "pool '%s' already exists", pool->name);
			ret = -EEXIST;
		}
		if (!table[i] && slot < 0)
			slot = i;
	}
	if (!ret && slot < 0) {
		hdp_log(HDP_LOG_ERR, "pool '%s': already %d pools", pool->name,
			HDP_POOL_MAX);
		ret = -ENOSPC;
	}
	if (!ret) {
		pool->id = (uint16_t)slot;
		pool->gen = next_gen++;
		table[slot] = pool;
	}
	pool_table_unlock();
	return ret;
}

void pool_table_remove(struct hdp_pool *pool)
{
	pool_table_lock();
	table[pool->id] = NULL;
	pool_table_unlock();
}

struct hdp_pool *hdp_pool_find(const char *name)
{
	struct hdp_pool *found = NULL;

	if (!name)
		return NULL;
	pool_table_lock();
	for (int i = 0; i < HDP_POOL_MAX && !found; i++)
		if (table[i] && strcmp(table[i]->name, name) == 0)
			found = table[i];
	pool_table_unlock();
	return found;
}

static int by_gen(const void *a, const void *b)
{
	const struct hdp_pool *pa = *(struct hdp_pool *const *)a;
	const struct hdp_pool *pb = *(struct hdp_pool *const *)b;

	return (pa->gen > pb->gen) - (pa->gen < pb->gen);
}

int hdp_pool_foreach(int (*fn)(struct hdp_pool *pool, void *ctx), void *ctx)
{
	struct hdp_pool *snap[HDP_POOL_MAX];
	size_t n = 0;
	int ret = 0;

	/* Call outside the lock so that @fn may create or look up pools. */
	pool_table_lock();
	for (int i = 0; i < HDP_POOL_MAX; i++)
		if (table[i])
			snap[n++] = table[i];
	pool_table_unlock();
	qsort(snap, n, sizeof(snap[0]), by_gen);
	for (size_t i = 0; i < n && !ret; i++)
		ret = fn(snap[i], ctx);
	return ret;
}
