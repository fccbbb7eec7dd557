// SPDX-License-Identifier: BSD-3-Clause
/*
 * The hardening part of a pool's report: a snapshot of its state and
 * counters, and that snapshot as JSON and text (or figure by figure),
 * from the protections' descriptions (the core's, hdp's own and third
 * parties') alone.
 */
#include "harden_internal.h"
#include "protection_internal.h"

#include <hdp/strbuf.h>

#include <string.h>

#define U(x) ((unsigned long long)(x))

void hdp_harden_counters_add(struct hdp_harden_counters *sum,
			     const struct hdp_harden_counters *c)
{
	for (unsigned i = 0; i < HDP_COUNTERS_MAX; i++)
		hdp_counter_add(&sum->n[i], hdp_counter_read(&c->n[i]));
	hdp_counter_add(&sum->held_in, hdp_counter_read(&c->held_in));
	hdp_counter_add(&sum->held_out, hdp_counter_read(&c->held_out));
	hdp_counter_add(&sum->held_cut_short, hdp_counter_read(&c->held_cut_short));
}

static void add_thread(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void *sum)
{
	(void)hp;
	hdp_harden_counters_add(sum, &t->c);
}

void hdp_harden_stats_get(struct hdp_harden_pool *hp, struct hdp_harden_stats *out)
{
	struct hdp_harden_view v = hdp_harden_pool_view(hp);
	struct hdp_harden_counters sum = { 0 };
	uint64_t epoch;
	bool mte;

	memset(out, 0, sizeof(*out));
	hdp_harden_counters_add(&sum, &hp->retired);
	if (hp->ops && hp->ops->each_thread)
		hp->ops->each_thread(hp, add_thread, &sum);
	out->flags = hdp_view_flags(v);
	out->on_violation = hdp_view_policy(v);
	/* One load: the two epochs as they were together. */
	epoch = atomic_load_explicit(&hp->epoch, memory_order_relaxed);
	out->epoch = hdp_epoch_core(epoch);
	out->protections_epoch = hdp_epoch_protections(epoch);
	mte = atomic_load_explicit(&hp->mte, memory_order_relaxed) == TAG_MTE_YES;
	out->tag_backend = !(out->flags & HDP_HF_TAG) ? "off" : mte ? "mte" : "soft";
	out->tag_check = "none";
	if ((out->flags & HDP_HF_TAG) && mte && hdp_tag_check_in_force(NULL) >= 0)
		out->tag_check = hdp_tag_check_name((enum hdp_tag_check)hdp_tag_check_in_force(NULL));
	for (unsigned i = 0; i < HDP_COUNTERS_MAX; i++)
		out->counters[i] = hdp_counter_read(&sum.n[i]);
	out->protections = hdp_registry_listing_mask(hdp_view_protections(v));
	out->held = hdp_counter_read(&sum.held_in) - hdp_counter_read(&sum.held_out);
	out->held_cut_short = hdp_counter_read(&sum.held_cut_short);
	out->quarantine_depth = hdp_view_own(v, HDP_OWN_QUARANTINE)
				? atomic_load_explicit(&hp->quarantine_depth, memory_order_relaxed)
				: 0;
	out->changes = atomic_load(&hp->changes);
	out->changed_at = atomic_load(&hp->changed_at);
	pthread_mutex_lock(&hp->apply_lock);
	out->profiled = hp->applied;
	out->profile = hp->current;
	memcpy(out->profile_text, hp->profile_text, sizeof(out->profile_text));
	memcpy(out->exclude, hp->exclude_text, sizeof(out->exclude));
	pthread_mutex_unlock(&hp->apply_lock);
	for (int k = 0; k < HDP_V_MAX; k++)
		out->violations[k] = atomic_load_explicit(&hp->violations[k],
							  memory_order_relaxed);
}

uint64_t hdp_protection_counter(const struct hdp_harden_stats *h, unsigned i, unsigned c)
{
	const struct hdp_registry *reg = hdp_registry();

	if (i >= reg->n || c >= reg->r[i].p->ncounters)
		return 0;
	return h->counters[reg->r[i].counter_base + c];
}

void hdp_hflags_format(struct hdp_strbuf *o, unsigned flags)
{
	static const char *const names[HDP_HF__COUNT] = {
#define NAME(FLAG, name) [HDP_HFB_##FLAG] = #name,
		HDP_HFLAGS(NAME)
#undef NAME
	};
	size_t at = o->used;

	for (unsigned i = 0; i < HDP_HF__COUNT; i++)
		if (flags >> i & 1)
			hdp_strbuf_printf(o, "%s%s", o->used > at ? "," : "", names[i]);
	if (o->used == at)
		hdp_strbuf_printf(o, "none");
}

void hdp_protection_stats_json(struct hdp_strbuf *o, const struct hdp_harden_stats *h)
{
	const struct hdp_registry *reg = hdp_registry();

	hdp_strbuf_printf(o, "\"protections\":{");
	for (unsigned i = 0; i < reg->n; i++) {
		const struct hdp_registered *r = &reg->r[i];

		hdp_strbuf_printf(o, "%s\"%s\":{\"on\":%s", i ? "," : "", r->p->name,
				  (h->protections >> i & 1) ? "true" : "false");
		for (unsigned c = 0; c < r->p->ncounters; c++)
			hdp_strbuf_printf(o, ",\"%s\":%llu", r->p->counters[c].name,
					  U(hdp_protection_counter(h, i, c)));
		hdp_strbuf_printf(o, "}");
	}
	hdp_strbuf_printf(o, "}");
}

void hdp_protection_stats_text(struct hdp_strbuf *o, const struct hdp_harden_stats *h)
{
	const struct hdp_registry *reg = hdp_registry();

	for (unsigned i = 0; i < reg->n; i++) {
		const struct hdp_registered *r = &reg->r[i];

		hdp_strbuf_printf(o, "  %s: %s", r->p->name,
				  (h->protections >> i & 1) ? "on" : "off");
		for (unsigned c = 0; c < r->p->ncounters; c++)
			hdp_strbuf_printf(o, "%s %s %llu", c ? "," : ";", r->p->counters[c].name,
					  U(hdp_protection_counter(h, i, c)));
		hdp_strbuf_printf(o, "\n");
	}
}

void hdp_harden_stats_json(struct hdp_strbuf *o, const struct hdp_harden_stats *h)
{
	hdp_strbuf_printf(o, "\"profile\":");
	hdp_strbuf_json_string(o, h->profiled ? h->profile_text : "none");
	hdp_strbuf_printf(o, ",\"exclude\":");
	hdp_strbuf_json_string(o, h->exclude);
	hdp_strbuf_printf(o, ",\"flags\":\"");
	hdp_hflags_format(o, h->flags);
	hdp_strbuf_printf(o, "\",\"on_violation\":\"%s\",\"tag\":\"%s\",\"tag_check\":\"%s\","
			  "\"epoch\":%llu,\"protections_epoch\":%llu",
			  hdp_policy_name(h->on_violation), h->tag_backend,
			  h->tag_check ? h->tag_check : "none", U(h->epoch), U(h->protections_epoch));
	for (unsigned c = 0; c < HDP_C__CORE; c++)
		hdp_strbuf_printf(o, ",\"%s\":%llu", hdp_core_counter_name(c), U(h->counters[c]));
	hdp_strbuf_printf(o, ",\"changes\":%llu,\"changed_at\":%lld,",
			  U(h->changes), (long long)h->changed_at);
	hdp_protection_stats_json(o, h);
	hdp_strbuf_printf(o, ",\"violations\":{");
	for (unsigned k = 0; k < hdp_violation_kinds(); k++)
		hdp_strbuf_printf(o, "%s\"%s\":%llu", k ? "," : "",
				  hdp_violation_name((enum hdp_violation_kind)k), U(h->violations[k]));
	hdp_strbuf_printf(o, "}");
}

void hdp_harden_stats_text(struct hdp_strbuf *o, const struct hdp_harden_stats *h)
{
	uint64_t total = 0;

	hdp_strbuf_printf(o, "  hardening: ");
	hdp_hflags_format(o, h->flags);
	hdp_strbuf_printf(o, " (tags %s%s%s), on violation %s, epoch %llu (protections %llu), "
			  "%llu profile changes\n",
			  h->tag_backend, h->tag_check && strcmp(h->tag_check, "none") ? ", checked " : "",
			  h->tag_check && strcmp(h->tag_check, "none") ? h->tag_check : "",
			  hdp_policy_name(h->on_violation), U(h->epoch), U(h->protections_epoch),
			  U(h->changes));
	hdp_strbuf_printf(o, "  profile: %s\n", h->profiled ? h->profile_text : "none");
	if (h->exclude[0])
		hdp_strbuf_printf(o, "  excluded: %s\n", h->exclude);
	hdp_strbuf_printf(o, "  counters:");
	for (unsigned c = 0; c < HDP_C__CORE; c++)
		hdp_strbuf_printf(o, "%s %s %llu", c ? "," : "", hdp_core_counter_name(c),
				  U(h->counters[c]));
	hdp_strbuf_printf(o, "\n");
	hdp_protection_stats_text(o, h);
	hdp_strbuf_printf(o, "  violations:");
	for (unsigned k = 0; k < hdp_violation_kinds(); k++) {
		total += h->violations[k];
		if (h->violations[k])
			hdp_strbuf_printf(o, " %s %llu",
					  hdp_violation_name((enum hdp_violation_kind)k),
					  U(h->violations[k]));
	}
	hdp_strbuf_printf(o, "%s\n", total ? "" : " none");
}

void hdp_harden_stats_each(const struct hdp_harden_stats *h, hdp_stats_fn_t fn, void *ctx)
{
	const struct hdp_registry *reg = hdp_registry();

	fn(ctx, "on_violation", 0, hdp_policy_name(h->on_violation));
	for (unsigned k = 0; k < hdp_violation_kinds(); k++)
		fn(ctx, hdp_violation_name((enum hdp_violation_kind)k), h->violations[k], NULL);
	for (unsigned i = 0; i < reg->n; i++) {
		const struct hdp_protection *p = reg->r[i].p;

		fn(ctx, p->name, 0, (h->protections >> i & 1) ? "on" : "off");
		for (unsigned c = 0; c < p->ncounters; c++)
			fn(ctx, p->counters[c].name, hdp_protection_counter(h, i, c), NULL);
	}
}
