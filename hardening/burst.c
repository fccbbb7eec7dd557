// SPDX-License-Identifier: BSD-3-Clause
/*
 * The pipeline: what runs when a pool hands objects out or takes them
 * back, in order, whatever the back-end. A pool calls it once a burst
 * with the calling thread's state; the pipeline takes free objects from
 * the back-end, or hands freed ones to it, through the back-end's ops
 * (harden.h), and nowhere else. The core's steps per object are
 * core_steps.c's; hdp's own protections beyond the core are steps in
 * files of their own (quarantine.c, redzone.c, shuffle.c), called as
 * plain code behind the word's bits; third parties' protections run
 * through their hooks, once a burst each.
 *
 * Allocation (hdp_harden_pool_alloc):
 *   1. where from: the thread's quarantine, where it keeps objects past
 *      their wait for the thread's own allocations (a pool without thread
 *      caches); else the back-end, after shuffle, then third parties'
 *      pick, reordered the thread's cache. Short of objects while the
 *      quarantine holds some, the oldest go to the back-end before their
 *      wait (cut short), and it is asked again;
 *   2. the core's steps per object: init_check, init_on_alloc, a tag,
 *      the record;
 *   3. redzone: the windows init_on_alloc zeroed;
 *   4. third parties' on_alloc.
 *
 * Free (hdp_harden_pool_free), 64 objects at a time:
 *   1. ownership: each handle must be the start of one of the pool's
 *      objects, else it is reported as what it is and kept out;
 *   2. redzone, then third parties' on_free, on the bytes as the owner
 *      left them, before anything is wiped; told which objects the core
 *      will refuse (its verdicts, from one load of each record, which
 *      step 3 acts on);
 *   3. the core's steps per object: a double free or a stale handle
 *      refused; init_on_free; retag; the record;
 *   4. quarantine, then third parties' hold: freed objects kept a while,
 *      older ones out in their place;
 *   5. the back-end's stash.
 * All or nothing (@bulk): step 1 over the whole burst first; a handle
 * that is no object of the pool stops it.
 * With nothing on and every handle plain and the pool's, a free burst
 * goes to the stash at once: one load of the word and one branch.
 */
#include "harden_internal.h"
#include "protection_internal.h"

#include <errno.h>

#define STEP 64		/* objects through the steps at a time */

static inline unsigned min_u(unsigned a, unsigned b)
{
	return a < b ? a : b;
}

/* --- Allocation --------------------------------------------------------- */

void hdp_harden_pool_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			      struct hdp_harden_view v, void **objs, unsigned n)
{
	struct hdp_protection_burst pb;
	struct hdp_protection_slot *s;

	if (hdp_view_flags(v) & HDP_HF_RECORDS)
		core_on_alloc(hp, t, v, objs, n);
	if (hdp_view_own(v, HDP_OWN_REDZONE))
		redzone_on_alloc(hp, v, objs, n);
	hdp_for_each_hook(s, hp, hdp_view_protections(v), HDP_HOOK_ON_ALLOC) {
		hdp_protection_burst_of(s, t, v, &pb);
		s->reg->p->on_alloc(&pb, objs, n);
	}
}

/* What the protections hold for @t, up to @max of the oldest into @out. */
static unsigned drain_held(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void **out,
			   unsigned max)
{
	unsigned got = quarantine_drain(t, out, max);

	if (got < max && (t->holding & ~(1u << HDP_OWN_QUARANTINE)))
		got += hdp_plugins_drain(hp, t, out + got, max - got);
	return got;
}

unsigned hdp_harden_pool_drain(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			       void **out, unsigned max)
{
	return drain_held(hp, t, out, max);
}

/*
 * The back-end has fewer than @n for this thread, which holds freed
 * objects back: the oldest go to the back-end early, counted, rather
 * than an allocation failing (a small pool, many threads, one busy) or a
 * forwarder whose next frees wait on this allocation stalling for good.
 */
HDP_COLD static void cut_short(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			       unsigned n)
{
	void *held[STEP];
	unsigned got = 0, k;

	while (got < n && t->holding &&
	       (k = drain_held(hp, t, held, min_u(n - got, STEP))) > 0) {
		hp->ops->stash(hp, t, held, k);
		got += k;
	}
	hdp_counter_add(&t->c.held_cut_short, got);
}

/*
 * Protections that choose which objects go (shuffle, third parties'
 * pick) reorder the thread's cache before the back-end pops @n off it;
 * the back-end tops it up first, so that the choice is among a cache's
 * worth.
 */
HDP_COLD static void reorder(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			     struct hdp_harden_view v, unsigned n)
{
	unsigned len, k;
	void **stack = hp->ops->cache(hp, t, n, &len);

	k = min_u(n, len);
	if (!k)
		return;
	if (hdp_view_own(v, HDP_OWN_SHUFFLE))
		shuffle_pick(t, stack, len, k);
	if (hdp_view_protections(v) & hp->hook_mask[HDP_HOOK_PICK])
		hdp_plugins_pick(hp, t, v, stack, len, k);
}

static inline bool reorders(const struct hdp_harden_pool *hp, struct hdp_harden_view v)
{
	return hdp_view_own(v, HDP_OWN_SHUFFLE) ||
	       (hdp_view_protections(v) & hp->hook_mask[HDP_HOOK_PICK]);
}

/* 1. Up to @n objects from the thread's quarantine or the back-end. */
static inline unsigned take(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			    struct hdp_harden_view v, void **objs, unsigned n, bool bulk)
{
	unsigned got;

	if (hdp_unlikely(hdp_view_flags(v) & HDP_HF_PROTECTIONS)) {
		/* Without thread caches the quarantine keeps the thread's; with them, they reorder. */
		if (!hp->ops->cache) {
			got = quarantine_take(hp, t, v, objs, n);
			if (got)
				return got;
		} else if (reorders(hp, v)) {
			reorder(hp, t, v, n);
		}
	}
	got = hp->ops->take(hp, t, objs, n, bulk, !t->holding);
	if (hdp_likely(got == n) || !t->holding)
		return got;
	cut_short(hp, t, n - got);
	return got + hp->ops->take(hp, t, objs + got, n - got, bulk, true);
}

/*
 * In a pool whose objects come back cold, the line where each one's data
 * starts, asked for with intent to write for the whole burst at once:
 * init_check reads it in a moment, init_on_free=used writes it when the
 * object comes back. Otherwise each is a miss taken one at a time.
 */
static void prefetch_data(const struct hdp_harden_pool *hp, void *const *objs, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		__builtin_prefetch((char *)objs[i] + hp->area_off + hp->data_at, 1, 3);
}

/* 2.-4. on the objects' hardened areas. */
static void steps_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			   struct hdp_harden_view v, void **objs, unsigned n)
{
	size_t off = hp->area_off;

	if (hdp_likely(!off)) {
		hdp_harden_pool_on_alloc(hp, t, v, objs, n);
		return;
	}
	for (unsigned i = 0; i < n; i += STEP) {
		unsigned k = min_u(n - i, STEP);
		void *areas[STEP];

		for (unsigned j = 0; j < k; j++)
			areas[j] = (char *)objs[i + j] + off;
		hdp_harden_pool_on_alloc(hp, t, v, areas, k);
		for (unsigned j = 0; j < k; j++)
			objs[i + j] = (char *)areas[j] - off;
	}
}

unsigned hdp_harden_pool_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			       void **objs, unsigned n, bool bulk)
{
	/* This view says which protections choose the objects (shuffle). */
	struct hdp_harden_view v = hdp_harden_pool_view(hp);
	unsigned got = take(hp, t, v, objs, n, bulk);

	if (!got)
		return 0;
	/*
	 * This one, read once the objects are ours, is at least as new as
	 * the view of the free that let each go (the back-end's lock or
	 * ring, or this thread's own free, orders the two), so no record
	 * made in an epoch is followed by an allocation that records
	 * nothing (harden.h).
	 */
	v = hdp_harden_pool_view(hp);
	/* redzone's step acts only after init_on_alloc, one of the records' flags. */
	if (hdp_likely(!(hdp_view_flags(v) & HDP_HF_RECORDS) &&
		       !(hdp_view_protections(v) & hp->hook_mask[HDP_HOOK_ON_ALLOC])))
		return got;
	if (hp->data_at && (hdp_view_flags(v) & (HDP_HF_INIT_USED | HDP_HF_INIT_CHECK)))
		prefetch_data(hp, objs, got);
	steps_on_alloc(hp, t, v, objs, got);
	return got;
}

/* --- Free --------------------------------------------------------------- */

/* Do steps run on the bytes before the core wipes them (redzone, third parties')? */
static inline bool reads_before_wipe(const struct hdp_harden_pool *hp, struct hdp_harden_view v)
{
	return hdp_view_own(v, HDP_OWN_REDZONE) ||
	       (hdp_view_protections(v) & hp->hook_mask[HDP_HOOK_ON_FREE]);
}

/* Does a step want each object's write extent? */
static inline bool wants_extent(const struct hdp_harden_pool *hp, struct hdp_harden_view v)
{
	return (hdp_view_flags(v) & HDP_HF_INIT_USED) || reads_before_wipe(hp, v);
}

/* Third parties' on_free over @n, told what is refused so far: what they refuse besides. */
static uint64_t plugins_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
				struct hdp_harden_view v, void *const *objs,
				const struct hdp_extent *ext, unsigned n, uint64_t refused)
{
	struct hdp_protection_burst pb;
	struct hdp_protection_slot *s;
	uint64_t before = refused;

	hdp_for_each_hook(s, hp, hdp_view_protections(v), HDP_HOOK_ON_FREE) {
		hdp_protection_burst_of(s, t, v, &pb);
		pb.refused = refused;
		refused |= s->reg->p->on_free(&pb, objs, ext, n);
	}
	return refused & ~before;
}

/* The objects not in @out_bits go on, in order, with their extents and records. */
static unsigned drop(void **objs, struct hdp_extent *ext, uint64_t *rec, uint64_t *verdicts,
		     unsigned n, uint64_t out_bits)
{
	uint64_t kept_verdicts = 0;
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		if (out_bits >> i & 1)
			continue;
		if (ext)
			ext[k] = ext[i];
		if (rec)
			rec[k] = rec[i];
		kept_verdicts |= (*verdicts >> i & 1) << k;
		objs[k++] = objs[i];
	}
	*verdicts = kept_verdicts;
	return k;
}

/* 3. The core's steps, or none: the accepted objects, untagged, to @out. */
static unsigned core_steps(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			   struct hdp_harden_view v, void *const *objs, const uint64_t *rec,
			   uint64_t verdicts, const struct hdp_extent *ext, unsigned n,
			   void **out)
{
	uint64_t refused;

	if (hdp_view_flags(v) & HDP_HF_RECORDS) {
		refused = core_on_free(hp, t, v, objs, rec, verdicts, ext, n, out);
		return n - (unsigned)__builtin_popcountll(refused);
	}
	for (unsigned i = 0; i < n; i++)
		out[i] = hdp_untag(objs[i]);
	return n;
}

/* 2.-3. over @n areas (n <= STEP). */
static unsigned steps_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			      struct hdp_harden_view v, void *const *objs,
			      const struct hdp_extent *ext, unsigned n, void **out)
{
	void *keep[STEP];
	struct hdp_extent keep_ext[STEP];
	uint64_t rec[STEP], verdicts = 0, theirs;
	bool records = hdp_view_flags(v) & HDP_HF_RECORDS;

	if (hdp_likely(!reads_before_wipe(hp, v)))
		return core_steps(hp, t, v, objs, NULL, 0, ext, n, out);
	if (records)
		verdicts = core_verdicts(hp, v, objs, n, rec);
	if (hdp_view_own(v, HDP_OWN_REDZONE))
		redzone_on_free(hp, t, v, objs, ext, n, verdicts);
	theirs = plugins_on_free(hp, t, v, objs, ext, n, verdicts);
	if (hdp_likely(!theirs))
		return core_steps(hp, t, v, objs, records ? rec : NULL, verdicts, ext, n, out);
	/* Refused by a third party: they stay with their owner, unwiped. */
	memcpy(keep, objs, n * sizeof(*keep));
	if (ext)
		memcpy(keep_ext, ext, n * sizeof(*keep_ext));
	n = drop(keep, ext ? keep_ext : NULL, records ? rec : NULL, &verdicts, n, theirs);
	return core_steps(hp, t, v, keep, records ? rec : NULL, verdicts,
			  ext ? keep_ext : NULL, n, out);
}

unsigned hdp_harden_pool_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
				 struct hdp_harden_view v, void *const *objs,
				 const struct hdp_extent *ext, void **out, unsigned n)
{
	unsigned kept = 0;

	for (unsigned i = 0; i < n; i += STEP)
		kept += steps_on_free(hp, t, v, objs + i, ext ? ext + i : NULL, min_u(n - i, STEP),
				      out + kept);
	return kept;
}

/* Is @area (untagged) the start of one of the pool's objects, in slot *@idx? */
static inline bool object_slot(const struct hdp_layout *l, const void *area, uint32_t *idx)
{
	size_t in_slot;

	return hdp_layout_slot(l, (uintptr_t)area, idx, &in_slot) &&
	       in_slot == (l->starts ? l->starts[*idx] : 0) && !hdp_layout_is_gap(l, *idx);
}

/* All the pool's objects, and none tagged? Tags are rare with hardening off: OR them up. */
static inline bool all_plain_and_owned(const struct hdp_harden_pool *hp, void *const *objs,
				       unsigned n)
{
	uintptr_t tags = 0;
	bool ok = true;

	for (unsigned i = 0; i < n; i++) {
		tags |= (uintptr_t)objs[i];
		ok &= hdp_layout_is_object(&hp->layout,
					   (uintptr_t)hdp_untag(objs[i]) + hp->area_off);
	}
	return ok && !(tags & HDP_TAG_MASK);
}

/* All the pool's objects, tags or not? */
static inline bool all_owned(const struct hdp_harden_pool *hp, void *const *objs, unsigned n)
{
	bool ok = true;

	for (unsigned i = 0; i < n; i++)
		ok &= hdp_layout_is_object(&hp->layout, (uintptr_t)hdp_untag(objs[i]));
	return ok;
}

/* 4. Kept a while (quarantine, third parties' hold): what goes to the back-end now. */
static inline unsigned hold(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			    struct hdp_harden_view v, void **objs, unsigned n)
{
	uint32_t own = 1u << HDP_OWN_QUARANTINE;

	if ((hdp_view_protections(v) | t->holding) & own)
		n = quarantine_hold(hp, t, v, objs, n, STEP);
	if (((hdp_view_protections(v) & hp->hook_mask[HDP_HOOK_HOLD]) | (t->holding & ~own)))
		n = hdp_plugins_hold(hp, t, v, objs, n, STEP);
	return n;
}

/* 1.-5. over @n handles (n <= STEP): how many were taken. */
static unsigned free_chunk(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			   struct hdp_harden_view v, void *const *objs,
			   const struct hdp_extent *ext, unsigned n)
{
	void *areas[STEP], *handles[STEP], *out[STEP];
	struct hdp_extent got_ext[STEP];
	size_t off = hp->area_off;
	void *const *these = objs;
	unsigned good = n, taken, back;

	/* 1. A chunk of the pool's objects, the usual case, goes on as it came. */
	if (hdp_unlikely(off || !all_owned(hp, objs, n))) {
		good = 0;
		for (unsigned i = 0; i < n; i++) {
			uint32_t idx;

			if (!object_slot(&hp->layout, (char *)hdp_untag(objs[i]) + off, &idx)) {
				report_invalid_free(hp, objs[i]);
				continue;
			}
			if (ext)
				got_ext[good] = ext[i];
			handles[good] = objs[i];
			areas[good++] = (char *)objs[i] + off;
		}
		these = areas;
		ext = ext ? got_ext : NULL;
	}
	if (!ext && hp->ops->extents && wants_extent(hp, v)) {
		hp->ops->extents(hp, these == objs ? objs : handles, got_ext, good);
		ext = got_ext;
	}
	/* 2.-3. */
	taken = hdp_harden_pool_on_free(hp, t, v, these, ext, out, good);
	for (unsigned i = 0; off && i < taken; i++)
		out[i] = (char *)out[i] - off;
	/* 4.-5. */
	back = taken;
	if (hdp_unlikely((hdp_view_flags(v) & HDP_HF_PROTECTIONS) || t->holding))
		back = hold(hp, t, v, out, taken);
	if (back)
		hp->ops->stash(hp, t, out, back);
	return taken;
}

/*
 * One object, as rte_pktmbuf_free gives them (net_null and many PMDs
 * free mbuf by mbuf): the same steps without a chunk's arrays and
 * set-up. Steps that read before the wipe take the chunk's path.
 */
static unsigned free_one(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			 struct hdp_harden_view v, void *obj, const struct hdp_extent *ext)
{
	void *area = (char *)obj + hp->area_off, *out[STEP];
	struct hdp_extent e;
	uint32_t idx;
	unsigned back = 1;

	if (hdp_unlikely(reads_before_wipe(hp, v)))
		return free_chunk(hp, t, v, &obj, ext, 1);
	if (hdp_unlikely(!object_slot(&hp->layout, hdp_untag(area), &idx))) {
		report_invalid_free(hp, obj);
		return 0;
	}
	if (!ext && hp->ops->extents && (hdp_view_flags(v) & HDP_HF_INIT_USED)) {
		hp->ops->extents(hp, &obj, &e, 1);
		ext = &e;
	}
	if ((hdp_view_flags(v) & HDP_HF_RECORDS) && !core_free_one(hp, t, v, area, idx, ext))
		return 0;
	out[0] = hdp_untag(obj);
	if ((hdp_view_flags(v) & HDP_HF_PROTECTIONS) || t->holding)
		back = hold(hp, t, v, out, 1);
	if (back)
		hp->ops->stash(hp, t, out, back);
	return 1;
}

/*
 * All or nothing: is every handle one of the pool's objects? If not, each
 * one that is not is reported. Out of line: a forwarder's bursts never
 * ask, and inlined it doubled the free entry's code.
 */
HDP_COLD static bool bulk_owned(struct hdp_harden_pool *hp, void *const *objs, unsigned n)
{
	unsigned bad = 0;
	uint32_t idx;

	for (unsigned i = 0; i < n; i++)
		bad += !object_slot(&hp->layout, (char *)hdp_untag(objs[i]) + hp->area_off, &idx);
	if (hdp_likely(!bad))
		return true;
	for (unsigned i = 0; i < n; i++)
		if (!object_slot(&hp->layout, (char *)hdp_untag(objs[i]) + hp->area_off, &idx))
			report_invalid_free(hp, objs[i]);
	return false;
}

unsigned hdp_harden_pool_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			      void *const *objs, const struct hdp_extent *ext, unsigned n,
			      bool bulk)
{
	struct hdp_harden_view v = hdp_harden_pool_view(hp);
	unsigned taken = 0;

	if (hdp_likely(!(hdp_view_flags(v) & HDP_HF_HOOKS) && !t->holding &&
		       all_plain_and_owned(hp, objs, n))) {
		hp->ops->stash(hp, t, objs, n);
		return n;
	}
	if (bulk && !bulk_owned(hp, objs, n))
		return 0;
	if (n == 1)
		return free_one(hp, t, v, objs[0], ext);
	for (unsigned i = 0; i < n; i += STEP)
		taken += free_chunk(hp, t, v, objs + i, ext ? ext + i : NULL, min_u(n - i, STEP));
	return taken;
}

void hdp_harden_pool_zero(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void *obj,
			  const struct hdp_extent *ext, bool freed)
{
	unsigned flags = hdp_view_flags(hdp_harden_pool_view(hp));
	uint32_t size = (uint32_t)hp->layout.obj_size;
	struct hdp_extent e = { 0, size };

	if (!(flags & (freed ? HDP_HF_INIT_FREE : HDP_HF_INIT_ALLOC)))
		return;
	if (freed && ext && (flags & HDP_HF_INIT_USED)) {
		e.end = ext->end < size ? ext->end : size;
		e.start = ext->start < e.end ? ext->start : e.end;
	}
	zero_wipe((char *)obj + hp->area_off + e.start, e.end - e.start);
	hdp_counter_add(&t->c.n[HDP_C_BYTES_WIPED], e.end - e.start);
}
