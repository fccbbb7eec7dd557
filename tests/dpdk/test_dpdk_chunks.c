// SPDX-License-Identifier: BSD-3-Clause
/*
 * An hdp mempool that an application populates itself, chunk by chunk
 * (rte_mempool_populate_iova), out of address order, as TAP, twice: with
 * 3 MiB gaps between the chunks (indexed through the chunk table) and
 * back to back (close enough to be indexed as one span). Each time the
 * profile turns on only once the last object is in; then every object of
 * every chunk goes out and back as itself and is wiped, and pointers into
 * the gaps, into objects and freed twice are refused.
 * Plain pages (--no-huge): no hugepage needed.
 */
#include <hdp/dpdk.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mempool.h>

#include "tap.h"

#define ELT 2000u
#define PER_CHUNK 200u
#define CHUNKS 3u
#define OBJS (PER_CHUNK * CHUNKS)
#define REGION (8u << 20)

static bool zero(const void *p, size_t len)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < len; i++)
		if (b[i])
			return false;
	return true;
}

/*
 * One pool of three chunks at @offsets into @region (populated in that
 * order), through every check; @spanned says how hdp must index it.
 */
static void exercise(const char *name, char *region, const size_t *offsets, bool spanned)
{
	static void *objs[OBJS];
	struct hdp_dpdk_pool_stats st;
	struct rte_mempool *mp;
	size_t chunk_len;
	unsigned in_chunk[CHUNKS] = { 0 }, wiped = 0;
	int got[CHUNKS];
	bool off_before = false;
	char what[160];

	mp = rte_mempool_create_empty(name, OBJS, ELT, 0, 0, SOCKET_ID_ANY,
				      RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	if (!mp || rte_mempool_set_ops_byname(mp, HDP_DPDK_OPS_NAME, NULL)) {
		printf("Bail out! cannot make an empty pool on the hdp ops\n");
		exit(1);
	}
	/* DPDK aligns the first object: a cache line more holds 200. */
	chunk_len = PER_CHUNK * (mp->header_size + mp->elt_size + mp->trailer_size) +
		    RTE_CACHE_LINE_SIZE;
	for (unsigned k = 0; k < CHUNKS; k++) {
		got[k] = rte_mempool_populate_iova(mp, region + offsets[k], RTE_BAD_IOVA, chunk_len,
						   NULL, NULL);
		if (k == CHUNKS - 2) {
			hdp_dpdk_pool_stats_get(mp, &st);
			off_before = st.flags == 0;
		}
	}
	hdp_dpdk_pool_stats_get(mp, &st);
	snprintf(what, sizeof(what), "%s: three rte_mempool_populate_iova calls, 200 objects each, "
		 "three chunks, indexed %s", name, spanned ? "as one span" : "by the chunk table");
	ok(got[0] == PER_CHUNK && got[1] == PER_CHUNK && got[2] == PER_CHUNK &&
	   st.chunks == CHUNKS && st.spanned == spanned, what);
	snprintf(what, sizeof(what), "%s: the profile is off while objects arrive, on once the "
		 "last one is in", name);
	ok(off_before && st.flags != 0, what);

	rte_mempool_get_bulk(mp, objs, OBJS);
	for (unsigned i = 0; i < OBJS; i++) {
		for (unsigned k = 0; k < CHUNKS; k++)
			if ((char *)objs[i] >= region + offsets[k] &&
			    (char *)objs[i] < region + offsets[k] + chunk_len)
				in_chunk[k]++;
		memset(objs[i], 0xc3, ELT);
	}
	rte_mempool_put_bulk(mp, objs, OBJS);
	for (unsigned i = 0; i < OBJS; i++)
		wiped += zero(objs[i], ELT);
	hdp_dpdk_pool_stats_get(mp, &st);
	snprintf(what, sizeof(what), "%s: all 600 out and back as themselves, 200 from each chunk, "
		 "each one wiped", name);
	ok(in_chunk[0] == PER_CHUNK && in_chunk[1] == PER_CHUNK && in_chunk[2] == PER_CHUNK &&
	   wiped == OBJS && st.rejected == 0 && rte_mempool_avail_count(mp) == OBJS, what);

	/* Below the pool, past the last object of a chunk, inside an object. */
	rte_mempool_put(mp, region + 8);
	rte_mempool_put(mp, region + offsets[2] + chunk_len + 64);
	rte_mempool_put(mp, (char *)objs[OBJS / 2] + 64);
	hdp_dpdk_pool_stats_get(mp, &st);
	snprintf(what, sizeof(what), "%s: pointers below it, past a chunk's last object and into "
		 "an object are refused; the pool is unchanged", name);
	ok(st.bad_frees == 3 && rte_mempool_avail_count(mp) == OBJS, what);

	rte_mempool_get_bulk(mp, objs, OBJS);
	rte_mempool_put_bulk(mp, objs, 10);
	rte_mempool_put_bulk(mp, objs, 10);
	hdp_dpdk_pool_stats_get(mp, &st);
	snprintf(what, sizeof(what), "%s: ten double frees refused, each object still once in the "
		 "pool", name);
	ok(st.double_frees == 10 && rte_mempool_avail_count(mp) == 10, what);

	/* A write into a freed object of the lowest chunk, found when it is handed out. */
	rte_mempool_put_bulk(mp, objs + 10, OBJS - 10);
	for (unsigned i = 0; i < OBJS; i++)
		if ((char *)objs[i] < region + offsets[2] + chunk_len) {
			((char *)objs[i])[ELT - 1] = 7;
			break;
		}
	rte_mempool_get_bulk(mp, objs, OBJS);
	rte_mempool_put_bulk(mp, objs, OBJS);
	hdp_dpdk_pool_stats_get(mp, &st);
	snprintf(what, sizeof(what), "%s: a write after free in the last chunk found on "
		 "allocation; every object back; 14 violations, each of them above", name);
	ok(st.writes_after_free == 1 && rte_mempool_avail_count(mp) == OBJS && st.violations == 14,
	   what);
	rte_mempool_free(mp);
}

int main(void)
{
	char *eal[] = { "test_dpdk_chunks", "-l", "0", "--no-huge", "-m", "64", "--no-pci",
			"--no-telemetry", "--log-level=lib.eal:error", NULL };
	size_t sparse[CHUNKS], dense[CHUNKS];
	char *region;

	if (getuid() != 0) {
		printf("1..0 # SKIP needs root (EAL)\n");
		return 0;
	}
	setenv("HDP_HARDEN", "init_on_free=on,init_check=on,init_check_sample=1,on_violation=report", 1);
	if (rte_eal_init(9, eal) < 0) {
		printf("1..0 # SKIP EAL cannot start here: %s\n", rte_strerror(rte_errno));
		return 0;
	}
	printf("1..12\n");
	region = mmap(NULL, REGION, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED) {
		printf("Bail out! no memory for the chunks\n");
		return 1;
	}
	/* Highest first, lowest last, unaligned starts. */
	sparse[0] = 6 * (REGION / 8) + 8;
	sparse[1] = 3 * (REGION / 8) + 24;
	sparse[2] = 4096 + 40;
	exercise("sparse_0", region, sparse, false);
	memset(region, 0, REGION);
	/* 512 KiB apart (chunks of about 420 KiB), the same reversed order: one span. */
	dense[2] = 4096 + 40;
	dense[1] = dense[2] + (512u << 10);
	dense[0] = dense[1] + (512u << 10);
	exercise("dense_0", region, dense, true);
	munmap(region, REGION);
	rte_eal_cleanup();
	return failed != 0;
}
