// SPDX-License-Identifier: BSD-3-Clause
/*
 * A pool's hardening state: set up with its memory described once (its
 * layout, its region, its guards), its effective settings computed once
 * when a profile is applied and published as one word with its epoch,
 * and the values of hdp's own protections beside it.
 */
#include "harden_internal.h"
#include "protection_internal.h"

#include <hdp/log.h>
#include <hdp/region.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * The pool's memory described once: registered as a region, this state
 * its owner, and its guards and gaps watched. 0 or a negative errno.
 */
static int watch_memory(struct hdp_harden_pool *hp, const struct hdp_harden_pool_desc *d)
{
	int ret;

	if (!d->region.len)
		return 0;
	ret = hdp_region_register(&(struct hdp_region_desc){
		.name = hp->name, .base = d->region.base, .len = d->region.len, .owner = hp,
	});
	if (ret < 0) {
		hdp_log(HDP_LOG_ERR, "pool '%s': cannot register its region: %s", hp->name,
			strerror(-ret));
		return ret;
	}
	hp->region_id = ret;
	hp->region_len = d->region.len;
	ret = guard_watch(hp, d->region.base, d->region.len, d->region.guard);
	if (ret) {
		hdp_region_unregister(hp->region_id);
		hp->region_id = -1;
	}
	return ret;
}

/*
 * What a pool has before anything configures it: the built-in profile,
 * as a configuration that says nothing gives (every protection its
 * table's default, the built-in init_exclude list), but tags off, since
 * a tagged handle must go through hdp_deref() and its creator has not
 * said it does; and the creator's policy.
 */
static int apply_builtin(struct hdp_harden_pool *hp)
{
	struct hdp_profile p;
	char why[128];
	uint32_t excluded = harden_builtin_excluded(hp->name, why, sizeof(why));

	hdp_profile_defaults(&p);
	p.tag = HDP_TAG_OFF;
	p.on_violation = hp->policy;
	hdp_profile_normalize(&p);
	return hdp_harden_pool_apply(hp, &p, excluded, why);
}

int hdp_harden_pool_init(struct hdp_harden_pool *hp, const struct hdp_harden_pool_desc *d)
{
	struct hdp_layout_desc ld = d->layout;
	int ret;

	memset(hp, 0, sizeof(*hp));
	hp->region_id = -1;
	hp->guard_slot = UINT_MAX;
	ld.name = d->name;
	ret = hdp_layout_init(&hp->layout, &ld);
	if (ret)
		return ret;
	hp->name = d->name;
	hp->ops = d->ops;
	hp->area_off = d->area_off;
	hp->objects = d->objects ? d->objects : hp->layout.slots;
	hp->threads = d->threads;
	hp->untagged = d->untagged;
	hp->cold_objects = d->cold_objects;
	hp->data_at = d->data_at;
	/* calloc: untouched pages cost nothing until objects are tracked. */
	hp->meta = calloc(hp->layout.slots, sizeof(*hp->meta));
	if (!hp->meta || hdp_protection_pool_init(hp)) {
		ret = -ENOMEM;
		goto err_layout;
	}
	hp->policy = d->on_violation;
	atomic_init(&hp->epoch, 0);
	atomic_init(&hp->word, (uint64_t)d->on_violation << HDP_WORD_POLICY_SHIFT);
	pthread_mutex_init(&hp->apply_lock, NULL);
	ret = watch_memory(hp, d);
	if (!ret)
		ret = d->config ? hdp_harden_pool_configure(hp, d->config) : apply_builtin(hp);
	if (ret) {
		hdp_harden_pool_fini(hp);
		return ret;
	}
	return 0;

err_layout:
	hdp_protection_pool_fini(hp);
	free(hp->meta);
	hp->meta = NULL;
	hdp_layout_fini(&hp->layout);
	return ret;
}

static void retire_thread(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void *ctx)
{
	(void)ctx;
	hdp_harden_tls_retire(hp, t);
}

void hdp_harden_pool_fini(struct hdp_harden_pool *hp)
{
	if (hp->ops && hp->ops->each_thread)
		hp->ops->each_thread(hp, retire_thread, NULL);
	if (atomic_load_explicit(&hp->mte, memory_order_relaxed) == TAG_MTE_YES)
		tag_mte_forget(hp);
	guard_unwatch(hp);
	if (hp->region_id >= 0)
		hdp_region_unregister(hp->region_id);
	hp->region_id = -1;
	pthread_mutex_destroy(&hp->apply_lock);
	hdp_protection_pool_fini(hp);
	redzone_fini(hp);
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

/* Does it turn a protection beyond the core on? */
static bool protections_resume(uint64_t old, uint64_t w)
{
	struct hdp_harden_view o = { old, 0 }, n = { w, 0 };

	return hdp_view_protections(n) & ~hdp_view_protections(o);
}

/*
 * Third parties' protections whose hooks this pool calls: the reuse
 * hooks (hold, drain, pick) only where there is a back-end to reuse from.
 */
static uint32_t hooks_run(const struct hdp_harden_pool *hp)
{
	uint32_t m = hp->hook_mask[HDP_HOOK_ON_ALLOC] | hp->hook_mask[HDP_HOOK_ON_FREE] |
		     hp->hook_mask[HDP_HOOK_ON_COPY];

	if (hp->ops)
		m |= hp->hook_mask[HDP_HOOK_HOLD] | hp->hook_mask[HDP_HOOK_DRAIN] |
		     hp->hook_mask[HDP_HOOK_PICK];
	return m;
}

/*
 * hdp's own protections beyond the core that @p turns on, checked against
 * the pool and set up (nothing is published): their bits, with the
 * quarantine's depth in effect; or a negative errno, logged.
 */
static int prepare_own(struct hdp_harden_pool *hp, const struct hdp_profile *p, uint32_t *mask,
		       uint32_t *depth)
{
	static const char *const names[HDP_OWN__COUNT] = {
#define NAME(NAME, name) [HDP_OWN_##NAME] = #name,
		HDP_OWN_PROTECTIONS(NAME)
#undef NAME
	};
	const char *why = NULL;
	unsigned own = HDP_OWN_QUARANTINE;
	int ret = quarantine_prepare(hp, p, depth, &why);

	if (!ret) {
		own = HDP_OWN_REDZONE;
		ret = redzone_prepare(hp, p, &why);
	}
	if (!ret) {
		own = HDP_OWN_SHUFFLE;
		ret = shuffle_prepare(hp, p, &why);
	}
	if (ret) {
		hdp_log(HDP_LOG_ERR, "pool '%s': protection %s refused: %s", hp->name, names[own],
			why);
		return ret;
	}
	*mask = (p->quarantine ? 1u << HDP_OWN_QUARANTINE : 0) |
		(p->redzone ? 1u << HDP_OWN_REDZONE : 0) | (p->shuffle ? 1u << HDP_OWN_SHUFFLE : 0);
	return 0;
}

/* Of hdp's own that are on, those with steps to run in this pool. */
static uint32_t own_at_work(const struct hdp_harden_pool *hp, uint32_t mask)
{
	/* A quarantine needs a back-end to give its objects back to. */
	return hp->ops ? mask : mask & ~(1u << HDP_OWN_QUARANTINE);
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
	unsigned long page_kb;
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
	page_kb = ret == -EINVAL ? tag_mte_page_kb((const void *)hp->layout.base) : 0;
	if (page_kb > (unsigned long)sysconf(_SC_PAGESIZE) / 1024)
		hdp_log(HDP_LOG_ERR, "pool '%s': tag=%s: its memory is on %lu kB hugepages, which "
			"Linux does not map with PROT_MTE; give the pool plain pages (hdp-fwd puts "
			"its UMEM on them when it starts with tags on, and without huge_dir)",
			hp->name, hdp_tag_mode_name(p->tag), page_kb);
	else if (ret)
		hdp_log(HDP_LOG_ERR, "pool '%s': cannot prepare mte tags: %s", hp->name,
			strerror(-ret));
	return ret;
}

/*
 * A pool whose objects code outside hdp dereferences (desc.untagged)
 * takes no tag: auto means off there, a tag asked for by name is
 * refused. 0, or -EINVAL with @why.
 */
static int untagged_rule(const struct hdp_harden_pool *hp, struct hdp_profile *p)
{
	if (!hp->untagged || p->tag == HDP_TAG_OFF)
		return 0;
	if (p->tag != HDP_TAG_AUTO) {
		hdp_log(HDP_LOG_ERR, "pool '%s': key 'tag', value '%s': %s", hp->name,
			hdp_tag_mode_name(p->tag), hp->untagged);
		return -EINVAL;
	}
	p->tag = HDP_TAG_OFF;
	return 0;
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
	uint32_t own, theirs, depth;
	uint64_t w;
	int ret;

	ret = prepare_own(hp, p, &own, &depth);
	if (!ret)
		ret = hdp_protection_pool_prepare(hp, p, &theirs);
	if (ret)
		return ret;
	if (own_at_work(hp, own) || (theirs & hooks_run(hp)))
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
	    (uint64_t)(own | theirs) << HDP_WORD_PROT_SHIFT;
	if (core_records_resume(old, w) || protections_resume(old, w)) {
		ret = begin_epoch(hp, core_records_resume(old, w));
		if (ret)
			return ret;
	}
	/* Their values first: a burst that sees the word sees them. */
	atomic_store_explicit(&hp->quarantine_depth, depth, memory_order_relaxed);
	atomic_store_explicit(&hp->redzone_bytes, p->redzone_bytes, memory_order_relaxed);
	hdp_protection_pool_publish(hp, p, theirs);
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
	if (untagged_rule(hp, &norm))
		return -EINVAL;
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
	hdp_profile_pin_on(&p);
	ret = hdp_profile_set_key(&p, key, value, &why);
	/* At run time, a tag is asked for by name even as auto. */
	if (!ret && hp->untagged && p.tag != HDP_TAG_OFF) {
		why = hp->untagged;
		ret = -EINVAL;
	}
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
	uint32_t excluded;

	if (!hdp_pool_name_valid(hp->name)) {
		hdp_log(HDP_LOG_ERR, "pool '%s': not a name hdp profiles can address", hp->name);
		return -EINVAL;
	}
	excluded = hdp_harden_config_excluded(cfg, hp->name, why, sizeof(why));
	hdp_harden_config_resolve(cfg, hp->name, &p);
	if (!(p.set & HDP_KEY_ON_VIOLATION))
		p.on_violation = hp->policy;
	return hdp_harden_pool_apply(hp, &p, excluded, why);
}

void hdp_harden_pool_count_checks(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
				  unsigned n)
{
	if (!(hdp_view_flags(hdp_harden_pool_view(hp)) & HDP_HF_BOUNDS))
		return;
	if (t)
		hdp_counter_add(&t->c.n[HDP_C_CHECKS], n);
	else
		atomic_fetch_add_explicit(&hp->retired.n[HDP_C_CHECKS], n, memory_order_relaxed);
}

void hdp_harden_tls_retire(struct hdp_harden_pool *hp, struct hdp_harden_tls *t)
{
	quarantine_release(t);
	hdp_protection_tls_release(hp, t);
	hdp_harden_counters_add(&hp->retired, &t->c);
	memset(&t->c, 0, sizeof(t->c));
}
