// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-pool-demo: worker threads move packet-sized objects through two
 * hardened pools the way a forwarder would (bursts in, packets written
 * with checked copies, a queue of bursts in flight, bursts out), then the
 * pools' counters are printed and checked: every object must be back in
 * its pool, and no violation may have been seen.
 */
#include <hdp/log.h>
#include <hdp/pool.h>
#include <hdp/region.h>

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

#define BURST_MAX 64
#define IN_FLIGHT 16	/* bursts a worker holds, like frames queued on a ring */
#define HEADROOM 256	/* where copy-mode AF_XDP puts a packet in its frame */

struct options {
	unsigned threads;
	unsigned seconds;
	const char *huge_dir;
	const char *harden;
	enum hdp_mem_kind mem;
	bool json;
};

static atomic_bool stop;

struct worker {
	pthread_t tid;
	unsigned seed;
	struct hdp_pool *frames;
	struct hdp_pool *meta;
	_Atomic uint64_t bursts;
};

static void on_signal(int sig)
{
	(void)sig;
	atomic_store(&stop, true);
}

static unsigned next_rand(unsigned *s)
{
	*s = *s * 1103515245u + 12345u;
	return *s >> 8;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	void *held[IN_FLIGHT][BURST_MAX];
	unsigned held_n[IN_FLIGHT] = { 0 };
	unsigned slot = 0;

	struct hdp_extent ext[IN_FLIGHT][BURST_MAX];
	char packet[1514];

	memset(packet, 0xa5, sizeof(packet));
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		unsigned want = 1 + next_rand(&w->seed) % BURST_MAX;
		void *meta;

		/* Retire the oldest burst, as TX completion would. */
		hdp_pool_free_burst_extent(w->frames, held[slot], ext[slot], held_n[slot]);
		held_n[slot] = hdp_pool_alloc_burst(w->frames, held[slot], want);
		for (unsigned i = 0; i < held_n[slot]; i++) {
			/* A packet of 60 to 1513 bytes after AF_XDP's 256-byte headroom. */
			uint32_t len = 60 + next_rand(&w->seed) % 1454;

			ext[slot][i] = (struct hdp_extent){ HEADROOM, HEADROOM + len };
			hdp_pool_copy_in(w->frames, (char *)held[slot][i] + HEADROOM, packet, len);
		}
		meta = hdp_pool_alloc(w->meta);
		if (meta)
			hdp_pool_free(w->meta, meta);
		slot = (slot + 1) % IN_FLIGHT;
		atomic_fetch_add_explicit(&w->bursts, 1, memory_order_relaxed);
	}
	for (unsigned i = 0; i < IN_FLIGHT; i++)
		hdp_pool_free_burst_extent(w->frames, held[i], ext[i], held_n[i]);
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hdp-pool-demo [--threads N] [--seconds S] [--harden SPEC]\n"
		"                     [--plain | --huge-dir DIR] [--json]\n"
		"  --threads N     worker threads (1..64, default 2)\n"
		"  --seconds S     how long to run (1..3600, default 3)\n"
		"  --harden SPEC   hardening profile overrides, e.g. \"tag=off\" or\n"
		"                  \"pool.frames.init_on_free=used\" (default: every protection)\n"
		"  --plain         plain pages instead of hugepages\n"
		"  --huge-dir DIR  back the pools with files on this hugetlbfs mount\n"
		"  --json          print the final counters as JSON\n");
}

static int parse_uint(const char *opt, const char *s, unsigned lo, unsigned hi,
		      unsigned *out)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	/* Digits only: strtoul would take a sign and leading spaces too. */
	if (errno || *s < '0' || *s > '9' || *end || v < lo || v > hi) {
		fprintf(stderr, "hdp-pool-demo: %s '%s': expected a number from %u to %u\n",
			opt, s, lo, hi);
		return -1;
	}
	*out = (unsigned)v;
	return 0;
}

static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "harden", required_argument, NULL, 'H' },
		{ "plain", no_argument, NULL, 'p' },
		{ "huge-dir", required_argument, NULL, 'd' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int c;

	*o = (struct options){ .threads = 2, .seconds = 3, .mem = HDP_MEM_AUTO };
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 't':
			if (parse_uint("--threads", optarg, 1, 64, &o->threads))
				return 2;
			break;
		case 's':
			if (parse_uint("--seconds", optarg, 1, 3600, &o->seconds))
				return 2;
			break;
		case 'p':
			o->mem = HDP_MEM_PLAIN;
			break;
		case 'H':
			o->harden = optarg;
			break;
		case 'd':
			o->mem = HDP_MEM_HUGE_FILE;
			o->huge_dir = optarg;
			break;
		case 'j':
			o->json = true;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hdp-pool-demo: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	return 0;
}

static int print_pool(struct hdp_pool *pool, void *ctx)
{
	const struct options *o = ctx;
	struct hdp_pool_stats st;
	char buf[2048];

	hdp_pool_stats_get(pool, &st);
	if (o->json)
		hdp_pool_stats_json(&st, buf, sizeof(buf));
	else
		hdp_pool_stats_text(&st, buf, sizeof(buf));
	fputs(buf, stdout);
	if (o->json)
		putchar('\n');
	return 0;
}

/* Show what the registry answers for a frame, its interior and a stranger. */
static void show_lookups(struct hdp_pool *frames)
{
	const struct hdp_layout *slots = hdp_pool_slots(frames);
	struct hdp_region info;
	int local;
	const char *probes[3];
	const char *what[3] = { "frame 5", "frame 5 + 100", "a stack variable" };
	uint32_t idx;
	size_t in_slot;

	probes[0] = (char *)hdp_pool_obj_at(frames, 5);
	probes[1] = probes[0] + 100;
	probes[2] = (const char *)&local;
	printf("region registry: %u regions\n", hdp_region_count());
	for (int i = 0; i < 3; i++) {
		if (hdp_region_find(probes[i], &info) == 0 &&
		    hdp_layout_slot(slots, (uintptr_t)probes[i], &idx, &in_slot))
			printf("  %-18s -> region '%s', object %u, offset %zu in it\n",
			       what[i], info.name, idx, in_slot);
		else if (hdp_region_find(probes[i], &info) == 0)
			printf("  %-18s -> region '%s'\n", what[i], info.name);
		else
			printf("  %-18s -> in no registered region\n", what[i]);
	}
}

/* The profile: built-in defaults, then --harden. Exits 2 on bad input. */
static void configure(const struct options *o, struct hdp_pool *frames,
		      struct hdp_pool *meta)
{
	static struct hdp_harden_config cfg;

	hdp_harden_config_init(&cfg);
	hdp_harden_config_declare(&cfg, "frames");
	hdp_harden_config_declare(&cfg, "meta");
	if ((o->harden && hdp_harden_config_parse_string(&cfg, o->harden, "--harden")) ||
	    hdp_harden_config_validate(&cfg) || hdp_pool_configure(frames, &cfg) ||
	    hdp_pool_configure(meta, &cfg)) {
		hdp_pool_destroy(meta);
		hdp_pool_destroy(frames);
		exit(2);
	}
}

static uint64_t violations_of(const struct hdp_pool_stats *st)
{
	uint64_t n = 0;

	for (unsigned k = 0; k < hdp_violation_kinds(); k++)
		n += st->harden.violations[k];
	return n;
}

int main(int argc, char **argv)
{
	struct options o;
	struct hdp_pool *frames, *meta;
	struct worker *w;
	struct hdp_pool_stats fs, ms;
	uint64_t last = 0;
	int ret = parse_options(argc, argv, &o);

	if (ret)
		return ret;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	/* 2 KiB frames at 2 KiB stride: the layout an AF_XDP UMEM wants. */
	frames = hdp_pool_create(&(struct hdp_pool_params){
		.name = "frames", .obj_size = 2048, .obj_align = 2048,
		.obj_count = 8192, .mem = o.mem, .huge_dir = o.huge_dir,
	});
	if (!frames) {
		fprintf(stderr, "hdp-pool-demo: pool 'frames': %s\n", strerror(errno));
		return 1;
	}
	meta = hdp_pool_create(&(struct hdp_pool_params){
		.name = "meta", .obj_size = 192, .obj_count = 1024, .mem = o.mem,
		.huge_dir = o.huge_dir,
	});
	if (!meta) {
		fprintf(stderr, "hdp-pool-demo: pool 'meta': %s\n", strerror(errno));
		hdp_pool_destroy(frames);
		return 1;
	}

	configure(&o, frames, meta);
	printf("hdp-pool-demo %s: %u threads for %u s, hardening: %s\n", HDP_VERSION,
	       o.threads, o.seconds, o.harden ? o.harden : "the defaults");
	w = calloc(o.threads, sizeof(*w));
	if (!w) {
		ret = 1;
		goto out;
	}
	for (unsigned i = 0; i < o.threads; i++) {
		w[i] = (struct worker){ .seed = 12345 + i, .frames = frames, .meta = meta };
		if (pthread_create(&w[i].tid, NULL, worker_main, &w[i])) {
			fprintf(stderr, "hdp-pool-demo: cannot start thread %u\n", i);
			atomic_store(&stop, true);
			o.threads = i;
			break;
		}
	}
	for (unsigned s = 0; s < o.seconds && !atomic_load(&stop); s++) {
		uint64_t bursts = 0;

		sleep(1);
		for (unsigned i = 0; i < o.threads; i++)
			bursts += atomic_load(&w[i].bursts);
		hdp_pool_stats_get(frames, &fs);
		printf("[%3us] %9llu bursts/s  frames in use %5llu  cache hits %5.1f%%\n",
		       s + 1, (unsigned long long)(bursts - last),
		       (unsigned long long)fs.in_use,
		       fs.allocs ? 100.0 * (double)fs.cache_hits / (double)fs.allocs : 0.0);
		fflush(stdout);
		last = bursts;
	}
	atomic_store(&stop, true);
	for (unsigned i = 0; i < o.threads; i++)
		pthread_join(w[i].tid, NULL);
	free(w);

	show_lookups(frames);
	hdp_pool_foreach(print_pool, &o);
	hdp_pool_stats_get(frames, &fs);
	hdp_pool_stats_get(meta, &ms);
	if (fs.in_use || ms.in_use || fs.free_shared != fs.obj_count ||
	    ms.free_shared != ms.obj_count) {
		fprintf(stderr, "hdp-pool-demo: objects missing after the run\n");
		ret = 1;
	} else if (violations_of(&fs) || violations_of(&ms)) {
		fprintf(stderr, "hdp-pool-demo: violations were reported\n");
		ret = 1;
	} else {
		printf("every object is back in its pool, no violation seen\n");
	}
out:
	hdp_pool_destroy(meta);
	hdp_pool_destroy(frames);
	return ret;
}
