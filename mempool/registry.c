// SPDX-License-Identifier: BSD-3-Clause
/*
 * Region registry: a sorted array of non-overlapping regions behind a
 * read-write lock. Registration is rare (pool creation); lookups binary
 * search. Fast-path bounds lookups keep their own indexes (hardening/).
 */
#include <hdp/region.h>

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <pthread.h>
#include <string.h>

static pthread_rwlock_t registry_lock = PTHREAD_RWLOCK_INITIALIZER;
static struct hdp_region_info regions[HDP_REGION_MAX];
static unsigned region_count;
static int next_id;

/* Index of the first region whose base is above @addr. */
static unsigned upper_bound(uintptr_t addr)
{
	unsigned lo = 0, hi = region_count;

	while (lo < hi) {
		unsigned mid = lo + (hi - lo) / 2;

		if (regions[mid].base <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool overlaps(unsigned pos, uintptr_t base, size_t len)
{
	if (pos > 0) {
		const struct hdp_region_info *prev = &regions[pos - 1];

		if (base - prev->base < prev->len)
			return true;
	}
	if (pos < region_count && regions[pos].base - base < len)
		return true;
	return false;
}

int hdp_region_register(const char *name, const void *base, size_t len,
			size_t obj_stride, uint32_t obj_count)
{
	uintptr_t b = (uintptr_t)base;
	size_t name_len = name ? strnlen(name, HDP_REGION_NAME_MAX) : 0;
	unsigned pos;
	int id;

	if (!base || len == 0 || b + len < b || b + len == 0)
		return -EINVAL;
	if (name_len == 0 || name_len >= HDP_REGION_NAME_MAX)
		return -EINVAL;

	pthread_rwlock_wrlock(&registry_lock);
	if (region_count == HDP_REGION_MAX) {
		pthread_rwlock_unlock(&registry_lock);
		return -ENOSPC;
	}
	pos = upper_bound(b);
	if (overlaps(pos, b, len)) {
		pthread_rwlock_unlock(&registry_lock);
		return -EEXIST;
	}
	memmove(&regions[pos + 1], &regions[pos],
		(region_count - pos) * sizeof(regions[0]));
	region_count++;
	id = next_id;
	next_id = next_id == INT_MAX ? 0 : next_id + 1;
	regions[pos] = (struct hdp_region_info){
		.base = b,
		.len = len,
		.obj_stride = obj_stride,
		.obj_count = obj_count,
		.id = id,
	};
	memcpy(regions[pos].name, name, name_len);
	pthread_rwlock_unlock(&registry_lock);
	return id;
}

int hdp_region_unregister(int id)
{
	int ret = -ENOENT;

	pthread_rwlock_wrlock(&registry_lock);
	for (unsigned i = 0; i < region_count; i++) {
		if (regions[i].id != id)
			continue;
		memmove(&regions[i], &regions[i + 1],
			(region_count - i - 1) * sizeof(regions[0]));
		region_count--;
		ret = 0;
		break;
	}
	pthread_rwlock_unlock(&registry_lock);
	return ret;
}

int hdp_region_find(const void *addr, struct hdp_region_info *out)
{
	uintptr_t a = (uintptr_t)addr;
	int ret = -ENOENT;
	unsigned pos;

	pthread_rwlock_rdlock(&registry_lock);
	pos = upper_bound(a);
	if (pos > 0 && a - regions[pos - 1].base < regions[pos - 1].len) {
		if (out)
			*out = regions[pos - 1];
		ret = 0;
	}
	pthread_rwlock_unlock(&registry_lock);
	return ret;
}

unsigned hdp_region_count(void)
{
	unsigned n;

	pthread_rwlock_rdlock(&registry_lock);
	n = region_count;
	pthread_rwlock_unlock(&registry_lock);
	return n;
}
