// SPDX-License-Identifier: BSD-3-Clause
/*
 * A pool's hardening state: computing its effective settings once, when a
 * profile is applied, publishing them as one word, counting violations.
 */
#include "harden_internal.h"

#include <hdp/log.h>
#include <hdp/region.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int hdp_harden_pool_init(struct hdp_harden_pool *hp,
			 const struct hdp_harden_pool_desc *d)
{
	memset(hp, 0, sizeof(*hp));
	hp->base = d->base;
	hp->obj_size = d->obj_size;
	hp->stride = d->obj_stride;
	hp->count = d->obj_count;
	hp->objs_len = d->obj_stride * d->obj_count;
	hp->stride_shift = (d->obj_stride & (d->obj_stride - 1)) ? UINT32_MAX
			 : (uint32_t)__builtin_ctzl(d->obj_stride);
	hp->name = d->name;
	/* calloc: untouched pages cost nothing until objects are tracked. */
	hp->meta = calloc(d->obj_count, sizeof(*hp->meta));
	if (!hp->meta)
		return -ENOMEM;
	atomic_init(&hp->word, (uint64_t)d->on_violation << HDP_HW_POLICY_SHIFT);
	pthread_mutex_init(&hp->apply_lock, NULL);
	/* Until a profile is applied: nothing on but the pool's policy. */
	hdp_profile_defaults(&hp->current);
	hp->current.bounds = false;
	hp->current.init_on_free = HDP_INIT_FREE_OFF;
	hp->current.init_check = false;
	hp->current.tag = HDP_TAG_OFF;
	hp->current.on_violation = d->on_violation;
	snprintf(hp->profile_text, sizeof(hp->profile_text), "none");
	return 0;
}

void hdp_harden_pool_fini(struct hdp_harden_pool *hp)
{
	pthread_mutex_destroy(&hp->apply_lock);
	free((void *)hp->meta);
	hp->meta = NULL;
}

static unsigned effective_flags(const struct hdp_profile *p, uint32_t excluded,
				size_t obj_size)
{
	unsigned f = 0;

	(void)obj_size;
	if (p->bounds)
		f |= HDP_HF_BOUNDS;
	if (p->bounds_lookup == HDP_LOOKUP_TREE)
		f |= HDP_HF_BOUNDS_TREE;
	if (p->init_on_alloc && !(excluded & HDP_KEY_INIT_ON_ALLOC))
		f |= HDP_HF_INIT_ALLOC;
	if (p->init_on_free != HDP_INIT_FREE_OFF && !(excluded & HDP_KEY_INIT_ON_FREE)) {
		f |= HDP_HF_INIT_FREE;
		if (p->init_on_free == HDP_INIT_FREE_USED)
			f |= HDP_HF_INIT_USED;
	}
	/* A check of objects nobody wiped would flag every reuse. */
	if (p->init_check && (f & HDP_HF_INIT_FREE) &&
	    !(excluded & HDP_KEY_INIT_CHECK))
		f |= HDP_HF_INIT_CHECK;
	if (p->tag != HDP_TAG_OFF)
		f |= HDP_HF_TAG;
	return f;
}

static int apply_locked(struct hdp_harden_pool *hp, const struct hdp_profile *p,
			uint32_t excluded, const char *why)
{
	uint64_t old = atomic_load_explicit(&hp->word, memory_order_relaxed);
	unsigned flags = effective_flags(p, excluded, hp->obj_size);
	const struct hdp_tag_ops *ops = NULL;
	uint32_t epoch = hdp_hw_epoch(old);
	uint64_t w;
	int ret;

	if (flags & HDP_HF_TAG) {
		ops = hdp_tag_backend(p->tag);
		if (!ops->probe()) {
			hdp_log(HDP_LOG_ERR, "pool '%s': tag=%s, but this CPU or kernel has no MTE",
				hp->name, hdp_tag_mode_name(p->tag));
			return -EINVAL;
		}
		ret = ops->pool_attach(hp);
		if (ret) {
			hdp_log(HDP_LOG_ERR, "pool '%s': cannot prepare %s tags: %s",
				hp->name, ops->name, strerror(-ret));
			return ret;
		}
		if (ops->hardware_checks)
			flags |= HDP_HF_TAG_MTE;
		hp->tag_ops = ops;
	}
	/* Tracking starts afresh: what was recorded before is not trusted. */
	if ((flags & HDP_HF_HOOKS) && !(hdp_hw_flags(old) & HDP_HF_HOOKS))
		epoch = (epoch + 1) & 0xffff ? (epoch + 1) & 0xffff : 1;
	w = (uint64_t)flags |
	    (uint64_t)p->on_violation << HDP_HW_POLICY_SHIFT |
	    (uint64_t)(p->tag_sample & 0xffff) << HDP_HW_SAMPLE_SHIFT |
	    (uint64_t)(p->tag_sample_min & 0x1fffff) << HDP_HW_SMIN_SHIFT |
	    (uint64_t)epoch << HDP_HW_EPOCH_SHIFT;

	hp->current = *p;
	hp->excluded = excluded;
	hdp_profile_format(p, hp->profile_text, sizeof(hp->profile_text));
	if (why)
		snprintf(hp->exclude_text, sizeof(hp->exclude_text), "%s", why);
	atomic_store_explicit(&hp->word, w, memory_order_release);
	if (w != old) {
		atomic_fetch_add_explicit(&hp->changes, 1, memory_order_relaxed);
		atomic_store_explicit(&hp->changed_at, (int64_t)time(NULL),
				      memory_order_relaxed);
	}
	return 0;
}

int hdp_harden_pool_apply(struct hdp_harden_pool *hp, const struct hdp_profile *p,
			  uint32_t excluded, const char *why)
{
	int ret;

	pthread_mutex_lock(&hp->apply_lock);
	ret = apply_locked(hp, p, excluded, why ? why : "");
	pthread_mutex_unlock(&hp->apply_lock);
	return ret;
}

int hdp_harden_pool_set_key(struct hdp_harden_pool *hp, const char *key,
			    const char *value)
{
	struct hdp_profile p;
	const char *why;
	int ret;

	pthread_mutex_lock(&hp->apply_lock);
	p = hp->current;
	ret = hdp_profile_set_key(&p, key, value, &why);
	if (ret) {
		hdp_log(HDP_LOG_ERR, "pool '%s': key '%s', value '%s': %s", hp->name,
			key, value, why);
		ret = -EINVAL;
	} else if ((p.set & HDP_KEY_INIT_CHECK) && p.init_check &&
		   p.init_on_free == HDP_INIT_FREE_OFF && strcmp(key, "init_check") == 0) {
		hdp_log(HDP_LOG_ERR, "pool '%s': init_check=on needs init_on_free=on or used",
			hp->name);
		ret = -EINVAL;
	} else {
		ret = apply_locked(hp, &p, hp->excluded, NULL);
	}
	pthread_mutex_unlock(&hp->apply_lock);
	return ret;
}

int hdp_harden_pool_configure(struct hdp_harden_pool *hp,
			      const struct hdp_harden_config *cfg)
{
	struct hdp_profile p;
	char why[128];
	uint32_t excluded = hdp_harden_config_excluded(cfg, hp->name, why, sizeof(why));

	hdp_harden_config_resolve(cfg, hp->name, &p);
	return hdp_harden_pool_apply(hp, &p, excluded, why);
}

void hdp_harden_violation(struct hdp_harden_pool *hp, enum hdp_violation_kind kind,
			  const void *addr, size_t size, const char *detail)
{
	uintptr_t off = (uintptr_t)hdp_untag(addr) - hp->base;
	struct hdp_violation v = {
		.kind = kind,
		.pool = hp->name,
		.addr = addr,
		.offset = off < hp->objs_len ? off : SIZE_MAX,
		.size = size,
		.detail = detail,
	};

	atomic_fetch_add_explicit(&hp->violations[kind], 1, memory_order_relaxed);
	hdp_violation_report(hdp_hw_policy(hdp_harden_word(hp)), &v);
}

void hdp_harden_counters_add(struct hdp_harden_counters *sum,
			     const struct hdp_harden_counters *c)
{
	hdp_counter_add(&sum->bytes_wiped, atomic_load_explicit(&c->bytes_wiped,
							     memory_order_relaxed));
	hdp_counter_add(&sum->objs_tagged, atomic_load_explicit(&c->objs_tagged,
							     memory_order_relaxed));
	hdp_counter_add(&sum->checks, atomic_load_explicit(&c->checks,
							memory_order_relaxed));
}

void hdp_harden_tls_retire(struct hdp_harden_pool *hp, struct hdp_harden_tls *t)
{
	hdp_harden_counters_add(&hp->retired, &t->c);
	memset(&t->c, 0, sizeof(t->c));
}

void hdp_harden_stats_get(struct hdp_harden_pool *hp,
			  const struct hdp_harden_counters *live,
			  struct hdp_harden_stats *out)
{
	uint64_t w = hdp_harden_word(hp);
	struct hdp_harden_counters sum = { 0 };

	memset(out, 0, sizeof(*out));
	hdp_harden_counters_add(&sum, &hp->retired);
	if (live)
		hdp_harden_counters_add(&sum, live);
	out->flags = hdp_hw_flags(w);
	out->on_violation = hdp_hw_policy(w);
	out->tag_sample = hdp_hw_sample(w);
	out->tag_sample_min = hdp_hw_sample_min(w);
	out->tag_backend = !(out->flags & HDP_HF_TAG) ? "off"
			 : (out->flags & HDP_HF_TAG_MTE) ? "mte" : "soft";
	out->bytes_wiped = atomic_load(&sum.bytes_wiped);
	out->objs_tagged = atomic_load(&sum.objs_tagged);
	out->checks = atomic_load(&sum.checks);
	out->changes = atomic_load(&hp->changes);
	out->changed_at = atomic_load(&hp->changed_at);
	pthread_mutex_lock(&hp->apply_lock);
	memcpy(out->profile, hp->profile_text, sizeof(out->profile));
	memcpy(out->exclude, hp->exclude_text, sizeof(out->exclude));
	pthread_mutex_unlock(&hp->apply_lock);
	for (int k = 0; k < HDP_V__COUNT; k++)
		out->violations[k] = atomic_load_explicit(&hp->violations[k],
							  memory_order_relaxed);
}
