/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `hdp` DPDK mempool driver's state for one DPDK mempool: its free
 * objects in an rte_ring (as DPDK's ring driver keeps them), a back-end
 * of hdp's hardening pipeline (hdp/harden.h), which runs over the part of
 * each object that holds data: the data room of an mbuf (never the mbuf
 * header, never the private area), or the whole element of any other
 * pool.
 */
#ifndef HDP_DPDK_INTERNAL_H
#define HDP_DPDK_INTERNAL_H

#include <hdp/dpdk.h>
#include <hdp/harden.h>

#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_spinlock.h>

/* What one lcore (or, under a lock, every non-EAL thread) writes. */
struct hdp_dpdk_lcore {
	struct hdp_harden_tls tls;	/* the pipeline's state: its quarantine too */
	_Atomic uint64_t frees, allocs, rejected;
} __rte_cache_aligned;

struct hdp_dpdk_pool {
	struct rte_mempool *mp;
	struct rte_ring *ring;
	struct hdp_harden_pool hp;	/* set up when the last object arrives */
	bool hp_ready;			/* hp describes every object */
	bool applied;			/* the profile is on: the pipeline runs */
	bool populating;		/* objects arrive: not through the pipeline yet */
	bool inside;			/* every object inside its chunk's slots */
	/* The chunks DPDK populated the pool with, in the order it gave them. */
	struct hdp_layout_chunk *chunks;
	uint32_t chunk_count;
	uint32_t slots;			/* over every chunk */
	uintptr_t span_base;		/* chunks indexed as one span: its start */
	uint32_t span_slots;		/* and its slots (0: not spanned) */
	uint32_t *starts;		/* per slot: where in it that object's area starts */
	bool is_mbuf;
	bool lent_to_kernel;		/* written past data_len (hdp_dpdk_pool_lent_to_kernel) */
	uint32_t populated;
	size_t area_off;		/* hardened area: offset in the element */
	size_t area_len;
	/* One state per lcore, one shared by non-EAL threads. */
	struct hdp_dpdk_lcore lcore[RTE_MAX_LCORE + 1];
	rte_spinlock_t foreign_lock;
	struct hdp_dpdk_pool *next;
};

/* HDP_CONFIG and HDP_HARDEN (or the application's), read once: 0 or -EINVAL (logged). */
int hdp_dpdk_config(const struct hdp_harden_config **out);

/* Freed objects the lcores' quarantines hold now (racy, as DPDK's cache counts are). */
uint64_t hdp_dpdk_held(const struct hdp_dpdk_pool *pd);

/* The pools this process made with the driver, for telemetry and stats. */
void hdp_dpdk_pools_add(struct hdp_dpdk_pool *pd);
void hdp_dpdk_pools_remove(struct hdp_dpdk_pool *pd);
void hdp_dpdk_pools_foreach(void (*fn)(struct hdp_dpdk_pool *pd, void *arg), void *arg);

/* The driver's state of @mp, or NULL if @mp does not use the hdp ops. */
struct hdp_dpdk_pool *hdp_dpdk_pool_of(const struct rte_mempool *mp);

/*
 * This thread's state for @pd (lock held for non-EAL threads). @lcore is
 * rte_lcore_id(), read once per call: from a shared object it is a TLS
 * lookup through __tls_get_addr.
 */
static inline struct hdp_dpdk_lcore *hdp_dpdk_lcore_get(struct hdp_dpdk_pool *pd,
							unsigned lcore)
{
	if (hdp_likely(lcore < RTE_MAX_LCORE))
		return &pd->lcore[lcore];
	rte_spinlock_lock(&pd->foreign_lock);
	return &pd->lcore[RTE_MAX_LCORE];
}

static inline void hdp_dpdk_lcore_put(struct hdp_dpdk_pool *pd, unsigned lcore)
{
	if (hdp_unlikely(lcore >= RTE_MAX_LCORE))
		rte_spinlock_unlock(&pd->foreign_lock);
}

/*
 * For init_on_free=used and redzone: the write extent of this mbuf's data
 * room, if its header is sane (else all of it). The data starts at the
 * default headroom when the mbuf is reset and moves with adj and prepend,
 * so the lowest of the two to the end of the data covers what a receive,
 * header stripping and prepending wrote; a segment after the first of a
 * chain (a jumbo frame) has its own data_off and data_len, so each is
 * wiped as far as its own data went. A trim leaves written bytes past the
 * end: applications that trim want init_on_free=on and redzone off
 * (docs/DPDK.md). Mbufs lent to a kernel (net_af_xdp) hold what it wrote
 * past data_len: all of the room. The driver's frees and hdp's wrappers
 * use this one.
 */
static inline struct hdp_extent hdp_dpdk_mbuf_extent(const struct hdp_dpdk_pool *pd,
						     const void *obj)
{
	const struct rte_mbuf *m = obj;
	uint32_t room = (uint32_t)pd->area_len, start, end;

	if (!pd->is_mbuf || pd->lent_to_kernel || m->pool != pd->mp ||
	    m->buf_addr != (const char *)obj + pd->area_off)
		return (struct hdp_extent){ 0, room };
	start = m->data_off < RTE_PKTMBUF_HEADROOM ? m->data_off : RTE_PKTMBUF_HEADROOM;
	end = (uint32_t)m->data_off + m->data_len;
	return (struct hdp_extent){ start, end < room ? end : room };
}

#endif /* HDP_DPDK_INTERNAL_H */
