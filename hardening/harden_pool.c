// SPDX-License-Identifier: BSD-3-Clause
/*
 * A pool's hardening state: computing its effective settings once, when a
 * profile is applied, and publishing them as one word with its epoch; the
 * counters and their snapshot.
 */
#include "harden_internal.h"
#include "protection_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int hdp_harden_pool_init(struct hdp_harden_pool *hp, const struct hdp_harden_pool_desc *d)
{
	struct hdp_layout_desc ld = d->layout;
	int ret;

	memset(hp, 0, sizeof(*hp));
	ld.name = d->name;
	ret = hdp_layout_init(&hp->layout, &ld);
	if (ret)
		return ret;
	hp->name = d->name;
	hp->cold_objects = d->cold_objects;
	hp->reuse_hooks = d->reuse_hooks;
	/* calloc: untouched pages cost nothing until objects are tracked. */
	hp->meta = calloc(hp->layout.slots, sizeof(*hp->meta));
	if (!hp->meta || hdp_protection_pool_init(hp)) {
		free(hp->meta);
		hdp_layout_fini(&hp->layout);
		return -ENOMEM;
	}
	atomic_init(&hp->epoch, 0);
	atomic_init(&hp->word, (uint64_t)d->on_violation << HDP_WORD_POLICY_SHIFT);
	pthread_mutex_init(&hp->apply_lock, NULL);
	/* Until a profile is applied: nothing on but the pool's policy. */
	hdp_profile_defaults(&hp->current);
	hp->current.bounds = false;
	hp->current.init_on_free = HDP_INIT_FREE_OFF;
	hp->current.init_check = false;
	hp->current.tag = HDP_TAG_OFF;
	hp->current.on_violation = d->on_violation;
	hdp_registry_all_off(&hp->current);
	snprintf(hp->profile_text, sizeof(hp->profile_text), "none");
	return 0;
}

void hdp_harden_pool_fini(struct hdp_harden_pool *hp)
{
	if (atomic_load_explicit(&hp->mte, memory_order_relaxed) == TAG_MTE_YES)
		tag_mte_forget(hp);
	pthread_mutex_destroy(&hp->apply_lock);
	hdp_protection_pool_fini(hp);
	free(hp->meta);
	hp->meta = NULL;
	hdp_layout_fini(&hp->layout);
}

/*
 * Something that keeps records is turned on: start a new epoch for the
 * protections, and for the core's records if @core (they resume), so that
 * nothing recorded before, or left unrecorded since, is trusted. The
 * protections' moves with the core's too: what they record may rest on
 * the core's steps (redzone's zeros). Published before the word
 * (harden.h).
 */
static int begin_epoch(struct hdp_harden_pool *hp, bool core)
{
	uint64_t e = atomic_load_explicit(&hp->epoch, memory_order_relaxed);
	uint64_t c = hdp_epoch_core(e), p = hdp_epoch_protections(e);

	if ((core && c >= HDP_EPOCH_MAX) || p >= HDP_PROT_EPOCH_MAX) {
		hdp_log(HDP_LOG_ERR, "pool '%s': every epoch has been used (%llu re-enables); "
			"restart to turn its protections on again", hp->name,
			(unsigned long long)(core && c >= HDP_EPOCH_MAX ? c : p));
		return -EOVERFLOW;
	}
	atomic_store_explicit(&hp->epoch, (c + core) << 32 | (p + 1), memory_order_release);
	return 0;
}

/* Does going from @old to @w turn the core's records on, after all were off? */
static bool core_records_resume(uint64_t old, uint64_t w)
{
	struct hdp_harden_view o = { old, 0 }, n = { w, 0 };

	return (hdp_view_flags(n) & HDP_HF_RECORDS) && !(hdp_view_flags(o) & HDP_HF_RECORDS);
}

/* Does it turn a registered protection on? */
static bool protections_resume(uint64_t old, uint64_t w)
{
	struct hdp_harden_view o = { old, 0 }, n = { w, 0 };

	return hdp_view_protections(n) & ~hdp_view_protections(o);
}

/*
 * The registered protections whose hooks this pool calls: a protection
 * that is on but has none here (a quarantine on a DPDK pool, which the
 * driver runs as its reuse queues) keeps its bit, for its keys and its
 * "on", but sends no burst down the hooks' path.
 */
static uint32_t hooks_run(const struct hdp_harden_pool *hp)
{
	uint32_t m = hp->hook_mask[HDP_HOOK_ON_ALLOC] | hp->hook_mask[HDP_HOOK_ON_FREE] |
		     hp->hook_mask[HDP_HOOK_ON_COPY];

	if (hp->reuse_hooks)
		m |= hp->hook_mask[HDP_HOOK_HOLD] | hp->hook_mask[HDP_HOOK_DRAIN] |
		     hp->hook_mask[HDP_HOOK_PICK];
	return m;
}

/* 1..65535, as the parser allows; a profile built by hand may say 0. */
static uint32_t sample_field(uint32_t n)
{
	return n < 1 ? 1 : n > 0xffff ? 0xffff : n;
}

/* Tags: which backend, and its memory prepared (hp->mte). 0 or a negative errno. */
static int attach_tags(struct hdp_harden_pool *hp, const struct hdp_profile *p)
{
	bool mte = p->tag == HDP_TAG_MTE || (p->tag == HDP_TAG_AUTO && tag_mte_probe());
	int ret;

	/* A tag's neighbours and MTE's mapping assume one run of slots. */
	if (hp->layout.chunks) {
		hdp_log(HDP_LOG_ERR, "pool '%s': tag=%s needs the pool in one chunk of memory; "
			"it has %u", hp->name, hdp_tag_mode_name(p->tag), hp->layout.chunk_count);
		return -EINVAL;
	}
	if (!mte)
		return 0;
	if (!tag_mte_probe()) {
		hdp_log(HDP_LOG_ERR, "pool '%s': tag=%s, but this CPU or kernel has no MTE",
			hp->name, hdp_tag_mode_name(p->tag));
		return -EINVAL;
	}
	ret = tag_mte_attach(hp);
	if (ret)
		hdp_log(HDP_LOG_ERR, "pool '%s': cannot prepare mte tags: %s", hp->name,
			strerror(-ret));
	return ret;
}

/*
 * Tag off in a pool that handed out tags: are they still kept track of
 * (harden.h)? In memory that took MTE tags, frees must reset them; on a
 * CPU with MTE, a later tag=mte must give each held handle's memory its
 * tag, which only records kept all along can say.
 */
static bool tags_kept(struct hdp_harden_pool *hp)
{
	return atomic_load_explicit(&hp->mte, memory_order_relaxed) == TAG_MTE_YES ||
	       (atomic_load_explicit(&hp->tags_seen, memory_order_relaxed) && tag_mte_probe());
}

static int apply_locked(struct hdp_harden_pool *hp, const struct hdp_profile *p,
			uint32_t excluded, const char *why)
{
	uint64_t old = atomic_load_explicit(&hp->word, memory_order_relaxed);
	unsigned flags = hdp_core_flags(p, excluded, hp->layout.obj_size);
	uint32_t prot_mask;
	uint64_t w;
	int ret;

	ret = hdp_protection_pool_prepare(hp, p, &prot_mask);
	if (ret)
		return ret;
	if (prot_mask & hooks_run(hp))
		flags |= HDP_HF_PROTECTIONS;
	if (flags & HDP_HF_TAG) {
		ret = attach_tags(hp, p);
		if (ret < 0)
			return ret;
		atomic_store_explicit(&hp->tags_seen, true, memory_order_relaxed);
	} else if (tags_kept(hp)) {
		flags |= HDP_HF_TAG_KEPT;
	}
	w = (uint64_t)flags |
	    (uint64_t)p->on_violation << HDP_WORD_POLICY_SHIFT |
	    (uint64_t)sample_field(p->tag_sample) << HDP_WORD_SAMPLE_SHIFT |
	    (uint64_t)sample_field(p->init_check_sample) << HDP_WORD_CHECK_SHIFT |
	    (uint64_t)prot_mask << HDP_WORD_PROT_SHIFT;
	if (core_records_resume(old, w) || protections_resume(old, w)) {
		ret = begin_epoch(hp, core_records_resume(old, w));
		if (ret)
			return ret;
	}
	/* Their values first: a burst that sees the word sees them. */
	hdp_protection_pool_publish(hp, p, prot_mask);
	hp->applied = true;
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
	struct hdp_profile norm = *p;
	const char *bad;
	int ret;

	hdp_profile_normalize(&norm);
	if (hdp_profile_check(&norm, &bad)) {
		hdp_log(HDP_LOG_ERR, "pool '%s': %s", hp->name, bad);
		return -EINVAL;
	}
	pthread_mutex_lock(&hp->apply_lock);
	ret = apply_locked(hp, &norm, excluded, why ? why : "");
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
	if (!ret) {
		/* The same rule as at start-up (profile.c's table). */
		hdp_profile_normalize(&p);
		ret = hdp_profile_check(&p, &why);
	}
	if (ret) {
		hdp_log(HDP_LOG_ERR, "pool '%s': key '%s', value '%s': %s", hp->name,
			key, value, why);
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

void hdp_harden_tls_retire(struct hdp_harden_pool *hp, struct hdp_harden_tls *t)
{
	hdp_protection_tls_release(hp, t);
	hdp_harden_counters_add(&hp->retired, &t->c);
	memset(&t->c, 0, sizeof(t->c));
}
