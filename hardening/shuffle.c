// SPDX-License-Identifier: BSD-3-Clause
/*
 * shuffle: a thread's cache hands its objects out in a random order.
 *
 * A cache is a stack: the frame a packet gets is the one the last packet
 * left, so an attacker who sees one frame's address (or who groomed it)
 * knows the next. With shuffle, each object taken off the top is first
 * swapped with one drawn at random from the whole cache (a partial
 * Fisher-Yates over the objects taken), as hardened_malloc randomises
 * slot reuse. The random numbers are per thread and pool, seeded from
 * getrandom(). Cost: a random number and a swap of two pointers in the
 * cache per object; the objects come back less warm than the last one
 * freed. A pool without thread caches (a DPDK mempool: its ring is FIFO)
 * has nothing to reorder, and refuses it.
 */
#include "harden_internal.h"

#include <errno.h>
#include <sys/random.h>

int shuffle_prepare(struct hdp_harden_pool *hp, const struct hdp_profile *p, const char **why)
{
	if (p->shuffle && (!hp->ops || !hp->ops->cache)) {
		*why = "this pool hands objects out in its own order (a DPDK mempool: its ring "
		       "is FIFO)";
		return -EINVAL;
	}
	return 0;
}

/* The thread's generator, seeded at its first draw; never 0. */
static inline uint64_t *thread_rng(struct hdp_harden_tls *t)
{
	if (hdp_unlikely(!t->shuffle_rng)) {
		if (getrandom(&t->shuffle_rng, sizeof(t->shuffle_rng), 0) !=
		    sizeof(t->shuffle_rng))
			t->shuffle_rng = (uint64_t)(uintptr_t)t * 0x9e3779b97f4a7c15ull;
		t->shuffle_rng |= 1;
	}
	return &t->shuffle_rng;
}

/* A number below @bound, from the high bits (no division, bias < 2^-32). */
static inline unsigned below(uint64_t *rng, unsigned bound)
{
	return (unsigned)(((hdp_xorshift(rng) >> 32) * bound) >> 32);
}

void shuffle_pick(struct hdp_harden_tls *t, void **stack, unsigned len, unsigned n)
{
	uint64_t *rng = thread_rng(t);

	for (unsigned i = 0; i < n; i++) {
		unsigned top = len - 1 - i, j = below(rng, top + 1);
		void *x = stack[top];

		stack[top] = stack[j];
		stack[j] = x;
	}
	hdp_counter_add(&t->c.n[HDP_C_SHUFFLED], n);
}
