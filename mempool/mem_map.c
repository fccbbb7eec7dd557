// SPDX-License-Identifier: BSD-3-Clause
#include "mem_map.h"

#include <hdp/log.h>
#include <hdp/region.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "config.h"

static size_t huge_page_size;
static pthread_once_t huge_page_once = PTHREAD_ONCE_INIT;

const char *hdp_mem_kind_name(enum hdp_mem_kind kind)
{
	switch (kind) {
	case HDP_MEM_AUTO:       return "auto";
	case HDP_MEM_HUGE_ANON:  return "huge-anon";
	case HDP_MEM_HUGE_MEMFD: return "huge-memfd";
	case HDP_MEM_HUGE_FILE:  return "huge-file";
	case HDP_MEM_PLAIN:      return "plain";
	}
	return "unknown";
}

static void read_huge_page_size(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	unsigned long kib;

	huge_page_size = (size_t)2 << 20;
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Hugepagesize: %lu kB", &kib) == 1 && kib) {
			huge_page_size = (size_t)kib << 10;
			break;
		}
	}
	fclose(f);
}

size_t mem_huge_page_size(void)
{
	pthread_once(&huge_page_once, read_huge_page_size);
	return huge_page_size;
}

static size_t round_up(size_t n, size_t to)
{
	return (n + to - 1) / to * to;
}

static long huge_pages_free(void)
{
	FILE *f = fopen("/proc/meminfo", "re");
	char line[128];
	long n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Free: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* Every map_* puts the region at *base, inside its guarded reservation. */
static int map_shared_fd(int fd, size_t len, void **base)
{
	void *p;

	if (ftruncate(fd, (off_t)len) < 0)
		return -errno;
	p = mmap(*base, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
	if (p == MAP_FAILED)
		return -errno;
	return 0;
}

static int map_huge_anon(size_t len, void **base)
{
	/* Never MAP_NORESERVE: hugepages are reserved now, or mmap fails. */
	void *p = mmap(*base, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	return 0;
}

static int map_huge_memfd(const char *who, size_t len, void **base)
{
	int fd, ret;

	if (!HDP_HAVE_MEMFD_HUGETLB)
		return -EOPNOTSUPP;
	fd = memfd_create(who, MFD_CLOEXEC | MFD_HUGETLB);
	if (fd < 0)
		return -errno;
	ret = map_shared_fd(fd, len, base);
	close(fd);
	return ret;
}

/* A file on hugetlbfs that no one can see: O_TMPFILE, or create and unlink. */
static int open_hidden_file(const char *dir, const char *who)
{
	char path[4096];
	int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
		return fd;
	if ((size_t)snprintf(path, sizeof(path), "%s/hdp-%s-XXXXXX", dir, who) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	fd = mkostemp(path, O_CLOEXEC);
	if (fd >= 0)
		unlink(path);
	return fd;
}

/* A bad directory is the user's mistake: said once, never a fallback. */
static int check_huge_dir(const char *dir, const char *who)
{
	struct statfs fs;
	int ret;

	if (!dir || !*dir) {
		hdp_log(HDP_LOG_ERR, "pool '%s': huge-file memory needs a hugetlbfs directory",
			who);
		return -EINVAL;
	}
	if (statfs(dir, &fs) < 0) {
		ret = -errno;
		hdp_log(HDP_LOG_ERR, "pool '%s': huge directory %s: %s", who, dir,
			strerror(-ret));
		return ret;
	}
	if (fs.f_type != HUGETLBFS_MAGIC) {
		hdp_log(HDP_LOG_ERR, "pool '%s': huge directory %s is not a hugetlbfs mount",
			who, dir);
		return -EINVAL;
	}
	return 0;
}

static int map_huge_file(const char *dir, const char *who, size_t len,
			 void **base)
{
	int fd, ret;

	fd = open_hidden_file(dir, who);
	if (fd < 0) {
		ret = -errno;
		hdp_log(HDP_LOG_ERR, "pool '%s': cannot create a file in %s: %s", who,
			dir, strerror(-ret));
		return ret;
	}
	ret = map_shared_fd(fd, len, base);
	close(fd);
	return ret;
}

/*
 * Plain pages, at a 2 MiB boundary like hugepages (the reservation's):
 * then no other region shares the pool's first granule in the O(1) region
 * lookup, and transparent hugepages can back it.
 */
static int map_plain(size_t len, void **base)
{
	void *p = mmap(*base, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);

	if (p == MAP_FAILED)
		return -errno;
	/* Transparent hugepages where the kernel can: fewer TLB misses. */
	if (HDP_HAVE_MADV_HUGEPAGE)
		madvise(p, len, MADV_HUGEPAGE);
	return 0;
}

/*
 * Address space for a region of @len with a guard of @g on each side,
 * the region at a @g boundary (hugepages need theirs): inaccessible, costing no
 * memory. The region is then mapped over its middle (MAP_FIXED); the
 * guards stay PROT_NONE, so a run off either end faults (guard.c names
 * the pool).
 */
static int reserve(size_t len, size_t g, void **base)
{
	char *raw = mmap(NULL, len + 3 * g, PROT_NONE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *p, *end;

	if (raw == MAP_FAILED)
		return -errno;
	p = (char *)(((uintptr_t)raw + g + g - 1) & ~(uintptr_t)(g - 1));
	end = p + len + g;
	if (p - g > raw)
		munmap(raw, (size_t)(p - g - raw));
	if (raw + len + 3 * g > end)
		munmap(end, (size_t)(raw + len + 3 * g - end));
	*base = p;
	return 0;
}

static void unreserve(void *base, size_t len, size_t g)
{
	munmap((char *)base - g, len + 2 * g);
}

/* Failures that mean "no hugepages to be had", as opposed to bad input. */
static bool is_shortage(int err)
{
	return err == -ENOMEM || err == -ENOSPC || err == -EOPNOTSUPP ||
	       err == -EINVAL || err == -ENOSYS;
}

int mem_map(size_t want, enum hdp_mem_kind kind, const char *huge_dir,
	    bool allow_fallback, const char *who, struct mem_mapping *out)
{
	size_t huge = mem_huge_page_size();
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int ret;

	memset(out, 0, sizeof(*out));
	if (kind == HDP_MEM_AUTO)
		kind = HDP_MEM_HUGE_ANON;
	if (kind == HDP_MEM_HUGE_FILE) {
		ret = check_huge_dir(huge_dir, who);
		if (ret)
			return ret;
	}
	if (kind != HDP_MEM_PLAIN) {
		out->len = round_up(want, huge);
		out->page_size = huge;
		out->kind = kind;
		out->guard = huge > MEM_GUARD ? huge : MEM_GUARD;
		ret = reserve(out->len, out->guard, &out->base);
		switch (ret ? HDP_MEM_AUTO : kind) {
		case HDP_MEM_AUTO:
			break;	/* no address space: ret says why */
		case HDP_MEM_HUGE_MEMFD:
			ret = map_huge_memfd(who, out->len, &out->base);
			break;
		case HDP_MEM_HUGE_FILE:
			ret = map_huge_file(huge_dir, who, out->len, &out->base);
			break;
		default:
			ret = map_huge_anon(out->len, &out->base);
			break;
		}
		if (ret == 0)
			return 0;
		if (out->base)
			unreserve(out->base, out->len, out->guard);
		out->base = NULL;
		if (!allow_fallback || !is_shortage(ret)) {
			hdp_log(HDP_LOG_ERR, "pool '%s': cannot map %zu bytes of hugepages: %s (HugePages_Free %ld)",
				who, out->len, strerror(-ret), huge_pages_free());
			return ret;
		}
		hdp_log(HDP_LOG_WARN, "pool '%s': no hugepages for %zu KiB (HugePages_Free %ld: %s), using %zu KiB pages; reserve with: echo N > /proc/sys/vm/nr_hugepages",
			who, out->len >> 10, huge_pages_free(), strerror(-ret),
			page >> 10);
		out->fallback = true;
	}
	out->len = round_up(want, page);
	out->page_size = page;
	out->kind = HDP_MEM_PLAIN;
	out->base = NULL;
	out->guard = MEM_GUARD;
	ret = reserve(out->len, out->guard, &out->base);
	if (!ret) {
		ret = map_plain(out->len, &out->base);
		if (ret)
			unreserve(out->base, out->len, out->guard);
	}
	if (ret) {
		out->base = NULL;
		hdp_log(HDP_LOG_ERR, "pool '%s': cannot map %zu bytes: %s", who,
			out->len, strerror(-ret));
	}
	return ret;
}

void mem_unmap(struct mem_mapping *m)
{
	if (m->base)
		unreserve(m->base, m->len, m->guard);
	m->base = NULL;
}
