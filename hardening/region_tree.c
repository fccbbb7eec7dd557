// SPDX-License-Identifier: BSD-3-Clause
/*
 * An AVL tree of regions keyed by base address, the analogue of the
 * kernel's vmap_area rbtree. Nodes are the registry's slots; links live in
 * arrays beside them. Callers hold the registry lock.
 */
#include "region_internal.h"

static int16_t left[HDP_REGION_MAX], right[HDP_REGION_MAX];
static int8_t height[HDP_REGION_MAX];
static int root = REGION_NONE;

static inline uintptr_t key(int s)
{
	return region_slots[s].base;
}

static inline int h(int s)
{
	return s == REGION_NONE ? 0 : height[s];
}

static void update(int s)
{
	int hl = h(left[s]), hr = h(right[s]);

	height[s] = (int8_t)(1 + (hl > hr ? hl : hr));
}

static int rotate_right(int s)
{
	int l = left[s];

	left[s] = right[l];
	right[l] = (int16_t)s;
	update(s);
	update(l);
	return l;
}

static int rotate_left(int s)
{
	int r = right[s];

	right[s] = left[r];
	left[r] = (int16_t)s;
	update(s);
	update(r);
	return r;
}

static int balance(int s)
{
	int bf;

	update(s);
	bf = h(left[s]) - h(right[s]);
	if (bf > 1) {
		if (h(left[left[s]]) < h(right[left[s]]))
			left[s] = (int16_t)rotate_left(left[s]);
		return rotate_right(s);
	}
	if (bf < -1) {
		if (h(right[right[s]]) < h(left[right[s]]))
			right[s] = (int16_t)rotate_right(right[s]);
		return rotate_left(s);
	}
	return s;
}

static int insert(int node, int s)
{
	if (node == REGION_NONE) {
		left[s] = right[s] = REGION_NONE;
		height[s] = 1;
		return s;
	}
	if (key(s) < key(node))
		left[node] = (int16_t)insert(left[node], s);
	else
		right[node] = (int16_t)insert(right[node], s);
	return balance(node);
}

static int remove_min(int node, int *min)
{
	if (left[node] == REGION_NONE) {
		*min = node;
		return right[node];
	}
	left[node] = (int16_t)remove_min(left[node], min);
	return balance(node);
}

static int remove_node(int node, int s)
{
	int min;

	if (node == REGION_NONE)
		return REGION_NONE;
	if (key(s) < key(node)) {
		left[node] = (int16_t)remove_node(left[node], s);
	} else if (key(s) > key(node)) {
		right[node] = (int16_t)remove_node(right[node], s);
	} else {
		if (right[node] == REGION_NONE)
			return left[node];
		right[node] = (int16_t)remove_min(right[node], &min);
		left[min] = left[node];
		right[min] = right[node];
		return balance(min);
	}
	return balance(node);
}

void region_tree_insert(int slot)
{
	root = insert(root, slot);
}

void region_tree_remove(int slot)
{
	root = remove_node(root, slot);
}

/* The region with the greatest base <= addr. */
static int floor_of(uintptr_t addr)
{
	int node = root, best = REGION_NONE;

	while (node != REGION_NONE) {
		if (key(node) <= addr) {
			best = node;
			node = right[node];
		} else {
			node = left[node];
		}
	}
	return best;
}

/* The region with the smallest base > addr. */
static int above(uintptr_t addr)
{
	int node = root, best = REGION_NONE;

	while (node != REGION_NONE) {
		if (key(node) > addr) {
			best = node;
			node = left[node];
		} else {
			node = right[node];
		}
	}
	return best;
}

int region_tree_find(uintptr_t addr)
{
	int s = floor_of(addr);

	if (s != REGION_NONE && addr - region_slots[s].base < region_slots[s].len)
		return s;
	return REGION_NONE;
}

int region_tree_first_overlap(uintptr_t base, size_t len)
{
	int s = floor_of(base);

	if (s != REGION_NONE && base - region_slots[s].base < region_slots[s].len)
		return s;
	s = above(base);
	if (s != REGION_NONE && region_slots[s].base - base < len)
		return s;
	return REGION_NONE;
}
