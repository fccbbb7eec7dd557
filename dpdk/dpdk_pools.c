// SPDX-License-Identifier: BSD-3-Clause
/* The pools this process made with the hdp ops: a list, for lookups. */
#include "dpdk_internal.h"

#include <pthread.h>
#include <string.h>

static pthread_mutex_t pools_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hdp_dpdk_pool *pools;

void hdp_dpdk_pools_add(struct hdp_dpdk_pool *pd)
{
	pthread_mutex_lock(&pools_lock);
	pd->next = pools;
	pools = pd;
	pthread_mutex_unlock(&pools_lock);
}

void hdp_dpdk_pools_remove(struct hdp_dpdk_pool *pd)
{
	pthread_mutex_lock(&pools_lock);
	for (struct hdp_dpdk_pool **pp = &pools; *pp; pp = &(*pp)->next) {
		if (*pp == pd) {
			*pp = pd->next;
			break;
		}
	}
	pthread_mutex_unlock(&pools_lock);
}

void hdp_dpdk_pools_foreach(void (*fn)(struct hdp_dpdk_pool *pd, void *arg), void *arg)
{
	pthread_mutex_lock(&pools_lock);
	for (struct hdp_dpdk_pool *pd = pools; pd; pd = pd->next)
		fn(pd, arg);
	pthread_mutex_unlock(&pools_lock);
}

struct hdp_dpdk_pool *hdp_dpdk_pool_of(const struct rte_mempool *mp)
{
	const struct rte_mempool_ops *ops = rte_mempool_get_ops(mp->ops_index);

	if (!ops || strcmp(ops->name, HDP_DPDK_OPS_NAME) != 0)
		return NULL;
	return mp->pool_data;
}
