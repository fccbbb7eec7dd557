// SPDX-License-Identifier: BSD-3-Clause
/*
 * The floors of quarantine and shuffle, measured: two protections of
 * hdp-bench's own, written against the public plug-in API (hdp/protection.h)
 * as a third party would write them, that do nothing but what costs a
 * delayed or a random reuse. bench_delay holds freed frames in a FIFO of
 * the depth it is given and checks nothing; bench_permute reorders a
 * thread's cache as shuffle does, with no random number drawn (it reads
 * a table filled once). What they add over off is what any quarantine of
 * that depth, or any shuffle, must cost: frames that come back cold.
 */
#include "bench.h"

#include <hdp/protection.h>

#include <errno.h>
#include <stdlib.h>

#define DELAY_MAX 4096
#define FIFO_CAP 8192	/* a power of 2 past DELAY_MAX + a burst */

struct fifo {
	unsigned head, len;
	void *objs[FIFO_CAP];
};

static int reuse_attach(struct hdp_protection_pool *pp, const uint32_t *values,
			const char **why)
{
	(void)values;
	if (!pp->reuse_hooks) {
		*why = "this pool calls no reuse hooks";
		return -EINVAL;
	}
	return 0;
}

static unsigned fifo_take(struct fifo *q, void **out, unsigned n)
{
	n = n < q->len ? n : q->len;
	for (unsigned i = 0; i < n; i++)
		out[i] = q->objs[(q->head + i) & (FIFO_CAP - 1)];
	q->head = (q->head + n) & (FIFO_CAP - 1);
	q->len -= n;
	return n;
}

/* In go @n frames; out come the oldest past the depth, as many as there is room for. */
static unsigned delay_hold(const struct hdp_protection_burst *b, void **objs, unsigned n,
			   unsigned cap)
{
	struct fifo *q = *b->thread_state;
	uint32_t depth = b->values[0];

	if (!q) {
		q = calloc(1, sizeof(*q));
		if (!q)
			return n;	/* no memory: nothing held, as without it */
		*b->thread_state = q;
	}
	if (q->len + n > FIFO_CAP)
		return n;
	for (unsigned i = 0; i < n; i++)
		q->objs[(q->head + q->len + i) & (FIFO_CAP - 1)] = objs[i];
	q->len += n;
	return q->len > depth ? fifo_take(q, objs, q->len - depth < cap ? q->len - depth : cap)
			      : 0;
}

static unsigned delay_drain(const struct hdp_protection_burst *b, void **out, unsigned max)
{
	struct fifo *q = *b->thread_state;

	return q ? fifo_take(q, out, max) : 0;
}

static const struct hdp_protection_key delay_keys[] = {
	{ "bench_delay", HDP_VALUE_UINT, .min = 0, .max = DELAY_MAX, .def = 0,
	  .doc = "hdp-bench: hold freed objects behind this many frees, nothing else" },
};

static const struct hdp_protection bench_delay = {
	.name = "bench_delay",
	.doc = "hdp-bench's floor of a quarantine: a FIFO, no checks",
	.keys = delay_keys, .nkeys = 1,
	.attach = reuse_attach,
	.hold = delay_hold, .drain = delay_drain,
	.thread_release = hdp_protection_thread_state_free,
};

/* Random words drawn once: picking reads them, draws none. */
static uint32_t draws[4096];
static unsigned next_draw;

/* shuffle's swaps (top of the stack with a random place below), from the table. */
static void permute_pick(const struct hdp_protection_burst *b, void **stack, unsigned len,
			 unsigned n)
{
	(void)b;
	for (unsigned i = 0; i < n; i++) {
		unsigned top = len - 1 - i;
		unsigned j = (unsigned)(((uint64_t)draws[next_draw++ & 4095] * (top + 1)) >> 32);
		void *x = stack[top];

		stack[top] = stack[j];
		stack[j] = x;
	}
}

static const struct hdp_protection_key permute_keys[] = {
	{ "bench_permute", HDP_VALUE_BOOL, .def = 0,
	  .doc = "hdp-bench: hand objects out in shuffle's order, drawing nothing" },
};

static const struct hdp_protection bench_permute = {
	.name = "bench_permute",
	.doc = "hdp-bench's floor of a shuffle: a permutation from a table",
	.keys = permute_keys, .nkeys = 1,
	.attach = reuse_attach,
	.pick = permute_pick,
};

int bench_reuse_register(void)
{
	uint64_t x = 0x9e3779b97f4a7c15ull;
	int ret;

	for (unsigned i = 0; i < HDP_ARRAY_SIZE(draws); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		draws[i] = (uint32_t)(x >> 32);
	}
	ret = hdp_protection_register(&bench_delay);
	return ret ? ret : hdp_protection_register(&bench_permute);
}
