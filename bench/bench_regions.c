// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-bench regions: what a bounds-checked copy costs as the number of
 * registered regions grows, for bounds=off, bounds_lookup=tree (the
 * kernel's find_vmap_area: a balanced tree under a lock) and
 * bounds_lookup=fast (hdp's two-level granule table). The first seed's
 * story: the tree lookup made XDP fall from 25 to 8 Gbit/s.
 */
#include "bench.h"

#include <hdp/pool.h>
#include <hdp/region.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define COPY_BYTES 64
#define OBJS 1024

static const char *const modes[] = { "off", "tree", "fast" };
static const char *const specs[] = {
	"bounds=off,tag=off,init_on_free=off,init_check=off",
	"bounds=on,bounds_lookup=tree,tag=off,init_on_free=off,init_check=off",
	"bounds=on,bounds_lookup=fast,tag=off,init_on_free=off,init_check=off",
};

struct run {
	struct hdp_pool *pool;
	void **objs;
	unsigned long iters;
	double ns;
};

static void *copy_loop(void *arg)
{
	struct run *r = arg;
	char src[COPY_BYTES] = "the quick brown fox jumps over the lazy dog, twice";
	uint64_t t0 = bench_now_ns();

	/* Each thread its own half of the objects: no shared destination lines. */
	for (unsigned long i = 0; i < r->iters; i++)
		hdp_pool_copy_in(r->pool, r->objs[i & (OBJS / 2 - 1)], src, COPY_BYTES);
	r->ns = (double)(bench_now_ns() - t0) / (double)r->iters;
	return NULL;
}

/* ns per checked copy with @threads copying at once (median of trials). */
static double measure(struct hdp_pool *pool, void **objs, unsigned threads,
		      unsigned long iters, unsigned trials, struct bench_stat *out)
{
	double samples[BENCH_TRIALS_MAX];

	for (unsigned t = 0; t < trials; t++) {
		struct run runs[2];
		pthread_t tid[2];
		double sum = 0;

		for (unsigned i = 0; i < threads; i++) {
			runs[i] = (struct run){ .pool = pool, .objs = objs + i * OBJS / 2,
						.iters = iters };
			pthread_create(&tid[i], NULL, copy_loop, &runs[i]);
		}
		for (unsigned i = 0; i < threads; i++) {
			pthread_join(tid[i], NULL);
			sum += runs[i].ns;
		}
		samples[t] = sum / threads;
	}
	bench_stat_of(samples, trials, out);
	return out->median;
}

int bench_regions(const struct bench_opts *o)
{
	static const unsigned counts[] = { 1, 4, 16, 64, 256, 1024, 4096 };
	unsigned ncounts = HDP_ARRAY_SIZE(counts);
	unsigned long iters = o->quick ? 200000 : 2000000;
	size_t arena_len = (size_t)4096 * HDP_REGION_GRANULE;
	char *arena = mmap(NULL, arena_len, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	struct hdp_harden_config *cfg = calloc(1, sizeof(*cfg));
	static struct bench_stat st[HDP_ARRAY_SIZE(counts)][2][3];
	int *ids = calloc(4096, sizeof(int));
	struct bench_report r;
	struct hdp_pool *pool;
	void *objs[OBJS];
	int registered = 1;	/* the pool's own */
	char extra[64];

	if (arena == MAP_FAILED || !cfg || !ids)
		return 1;
	pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "bench", .obj_size = 2048, .obj_align = 2048,
		.obj_count = OBJS, .mem = HDP_MEM_AUTO,
	});
	if (!pool || hdp_pool_alloc_bulk(pool, objs, OBJS))
		return 1;
	for (unsigned c = 0; c < ncounts; c++) {
		/* Other regions, one per 2 MiB granule, like vmalloc areas. */
		for (; registered < (int)counts[c]; registered++) {
			char name[32];

			snprintf(name, sizeof(name), "area%d", registered);
			ids[registered] = hdp_region_register(&(struct hdp_region_desc){
				.name = name,
				.base = arena + (size_t)registered * HDP_REGION_GRANULE,
				.len = 65536,
			});
		}
		for (unsigned threads = 1; threads <= 2; threads++) {
			for (int m = 0; m < 3; m++) {
				hdp_harden_config_init(cfg);
				hdp_harden_config_declare(cfg, "bench");
				hdp_harden_config_parse_string(cfg, specs[m], "bench");
				hdp_pool_configure(pool, cfg);
				measure(pool, objs, threads, iters, o->trials, &st[c][threads - 1][m]);
			}
		}
		bench_progress("regions: %u done", counts[c]);
	}
	if (bench_report_open(&r, o, "regions"))
		return 1;
	bench_report_md(&r, "## regions: a bounds-checked %d-byte copy into pool memory\n\n"
			"ns per copy, median of %u trials (min-max); the ratio is to bounds=off "
			"in the same row.\n\n"
			"| regions | threads | off | tree | fast | tree/off | fast/off |\n"
			"|---:|---:|---:|---:|---:|---:|---:|\n", COPY_BYTES, o->trials);
	for (unsigned c = 0; c < ncounts; c++) {
		for (unsigned t = 0; t < 2; t++) {
			struct bench_stat *s = st[c][t];

			bench_report_md(&r, "| %u | %u | %.1f (%.1f-%.1f) | %.1f (%.1f-%.1f) | "
					"%.1f (%.1f-%.1f) | %.2f | %.2f |\n", counts[c], t + 1,
					s[0].median, s[0].min, s[0].max, s[1].median, s[1].min,
					s[1].max, s[2].median, s[2].min, s[2].max,
					s[1].median / s[0].median, s[2].median / s[0].median);
			for (int m = 0; m < 3; m++) {
				snprintf(extra, sizeof(extra), "\"regions\":%u,\"threads\":%u",
					 counts[c], t + 1);
				bench_report_run(&r, "hdp-copy", modes[m], NULL, &s[m], NULL,
						 s[m].median / s[0].median, extra);
			}
		}
	}
	bench_report_md(&r, "\nfast at %u regions / fast at 1 region (1 thread): %.2f\n",
			counts[ncounts - 1],
			st[ncounts - 1][0][2].median / st[0][0][2].median);
	bench_plot_begin(&r, "regions", "registered regions", "ns per checked copy (tree, 1 thread)");
	for (unsigned c = 0; c < ncounts; c++)
		bench_plot_point(&r, counts[c], st[c][0][1].median);
	bench_plot_end(&r);
	for (int i = 1; i < registered; i++)
		hdp_region_unregister(ids[i]);
	hdp_pool_free_burst(pool, objs, OBJS);
	hdp_pool_destroy(pool);
	munmap(arena, arena_len);
	free(cfg);
	free(ids);
	return bench_report_close(&r);
}
