// SPDX-License-Identifier: BSD-3-Clause
/*
 * The "hdp" mempool ops: a back-end of hdp's hardening pipeline
 * (hdp/harden.h). Free objects live in an rte_ring, as with DPDK's ring
 * driver; enqueue (free) and dequeue (alloc) hand each bulk to the
 * pipeline, which runs every step in its order (foreign and interior
 * pointers and double frees refused, the data area wiped and checked,
 * the pool's quarantine) and takes objects from the ring or gives them
 * to it through the ops below. For an mbuf pool the data area is the data
 * room only: the header must survive a free, since rte_mbuf_raw_alloc
 * does not set it up again.
 *
 * DPDK gives a pool's memory in one chunk or in many (IOVA-contiguous runs
 * in PA mode, hugepage by hugepage with --legacy-mem, whatever an
 * application passes to rte_mempool_populate_*): hdp indexes objects over
 * every chunk (hdp_layout_chunk) and turns the profile on once the last
 * object has arrived. Objects arriving during populate skip the pipeline:
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
	const struct hdp_harden_config *cfg;
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
	if (hdp_dpdk_config(&cfg)) {
		hdp_log(HDP_LOG_ERR, "mempool %s: HDP_CONFIG / HDP_HARDEN are invalid (above): "
			"refusing to make the pool rather than make it unhardened", mp->name);
		return -EINVAL;
	}
	pd = rte_zmalloc_socket("hdp_mempool", sizeof(*pd), RTE_CACHE_LINE_SIZE,
				mp->socket_id);
	if (!pd)
		return -ENOMEM;
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
	/* What each lcore's quarantine holds goes with the pool (ops.each_thread). */
	if (pd->hp_ready)
		hdp_harden_pool_fini(&pd->hp);
	rte_ring_free(pd->ring);
	rte_free(pd->starts);
	rte_free(pd->chunks);
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

/* --- The back-end's ops: the ring ------------------------------------------ */

static inline struct hdp_dpdk_pool *pool_of(struct hdp_harden_pool *hp)
{
	return container_of(hp, struct hdp_dpdk_pool, hp);
}

/* The ring holds the whole pool: an enqueue cannot fall short. */
static void stash(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void *const *objs,
		  unsigned n)
{
	(void)t;
	rte_ring_mp_enqueue_bulk(pool_of(hp)->ring, objs, n, NULL);
}

static unsigned take(struct hdp_harden_pool *hp, struct hdp_harden_tls *t, void **objs,
		     unsigned n, bool bulk, bool last)
{
	(void)t;
	(void)bulk;	/* DPDK's dequeue is all or nothing */
	(void)last;
	return rte_ring_mc_dequeue_bulk(pool_of(hp)->ring, objs, n, NULL);
}

/* For init_on_free=used and redzone: each mbuf's, from its header. */
static void extents(struct hdp_harden_pool *hp, void *const *objs, struct hdp_extent *ext,
		    unsigned n)
{
	const struct hdp_dpdk_pool *pd = pool_of(hp);

	for (unsigned i = 0; i < n; i++)
		ext[i] = hdp_dpdk_mbuf_extent(pd, objs[i]);
}

/* Each EAL lcore's entry, and the one non-EAL threads share. */
static void each_thread(struct hdp_harden_pool *hp, hdp_harden_tls_fn_t fn, void *ctx)
{
	struct hdp_dpdk_pool *pd = pool_of(hp);

	for (unsigned i = 0; i <= RTE_MAX_LCORE; i++)
		fn(hp, &pd->lcore[i].tls, ctx);
}

static const struct hdp_harden_pool_ops ring_ops = {
	.stash = stash,
	.take = take,
	.extents = extents,
	.each_thread = each_thread,
};

/* Every object is in: index them and turn the profile on. */
static int harden_pool_ready(struct rte_mempool *mp, struct hdp_dpdk_pool *pd)
{
	const struct hdp_harden_config *cfg;
	struct hdp_harden_stats st;
	bool spanned, one;
	int ret;

	ret = index_as_span(pd, elt_stride(mp), &spanned);
	if (ret)
		return ret;
	one = pd->chunk_count == 1 || spanned;
	hdp_dpdk_config(&cfg);
	struct hdp_harden_pool_desc d = {
		.name = mp->name,
		.layout = {
			.base = spanned ? pd->span_base : pd->chunks[0].base,
			.obj_size = pd->area_len, .stride = elt_stride(mp),
			.slots = spanned ? pd->span_slots : pd->slots,
			/* One chunk or span: the same index as hdp's own pools. */
			.chunks = one ? NULL : pd->chunks, .chunk_count = one ? 0 : pd->chunk_count,
			.starts = pd->starts,
		},
		.ops = &ring_ops,
		.area_off = pd->area_off,
		.objects = mp->size,
		/* Each EAL lcore, and the non-EAL threads' entry, holds a quarantine. */
		.threads = rte_lcore_count() + 1,
		.untagged = "DPDK dereferences its objects directly, so pointer tags cannot "
			    "protect a DPDK pool",
		/* With no cache, objects come back in FIFO order through the whole pool. */
		.cold_objects = true,
		.data_at = pd->is_mbuf ? RTE_PKTMBUF_HEADROOM : 0,
		.config = cfg,
	};

	ret = hdp_harden_pool_init(&pd->hp, &d);
	if (ret)
		return ret;
	pd->hp_ready = true;
	pd->applied = true;
	hdp_harden_stats_get(&pd->hp, &st);
	hdp_log(HDP_LOG_INFO, "mempool %s (%s, %u objects in %u chunk%s%s, quarantine %u "
		"deep): %s%s%s", mp->name,
		pd->is_mbuf ? "mbufs: data room hardened, headers untouched" : "whole objects",
		mp->size, pd->chunk_count, pd->chunk_count == 1 ? "" : "s",
		spanned ? ", indexed as one span" : "", st.quarantine_depth, st.profile_text,
		st.exclude[0] ? "; excluded: " : "", st.exclude);
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

static int hdp_ops_enqueue(struct rte_mempool *mp, void * const *objs, unsigned int n)
{
	struct hdp_dpdk_pool *pd = mp->pool_data;
	struct hdp_dpdk_lcore *l;
	unsigned lcore, taken;

	if (pd->populating || !pd->applied)
		return rte_ring_mp_enqueue_bulk(pd->ring, objs, n, NULL) ? 0 : -ENOBUFS;
	lcore = rte_lcore_id();
	l = hdp_dpdk_lcore_get(pd, lcore);
	taken = hdp_harden_pool_free(&pd->hp, &l->tls, objs, NULL, n, false);
	hdp_counter_add(&l->frees, taken);
	if (taken < n)
		hdp_counter_add(&l->rejected, n - taken);
	hdp_dpdk_lcore_put(pd, lcore);
	return 0;
}

static int hdp_ops_dequeue(struct rte_mempool *mp, void **objs, unsigned int n)
{
	struct hdp_dpdk_pool *pd = mp->pool_data;
	struct hdp_dpdk_lcore *l;
	unsigned lcore, got;

	if (!pd->applied)
		return rte_ring_mc_dequeue_bulk(pd->ring, objs, n, NULL) ? 0 : -ENOBUFS;
	lcore = rte_lcore_id();
	l = hdp_dpdk_lcore_get(pd, lcore);
	got = hdp_harden_pool_alloc(&pd->hp, &l->tls, objs, n, true);
	hdp_counter_add(&l->allocs, got);
	hdp_dpdk_lcore_put(pd, lcore);
	return got == n ? 0 : -ENOBUFS;
}

uint64_t hdp_dpdk_held(const struct hdp_dpdk_pool *pd)
{
	uint64_t in = 0, out = 0;

	for (unsigned i = 0; i <= RTE_MAX_LCORE; i++) {
		in += hdp_counter_read(&pd->lcore[i].tls.c.held_in);
		out += hdp_counter_read(&pd->lcore[i].tls.c.held_out);
	}
	return in > out ? in - out : 0;
}

static unsigned hdp_ops_get_count(const struct rte_mempool *mp)
{
	const struct hdp_dpdk_pool *pd = mp->pool_data;

	/* Racy against the lcores' puts and gets, as DPDK's own cache counts are. */
	return rte_ring_count(pd->ring) + (unsigned)hdp_dpdk_held(pd);
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
