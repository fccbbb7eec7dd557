// SPDX-License-Identifier: BSD-3-Clause
/*
 * The registered protections in one pool: their state, their values as
 * applied, and the burst hooks, called once per burst for each protection
 * the word turns on.
 */
#include "protection_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <stdlib.h>

int hdp_prot_pool_init(struct hdp_harden_pool *hp)
{
	const struct hdp_prot_registry *r = hdp_prot_registry();

	hp->prot = NULL;
	if (!r->n)
		return 0;
	hp->prot = calloc(r->n, sizeof(*hp->prot));
	if (!hp->prot)
		return -ENOMEM;
	for (unsigned i = 0; i < r->n; i++) {
		struct hdp_prot_slot *s = &hp->prot[i];

		s->info = &r->info[i];
		s->pp = (struct hdp_protection_pool){
			.hp = hp, .name = hp->name, .obj_size = hp->obj_size,
			.obj_count = hp->count, .reuse_hooks = hp->reuse_hooks,
		};
		atomic_init(&s->packed, 0);
		atomic_init(&s->generation, 0);
		if (r->info[i].p->pick)
			hp->pick_mask |= 1u << i;
		if (r->info[i].p->on_free)
			hp->free_mask |= 1u << i;
	}
	return 0;
}

void hdp_prot_pool_fini(struct hdp_harden_pool *hp)
{
	unsigned n = hdp_prot_registry()->n;

	for (unsigned i = 0; hp->prot && i < n; i++) {
		struct hdp_prot_slot *s = &hp->prot[i];

		if (s->attached && s->info->p->detach)
			s->info->p->detach(&s->pp);
	}
	free(hp->prot);
	hp->prot = NULL;
}

int hdp_prot_pool_prepare(struct hdp_harden_pool *hp, const struct hdp_profile *p,
			  uint32_t *mask)
{
	unsigned n = hdp_prot_registry()->n;

	*mask = 0;
	for (unsigned i = 0; hp->prot && i < n; i++) {
		struct hdp_prot_slot *s = &hp->prot[i];
		const struct hdp_protection *prot = s->info->p;
		const uint32_t *vals = &p->pval[s->info->key_base];
		const char *why = "refused";
		int ret;

		if (!vals[0])
			continue;
		if (prot->attach) {
			ret = prot->attach(&s->pp, vals, &why);
			if (ret) {
				hdp_log(HDP_LOG_ERR, "pool '%s': protection %s refused: %s",
					hp->name, prot->name, why ? why : "no reason given");
				return ret < 0 ? ret : -EINVAL;
			}
		}
		s->attached = true;
		*mask |= 1u << i;
	}
	return 0;
}

void hdp_prot_pool_publish(struct hdp_harden_pool *hp, const struct hdp_profile *p,
			   uint32_t old_mask, uint32_t mask)
{
	for (uint32_t m = mask; m; m &= m - 1) {
		struct hdp_prot_slot *s = &hp->prot[__builtin_ctz(m)];

		atomic_store_explicit(&s->packed, hdp_prot_pack(s->info, p->pval),
				      memory_order_release);
		/* Turned on again: what it recorded before is stale. */
		if (!(old_mask & (1u << s->info->index)))
			atomic_fetch_add_explicit(&s->generation, 1, memory_order_release);
	}
}

static _Thread_local hdp_counter_t lost_counters[HDP_PCOUNTERS_MAX];
static _Thread_local void *lost_state;

/* After the word: these values and generation, or later ones. */
static inline void burst_of(struct hdp_prot_slot *s, struct hdp_harden_tls *t, uint64_t w,
			    struct hdp_protection_burst *b)
{
	b->pool = &s->pp;
	hdp_prot_unpack(s->info, atomic_load_explicit(&s->packed, memory_order_acquire),
			b->values);
	b->generation = atomic_load_explicit(&s->generation, memory_order_acquire);
	b->core_flags = hdp_hw_flags(w);
	/* Copies without a thread's state count nowhere. */
	b->counters = (t ? t->c.prot : lost_counters) + s->info->counter_base;
	b->violation_base = HDP_V__COUNT + s->info->violation_base;
	b->refused = 0;
	/* Without a thread's state (a copy from outside), nothing is kept. */
	if (hdp_likely(t != NULL)) {
		b->thread_state = &t->prot_state[s->info->index];
	} else {
		lost_state = NULL;
		b->thread_state = &lost_state;
	}
}

void hdp_prot_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
		       void **objs, unsigned n)
{
	struct hdp_protection_burst b;

	for (uint32_t m = hdp_hw_protections(w); m; m &= m - 1) {
		struct hdp_prot_slot *s = &hp->prot[__builtin_ctz(m)];

		if (!s->info->p->on_alloc)
			continue;
		burst_of(s, t, w, &b);
		s->info->p->on_alloc(&b, objs, n);
	}
}

uint64_t hdp_prot_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
			  void *const *objs, const struct hdp_extent *ext, unsigned n,
			  uint64_t refused)
{
	struct hdp_protection_burst b;

	for (uint32_t m = hdp_hw_protections(w); m; m &= m - 1) {
		struct hdp_prot_slot *s = &hp->prot[__builtin_ctz(m)];

		if (!s->info->p->on_free)
			continue;
		burst_of(s, t, w, &b);
		b.refused = refused;
		refused |= s->info->p->on_free(&b, objs, ext, n);
	}
	return refused;
}

int hdp_prot_on_copy(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
		     const void *p, size_t n, bool into_pool)
{
	struct hdp_protection_burst b;

	for (uint32_t m = hdp_hw_protections(w); m; m &= m - 1) {
		struct hdp_prot_slot *s = &hp->prot[__builtin_ctz(m)];
		int ret;

		if (!s->info->p->on_copy)
			continue;
		burst_of(s, t, w, &b);
		ret = s->info->p->on_copy(&b, p, n, into_pool);
		if (ret)
			return ret;
	}
	return 0;
}

void hdp_protection_violation(const struct hdp_protection_burst *b, unsigned i,
			      const void *addr, size_t size, const char *detail)
{
	hdp_harden_violation(b->pool->hp, (enum hdp_violation_kind)(b->violation_base + i),
			     addr, size, detail);
}

void hdp_protection_thread_state_free(const struct hdp_protection_burst *b)
{
	free(*b->thread_state);
	*b->thread_state = NULL;
}

bool hdp_protection_on(struct hdp_harden_pool *hp, unsigned i)
{
	return i < HDP_PROTECTIONS_MAX && (hdp_hw_protections(hdp_harden_word(hp)) >> i & 1);
}

/* Note whether protection @i keeps state for this thread. */
static inline void note_holding(struct hdp_harden_tls *t, unsigned i)
{
	if (t->prot_state[i])
		t->holding |= 1u << i;
	else
		t->holding &= ~(1u << i);
}

unsigned hdp_harden_hold(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
			 void **objs, unsigned n, unsigned cap)
{
	uint32_t on = hdp_hw_protections(w);
	unsigned in = n, i;
	struct hdp_protection_burst b;

	for (uint32_t m = on | t->holding; m; m &= m - 1) {
		struct hdp_prot_slot *s = &hp->prot[i = (unsigned)__builtin_ctz(m)];
		const struct hdp_protection *p = s->info->p;

		if (!p->hold)
			continue;
		burst_of(s, t, w, &b);
		if (on >> i & 1)
			n = p->hold(&b, objs, n, cap);
		else if (p->drain)	/* turned off: give back what it kept, a burst at a time */
			n += p->drain(&b, objs + n, cap - n);
		note_holding(t, i);
	}
	/* What went into keeping, and what came out (the pool's "held"). */
	if (n < in)
		hdp_counter_add(&t->c.held_in, in - n);
	else if (n > in)
		hdp_counter_add(&t->c.held_out, n - in);
	return n;
}

unsigned hdp_harden_drain(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void **out,
			  unsigned max)
{
	uint64_t w = hdp_harden_word(hp);
	struct hdp_protection_burst b;
	unsigned got = 0, i;

	for (uint32_t m = t->holding; m && got < max; m &= m - 1) {
		struct hdp_prot_slot *s = &hp->prot[i = (unsigned)__builtin_ctz(m)];

		if (!s->info->p->drain)
			continue;
		burst_of(s, t, w, &b);
		got += s->info->p->drain(&b, out + got, max - got);
	}
	hdp_counter_add(&t->c.held_out, got);
	return got;
}

void hdp_harden_pick(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, uint64_t w,
		     void **stack, unsigned len, unsigned n)
{
	struct hdp_protection_burst b;

	for (uint32_t m = hdp_hw_protections(w); m; m &= m - 1) {
		struct hdp_prot_slot *s = &hp->prot[__builtin_ctz(m)];

		if (!s->info->p->pick)
			continue;
		burst_of(s, t, w, &b);
		s->info->p->pick(&b, stack, len, n);
	}
}

void hdp_prot_tls_release(struct hdp_harden_pool *hp, struct hdp_harden_tls *t)
{
	uint64_t w = hdp_harden_word(hp);
	unsigned n = hdp_prot_registry()->n;
	struct hdp_protection_burst b;

	for (unsigned i = 0; hp->prot && i < n; i++) {
		struct hdp_prot_slot *s = &hp->prot[i];

		if (!t->prot_state[i])
			continue;
		burst_of(s, t, w, &b);
		if (s->info->p->thread_release)
			s->info->p->thread_release(&b);
		t->prot_state[i] = NULL;
	}
	t->holding = 0;
}
