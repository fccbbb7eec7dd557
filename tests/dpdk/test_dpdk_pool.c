// SPDX-License-Identifier: BSD-3-Clause
/*
 * The hdp mempool driver from inside a DPDK process, as TAP: mbufs are
 * written, freed and read back where they lie in the pool. Under
 * init_on_free a freed mbuf's data room is zero and its header intact; an
 * excluded pool keeps its bytes; bad frees are refused and counted; with a
 * cache, the hdp wrappers still wipe each mbuf; pointer tags are refused;
 * mbufs lent to a kernel are wiped whole, and those a device kept are
 * taken back.
 * Arguments, if any, are EAL's memory options (run-eal-modes passes each
 * mode: PA, VA, --in-memory, --legacy-mem, --no-huge); by default in
 * memory with the IOVA mode EAL picks. Needs root and hugepages (EAL);
 * says why it skips otherwise.
 */
/* rte_pktmbuf_pool_create_extbuf is still experimental in DPDK. */
#define ALLOW_EXPERIMENTAL_API

#include <hdp/dpdk.h>

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "tap.h"


static bool all_bytes(const struct rte_mbuf *m, uint8_t v)
{
	const uint8_t *p = (const uint8_t *)m->buf_addr;

	for (unsigned i = 0; i < m->buf_len; i++)
		if (p[i] != v)
			return false;
	return true;
}

static bool header_intact(const struct rte_mbuf *m, struct rte_mempool *mp)
{
	return m->pool == mp && m->buf_addr == (char *)m + sizeof(*m) + rte_pktmbuf_priv_size(mp) &&
	       m->buf_len == rte_pktmbuf_data_room_size(mp) && rte_mbuf_refcnt_read(m) == 1 &&
	       m->nb_segs == 1 && m->next == NULL;
}

/* 4095 mbufs: 9 MiB, over several hugepages, so several chunks in PA mode. */
static struct rte_mempool *pool(const char *name, unsigned cache)
{
	return rte_pktmbuf_pool_create_by_ops(name, 4095, cache, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0,
					       HDP_DPDK_OPS_NAME);
}

/* Write a pattern over the data room, free, and look at it where it lies. */
static struct rte_mbuf *write_and_free(struct rte_mempool *mp, bool wrapper)
{
	struct rte_mbuf *m = wrapper ? hdp_dpdk_mbuf_alloc(mp) : rte_pktmbuf_alloc(mp);

	if (!m)
		return NULL;
	memset(m->buf_addr, 0xab, m->buf_len);
	rte_pktmbuf_append(m, 100);
	if (wrapper)
		hdp_dpdk_mbuf_free(m);
	else
		rte_pktmbuf_free(m);
	return m;
}

/* hdp_dpdk_pool_protections: JSON and text, a short buffer, a pool of another driver. */
static void protections_reported(struct rte_mempool *mp)
{
	char json[1024], text[1024], tiny[8];
	struct rte_mempool *other = rte_pktmbuf_pool_create_by_ops("ring_0", 63, 0, 0, 256, 0,
								   "ring_mp_mc");

	ok(hdp_dpdk_pool_protections(mp, 1, json, sizeof(json)) == 0 &&
	   strstr(json, "\"protections\":{") == json &&
	   strstr(json, "\"redzone\":{\"on\":true,\"redzone_checks\":") &&
	   strstr(json, "\"quarantine\":{\"on\":false") &&
	   hdp_dpdk_pool_protections(mp, 0, text, sizeof(text)) == 0 &&
	   strstr(text, "  redzone: on; redzone_checks ") &&
	   hdp_dpdk_pool_protections(mp, 1, tiny, sizeof(tiny)) == -ENOSPC &&
	   other && hdp_dpdk_pool_protections(other, 1, json, sizeof(json)) == -ENOENT,
	   "hdp_dpdk_pool_protections: each protection and its counters, as JSON and text; "
	   "a short buffer and another driver's pool refused");
	rte_mempool_free(other);
}

/*
 * rte_pktmbuf_free puts mbufs back one at a time, through the driver's
 * one-object path: under init_on_free=used it wipes exactly the data,
 * redzone still sees a write past it, a double free is still refused.
 */
static void single_frees_used(void)
{
	struct rte_mempool *mp = pool("used_0", 0);
	struct hdp_dpdk_pool_stats before, after;
	struct rte_mbuf *m;
	char *data;

	static struct rte_mbuf *all[4095];

	if (!mp || rte_pktmbuf_alloc_bulk(mp, all, mp->size)) {
		for (int i = 0; i < 4; i++)
			ok(false, "pool used_0 made, every mbuf allocated");
		return;
	}
	/*
	 * Each mbuf once round: then its record says it was all zero when
	 * handed out (so only its data needs wiping) and its redzone is armed.
	 */
	rte_pktmbuf_free_bulk(all, mp->size);
	m = rte_pktmbuf_alloc(mp);
	data = rte_pktmbuf_append(m, 100);
	memset(data, 0xcd, 100);
	data[100] = 0;	/* nothing past the data: the redzone holds */
	hdp_dpdk_pool_stats_get(mp, &before);
	rte_pktmbuf_free(m);
	hdp_dpdk_pool_stats_get(mp, &after);
	ok(data[0] == 0 && data[99] == 0 && after.bytes_wiped - before.bytes_wiped == 100 &&
	   after.frees - before.frees == 1 && after.violations == before.violations,
	   "init_on_free=used, one mbuf freed alone: its 100 bytes of data wiped, nothing more");

	m = rte_pktmbuf_alloc(mp);
	data = rte_pktmbuf_append(m, 60);
	data[60 + 7] = 0x41;	/* 8 bytes past the end of the data */
	hdp_dpdk_pool_stats_get(mp, &before);
	rte_pktmbuf_free(m);
	hdp_dpdk_pool_stats_get(mp, &after);
	ok(after.violations - before.violations == 1,
	   "redzone: a byte written past the data of an mbuf freed alone is reported");

	m = rte_pktmbuf_alloc(mp);
	rte_pktmbuf_append(m, 60);
	hdp_dpdk_pool_stats_get(mp, &before);
	rte_mbuf_raw_free(m);
	rte_mbuf_raw_free(m);
	hdp_dpdk_pool_stats_get(mp, &after);
	ok(after.double_frees - before.double_frees == 1 && after.rejected - before.rejected == 1,
	   "a double free of one mbuf is refused on the one-object path");
	ok(rte_mempool_avail_count(mp) == mp->size, "and pool used_0 holds each object once");
	protections_reported(mp);
	rte_mempool_free(mp);
}

/*
 * Mbufs lent to a device (net_af_xdp's fill rings): written where no
 * data_len says, so wiped whole once the pool is told; and those a device
 * kept when it closed, taken back, not the ones in a cache.
 */
static void lent_and_kept(void)
{
	struct rte_mempool *lent = pool("lent_0", 0), *kept = pool("kept_0", 64), *other;
	static struct rte_mbuf *all[4095];
	struct rte_mbuf *m = NULL;
	unsigned zero = 0;
	int got;

	/* Each mbuf once round: then its record says it was zero when handed out. */
	if (lent && rte_pktmbuf_alloc_bulk(lent, all, lent->size) == 0) {
		rte_pktmbuf_free_bulk(all, lent->size);
		m = rte_pktmbuf_alloc(lent);
	}
	if (!kept || !m) {
		for (int i = 0; i < 5; i++)
			ok(false, "pools lent_0 and kept_0 made");
		return;
	}
	ok(hdp_dpdk_pool_lent_to_kernel(lent) == 0, "a pool told its mbufs are lent to a kernel");
	memset(m->buf_addr, 0xab, m->buf_len);	/* a longer packet, then a 60-byte one */
	rte_pktmbuf_append(m, 60);
	rte_pktmbuf_free(m);
	ok(all_bytes(m, 0), "init_on_free=used then wipes the whole data room, not 60 bytes");

	/* Round once, so that the wipe at free would be as far as the data only. */
	if (rte_pktmbuf_alloc_bulk(kept, all, kept->size) == 0)
		rte_pktmbuf_free_bulk(all, kept->size);
	if (rte_pktmbuf_alloc_bulk(kept, all, 100) == 0) {
		for (unsigned i = 0; i < 100; i++) {
			memset(all[i]->buf_addr, 0xab, all[i]->buf_len);
			rte_pktmbuf_append(all[i], 60);
		}
		rte_pktmbuf_free_bulk(all, 10);	/* into the lcore's cache */
	}
	got = hdp_dpdk_pool_reclaim(kept);
	for (unsigned i = 10; i < 100; i++)
		zero += all_bytes(all[i], 0);
	ok(got == 90 && rte_mempool_avail_count(kept) == kept->size,
	   "hdp_dpdk_pool_reclaim takes back the 90 mbufs kept, not the 10 in the cache");
	ok(zero == 90, "each taken back wiped whole");
	other = rte_pktmbuf_pool_create_by_ops("ring_0", 63, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, 0,
					       "ring_mp_mc");
	ok(hdp_dpdk_pool_reclaim(kept) == 0 && (!other || (hdp_dpdk_pool_reclaim(other) == -ENOENT &&
							  hdp_dpdk_pool_lent_to_kernel(other) == -ENOENT)),
	   "again: none; a pool of other ops: -ENOENT");
	rte_mempool_free(other);
	rte_mempool_free(lent);
	rte_mempool_free(kept);
}

/*
 * An mbuf pool whose data lies in pinned external buffers, made with hdp's
 * ops as the process default (--mbuf-pool-ops-name, as testpmd's
 * --mp-alloc=xbuf would): refused, not hardened as plain objects, which
 * wiped every freed mbuf's header (the next one had no pool, no buffer).
 */
static void pinned_external_buffers_refused(void)
{
	struct rte_pktmbuf_extmem ext = { .elt_size = 2048, .buf_len = 64 * 2048 };
	struct rte_mempool *mp;

	ext.buf_ptr = rte_malloc("ext_0", ext.buf_len, 4096);
	ext.buf_iova = ext.buf_ptr ? rte_malloc_virt2iova(ext.buf_ptr) : RTE_BAD_IOVA;
	mp = ext.buf_ptr ? rte_pktmbuf_pool_create_extbuf("ext_0", 63, 0, 0, 2048,
							  SOCKET_ID_ANY, &ext, 1) : NULL;
	ok(ext.buf_ptr && !mp && rte_errno == ENOTSUP,
	   "an mbuf pool of pinned external buffers is refused (ENOTSUP), not hardened as objects");
	if (mp)
		rte_mempool_free(mp);
	rte_free(ext.buf_ptr);
}

int main(int argc, char **argv)
{
	char *eal[32] = { "test_dpdk_pool", "-l", "0", "--no-pci", "--no-telemetry",
			  "--log-level=lib.eal:error", "--mbuf-pool-ops-name=" HDP_DPDK_OPS_NAME };
	int neal = 7;
	struct hdp_dpdk_pool_stats st;
	struct rte_mempool *hard, *keep, *cached;
	struct rte_mbuf *m, *m2;
	void *foreign = malloc(4096);

	if (getuid() != 0) {
		printf("1..0 # SKIP needs root (EAL and hugepages)\n");
		return 0;
	}
	setenv("HDP_HARDEN", "init_on_free=on,init_check=on,on_violation=report,"
	       "init_exclude=keep_*,pool.tagged_0.tag=soft,"
	       "pool.used_0.init_on_free=used,pool.used_0.redzone=on,"
	       "pool.lent_0.init_on_free=used,pool.kept_0.init_on_free=used", 1);
	if (argc == 1) {
		eal[neal++] = "--in-memory";
	}
	for (int i = 1; i < argc && neal < 31; i++)
		eal[neal++] = argv[i];
	if (rte_eal_init(neal, eal) < 0) {
		printf("1..0 # SKIP EAL cannot start here: %s\n", rte_strerror(rte_errno));
		return 0;
	}
	printf("1..24\n");
	hard = pool("hard_0", 0);
	keep = pool("keep_0", 0);
	cached = pool("cached_0", 64);
	ok(hard && keep && cached, "three mbuf pools made with the hdp ops");
	if (!hard || !keep || !cached)
		return 1;
	hdp_dpdk_pool_stats_get(hard, &st);
	printf("# IOVA mode %s: pool hard_0 in %u memory chunk%s\n",
	       rte_eal_iova_mode() == RTE_IOVA_PA ? "PA" : "VA", st.chunks, st.chunks == 1 ? "" : "s");

	m = write_and_free(hard, false);
	ok(m && all_bytes(m, 0), "init_on_free: a freed mbuf's data room reads back zero");
	ok(m && header_intact(m, hard), "and its header is intact (pool, buf_addr, buf_len, refcnt, segs)");
	m2 = rte_pktmbuf_alloc(hard);
	ok(m2 && header_intact(m2, hard) && all_bytes(m2, 0),
	   "the next mbuf handed out is whole and zero");
	rte_pktmbuf_free(m2);

	m = write_and_free(keep, false);
	ok(m && all_bytes(m, 0xab), "an excluded pool (init_exclude=keep_*) keeps the bytes");

	m = rte_pktmbuf_alloc(hard);
	rte_mbuf_raw_free(m);
	rte_mbuf_raw_free(m);
	rte_mempool_put(hard, foreign);
	rte_mempool_put(hard, (char *)m + 64);
	hdp_dpdk_pool_stats_get(hard, &st);
	ok(st.double_frees == 1, "a double free is refused and counted");
	ok(st.bad_frees == 2 && st.rejected == 3,
	   "a foreign and an interior pointer are refused and counted");
	ok(rte_mempool_avail_count(hard) == hard->size,
	   "and the pool still holds each object once");

	/* Every mbuf, from every chunk DPDK gave: written, freed, found zero. */
	static struct rte_mbuf *all[4095];
	unsigned zero = 0, total = hard->size;
	uint64_t rejected = st.rejected;

	if (rte_pktmbuf_alloc_bulk(hard, all, total) == 0) {
		for (unsigned i = 0; i < total; i++)
			memset(all[i]->buf_addr, 0x5a, all[i]->buf_len);
		rte_pktmbuf_free_bulk(all, total);
		for (unsigned i = 0; i < total; i++)
			zero += all_bytes(all[i], 0);
	}
	hdp_dpdk_pool_stats_get(hard, &st);
	ok(zero == total && st.rejected == rejected && rte_mempool_avail_count(hard) == total,
	   "every mbuf of every chunk taken, written, freed: each back once, each data room zero");

	m = write_and_free(cached, false);
	ok(m && !all_bytes(m, 0),
	   "with a cache, rte_pktmbuf_free does not reach the driver: the bytes stay");
	m = write_and_free(cached, true);
	ok(m && all_bytes(m, 0) && header_intact(m, cached),
	   "hdp_dpdk_mbuf_free wipes the data room before the cache, header intact");

	hdp_dpdk_pool_stats_get(hard, &st);
	ok(st.bytes_wiped >= RTE_MBUF_DEFAULT_BUF_SIZE && st.is_mbuf && st.area_off == 128,
	   "counters: bytes wiped, the data room at offset 128 is what is hardened");
	ok(pool("tagged_0", 0) == NULL && rte_errno == EINVAL,
	   "a pool asking for pointer tags is not made");

	single_frees_used();
	lent_and_kept();
	pinned_external_buffers_refused();

	rte_mempool_free(hard);
	rte_mempool_free(keep);
	rte_mempool_free(cached);
	free(foreign);
	rte_eal_cleanup();
	return failed != 0;
}
