// SPDX-License-Identifier: BSD-3-Clause
/*
 * Multi-segment mbufs (a jumbo frame as a chain) through the hdp driver,
 * as TAP. Chains are built as net_pcap builds them (a first segment at
 * the default headroom, the others from offset 0) and freed the ways DPDK
 * frees them: rte_pktmbuf_free on the head, rte_pktmbuf_free_bulk, a clone
 * freed after its original, hdp's wrapper in front of a cache. Each
 * segment must reach the driver exactly once, be wiped as far as its own
 * data went (init_on_free=used) and be checked on its own: a write past
 * one segment's data (redzone), a write into the middle segment of a
 * freed chain (init_check) and a second free of one segment are each
 * found once. With --quarantine N, the same through the driver's reuse
 * queues N deep. Needs root and hugepages (EAL); says why it skips
 * otherwise.
 */
#include <hdp/dpdk.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>

#include "tap.h"

#define POOL_SIZE 1023
#define SEGS_MAX 8

/* A 9000-byte frame in mbufs of 2048 + 128 bytes, as net_pcap chains it. */
static const uint16_t jumbo[] = { 2048, 2176, 2176, 2176, 424 };

static struct rte_mempool *pool(const char *name, unsigned cache)
{
	return rte_pktmbuf_pool_create_by_ops(name, POOL_SIZE, cache, 0,
					      RTE_MBUF_DEFAULT_BUF_SIZE, 0, HDP_DPDK_OPS_NAME);
}

static struct hdp_dpdk_pool_stats stats(const struct rte_mempool *mp)
{
	struct hdp_dpdk_pool_stats st;

	hdp_dpdk_pool_stats_get(mp, &st);
	return st;
}

static bool room_is_zero(const struct rte_mbuf *m)
{
	const uint8_t *p = (const uint8_t *)m->buf_addr;

	for (unsigned i = 0; i < m->buf_len; i++)
		if (p[i])
			return false;
	return true;
}

/* As a free mbuf's header reads: alone, one reference, its own data room. */
static bool header_free(const struct rte_mbuf *m, const struct rte_mempool *mp)
{
	return m->pool == mp && m->next == NULL && m->nb_segs == 1 &&
	       rte_mbuf_refcnt_read(m) == 1 && m->buf_addr == (char *)m + sizeof(*m);
}

/*
 * A chain of @nseg segments of @len bytes each, filled with @fill; its
 * segments in @seg. The first keeps the headroom, the others start at 0
 * (net_pcap's eth_pcap_rx_jumbo). NULL if the pool ran dry.
 */
static struct rte_mbuf *chain(struct rte_mempool *mp, const uint16_t *len, unsigned nseg,
			      uint8_t fill, struct rte_mbuf **seg)
{
	for (unsigned k = 0; k < nseg; k++) {
		seg[k] = rte_pktmbuf_alloc(mp);
		if (!seg[k])
			return NULL;
		if (k) {
			rte_pktmbuf_prepend(seg[k], rte_pktmbuf_headroom(seg[k]));
			seg[k]->data_len = 0;
			seg[k]->pkt_len = 0;
		}
		memset(rte_pktmbuf_append(seg[k], len[k]), fill, len[k]);
		if (k && rte_pktmbuf_chain(seg[0], seg[k]))
			return NULL;
	}
	return seg[0];
}

static unsigned sum(const uint16_t *len, unsigned nseg)
{
	unsigned s = 0;

	for (unsigned k = 0; k < nseg; k++)
		s += len[k];
	return s;
}

static bool all_wiped_and_free(struct rte_mbuf **seg, unsigned nseg,
			       const struct rte_mempool *mp)
{
	bool good = true;

	for (unsigned k = 0; k < nseg; k++)
		good = good && room_is_zero(seg[k]) && header_free(seg[k], mp);
	return good;
}

/* Every object once round, so that each record says "handed out zero". */
static bool cycle_all(struct rte_mempool *mp)
{
	static struct rte_mbuf *all[POOL_SIZE];

	if (rte_pktmbuf_alloc_bulk(mp, all, mp->size))
		return false;
	rte_pktmbuf_free_bulk(all, mp->size);
	return true;
}

static void freed_by_head(struct rte_mempool *mp)
{
	struct rte_mbuf *seg[SEGS_MAX], *head;
	struct hdp_dpdk_pool_stats a, b;
	unsigned nseg = RTE_DIM(jumbo);

	head = chain(mp, jumbo, nseg, 0xc3, seg);
	ok(head && head->nb_segs == nseg && head->pkt_len == 9000,
	   "a 9000-byte frame as a chain of five mbufs of the hdp pool");
	if (!head)
		return;
	a = stats(mp);
	rte_pktmbuf_free(head);
	b = stats(mp);
	ok(b.frees - a.frees == nseg && b.rejected == a.rejected && b.violations == a.violations,
	   "rte_pktmbuf_free on its head: five frees through the driver, none refused");
	ok(b.bytes_wiped - a.bytes_wiped == 9000 && all_wiped_and_free(seg, nseg, mp),
	   "each segment wiped as far as its own data went (9000 bytes in all): every data "
	   "room reads zero, every header as a free mbuf's");
}

static void freed_in_bulk(struct rte_mempool *mp)
{
	static const uint16_t two[] = { 2048, 1000 }, one[] = { 700 };
	struct rte_mbuf *seg[3][SEGS_MAX], *heads[3];
	struct hdp_dpdk_pool_stats a, b;
	unsigned total = RTE_DIM(jumbo) + RTE_DIM(two) + RTE_DIM(one);

	heads[0] = chain(mp, two, RTE_DIM(two), 0x11, seg[0]);
	heads[1] = chain(mp, jumbo, RTE_DIM(jumbo), 0x22, seg[1]);
	heads[2] = chain(mp, one, RTE_DIM(one), 0x33, seg[2]);
	if (!heads[0] || !heads[1] || !heads[2]) {
		ok(false, "three chains built");
		return;
	}
	a = stats(mp);
	rte_pktmbuf_free_bulk(heads, 3);
	b = stats(mp);
	ok(b.frees - a.frees == total &&
	   b.bytes_wiped - a.bytes_wiped == 9000 + sum(two, 2) + sum(one, 1) &&
	   all_wiped_and_free(seg[0], RTE_DIM(two), mp) &&
	   all_wiped_and_free(seg[1], RTE_DIM(jumbo), mp) &&
	   all_wiped_and_free(seg[2], RTE_DIM(one), mp) && b.violations == a.violations,
	   "rte_pktmbuf_free_bulk of chains of 2, 5 and 1 segments: each segment once, "
	   "each wiped as far as its data");
}

/* A clone's segments point into the original's: they go back with the last reference. */
static void clone_freed_last(struct rte_mempool *mp)
{
	struct rte_mbuf *seg[SEGS_MAX], *head, *clone;
	struct hdp_dpdk_pool_stats a, b, c;
	unsigned nseg = RTE_DIM(jumbo);

	head = chain(mp, jumbo, nseg, 0x5a, seg);
	clone = head ? rte_pktmbuf_clone(head, mp) : NULL;
	if (!clone) {
		ok(false, "a chain and its clone");
		return;
	}
	a = stats(mp);
	rte_pktmbuf_free(head);
	b = stats(mp);
	rte_pktmbuf_free(clone);
	c = stats(mp);
	ok(b.frees == a.frees && c.frees - b.frees == 2 * nseg && c.rejected == a.rejected &&
	   c.bytes_wiped - b.bytes_wiped == 9000 && all_wiped_and_free(seg, nseg, mp),
	   "a chain cloned: its segments stay out while the clone holds them, then each "
	   "returns once, wiped, with the clone's five (which wrote nothing)");
}

/* A byte past the data of the middle segment: that segment's redzone, once. */
static void redzone_per_segment(struct rte_mempool *mp)
{
	static const uint16_t len[] = { 2048, 100, 300 };
	struct rte_mbuf *seg[SEGS_MAX], *head = chain(mp, len, 3, 0x77, seg);
	struct hdp_dpdk_pool_stats a, b;

	if (!head) {
		ok(false, "a chain of three");
		return;
	}
	rte_pktmbuf_mtod(seg[1], uint8_t *)[100 + 7] = 0x41;
	a = stats(mp);
	rte_pktmbuf_free(head);
	b = stats(mp);
	ok(b.violations - a.violations == 1 && b.frees - a.frees == 3,
	   "redzone: a write 8 bytes past the middle segment's data is found at its free, "
	   "once, and the chain still goes back whole");
}

/* After the chain went back: a write into its middle segment, a second free of it. */
static void after_free(struct rte_mempool *mp)
{
	static struct rte_mbuf *all[POOL_SIZE];
	struct rte_mbuf *seg[SEGS_MAX], *head = chain(mp, jumbo, RTE_DIM(jumbo), 0x99, seg);
	struct hdp_dpdk_pool_stats a, b;

	if (!head) {
		ok(false, "a chain of five");
		return;
	}
	rte_pktmbuf_free(head);
	a = stats(mp);
	rte_mbuf_raw_free(seg[2]);
	b = stats(mp);
	ok(b.double_frees - a.double_frees == 1 && b.rejected - a.rejected == 1 &&
	   b.frees == a.frees,
	   "a second free of the middle segment of a freed chain is refused as a double free");

	((volatile uint8_t *)seg[2]->buf_addr)[1000] = 0xee;
	a = stats(mp);
	if (rte_pktmbuf_alloc_bulk(mp, all, mp->size)) {
		ok(false, "every mbuf allocated");
		return;
	}
	b = stats(mp);
	ok(b.writes_after_free - a.writes_after_free == 1,
	   "a write into the middle segment of a freed chain is found when it is handed out "
	   "again (init_check)");
	rte_pktmbuf_free_bulk(all, mp->size);
	ok(rte_mempool_avail_count(mp) == mp->size,
	   "and the pool holds each of its mbufs once");
}

/* With a per-lcore cache, hdp's wrapper wipes each segment before it. */
static void wrapper_with_cache(struct rte_mempool *mp)
{
	struct rte_mbuf *seg[SEGS_MAX], *head = chain(mp, jumbo, RTE_DIM(jumbo), 0x3c, seg);
	struct hdp_dpdk_pool_stats a, b;

	if (!head) {
		ok(false, "a chain of five");
		return;
	}
	a = stats(mp);
	hdp_dpdk_mbuf_free(head);
	b = stats(mp);
	ok(b.bytes_wiped - a.bytes_wiped == 9000 && all_wiped_and_free(seg, RTE_DIM(jumbo), mp),
	   "with a cache, hdp_dpdk_mbuf_free on the head wipes each segment as far as its data "
	   "before the cache");
	ok(rte_mempool_avail_count(mp) == mp->size,
	   "and every segment is back in that pool (its cache counted)");
}

int main(int argc, char **argv)
{
	char *eal[] = { "test_dpdk_chain", "-l", "0", "--no-pci", "--no-telemetry",
			"--log-level=lib.eal:error", "--in-memory" };
	struct rte_mempool *mp, *cached;
	char harden[256];

	if (getuid() != 0) {
		printf("1..0 # SKIP needs root (EAL and hugepages)\n");
		return 0;
	}
	snprintf(harden, sizeof(harden), "init_on_free=used,init_check=on,redzone=on,"
		 "on_violation=report%s%s", argc == 3 && strcmp(argv[1], "--quarantine") == 0 ?
		 ",quarantine=on,quarantine_depth=" : "", argc == 3 ? argv[2] : "");
	setenv("HDP_HARDEN", harden, 1);
	if (rte_eal_init((int)RTE_DIM(eal), eal) < 0) {
		printf("1..0 # SKIP EAL cannot start here: %s\n", rte_strerror(rte_errno));
		return 0;
	}
	printf("1..12\n");
	mp = pool("chain_0", 0);
	cached = pool("chain_cached_0", 64);
	ok(mp && cached && cycle_all(mp),
	   "mbuf pools made with the hdp ops under init_on_free=used, init_check, redzone");
	if (!mp || !cached)
		return 1;
	freed_by_head(mp);
	freed_in_bulk(mp);
	clone_freed_last(mp);
	redzone_per_segment(mp);
	after_free(mp);
	wrapper_with_cache(cached);
	rte_mempool_free(mp);
	rte_mempool_free(cached);
	rte_eal_cleanup();
	return failed != 0;
}
