// SPDX-License-Identifier: BSD-3-Clause
/*
 * Per-object zeroing for applications that keep DPDK's per-lcore cache:
 * the cache serves most allocs and frees without the driver, so these
 * wrappers apply the pool's init_on_alloc / init_on_free to each mbuf's
 * data room on the application's side of the cache (the pipeline's
 * hdp_harden_pool_zero). Double-free and write-after-free checks stay in
 * the driver, where objects are counted.
 */
#include "dpdk_internal.h"

#include <rte_mbuf.h>

/* The driver's state of @mp, where these wrappers have something to do: hdp's mbuf pools. */
static struct hdp_dpdk_pool *zeroed_pool(const struct rte_mempool *mp)
{
	struct hdp_dpdk_pool *pd = hdp_dpdk_pool_of(mp);

	return pd && pd->applied && pd->is_mbuf ? pd : NULL;
}

/* @m zeroed as the pool says for an mbuf allocated, or freed with @ext. */
static void zero(struct hdp_dpdk_pool *pd, struct rte_mbuf *m, const struct hdp_extent *ext,
		 bool freed)
{
	unsigned lcore = rte_lcore_id();
	struct hdp_dpdk_lcore *l = hdp_dpdk_lcore_get(pd, lcore);

	hdp_harden_pool_zero(&pd->hp, &l->tls, m, ext, freed);
	hdp_dpdk_lcore_put(pd, lcore);
}

int hdp_dpdk_mbuf_alloc_bulk(struct rte_mempool *mp, struct rte_mbuf **mbufs,
			     unsigned count)
{
	struct hdp_dpdk_pool *pd = zeroed_pool(mp);
	int ret = rte_pktmbuf_alloc_bulk(mp, mbufs, count);

	for (unsigned i = 0; ret == 0 && pd && i < count; i++)
		zero(pd, mbufs[i], NULL, false);
	return ret;
}

struct rte_mbuf *hdp_dpdk_mbuf_alloc(struct rte_mempool *mp)
{
	struct rte_mbuf *m;

	return hdp_dpdk_mbuf_alloc_bulk(mp, &m, 1) == 0 ? m : NULL;
}

/*
 * One segment whose last reference is going: wiped (under used, as far as
 * its own data went, the extent the driver would wipe), then to the cache.
 */
static void free_seg(struct rte_mbuf *m)
{
	struct hdp_dpdk_pool *pd;
	struct hdp_extent ext;

	m = rte_pktmbuf_prefree_seg(m);
	if (!m)
		return;
	pd = zeroed_pool(m->pool);
	if (pd) {
		ext = hdp_dpdk_mbuf_extent(pd, m);
		zero(pd, m, &ext, true);
	}
	rte_mbuf_raw_free(m);
}

void hdp_dpdk_mbuf_free(struct rte_mbuf *m)
{
	while (m) {
		struct rte_mbuf *next = m->next;

		free_seg(m);
		m = next;
	}
}

void hdp_dpdk_mbuf_free_bulk(struct rte_mbuf **mbufs, unsigned count)
{
	for (unsigned i = 0; i < count; i++)
		hdp_dpdk_mbuf_free(mbufs[i]);
}
