// SPDX-License-Identifier: BSD-3-Clause
/*
 * Frames travel between the UMEM pool and the rings as UMEM addresses.
 * Every allocation and every free goes through the pool, so the pool's
 * hardening profile applies to every frame; hdp-fwd also remembers which
 * frames it holds and where (lent to the kernel in a fill ring, or taken
 * back), so that RX hands back only frames it lent, and none is lost when
 * it stops.
 */
#include "fwd_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

int fwd_frames_create(struct fwd_frames *fr, const struct hdp_pool_params *params,
		      const struct hdp_harden_config *harden)
{
	fr->pool = hdp_pool_create(params);
	/* A huge_dir that is no hugetlbfs directory is the configuration's. */
	if (!fr->pool)
		return errno == ENOENT || errno == ENOTDIR ? -EINVAL : -errno;
	if (hdp_pool_configure(fr->pool, harden))
		return -EINVAL;
	fr->lay = *hdp_pool_slots(fr->pool);
	fr->shift = (unsigned)__builtin_ctzl(fr->lay.stride);
	fr->held = calloc(params->obj_count, sizeof(*fr->held));
	fr->ext = calloc(params->obj_count, sizeof(*fr->ext));
	return fr->held && fr->ext ? 0 : -ENOMEM;
}

unsigned fwd_frames_alloc(const struct fwd_frames *fr, uint64_t *addrs, unsigned n)
{
	void *objs[HDP_FWD_BATCH_MAX * 2];
	unsigned got;

	if (n > HDP_ARRAY_SIZE(objs))
		n = HDP_ARRAY_SIZE(objs);
	got = hdp_pool_alloc_burst(fr->pool, objs, n);
	for (unsigned i = 0; i < got; i++) {
		uint64_t addr = (uintptr_t)hdp_untag(objs[i]) - fr->lay.base;
		uint32_t idx = fwd_frames_index(fr, addr);

		addrs[i] = addr;
		/* Lent (each goes to a fill ring), and the tag the pool gave it. */
		atomic_store_explicit(&fr->held[idx],
				      (uint16_t)(FWD_FRAME_LENT | hdp_tag_of(objs[i]) << 4),
				      memory_order_relaxed);
	}
	return got;
}

void fwd_frames_free(const struct fwd_frames *fr, const uint64_t *addrs, unsigned n)
{
	void *objs[HDP_FWD_BATCH_MAX * 2];
	struct hdp_extent ext[HDP_FWD_BATCH_MAX * 2];

	while (n) {
		unsigned k = n < HDP_ARRAY_SIZE(objs) ? n : HDP_ARRAY_SIZE(objs);

		for (unsigned i = 0; i < k; i++) {
			/* Completion addresses may carry an offset: free the chunk. */
			uint32_t idx = fwd_frames_index(fr, addrs[i]);

			objs[i] = (void *)hdp_layout_slot_addr(&fr->lay, idx);
			ext[i] = fr->ext[idx];
			atomic_store_explicit(&fr->held[idx], 0, memory_order_relaxed);
		}
		hdp_pool_free_burst_extent(fr->pool, objs, ext, k);
		addrs += k;
		n -= k;
	}
}

/*
 * Top up a port's fill ring with up to @n frames from the pool, never past
 * its target: a port that receives nothing would otherwise soak up every
 * frame that comes home, and starve the ports that do receive. In copy
 * mode never past its RX ring either, counting what it holds already.
 */
unsigned fwd_fill(struct hdp_fwd *f, struct fwd_port *p, unsigned n)
{
	uint64_t addrs[HDP_FWD_BATCH_MAX * 2];
	uint32_t idx = 0, queued;
	unsigned got;

	if (n > HDP_ARRAY_SIZE(addrs))
		n = HDP_ARRAY_SIZE(addrs);
	if (p->fill_target == p->fill.size) {
		/* Frames for every ring: the ring itself is the cap. */
		if (xsk_prod_nb_free(&p->fill, n) < n)
			n = xsk_prod_nb_free(&p->fill, n);
	} else {
		/* Short of frames: count what is queued (reads the kernel's index). */
		queued = p->fill.size - xsk_prod_nb_free(&p->fill, p->fill.size);
		n = queued >= p->fill_target ? 0
		    : n < p->fill_target - queued ? n : p->fill_target - queued;
	}
	if (!p->zerocopy) {
		/* Copy mode: no more lent than its RX ring holds (fwd_port.lent). */
		uint32_t room = p->lent < p->rx.size ? p->rx.size - p->lent : 0;

		n = n < room ? n : room;
	}
	if (!n)
		return 0;
	got = fwd_frames_alloc(&f->frames, addrs, n);
	if (got < n)
		hdp_counter_add(&p->stats.fill_empty, n - got);
	if (!got)
		return 0;
	if (hdp_unlikely(xsk_ring_prod__reserve(&p->fill, got, &idx) != got)) {
		/* No room after all (the targets keep it from happening): back, unwritten. */
		for (unsigned i = 0; i < got; i++)
			f->frames.ext[fwd_frames_index(&f->frames, addrs[i])] =
				(struct hdp_extent){ 0, 0 };
		fwd_frames_free(&f->frames, addrs, got);
		return 0;
	}
	for (unsigned i = 0; i < got; i++)
		*xsk_ring_prod__fill_addr(&p->fill, idx + i) = addrs[i];
	xsk_ring_prod__submit(&p->fill, got);
	p->lent += got;
	return got;
}

/*
 * Fill every port's ring to its target. With frames for every ring, the
 * target is the whole fill ring; with fewer, each port gets an equal share
 * of half the frames, and the other half stays free for frames in flight,
 * but never more than its ring holds (a share above it would write
 * entries the kernel has not read yet, and move the producer past the
 * ring).
 */
void fwd_fill_all(struct hdp_fwd *f)
{
	const struct hdp_fwd_cfg *cfg = f->cfg;
	uint32_t share = cfg->frames / (2 * f->nports);

	for (unsigned i = 0; i < f->nports; i++) {
		struct fwd_port *p = &f->ports[i];

		p->fill_target = cfg->frames >= f->nports * (cfg->fill_size + cfg->ring_size) ||
					 share > cfg->fill_size
					 ? cfg->fill_size : share;
		while (fwd_fill(f, p, p->fill_target))
			;
	}
}

/*
 * A completion naming a frame that was not on this port's TX ring (in the
 * pool, in a fill ring, in a chain, on another port's TX ring, completed
 * already, or outside the UMEM): counted, a violation of the pool under
 * bounds, and the frame left with whoever has it.
 */
HDP_COLD static void refuse_completion(struct hdp_fwd *f, struct fwd_port *p, uint64_t addr)
{
	char detail[112];

	hdp_counter_add(&p->stats.comp_refused, 1);
	snprintf(detail, sizeof(detail), "a completion on %s names frame %llu, which is not on "
		 "its TX ring", p->cfg.ifname, (unsigned long long)(addr >> f->frames.shift));
	hdp_pool_desc_refuse(f->frames.pool, HDP_V_DESC_NOT_LENT, addr, 0, detail);
}

/* Give completed TX frames of @p back to the pool: those it sent, once. */
unsigned fwd_complete(struct hdp_fwd *f, struct fwd_port *p)
{
	uint64_t addrs[HDP_FWD_BATCH_MAX * 2];
	uint32_t idx;
	unsigned n = xsk_ring_cons__peek(&p->comp, HDP_ARRAY_SIZE(addrs), &idx), k = 0;

	if (!n)
		return 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t addr = *xsk_ring_cons__comp_addr(&p->comp, idx + i);

		if (hdp_likely(fwd_frames_sent(&f->frames, addr, (unsigned)(p - f->ports))))
			addrs[k++] = addr;
		else
			refuse_completion(f, p, addr);
	}
	xsk_ring_cons__release(&p->comp, n);
	fwd_frames_free(&f->frames, addrs, k);
	/* What is still on TX: a refused completion took nothing off it. */
	p->tx_outstanding -= k < p->tx_outstanding ? k : p->tx_outstanding;
	return n;
}

unsigned fwd_frames_destroy(struct fwd_frames *fr)
{
	struct hdp_pool_stats st;

	if (!fr->pool) {
		free((void *)fr->held);
		free(fr->ext);
		return 0;
	}
	/*
	 * The rings are gone: frames left in them are ours again. The kernel
	 * may have written those without telling us where: wipe them whole.
	 */
	for (uint32_t idx = 0; fr->held && idx < fr->lay.slots; idx++) {
		if (fr->held[idx]) {
			uint64_t addr = (uint64_t)idx * fr->lay.stride;

			fwd_frames_written_whole(fr, addr);
			fwd_frames_free(fr, &addr, 1);
		}
	}
	hdp_pool_cache_flush(fr->pool);
	hdp_pool_stats_get(fr->pool, &st);
	hdp_pool_destroy(fr->pool);
	free((void *)fr->held);
	free(fr->ext);
	*fr = (struct fwd_frames){ 0 };
	return (unsigned)st.in_use;
}
