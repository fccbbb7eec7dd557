// SPDX-License-Identifier: BSD-3-Clause
/*
 * Region registry: slots holding the regions, a lock for writers and tree
 * readers, and the two indexes kept in step. Slots are reused round robin,
 * so a lookup racing an unregistration (a caller's bug anyway) reads an
 * old region rather than a half-written new one.
 */
#include "region_internal.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <string.h>

struct hdp_region region_slots[HDP_REGION_MAX];
bool region_slot_used[HDP_REGION_MAX];

static pthread_rwlock_t registry_lock = PTHREAD_RWLOCK_INITIALIZER;
static unsigned region_count;
static int next_slot;
static int next_id;

static int take_slot(void)
{
	for (int i = 0; i < HDP_REGION_MAX; i++) {
		int s = (next_slot + i) % HDP_REGION_MAX;

		if (!region_slot_used[s]) {
			next_slot = (s + 1) % HDP_REGION_MAX;
			return s;
		}
	}
	return REGION_NONE;
}

int hdp_region_register(const struct hdp_region_desc *d)
{
	uintptr_t b = d ? (uintptr_t)d->base : 0;
	size_t name_len = d && d->name ? strnlen(d->name, HDP_REGION_NAME_MAX) : 0;
	int slot, ret;

	if (!b || d->len == 0 || b + d->len < b ||
	    (b + d->len - 1) >> REGION_VA_BITS)
		return -EINVAL;
	if (name_len == 0 || name_len >= HDP_REGION_NAME_MAX)
		return -EINVAL;

	pthread_rwlock_wrlock(&registry_lock);
	if (region_tree_first_overlap(b, d->len) != REGION_NONE) {
		ret = -EEXIST;
		goto out;
	}
	slot = take_slot();
	if (slot == REGION_NONE) {
		ret = -ENOSPC;
		goto out;
	}
	region_slots[slot] = (struct hdp_region){
		.base = b,
		.len = d->len,
		.id = next_id,
		.owner = d->owner,
	};
	memcpy(region_slots[slot].name, d->name, name_len);
	region_tree_insert(slot);
	ret = region_fast_update(b, d->len);
	if (ret) {
		region_tree_remove(slot);
		region_fast_update(b, d->len);
		goto out;
	}
	region_slot_used[slot] = true;
	region_count++;
	ret = next_id;
	next_id = next_id == INT_MAX ? 0 : next_id + 1;
out:
	pthread_rwlock_unlock(&registry_lock);
	return ret;
}

int hdp_region_unregister(int id)
{
	int ret = -ENOENT;

	pthread_rwlock_wrlock(&registry_lock);
	for (int s = 0; s < HDP_REGION_MAX; s++) {
		if (!region_slot_used[s] || region_slots[s].id != id)
			continue;
		region_tree_remove(s);
		region_fast_update(region_slots[s].base, region_slots[s].len);
		region_slot_used[s] = false;
		region_count--;
		ret = 0;
		break;
	}
	pthread_rwlock_unlock(&registry_lock);
	return ret;
}

const struct hdp_region *hdp_region_lookup_tree(uintptr_t addr)
{
	int s;

	addr = region_untag(addr);
	pthread_rwlock_rdlock(&registry_lock);
	s = region_tree_find(addr);
	pthread_rwlock_unlock(&registry_lock);
	return s == REGION_NONE ? NULL : &region_slots[s];
}

const struct hdp_region *hdp_region_lookup_fast(uintptr_t addr)
{
	return region_lookup_fast_inline(addr);
}

const struct hdp_region *hdp_region_lookup(uintptr_t addr,
					   enum hdp_region_lookup how)
{
	return how == HDP_LOOKUP_TREE ? hdp_region_lookup_tree(addr)
				      : hdp_region_lookup_fast(addr);
}

int hdp_region_find(const void *addr, struct hdp_region *out)
{
	uintptr_t a = region_untag((uintptr_t)addr);
	int s, ret = -ENOENT;

	pthread_rwlock_rdlock(&registry_lock);
	s = region_tree_find(a);
	if (s != REGION_NONE) {
		if (out)
			*out = region_slots[s];
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
