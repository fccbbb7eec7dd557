// SPDX-License-Identifier: BSD-3-Clause
/*
 * Third parties' protections in one pool: their state, their values as
 * applied, and their reuse hooks (hold, drain, pick), which the pipeline
 * calls after hdp's own quarantine and shuffle; their burst hooks run
 * from burst.c, through the same iterator.
 */
#include "harden_internal.h"
#include "protection_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <stdlib.h>

_Thread_local hdp_counter_t hdp_unowned_counters[HDP_COUNTERS_MAX];
_Thread_local void *hdp_unowned_state;

int hdp_protection_pool_init(struct hdp_harden_pool *hp)
{
	const struct hdp_registry *reg = hdp_registry();

	hp->prot = NULL;
	memcpy(hp->hook_mask, reg->hook_mask, sizeof(hp->hook_mask));
	if (!reg->nplugins)
		return 0;
	hp->prot = calloc(reg->nplugins, sizeof(*hp->prot));
	if (!hp->prot)
		return -ENOMEM;
	for (unsigned i = 0; i < reg->nplugins; i++) {
		struct hdp_protection_slot *s = &hp->prot[i];

		s->reg = reg->plugin[i];
		s->pp = (struct hdp_protection_pool){
			.hp = hp, .layout = &hp->layout, .name = hp->name,
			.obj_size = hp->layout.obj_size, .obj_count = hp->layout.slots,
			.reuse_hooks = hp->ops != NULL,
		};
		atomic_init(&s->packed, 0);
	}
	return 0;
}

void hdp_protection_pool_fini(struct hdp_harden_pool *hp)
{
	unsigned n = hdp_registry()->nplugins;

	for (unsigned i = 0; hp->prot && i < n; i++) {
		struct hdp_protection_slot *s = &hp->prot[i];

		if (s->attached && s->reg->p->detach)
			s->reg->p->detach(&s->pp);
	}
	free(hp->prot);
	hp->prot = NULL;
}

int hdp_protection_pool_prepare(struct hdp_harden_pool *hp, const struct hdp_profile *p,
				uint32_t *mask)
{
	unsigned n = hdp_registry()->nplugins;

	*mask = 0;
	for (unsigned i = 0; hp->prot && i < n; i++) {
		struct hdp_protection_slot *s = &hp->prot[i];
		const struct hdp_protection *prot = s->reg->p;
		const uint32_t *vals = &p->pval[s->reg->key_base];
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
		*mask |= 1u << s->reg->bit;
	}
	return 0;
}

void hdp_protection_pool_publish(struct hdp_harden_pool *hp, const struct hdp_profile *p,
				 uint32_t mask)
{
	for (uint32_t m = mask; m; m &= m - 1) {
		struct hdp_protection_slot *s = &hp->prot[__builtin_ctz(m) - HDP_OWN__COUNT];

		atomic_store_explicit(&s->packed, hdp_registry_pack(s->reg, p->pval),
				      memory_order_release);
	}
}

bool hdp_protection_on(struct hdp_harden_pool *hp, unsigned i)
{
	const struct hdp_registry *reg = hdp_registry();

	return i < reg->n &&
	       (hdp_view_protections(hdp_harden_pool_view(hp)) >> reg->r[i].bit & 1);
}

void hdp_protection_thread_state_free(const struct hdp_protection_burst *b)
{
	free(*b->thread_state);
	*b->thread_state = NULL;
}

/* Note whether the protection at word bit @bit keeps state for this thread. */
static inline void note_holding(struct hdp_harden_tls *t, unsigned bit)
{
	if (t->prot_state[bit])
		t->holding |= 1u << bit;
	else
		t->holding &= ~(1u << bit);
}

unsigned hdp_plugins_hold(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			  struct hdp_harden_view v, void **objs, unsigned n, unsigned cap)
{
	uint32_t on = hdp_view_protections(v);
	struct hdp_protection_burst b;
	struct hdp_protection_slot *s;
	unsigned in = n;

	hdp_for_each_hook(s, hp, on | t->holding, HDP_HOOK_HOLD) {
		hdp_protection_burst_of(s, t, v, &b);
		if (on >> s->reg->bit & 1)
			n = s->reg->p->hold(&b, objs, n, cap);
		else	/* turned off: give back what it kept, a burst at a time */
			n += s->reg->p->drain(&b, objs + n, cap - n);
		note_holding(t, s->reg->bit);
	}
	/* What went into keeping, and what came out (the pool's "held"). */
	if (n < in)
		hdp_counter_add(&t->c.held_in, in - n);
	else if (n > in)
		hdp_counter_add(&t->c.held_out, n - in);
	return n;
}

unsigned hdp_plugins_drain(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void **out,
			   unsigned max)
{
	struct hdp_harden_view v = hdp_harden_pool_view(hp);
	struct hdp_protection_burst b;
	struct hdp_protection_slot *s;
	unsigned got = 0;

	hdp_for_each_hook(s, hp, t->holding, HDP_HOOK_DRAIN) {
		if (got == max)
			break;
		hdp_protection_burst_of(s, t, v, &b);
		got += s->reg->p->drain(&b, out + got, max - got);
	}
	hdp_counter_add(&t->c.held_out, got);
	return got;
}

void hdp_plugins_pick(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		      struct hdp_harden_view v, void **stack, unsigned len, unsigned n)
{
	struct hdp_protection_burst b;
	struct hdp_protection_slot *s;

	hdp_for_each_hook(s, hp, hdp_view_protections(v), HDP_HOOK_PICK) {
		hdp_protection_burst_of(s, t, v, &b);
		s->reg->p->pick(&b, stack, len, n);
	}
}

void hdp_protection_tls_release(struct hdp_harden_pool *hp, struct hdp_harden_tls *t)
{
	struct hdp_harden_view v = hdp_harden_pool_view(hp);
	unsigned n = hdp_registry()->nplugins;
	struct hdp_protection_burst b;

	for (unsigned i = 0; hp->prot && i < n; i++) {
		struct hdp_protection_slot *s = &hp->prot[i];

		if (!t->prot_state[s->reg->bit])
			continue;
		hdp_protection_burst_of(s, t, v, &b);
		if (s->reg->p->thread_release)
			s->reg->p->thread_release(&b);
		t->prot_state[s->reg->bit] = NULL;
	}
	t->holding = 0;
}
