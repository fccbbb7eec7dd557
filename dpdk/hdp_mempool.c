// SPDX-License-Identifier: BSD-3-Clause
/*
 * The "hdp" mempool ops. Free objects live in an rte_ring, as with DPDK's
 * ring driver, behind each lcore's reuse queue, the pool's quarantine
 * (dpdk_reuse.h: with quarantine on, a freed object waits there behind
 * quarantine_depth later frees of that lcore before it is handed out
 * again); what hdp adds runs as objects cross the driver: on the way
 * in (enqueue = free) foreign and interior pointers and double frees are
 * refused and the data area is wiped (init_on_free); on the way out
 * (dequeue = alloc) it is checked still zero (init_check) or wiped
 * (init_on_alloc). For an mbuf pool the data area is the data room only:
 * the header must survive a free, since rte_mbuf_raw_alloc does not set
 * it up again.
 *
 * DPDK gives a pool's memory in one chunk or in many (IOVA-contiguous runs
 * in PA mode, hugepage by hugepage with --legacy-mem, whatever an
 * application passes to rte_mempool_populate_*): hdp indexes objects over
 * every chunk (hdp_layout_chunk) and turns the profile on once the last
 * object has arrived. Objects arriving during populate skip the hooks:
 * their mbuf headers are written (rte_pktmbuf_init) only after they are
 * "free".
 */
#include "dpdk_internal.h"

#include <hdp/counter.h>
#include <hdp/log.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#define STEP HDP_REUSE_PUT_MAX	/* objects through the hooks at a time */

static size_t elt_stride(const struct rte_mempool *mp)
{
	return mp->header_size + mp->elt_size + mp->trailer_size;
}

enum pool_kind {
	POOL_OBJECTS,		/* hardened whole */
	POOL_MBUFS,		/* the data room hardened, the header left alone */
	POOL_MBUFS_EXTERNAL,	/* pinned external buffers: no data room here */
};

/* rte_pktmbuf_pool_create* fills the private area before the ops' alloc. */
static enum pool_kind pool_kind_of(struct rte_mempool *mp, size_t *room, size_t *priv)
{
	const struct rte_pktmbuf_pool_private *pp;

	if (mp->private_data_size < sizeof(*pp))
		return POOL_OBJECTS;
	pp = rte_mempool_get_priv(mp);
	*room = pp->mbuf_data_room_size;
	*priv = pp->mbuf_priv_size;
	/* Its elements: the mbuf, its private area, the buffers' shared info. */
	if ((pp->flags & RTE_PKTMBUF_POOL_F_PINNED_EXT_BUF) &&
	    mp->elt_size >= sizeof(struct rte_mbuf) + *priv)
		return POOL_MBUFS_EXTERNAL;
	return pp->flags == 0 && *room &&
	       mp->elt_size == RTE_ALIGN_CEIL(sizeof(struct rte_mbuf) + *priv + *room, 8)
		       ? POOL_MBUFS : POOL_OBJECTS;
}

static int hdp_ops_alloc(struct rte_mempool *mp)
{
	char ring_name[RTE_RING_NAMESIZE];
	struct hdp_dpdk_pool *pd;
	size_t room = 0, priv = 0;
	enum pool_kind kind = pool_kind_of(mp, &room, &priv);

	/*
	 * Its mbufs' data lies in memory the application pinned, not in this
	 * pool: taken for plain objects, their headers were wiped on free
	 * (the next mbuf had no pool, no buffer). Nothing here to harden.
	 */
	if (kind == POOL_MBUFS_EXTERNAL) {
		hdp_log(HDP_LOG_ERR, "mempool %s: its mbufs carry pinned external buffers "
			"(rte_pktmbuf_pool_create_extbuf), which hdp cannot harden: make it "
			"with another mempool ops (rte_pktmbuf_pool_create_extbuf takes the "
			"default, --mbuf-pool-ops-name)", mp->name);
		return -ENOTSUP;
	}
	pd = rte_zmalloc_socket("hdp_mempool", sizeof(*pd), RTE_CACHE_LINE_SIZE,
				mp->socket_id);
	if (!pd)
		return -ENOMEM;
	if (hdp_dpdk_profile_for(mp->name, &pd->profile, &pd->excluded, pd->why,
				 sizeof(pd->why))) {
		rte_free(pd);
		return -EINVAL;
	}
	/* Mempool names are shorter than RTE_MEMPOOL_NAMESIZE: this fits. */
	snprintf(ring_name, sizeof(ring_name), "H_%.*s", (int)RTE_MEMPOOL_NAMESIZE - 1, mp->name);
	pd->ring = rte_ring_create(ring_name, rte_align32pow2(mp->size + 1), mp->socket_id,
				   0);
	if (!pd->ring) {
		hdp_log(HDP_LOG_ERR, "mempool %s: cannot make its ring: %s", mp->name,
			rte_strerror(rte_errno));
		rte_free(pd);
		return -rte_errno;
	}
	pd->mp = mp;
	pd->is_mbuf = kind == POOL_MBUFS;
	pd->area_off = pd->is_mbuf ? sizeof(struct rte_mbuf) + priv : 0;
	pd->area_len = pd->is_mbuf ? room : mp->elt_size;
	pd->inside = true;
	rte_spinlock_init(&pd->foreign_lock);
	mp->pool_data = pd;
	hdp_dpdk_pools_add(pd);
	return 0;
}

static void hdp_ops_free(struct rte_mempool *mp)
{
	struct hdp_dpdk_pool *pd = mp->pool_data;

	if (!pd)
		return;
	hdp_dpdk_pools_remove(pd);
	rte_ring_free(pd->ring);
	if (pd->hp_ready)
		hdp_harden_pool_fini(&pd->hp);
	rte_free(pd->starts);
	rte_free(pd->chunks);
	hdp_dpdk_reuse_teardown(pd);
	rte_free(pd);
	mp->pool_data = NULL;
}

struct populate_ctx {
	struct hdp_dpdk_pool *pd;
	const struct hdp_layout_chunk *chunk;
	rte_mempool_populate_obj_cb_t *obj_cb;
	void *obj_cb_arg;
};

/*
 * DPDK keeps objects from straddling a page, so they are not evenly spaced:
 * hdp indexes each by its distance from its chunk's first slot divided by
 * the stride (distinct, since objects do not overlap) and remembers where
 * in that stride-sized slot it starts (less than the stride, so 32 bits
 * whatever the size of the chunk), to tell an object from a pointer into one.
 */
static void note_object(struct rte_mempool *mp, void *opaque, void *obj, rte_iova_t iova)
{
	struct populate_ctx *c = opaque;
	struct hdp_dpdk_pool *pd = c->pd;
	uintptr_t area = (uintptr_t)obj + pd->area_off, off = area - c->chunk->base;

	if (area >= c->chunk->base && off < c->chunk->len)
		pd->starts[c->chunk->first + off / elt_stride(mp)] =
			(uint32_t)(off % elt_stride(mp));
	else
		pd->inside = false;
	pd->populated++;
	c->obj_cb(mp, c->obj_cb_arg, obj, iova);
}

/*
 * Room for one more chunk of @slots slots; the new slots start unknown
 * (UINT32_MAX: no object starts there). 0 or -ENOMEM.
 */
static int grow_tables(struct hdp_dpdk_pool *pd, uint32_t slots)
{
	struct hdp_layout_chunk *chunks;
	uint32_t *starts;

	if (slots > UINT32_MAX - pd->slots)
		return -ENOMEM;
	chunks = rte_realloc(pd->chunks, (pd->chunk_count + 1) * sizeof(*chunks), 0);
	if (!chunks)
		return -ENOMEM;
	pd->chunks = chunks;
	starts = rte_realloc(pd->starts, ((size_t)pd->slots + slots) * sizeof(*starts), 0);
	if (!starts)
		return -ENOMEM;
	pd->starts = starts;
	memset(starts + pd->slots, 0xff, (size_t)slots * sizeof(*starts));
	return 0;
}

/*
 * Chunks close together (EAL's pages of one memory segment list, in PA
 * mode one chunk per IOVA-contiguous run) are indexed as one span, like
 * a single chunk: objects do not overlap, so their distances from the
 * span's start divided by the stride are still distinct, and the lookup
 * stays one multiply. Worth it while the span has at most twice the slots
 * the chunks have; sparser pools keep the chunk table. The slot starts
 * are moved to span indexes. 0, or -ENOMEM.
 */
static int index_as_span(struct hdp_dpdk_pool *pd, size_t stride, bool *spanned)
{
	uintptr_t lo = UINTPTR_MAX, hi = 0;
	uint32_t *starts;
	size_t slots;

	*spanned = false;
	for (uint32_t k = 0; k < pd->chunk_count; k++) {
		lo = pd->chunks[k].base < lo ? pd->chunks[k].base : lo;
		hi = pd->chunks[k].base + pd->chunks[k].len > hi ? pd->chunks[k].base +
								     pd->chunks[k].len : hi;
	}
	slots = (hi - lo + stride - 1) / stride;
	if (pd->chunk_count == 1 || slots > 2 * (size_t)pd->slots || slots > UINT32_MAX)
		return 0;
	starts = rte_malloc("hdp_starts", slots * sizeof(*starts), 0);
	if (!starts)
		return -ENOMEM;
	memset(starts, 0xff, slots * sizeof(*starts));
	for (uint32_t k = 0; k < pd->chunk_count; k++) {
		const struct hdp_layout_chunk *c = &pd->chunks[k];

		for (uint32_t s = 0; s < c->len / stride; s++) {
			uint32_t start = pd->starts[c->first + s];
			uintptr_t off;

			if (start == UINT32_MAX)
				continue;
			off = c->base + (uintptr_t)s * stride + start - lo;
			starts[off / stride] = (uint32_t)(off % stride);
		}
	}
	rte_free(pd->starts);
	pd->starts = starts;
	pd->span_base = lo;
	pd->span_slots = (uint32_t)slots;
	*spanned = true;
	return 0;
}

/* Every object is in: index them and turn the profile on. */
static int harden_pool_ready(struct rte_mempool *mp, struct hdp_dpdk_pool *pd)
{
	bool spanned, one;
	char text[HDP_PROFILE_TEXT_MAX];
	int ret;

	ret = index_as_span(pd, elt_stride(mp), &spanned);
	if (ret)
		return ret;
	one = pd->chunk_count == 1 || spanned;
	struct hdp_harden_pool_desc d = {
		.name = mp->name,
		.layout = {
			.base = spanned ? pd->span_base : pd->chunks[0].base,
			.obj_size = pd->area_len, .stride = elt_stride(mp),
			.slots = spanned ? pd->span_slots : pd->slots,
			/* One chunk or span: the same index as hdp's own pools. */
			.chunks = one ? NULL : pd->chunks, .chunk_count = one ? 0 : pd->chunk_count,
		},
		.on_violation = pd->profile.on_violation,
		/* With no cache, objects come back in FIFO order through the whole pool. */
		.cold_objects = true,
	};

	ret = hdp_harden_pool_init(&pd->hp, &d);
	if (ret)
		return ret;
	pd->hp_ready = true;
	if (hdp_harden_pool_apply(&pd->hp, &pd->profile, pd->excluded, pd->why))
		return -EINVAL;
	ret = hdp_dpdk_reuse_setup(pd);
	if (ret)
		return ret;
	pd->applied = true;
	hdp_profile_format(&pd->hp.current, text, sizeof(text));
	hdp_log(HDP_LOG_INFO, "mempool %s (%s, %u objects in %u chunk%s%s, quarantine %u "
		"deep): %s%s%s", mp->name,
		pd->is_mbuf ? "mbufs: data room hardened, headers untouched" : "whole objects",
		mp->size, pd->chunk_count, pd->chunk_count == 1 ? "" : "s",
		spanned ? ", indexed as one span" : "", pd->reuse_depth, text,
		pd->why[0] ? "; excluded: " : "", pd->why);
	return 0;
}

/*
 * An element starts at least header_size into the chunk and ends inside
 * it, so its area lies at most len - stride past the chunk's first slot:
 * len / stride slots hold every object, and they end before the next
 * chunk's first slot, wherever that chunk is.
 */
static int hdp_ops_populate(struct rte_mempool *mp, unsigned int max_objs, void *vaddr,
			    rte_iova_t iova, size_t len, rte_mempool_populate_obj_cb_t *obj_cb,
			    void *obj_cb_arg)
{
	struct hdp_dpdk_pool *pd = mp->pool_data;
	size_t stride = elt_stride(mp), slots = len / stride;
	struct hdp_layout_chunk *chunk;
	struct populate_ctx c = { pd, NULL, obj_cb, obj_cb_arg };
	int n;

	if (pd->hp_ready) {
		hdp_log(HDP_LOG_ERR, "mempool %s: more memory given after every object was in",
			mp->name);
		return -EINVAL;
	}
	if (slots == 0)
		return 0;	/* too small for one object: DPDK moves on */
	if (slots > UINT32_MAX || grow_tables(pd, (uint32_t)slots))
		return -ENOMEM;
	chunk = &pd->chunks[pd->chunk_count];
	*chunk = (struct hdp_layout_chunk){
		.base = (uintptr_t)vaddr + mp->header_size + pd->area_off,
		.len = slots * stride, .first = pd->slots,
	};
	c.chunk = chunk;
	pd->populating = true;
	n = rte_mempool_op_populate_helper(mp, 0, max_objs, vaddr, iova, len, note_object, &c);
	pd->populating = false;
	if (n <= 0)
		return n;
	pd->chunk_count++;
	pd->slots += (uint32_t)slots;
	if (!pd->inside) {
		hdp_log(HDP_LOG_ERR, "mempool %s: an object lies outside the chunk DPDK gave; "
			"hdp cannot track it", mp->name);
		return -EINVAL;
	}
	if (pd->populated < mp->size)
		return n;
	return harden_pool_ready(mp, pd) ? -EINVAL : n;
}

/*
 * Where the hardened area of @obj is; HDP_V__COUNT when @obj is one of this
 * pool's objects, else the kind of bad free it is.
 */
static inline __attribute__((always_inline)) enum hdp_violation_kind
area_slot_of(struct hdp_dpdk_pool *pd, void *obj, void **area, uint32_t *idx)
{
	uintptr_t a = (uintptr_t)obj + pd->area_off;
	size_t in_slot;

	*area = (void *)a;
	if (!hdp_layout_slot(&pd->hp.layout, a, idx, &in_slot))
		return HDP_V_FREE_FOREIGN;
	return pd->starts[*idx] == in_slot ? HDP_V__COUNT : HDP_V_FREE_INTERIOR;
}

static inline __attribute__((always_inline)) enum hdp_violation_kind
area_of(struct hdp_dpdk_pool *pd, void *obj, void **area)
{
	uint32_t idx;

	return area_slot_of(pd, obj, area, &idx);
}

/* Is @obj one of the pool's objects? If not, reported (and false). */
static inline __attribute__((always_inline)) bool
area_checked(struct hdp_dpdk_pool *pd, void *obj, void **area, uint32_t *idx)
{
	enum hdp_violation_kind bad = area_slot_of(pd, obj, area, idx);

	if (hdp_likely(bad == HDP_V__COUNT))
		return true;
	hdp_harden_pool_violation(&pd->hp, bad, obj, 0, "not an object of this DPDK mempool");
	return false;
}

/* init_on_free=used wipes the extent; protections (redzone) check past it. */
static inline bool wants_extent(struct hdp_harden_view v)
{
	return hdp_view_flags(v) & (HDP_HF_INIT_USED | HDP_HF_PROTECTIONS);
}

/* Refuse what is not an object of the pool; the rest, as areas, to @areas. */
static unsigned valid_areas(struct hdp_dpdk_pool *pd, void * const *objs, unsigned k,
			    void **areas, struct hdp_extent *ext, bool want_ext)
{
	unsigned good = 0;
	uint32_t idx;

	for (unsigned i = 0; i < k; i++) {
		if (!area_checked(pd, objs[i], &areas[good], &idx))
			continue;
		if (want_ext)
			ext[good] = hdp_dpdk_mbuf_extent(pd, objs[i]);
		good++;
	}
	return good;
}

/* Are all @n one of the pool's objects? (Nothing to do but that check.) */
static bool all_valid(struct hdp_dpdk_pool *pd, void * const *objs, unsigned n)
{
	bool good = true;

	for (unsigned i = 0; i < n && good; i++) {
		void *area;

		good = area_of(pd, objs[i], &area) == HDP_V__COUNT;
	}
	return good;
}

/*
 * @n objects back into the reuse queue, STEP at a time through the hooks: the
 * arrays stay small (a DPDK bulk is at most 512), so no stack probing and
 * no cache lines spent on them. Returns how many were refused, or -1 if
 * the ring was full (it cannot be: it holds the whole pool).
 */
static int enqueue_hooked(struct hdp_dpdk_pool *pd, struct hdp_dpdk_lcore *l,
			  struct hdp_harden_view v, void * const *objs, unsigned n)
{
	unsigned flags = hdp_view_flags(v), refused = 0;
	bool want_ext = wants_extent(v);

	while (n) {
		void *areas[STEP], *kept[STEP];
		struct hdp_extent ext[STEP];
		unsigned k = n < STEP ? n : STEP, good, out;

		good = valid_areas(pd, objs, k, areas, ext, want_ext);
		if (flags & HDP_HF_HOOKS) {
			out = hdp_harden_pool_on_free(&pd->hp, &l->tls, v, areas,
						      want_ext ? ext : NULL, kept, good);
		} else {
			memcpy(kept, areas, good * sizeof(*kept));
			out = good;
		}
		for (unsigned i = 0; i < out; i++)
			kept[i] = (char *)kept[i] - pd->area_off;
		if (out && hdp_reuse_put(&l->reuse, kept, out, pd->ring))
			return -1;
		refused += k - out;
		objs += k;
		n -= k;
	}
	return (int)refused;
}

/*
 * One object, as rte_pktmbuf_free gives them (net_null and many PMDs free
 * mbuf by mbuf): the same checks as enqueue_hooked without its arrays.
 * Returns how many were refused (0 or 1), or -1 if the ring was full.
 */
static int enqueue_one(struct hdp_dpdk_pool *pd, struct hdp_dpdk_lcore *l,
		       struct hdp_harden_view v, void *obj)
{
	bool want_ext = wants_extent(v);
	struct hdp_extent ext;
	void *area, *kept;
	uint32_t idx;

	if (!area_checked(pd, obj, &area, &idx))
		return 1;
	if (want_ext)
		ext = hdp_dpdk_mbuf_extent(pd, obj);
	if (!hdp_harden_pool_on_free_one(&pd->hp, &l->tls, v, area, idx,
					 want_ext ? &ext : NULL, &kept))
		return 1;
	kept = (char *)kept - pd->area_off;
	return hdp_reuse_put(&l->reuse, &kept, 1, pd->ring);
}

static int hdp_ops_enqueue(struct rte_mempool *mp, void * const *objs, unsigned int n)
{
	struct hdp_dpdk_pool *pd = mp->pool_data;
	struct hdp_dpdk_lcore *l;
	struct hdp_harden_view v;
	unsigned lcore;
	int refused;

	if (pd->populating || !pd->applied)
		return rte_ring_mp_enqueue_bulk(pd->ring, objs, n, NULL) ? 0 : -ENOBUFS;
	v = hdp_harden_pool_view(&pd->hp);
	lcore = rte_lcore_id();
	l = hdp_dpdk_lcore_get(pd, lcore);
	/* No hook on and every pointer good: the objects go as they came, at once. */
	if (!(hdp_view_flags(v) & HDP_HF_HOOKS) && all_valid(pd, objs, n))
		refused = hdp_reuse_put_bulk(&l->reuse, objs, n, pd->ring);
	else if (n == 1)
		refused = enqueue_one(pd, l, v, objs[0]);
	else
		refused = enqueue_hooked(pd, l, v, objs, n);
	if (refused >= 0) {
		hdp_counter_add(&l->frees, n - (unsigned)refused);
		if (refused)
			hdp_counter_add(&l->rejected, (unsigned)refused);
	}
	hdp_dpdk_lcore_put(pd, lcore);
	return refused < 0 ? -ENOBUFS : 0;
}

/*
 * The line where a fresh mbuf's data starts, asked for with intent to
 * write, for the whole bulk at once: init_check reads it in a moment, and
 * init_on_free=used writes it when the mbuf comes back. Otherwise, in a
 * pool cycled in FIFO order, each is a miss taken one at a time, and the
 * ring's locked instruction waits for the wipe's stores to own their
 * lines before the bulk can go back.
 */
static inline void prefetch_data_line(const struct hdp_dpdk_pool *pd, void *obj)
{
	__builtin_prefetch((char *)obj + pd->area_off + RTE_PKTMBUF_HEADROOM, 1, 3);
}

static void prefetch_data_lines(struct hdp_dpdk_pool *pd, void * const *objs, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		prefetch_data_line(pd, objs[i]);
}

/*
 * The reuse queue says which mbufs the next allocation of this size will
 * hand out (its @n oldest): ask for their data lines now, a whole burst
 * of packets before init_check reads them, where a prefetch of the mbufs
 * being handed out comes too late for the first of them.
 */
static void prefetch_next_data_lines(struct hdp_dpdk_pool *pd, const struct hdp_dpdk_reuse *q,
				     unsigned n)
{
	uint32_t head = atomic_load_explicit(&q->head, memory_order_relaxed);

	if (!q->obj || hdp_reuse_count(q) < q->depth + n)
		return;
	for (unsigned i = 0; i < n; i++)
		prefetch_data_line(pd, q->obj[(head + i) & q->mask]);
}

static int hdp_ops_dequeue(struct rte_mempool *mp, void **objs, unsigned int n)
{
	struct hdp_dpdk_pool *pd = mp->pool_data;
	struct hdp_dpdk_lcore *l;
	struct hdp_harden_view v;
	unsigned lcore;

	if (!pd->applied)
		return rte_ring_mc_dequeue_bulk(pd->ring, objs, n, NULL) ? 0 : -ENOBUFS;
	lcore = rte_lcore_id();
	l = hdp_dpdk_lcore_get(pd, lcore);
	if (hdp_reuse_get(&l->reuse, objs, n, pd->ring)) {
		hdp_dpdk_lcore_put(pd, lcore);
		return -ENOBUFS;
	}
	/* After the objects are ours: as new as the view of the frees that let them go. */
	v = hdp_harden_pool_view(&pd->hp);
	if (pd->is_mbuf && (hdp_view_flags(v) & (HDP_HF_INIT_USED | HDP_HF_INIT_CHECK))) {
		prefetch_data_lines(pd, objs, n);
		/* Only init_check reads them at once; used's wipe comes a burst later. */
		if (hdp_view_flags(v) & HDP_HF_INIT_CHECK)
			prefetch_next_data_lines(pd, &l->reuse, n);
	}
	hdp_counter_add(&l->allocs, n);
	for (unsigned i = 0; (hdp_view_flags(v) & HDP_HF_HOOKS) && i < n; i += STEP) {
		void *areas[STEP];
		unsigned k = n - i < STEP ? n - i : STEP;

		for (unsigned j = 0; j < k; j++)
			areas[j] = (char *)objs[i + j] + pd->area_off;
		/* Tags are off for DPDK pools: the pointers come back unchanged. */
		hdp_harden_pool_on_alloc(&pd->hp, &l->tls, v, areas, k);
	}
	hdp_dpdk_lcore_put(pd, lcore);
	return 0;
}

static unsigned hdp_ops_get_count(const struct rte_mempool *mp)
{
	const struct hdp_dpdk_pool *pd = mp->pool_data;
	uint64_t queued, cut_short;

	/* Racy against the lcores' puts and gets, as DPDK's own cache counts are. */
	hdp_dpdk_reuse_totals(pd, &queued, &cut_short);
	return rte_ring_count(pd->ring) + (unsigned)queued;
}

static const struct rte_mempool_ops hdp_ops = {
	.name = HDP_DPDK_OPS_NAME,
	.alloc = hdp_ops_alloc,
	.free = hdp_ops_free,
	.enqueue = hdp_ops_enqueue,
	.dequeue = hdp_ops_dequeue,
	.get_count = hdp_ops_get_count,
	.populate = hdp_ops_populate,
};

RTE_MEMPOOL_REGISTER_OPS(hdp_ops);
