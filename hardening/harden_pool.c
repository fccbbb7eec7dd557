// SPDX-License-Identifier: BSD-3-Clause
/*
 * A pool's hardening state: computing its effective settings once, when a
 * profile is applied, publishing them as one word, counting violations.
 */
#include "builtin_internal.h"
#include "harden_internal.h"
#include "protection_internal.h"

#include <hdp/log.h>
#include <hdp/region.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int chunk_by_base(const void *a, const void *b)
{
	const struct hdp_harden_chunk *x = a, *y = b;

	return x->base < y->base ? -1 : x->base > y->base;
}

static int chunk_by_first(const void *a, const void *b)
{
	const struct hdp_harden_chunk *x = a, *y = b;

	return x->first < y->first ? -1 : x->first > y->first;
}

/* Do two chunks claim one slot index? (Sorted by index: neighbours tell.) */
static bool indexes_overlap(struct hdp_harden_chunk *c, uint32_t n, size_t stride)
{
	qsort(c, n, sizeof(*c), chunk_by_first);
	for (uint32_t i = 0; i + 1 < n; i++)
		if (c[i + 1].first - c[i].first < c[i].len / stride)
			return true;
	return false;
}

#define CHUNK_MAP_MAX (1u << 20)	/* 4 MiB of map at most */

/*
 * The chunk map (harden.h): granules no longer than the shortest chunk,
 * so that no granule sees more than one chunk start after its own; none
 * when the span would need more than CHUNK_MAP_MAX granules.
 */
static void build_chunk_map(struct hdp_harden_pool *hp)
{
	size_t shortest = SIZE_MAX, len;
	uint32_t shift, c = 0;

	for (uint32_t i = 0; i < hp->chunk_count; i++)
		shortest = hp->chunks[i].len < shortest ? hp->chunks[i].len : shortest;
	shift = 63 - (uint32_t)__builtin_clzl(shortest);
	len = ((hp->objs_len - 1) >> shift) + 1;
	if (len > CHUNK_MAP_MAX)
		return;
	hp->chunk_map = malloc(len * sizeof(*hp->chunk_map));
	if (!hp->chunk_map)
		return;		/* the binary search works as well, slower */
	for (size_t g = 0; g < len; g++) {
		uintptr_t start = hp->base + (g << shift);

		while (c + 1 < hp->chunk_count && hp->chunks[c + 1].base <= start)
			c++;
		hp->chunk_map[g] = c;
	}
	hp->map_len = len;
	hp->map_shift = shift;
}

/*
 * Several chunks: sorted by address for hdp_harden_slot, each a whole
 * number of slots, none overlapping the next, their indexes inside the
 * pool's count. base and objs_len become their span.
 */
static int take_chunks(struct hdp_harden_pool *hp, const struct hdp_harden_pool_desc *d)
{
	struct hdp_harden_chunk *c;

	c = malloc(d->chunk_count * sizeof(*c));
	if (!c)
		return -ENOMEM;
	memcpy(c, d->chunks, d->chunk_count * sizeof(*c));
	if (indexes_overlap(c, d->chunk_count, d->obj_stride)) {
		hdp_log(HDP_LOG_ERR, "pool '%s': two of its %u chunks claim the same slots",
			d->name, d->chunk_count);
		free(c);
		return -EINVAL;
	}
	qsort(c, d->chunk_count, sizeof(*c), chunk_by_base);
	for (uint32_t i = 0; i < d->chunk_count; i++) {
		size_t slots = c[i].len / d->obj_stride;

		if (c[i].len % d->obj_stride || slots > d->obj_count ||
		    c[i].first > d->obj_count - slots ||
		    (i + 1 < d->chunk_count && c[i + 1].base - c[i].base < c[i].len)) {
			hdp_log(HDP_LOG_ERR, "pool '%s': chunk %u (%zu bytes at %#lx, slot %u) "
				"overlaps another or lies outside the pool's %u slots", d->name,
				i, c[i].len, (unsigned long)c[i].base, c[i].first, d->obj_count);
			free(c);
			return -EINVAL;
		}
	}
	hp->chunks = c;
	hp->chunk_count = d->chunk_count;
	hp->base = c[0].base;
	hp->objs_len = c[d->chunk_count - 1].base + c[d->chunk_count - 1].len - c[0].base;
	build_chunk_map(hp);
	return 0;
}

/*
 * The chunk holding @a: one step through the chunk map (a granule holds
 * the start of at most one more chunk), or a binary search over the
 * chunks' bases where the span was too sparse for a map.
 */
bool hdp_harden_slot_chunked(const struct hdp_harden_pool *hp, uintptr_t a, uint32_t *idx,
			     size_t *in_slot)
{
	const struct hdp_harden_chunk *c;
	uint32_t lo = 0, hi = hp->chunk_count, i;
	size_t off;

	if (a < hp->base)
		return false;
	if (hp->chunk_map) {
		size_t g = (a - hp->base) >> hp->map_shift;

		if (g >= hp->map_len)
			return false;
		lo = hp->chunk_map[g];
		if (lo + 1 < hp->chunk_count && a >= hp->chunks[lo + 1].base)
			lo++;
	} else {
		while (hi - lo > 1) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (hp->chunks[mid].base <= a)
				lo = mid;
			else
				hi = mid;
		}
	}
	c = &hp->chunks[lo];
	off = a - c->base;
	if (a < c->base || off >= c->len)
		return false;
	i = hdp_harden_div_stride(hp->stride_shift, hp->stride_magic, hp->stride, off);
	*idx = c->first + i;
	*in_slot = off - (size_t)i * hp->stride;
	return true;
}

/*
 * ceil(2^64 / stride) when it divides every offset in a chunk exactly
 * (offset * stride < 2^64: the error of the rounded-up reciprocal stays
 * under one stride), else 0 and hdp_harden_div_stride divides.
 */
static uint64_t stride_magic(const struct hdp_harden_pool *hp)
{
	size_t longest = hp->chunks ? 0 : hp->objs_len;

	if (hp->stride_shift != UINT32_MAX || hp->stride < 2)
		return 0;
	for (uint32_t i = 0; hp->chunks && i < hp->chunk_count; i++)
		longest = hp->chunks[i].len > longest ? hp->chunks[i].len : longest;
	if (longest > UINT64_MAX / hp->stride)
		return 0;
	return UINT64_MAX / hp->stride + 1;
}

int hdp_harden_pool_init(struct hdp_harden_pool *hp,
			 const struct hdp_harden_pool_desc *d)
{
	int ret;

	memset(hp, 0, sizeof(*hp));
	hp->base = d->base;
	hp->obj_size = d->obj_size;
	hp->stride = d->obj_stride;
	hp->count = d->obj_count;
	hp->objs_len = d->obj_stride * d->obj_count;
	hp->stride_shift = (d->obj_stride & (d->obj_stride - 1)) ? UINT32_MAX
			 : (uint32_t)__builtin_ctzl(d->obj_stride);
	hp->name = d->name;
	hp->cold_objects = d->cold_objects;
	hp->gap_period = d->gap_period;
	hp->gap_objs = d->gap_objs;
	hp->reuse_hooks = d->reuse_hooks;
	if (d->chunks && d->chunk_count) {
		ret = take_chunks(hp, d);
		if (ret)
			return ret;
	}
	hp->stride_magic = stride_magic(hp);
	/* calloc: untouched pages cost nothing until objects are tracked. */
	hp->meta = calloc(d->obj_count, sizeof(*hp->meta));
	atomic_init(&hp->epoch, 0);
	if (hp->meta && hdp_prot_pool_init(hp)) {
		free(hp->meta);
		hp->meta = NULL;
	}
	if (!hp->meta) {
		free(hp->chunks);
		free(hp->chunk_map);
		hp->chunks = NULL;
		hp->chunk_map = NULL;
		return -ENOMEM;
	}
	atomic_init(&hp->word, (uint64_t)d->on_violation << HDP_HW_POLICY_SHIFT);
	pthread_mutex_init(&hp->apply_lock, NULL);
	/* Until a profile is applied: nothing on but the pool's policy. */
	hdp_profile_defaults(&hp->current);
	hp->current.bounds = false;
	hp->current.init_on_free = HDP_INIT_FREE_OFF;
	hp->current.init_check = false;
	hp->current.init_check_sample = 1;
	hp->current.tag = HDP_TAG_OFF;
	hp->current.on_violation = d->on_violation;
	hdp_prot_all_off(&hp->current);
	snprintf(hp->profile_text, sizeof(hp->profile_text), "none");
	return 0;
}

void hdp_harden_pool_fini(struct hdp_harden_pool *hp)
{
	pthread_mutex_destroy(&hp->apply_lock);
	hdp_prot_pool_fini(hp);
	free((void *)hp->meta);
	free(hp->chunks);
	free(hp->chunk_map);
	hp->meta = NULL;
	hp->chunks = NULL;
	hp->chunk_map = NULL;
}

/*
 * Recording resumes (the hooks go from off to on): start a new epoch, so
 * that nothing recorded before, or left unrecorded since, is trusted.
 * Published before the word, so no burst that sees the new word can label
 * its records with the old epoch.
 */
static int begin_epoch(struct hdp_harden_pool *hp)
{
	uint64_t e = atomic_load_explicit(&hp->epoch, memory_order_relaxed);

	if (e >= HDP_EPOCH_MAX) {
		hdp_log(HDP_LOG_ERR, "pool '%s': every epoch has been used (%llu re-enables); "
			"restart to turn its protections on again", hp->name,
			(unsigned long long)e);
		return -EOVERFLOW;
	}
	atomic_store_explicit(&hp->epoch, e + 1, memory_order_release);
	return 0;
}

/* 1..65535, as the parser allows; a profile built by hand may say 0. */
static uint32_t sample_field(uint32_t n)
{
	return n < 1 ? 1 : n > 0xffff ? 0xffff : n;
}

static int apply_locked(struct hdp_harden_pool *hp, const struct hdp_profile *p,
			uint32_t excluded, const char *why)
{
	uint64_t old = atomic_load_explicit(&hp->word, memory_order_relaxed);
	unsigned flags = hdp_builtin_flags(p, excluded, hp->obj_size);
	const struct hdp_tag_ops *ops = NULL;
	uint32_t prot_mask;
	uint64_t w;
	int ret;

	ret = hdp_prot_pool_prepare(hp, p, &prot_mask);
	if (ret)
		return ret;
	if (prot_mask)
		flags |= HDP_HF_PROTECTIONS;
	if ((flags & HDP_HF_RECORDS) && !(hdp_hw_flags(old) & HDP_HF_RECORDS)) {
		ret = begin_epoch(hp);
		if (ret)
			return ret;
	}
	/* A tag's neighbours and MTE's mapping assume one run of slots. */
	if ((flags & HDP_HF_TAG) && hp->chunks) {
		hdp_log(HDP_LOG_ERR, "pool '%s': tag=%s needs the pool in one chunk of memory; "
			"it has %u", hp->name, hdp_tag_mode_name(p->tag), hp->chunk_count);
		return -EINVAL;
	}
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
	w = (uint64_t)flags |
	    (uint64_t)p->on_violation << HDP_HW_POLICY_SHIFT |
	    (uint64_t)sample_field(p->tag_sample) << HDP_HW_SAMPLE_SHIFT |
	    (uint64_t)sample_field(p->init_check_sample) << HDP_HW_CHECK_SHIFT |
	    (uint64_t)prot_mask << HDP_HW_PROT_SHIFT;

	/* Their values and generations first: a burst that sees the word sees them. */
	hdp_prot_pool_publish(hp, p, hdp_hw_protections(old), prot_mask);
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

void hdp_harden_pool_test_set_epoch(struct hdp_harden_pool *hp, uint64_t epoch)
{
	pthread_mutex_lock(&hp->apply_lock);
	atomic_store_explicit(&hp->epoch, epoch, memory_order_release);
	pthread_mutex_unlock(&hp->apply_lock);
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
	for (unsigned i = 0; i < HDP_PCOUNTERS_MAX; i++)
		hdp_counter_add(&sum->prot[i], atomic_load_explicit(&c->prot[i],
								 memory_order_relaxed));
	hdp_counter_add(&sum->held_in, atomic_load_explicit(&c->held_in, memory_order_relaxed));
	hdp_counter_add(&sum->held_out, atomic_load_explicit(&c->held_out, memory_order_relaxed));
}

void hdp_harden_tls_retire(struct hdp_harden_pool *hp, struct hdp_harden_tls *t)
{
	hdp_prot_tls_release(hp, t);
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
	out->check_sample = hdp_hw_check_sample(w);
	out->epoch = atomic_load_explicit(&hp->epoch, memory_order_relaxed);
	out->tag_backend = !(out->flags & HDP_HF_TAG) ? "off"
			 : (out->flags & HDP_HF_TAG_MTE) ? "mte" : "soft";
	out->bytes_wiped = atomic_load(&sum.bytes_wiped);
	out->objs_tagged = atomic_load(&sum.objs_tagged);
	out->checks = atomic_load(&sum.checks);
	out->protections = hdp_hw_protections(w);
	for (unsigned i = 0; i < HDP_PCOUNTERS_MAX; i++)
		out->prot_counters[i] = atomic_load(&sum.prot[i]);
	out->held = atomic_load(&sum.held_in) - atomic_load(&sum.held_out);
	out->changes = atomic_load(&hp->changes);
	out->changed_at = atomic_load(&hp->changed_at);
	pthread_mutex_lock(&hp->apply_lock);
	memcpy(out->profile, hp->profile_text, sizeof(out->profile));
	out->tag_sample_min = hp->current.tag_sample_min;
	memcpy(out->exclude, hp->exclude_text, sizeof(out->exclude));
	pthread_mutex_unlock(&hp->apply_lock);
	for (int k = 0; k < HDP_V_MAX; k++)
		out->violations[k] = atomic_load_explicit(&hp->violations[k],
							  memory_order_relaxed);
}
