// SPDX-License-Identifier: BSD-3-Clause
/*
 * Per-object zeroing for applications that keep DPDK's per-lcore cache:
 * the cache serves most allocs and frees without the driver, so these
 * wrappers apply the pool's init_on_alloc / init_on_free to each mbuf's
 * data room on the application's side of the cache. Double-free and
 * write-after-free checks stay in the driver, where objects are counted.
 */
#include "dpdk_internal.h"

#include <hdp/counter.h>

#include <string.h>

#include <rte_mbuf.h>

/* The pool's zeroing flags, or 0 for pools that are not hdp's. */
static unsigned zero_flags(struct hdp_dpdk_pool *pd)
{
	if (!pd || !pd->applied || !pd->is_mbuf)
		return 0;
	return hdp_view_flags(hdp_harden_pool_view(&pd->hp)) &
	       (HDP_HF_INIT_ALLOC | HDP_HF_INIT_FREE | HDP_HF_INIT_USED);
}

/* @len bytes of @m's data room from @off, zeroed and counted. */
static void wipe(struct hdp_dpdk_pool *pd, struct rte_mbuf *m, size_t off, size_t len)
{
	unsigned lcore = rte_lcore_id();
	struct hdp_dpdk_lcore *l;

	memset((char *)m + pd->area_off + off, 0, len);
	l = hdp_dpdk_lcore_get(pd, lcore);
	hdp_counter_add(&l->tls.c.n[HDP_C_BYTES_WIPED], len);
	hdp_dpdk_lcore_put(pd, lcore);
}

int hdp_dpdk_mbuf_alloc_bulk(struct rte_mempool *mp, struct rte_mbuf **mbufs,
			     unsigned count)
{
	struct hdp_dpdk_pool *pd = hdp_dpdk_pool_of(mp);
	int ret = rte_pktmbuf_alloc_bulk(mp, mbufs, count);

	if (ret == 0 && (zero_flags(pd) & HDP_HF_INIT_ALLOC))
		for (unsigned i = 0; i < count; i++)
			wipe(pd, mbufs[i], 0, pd->area_len);
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
	unsigned flags;

	m = rte_pktmbuf_prefree_seg(m);
	if (!m)
		return;
	pd = hdp_dpdk_pool_of(m->pool);
	flags = zero_flags(pd);
	if (flags & HDP_HF_INIT_FREE) {
		ext = (flags & HDP_HF_INIT_USED) ? hdp_dpdk_mbuf_extent(pd, m) :
			(struct hdp_extent){ 0, (uint32_t)pd->area_len };
		wipe(pd, m, ext.start, ext.end - ext.start);
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
