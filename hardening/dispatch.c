// SPDX-License-Identifier: BSD-3-Clause
/*
 * The order a pool's protections run in, for a burst of allocations, a
 * burst of frees and a checked copy. The built-in ones (bounds, init,
 * tag) run from their descriptions when the word's flags say so; the
 * registered ones by their bits in the word's mask (protection_pool.c).
 *   - allocation: built-in first, so a registered hook sees the objects
 *     zeroed and tagged;
 *   - free: registered first, while the bytes are as the owner left them,
 *     told which objects the built-in checks will refuse; then built-in;
 *   - copy: built-in first (bounds, then tags), then registered.
 * A hook that several protections name (init's and tag's records pass)
 * runs once a burst.
 */
#include "builtin_internal.h"
#include "harden_internal.h"
#include "protection_internal.h"

#include <string.h>

typedef void alloc_hook(const struct hdp_protection_burst *b, void **objs, unsigned n);
typedef uint64_t free_hook(const struct hdp_protection_burst *b, void *const *objs,
			   const struct hdp_extent *ext, unsigned n);
typedef uint64_t refusals_hook(const struct hdp_protection_burst *b, void *const *objs,
			       unsigned n);
typedef int copy_hook(const struct hdp_protection_burst *b, const void *p, size_t n,
		      bool into_pool);
/* Any of them, to tell which ran (function pointers convert to each other). */
typedef void any_hook(void);

/*
 * Call @fn, directly when it is @known (builtin_internal.h says why).
 * The compiler then inlines nothing across files, but the call is a
 * direct one and predicts as such.
 */
#define CALL_KNOWN(fn, known, ...)                                                 \
	(hdp_likely((fn) == (known)) ? known(__VA_ARGS__) : (fn)(__VA_ARGS__))

static inline void core_burst(struct hdp_core_burst *cb, struct hdp_harden_pool *hp,
			      struct hdp_harden_tls *t, uint64_t w)
{
	cb->b.pool = NULL;
	cb->b.core_flags = hdp_hw_flags(w);
	cb->b.refused = 0;
	cb->hp = hp;
	cb->t = t;
	cb->w = w;
}

/*
 * The built-in protection @i, if the word runs it and its hook @fn (one
 * of its descriptor's) has not run yet in this burst: @ran holds the
 * hooks that did.
 */
static inline bool builtin_runs(unsigned flags, unsigned i, any_hook *fn, any_hook **ran,
				unsigned *nran)
{
	if (!fn || !(flags & hdp_builtins[i]->on_flags))
		return false;
	for (unsigned j = 0; j < *nran; j++)
		if (ran[j] == fn)
			return false;
	ran[(*nran)++] = fn;
	return true;
}

void hdp_harden_on_alloc(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			 uint64_t w, void **objs, unsigned n)
{
	unsigned flags = hdp_hw_flags(w), nran = 0;
	any_hook *ran[HDP_BUILTINS];
	struct hdp_core_burst cb;

	core_burst(&cb, hp, t, w);
	for (unsigned i = 0; i < HDP_BUILTINS; i++) {
		alloc_hook *fn = hdp_builtins[i]->desc->on_alloc;

		if (builtin_runs(flags, i, (any_hook *)fn, ran, &nran))
			CALL_KNOWN(fn, hdp_records_on_alloc, &cb.b, objs, n);
	}
	if (flags & HDP_HF_PROTECTIONS)
		hdp_prot_on_alloc(hp, t, w, objs, n);
}

/* What the built-in free hooks will refuse of @n objects (n <= 64). */
static uint64_t builtin_refusals(struct hdp_core_burst *cb, unsigned flags,
				 void *const *objs, unsigned n)
{
	any_hook *ran[HDP_BUILTINS];
	unsigned nran = 0;
	uint64_t refused = 0;

	for (unsigned i = 0; i < HDP_BUILTINS; i++) {
		refusals_hook *fn = hdp_builtins[i]->refusals;

		if (builtin_runs(flags, i, (any_hook *)fn, ran, &nran))
			refused |= CALL_KNOWN(fn, hdp_records_refusals, &cb->b, objs, n);
	}
	return refused;
}

/*
 * The built-in free hooks over @n objects (n <= 64); the ones none
 * refused, untagged, go to @out: how many. When the one hook to run is
 * the records pass (the only built-in free hook there is), it fills @out
 * itself, in its one walk over the burst.
 */
static inline unsigned builtin_on_free(struct hdp_core_burst *cb, unsigned flags,
				       void *const *objs, const struct hdp_extent *ext,
				       unsigned n, void **out)
{
	any_hook *ran[HDP_BUILTINS];
	free_hook *hooks[HDP_BUILTINS];
	unsigned nran = 0, kept = 0;
	uint64_t refused = 0;

	for (unsigned i = 0; i < HDP_BUILTINS; i++) {
		free_hook *fn = hdp_builtins[i]->desc->on_free;

		if (builtin_runs(flags, i, (any_hook *)fn, ran, &nran))
			hooks[nran - 1] = fn;
	}
	if (hdp_likely(nran == 1 && hooks[0] == hdp_records_on_free))
		return hdp_records_free_into(&cb->b, objs, ext, n, out);
	for (unsigned i = 0; i < nran; i++) {
		cb->b.refused = refused;
		refused |= CALL_KNOWN(hooks[i], hdp_records_on_free, &cb->b, objs, ext, n);
	}
	for (unsigned i = 0; i < n; i++)
		if (!(refused >> i & 1))
			out[kept++] = hdp_untag(objs[i]);
	return kept;
}

/*
 * The registered free hooks over @n objects (n <= 64): the objects they
 * refused (a double free one knows of), which stay with their owner.
 */
static __attribute__((noinline)) uint64_t
registered_on_free(struct hdp_core_burst *cb, unsigned flags, void *const *objs,
		   const struct hdp_extent *ext, unsigned n)
{
	uint64_t core = builtin_refusals(cb, flags, objs, n);

	return hdp_prot_on_free(cb->hp, cb->t, cb->w, objs, ext, n, core) & ~core;
}

/* The objects not @refused go on, in order, with their extents. */
static unsigned drop_refused(void *const *objs, const struct hdp_extent *ext, unsigned n,
			     uint64_t refused, void **keep, struct hdp_extent *keep_ext)
{
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++) {
		if (refused >> i & 1)
			continue;
		if (ext)
			keep_ext[k] = ext[i];
		keep[k++] = objs[i];
	}
	return k;
}

/* In steps of 64, one bit per object for what a hook refuses. */
unsigned hdp_harden_on_free(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			    uint64_t w, void *const *objs, const struct hdp_extent *ext,
			    void **out, unsigned n)
{
	unsigned flags = hdp_hw_flags(w), kept = 0;
	bool registered = hdp_hw_protections(w) & hp->free_mask;
	struct hdp_core_burst cb;

	core_burst(&cb, hp, t, w);
	while (n) {
		unsigned k = n < 64 ? n : 64, left = k;
		void *keep[64];
		struct hdp_extent keep_ext[64];
		void *const *these = objs;
		const struct hdp_extent *these_ext = ext;
		uint64_t refused;

		refused = hdp_unlikely(registered) ? registered_on_free(&cb, flags, objs, ext, k) : 0;
		if (hdp_unlikely(refused)) {
			left = drop_refused(objs, ext, k, refused, keep, keep_ext);
			these = keep;
			these_ext = ext ? keep_ext : NULL;
		}
		kept += builtin_on_free(&cb, flags, these, these_ext, left, out + kept);
		objs += k;
		if (ext)
			ext += k;
		n -= k;
	}
	return kept;
}

static int check_copy(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, const void *p,
		      size_t n, bool into_pool)
{
	uint64_t w = hdp_harden_word(hp);
	unsigned flags = hdp_hw_flags(w), nran = 0;
	any_hook *ran[HDP_BUILTINS];
	struct hdp_core_burst cb;

	if (n == 0)
		return 0;
	core_burst(&cb, hp, t, w);
	for (unsigned i = 0; i < HDP_BUILTINS; i++) {
		copy_hook *fn = hdp_builtins[i]->desc->on_copy;
		int ret;

		if (!builtin_runs(flags, i, (any_hook *)fn, ran, &nran))
			continue;
		ret = hdp_likely(fn == hdp_bounds_on_copy)
			      ? hdp_bounds_on_copy(&cb.b, p, n, into_pool)
			      : CALL_KNOWN(fn, hdp_tag_on_copy, &cb.b, p, n, into_pool);
		if (ret)
			return ret;
	}
	if (flags & HDP_HF_PROTECTIONS)
		return hdp_prot_on_copy(hp, t, w, p, n, into_pool);
	return 0;
}

/* Under MTE the CPU checks the copy again as it happens: keep the tag. */
static inline void *copy_ptr(const struct hdp_harden_pool *hp, const void *p)
{
	return hp->tag_ops && hp->tag_ops->hardware_checks ? (void *)p : hdp_untag(p);
}

int hdp_harden_copy_in(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
		       void *dst, const void *src, size_t n)
{
	int ret = check_copy(hp, t, dst, n, true);

	if (ret == 0 && n)
		memcpy(copy_ptr(hp, dst), src, n);
	return ret;
}

int hdp_harden_copy_out(struct hdp_harden_pool *hp, struct hdp_harden_tls *t,
			void *dst, const void *src, size_t n)
{
	int ret = check_copy(hp, t, src, n, false);

	if (ret == 0 && n)
		memcpy(dst, copy_ptr(hp, src), n);
	return ret;
}
