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
 * freed.
 */
#include <hdp/protection.h>

#include <errno.h>
#include <stdlib.h>
#include <sys/random.h>

enum { KEY_ON };
enum { C_SHUFFLED };

struct shuffle_thread {
	uint64_t s;	/* xorshift64 state, never 0 */
};

static struct shuffle_thread *thread_rng(void **state)
{
	struct shuffle_thread *r = *state;

	if (hdp_likely(r != NULL))
		return r;
	r = malloc(sizeof(*r));
	if (!r)
		return NULL;
	if (getrandom(&r->s, sizeof(r->s), 0) != sizeof(r->s))
		r->s = (uint64_t)(uintptr_t)r * 0x9e3779b97f4a7c15ull;
	r->s |= 1;
	*state = r;
	return r;
}

static inline uint64_t next(struct shuffle_thread *r)
{
	uint64_t x = r->s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	r->s = x;
	return x;
}

/* A number below @bound, from the high bits (no division, bias < 2^-32). */
static inline unsigned below(struct shuffle_thread *r, unsigned bound)
{
	return (unsigned)(((next(r) >> 32) * bound) >> 32);
}

static void shuffle_pick(const struct hdp_protection_burst *b, void **stack, unsigned len,
			 unsigned n)
{
	struct shuffle_thread *r = thread_rng(b->thread_state);

	/* No memory for the state: hand them out in stack order this time. */
	if (!r)
		return;
	for (unsigned i = 0; i < n; i++) {
		unsigned top = len - 1 - i, j = below(r, top + 1);
		void *x = stack[top];

		stack[top] = stack[j];
		stack[j] = x;
	}
	hdp_protection_count(b, C_SHUFFLED, n);
}

static int shuffle_attach(struct hdp_protection_pool *pp, const uint32_t *values,
			  const char **why)
{
	(void)values;
	if (!pp->reuse_hooks) {
		*why = "this pool hands objects out in its own order (a DPDK mempool: its "
		       "reuse queues and ring are FIFO)";
		return -EINVAL;
	}
	return 0;
}

static const struct hdp_protection_key shuffle_keys[] = {
	[KEY_ON] = { "shuffle", HDP_VALUE_BOOL, .def = 0,
		     .doc = "hand a thread's cached objects out in a random order" },
};

static const struct hdp_protection_name shuffle_counters[] = {
	[C_SHUFFLED] = { "shuffled", "objects handed out from a random place in the cache" },
};


const struct hdp_protection hdp_shuffle = {
	.name = "shuffle",
	.doc = "a thread's cache hands objects out in a random order",
	.keys = shuffle_keys, .nkeys = HDP_ARRAY_SIZE(shuffle_keys),
	.counters = shuffle_counters, .ncounters = HDP_ARRAY_SIZE(shuffle_counters),
	.attach = shuffle_attach,
	.pick = shuffle_pick,
	.thread_release = hdp_protection_thread_state_free,
};
