// SPDX-License-Identifier: BSD-3-Clause
#include "support.h"

#include <hdp/log.h>
#include <hdp/pool.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char logbuf[16384];
static size_t loglen;

static void sink(void *ctx, enum hdp_log_level level, const char *msg)
{
	int n;

	(void)ctx;
	n = snprintf(logbuf + loglen, sizeof(logbuf) - loglen, "%s: %s\n",
		     hdp_log_level_name(level), msg);
	if (n > 0)
		loglen += (size_t)n < sizeof(logbuf) - loglen ? (size_t)n
							       : sizeof(logbuf) - loglen - 1;
}

void capture_logs(void)
{
	clear_logs();
	hdp_log_set_sink(sink, NULL);
}

void clear_logs(void)
{
	loglen = 0;
	logbuf[0] = '\0';
}

bool log_contains(const char *needle)
{
	return strstr(logbuf, needle) != NULL;
}

const char *captured_logs(void)
{
	return logbuf;
}

long meminfo(const char *key)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[256];
	size_t klen = strlen(key);
	long v = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			sscanf(line + klen + 1, "%ld", &v);
			break;
		}
	}
	fclose(f);
	return v;
}

long hugepages_available(void)
{
	long free_pages = meminfo("HugePages_Free");
	long rsvd = meminfo("HugePages_Rsvd");

	if (free_pages < 0 || rsvd < 0)
		return 0;
	return free_pages - rsvd;
}

long hugepages_beyond_any(void)
{
	long total = meminfo("HugePages_Total");
	long surplus = 0;
	FILE *f = fopen("/proc/sys/vm/nr_overcommit_hugepages", "re");

	if (f) {
		if (fscanf(f, "%ld", &surplus) != 1)
			surplus = 0;
		fclose(f);
	}
	return (total < 0 ? 0 : total) + surplus + 1;
}

long kernel_page_kib(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[512];
	unsigned long a = (unsigned long)(uintptr_t)addr, lo, hi;
	bool inside = false;
	long kib = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		/* Mapping headers are the only lines that read "lo-hi ". */
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			inside = a >= lo && a < hi;
			continue;
		}
		if (inside && sscanf(line, "KernelPageSize: %ld kB", &kib) == 1)
			break;
	}
	fclose(f);
	return inside ? kib : -1;
}

struct hdp_pool *hardened_pool(const char *name, size_t size, unsigned count,
			       unsigned flags, const char *spec)
{
	static struct hdp_harden_config cfg;
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = name, .obj_size = size, .obj_align = 16, .obj_count = count,
		.mem = HDP_MEM_PLAIN, .flags = flags,
	});

	if (!pool)
		return NULL;
	hdp_harden_config_init(&cfg);
	hdp_harden_config_declare(&cfg, name);
	if (hdp_harden_config_parse_string(&cfg, spec, "test") ||
	    hdp_harden_config_validate(&cfg) || hdp_pool_configure(pool, &cfg)) {
		hdp_pool_destroy(pool);
		return NULL;
	}
	return pool;
}

size_t nonzero_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	size_t count = 0;

	for (size_t i = 0; i < n; i++)
		count += b[i] != 0;
	return count;
}

unsigned long long violations(struct hdp_pool *pool, int kind)
{
	struct hdp_pool_stats st;

	/* violation_kind() found no such name: a test's mistake, loudly. */
	if (kind < 0 || kind >= HDP_V_MAX) {
		fprintf(stderr, "support: no violation kind %d\n", kind);
		abort();
	}
	hdp_pool_stats_get(pool, &st);
	return (unsigned long long)st.harden.violations[kind];
}

unsigned long long all_violations(struct hdp_pool *pool)
{
	unsigned long long n = 0;

	for (unsigned k = 0; k < hdp_violation_kinds(); k++)
		n += violations(pool, (int)k);
	return n;
}

int violation_kind(const char *name)
{
	for (unsigned k = 0; k < hdp_violation_kinds(); k++)
		if (strcmp(hdp_violation_name((enum hdp_violation_kind)k), name) == 0)
			return (int)k;
	return -1;
}

int configure_without_reuse_hooks(const char *spec)
{
	static char mem[4096];
	static struct hdp_harden_config cfg;
	struct hdp_harden_pool hp;
	int ret;

	ret = hdp_harden_pool_init(&hp, &(struct hdp_harden_pool_desc){
		.name = "dpdk-like",
		.layout = { .base = (uintptr_t)mem, .obj_size = 64, .stride = 64, .slots = 64 },
	});
	if (ret)
		return ret;
	hdp_harden_config_init(&cfg);
	ret = hdp_harden_config_parse_string(&cfg, spec, "test");
	if (!ret)
		ret = hdp_harden_pool_configure(&hp, &cfg);
	hdp_harden_pool_fini(&hp);
	return ret;
}

/* As an apply would, under its lock: the next one that turns something on starts epoch + 1. */
static void set_epochs(struct hdp_pool *pool, uint64_t core, uint64_t prot, bool set_core)
{
	struct hdp_harden_pool *hp = hdp_pool_harden(pool);
	uint64_t e;

	pthread_mutex_lock(&hp->apply_lock);
	e = atomic_load_explicit(&hp->epoch, memory_order_relaxed);
	if (set_core)
		e = core << 32 | hdp_epoch_protections(e);
	else
		e = hdp_epoch_core(e) << 32 | prot;
	atomic_store_explicit(&hp->epoch, e, memory_order_release);
	pthread_mutex_unlock(&hp->apply_lock);
}

void set_epoch(struct hdp_pool *pool, uint64_t epoch)
{
	set_epochs(pool, epoch, 0, true);
}

void set_protections_epoch(struct hdp_pool *pool, uint32_t epoch)
{
	set_epochs(pool, 0, epoch, false);
}
