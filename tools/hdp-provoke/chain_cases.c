// SPDX-License-Identifier: BSD-3-Clause
/*
 * Descriptor chains (multi-buffer AF_XDP): a packet larger than a frame
 * comes as several RX descriptors, and a kernel (or a NIC's zero-copy
 * driver) that gets them wrong hands hdp-fwd a chain that must not go
 * out: one that names a frame twice, has a fragment outside the UMEM, or
 * is longer than any packet the kernel sends. Each is judged as hdp-fwd
 * judges it (hdp_fwd_chain_add, under bounds), and a chain sent and freed
 * is wiped frame by frame: a write after free into its middle fragment is
 * found when that frame is handed out again.
 */
#include "provoke.h"

#include <hdp/fwd.h>

#include <string.h>

#define FRAME 2048
#define ROOM (FRAME - HDP_FWD_RX_HEADROOM)

static struct hdp_pool *umem(struct provoke_env *env, unsigned frames)
{
	return provoke_pool(env, "umem", FRAME, frames);
}

/* Descriptor @i of a chain of @n over frame @frame, full but for the last. */
static struct xdp_desc frag(const struct hdp_pool *p, unsigned frame, unsigned i, unsigned n)
{
	return (struct xdp_desc){
		.addr = (uint64_t)frame * hdp_pool_slots(p)->stride + HDP_FWD_RX_HEADROOM,
		.len = i + 1 < n ? ROOM : 100,
		.options = i + 1 < n ? XDP_PKT_CONTD : 0,
	};
}

/* Gather @d in order: the verdict of the last. */
static enum hdp_fwd_chain_verdict gather(struct hdp_pool *p, const struct xdp_desc *d,
					 unsigned n)
{
	struct hdp_fwd_chain c = { 0 };
	enum hdp_fwd_chain_verdict v = HDP_FWD_CHAIN_MORE;
	enum hdp_fwd_drop why;

	for (unsigned i = 0; i < n && v != HDP_FWD_CHAIN_DROP; i++)
		v = hdp_fwd_chain_add(p, &c, d[i], true, &why);
	return v;
}

static enum verdict chain_reuses_frame(struct provoke_env *env)
{
	struct hdp_pool *p = umem(env, 4);
	struct xdp_desc d[] = { frag(p, 0, 0, 3), frag(p, 1, 1, 3), frag(p, 0, 2, 3) };

	gather(p, d, 3);
	return provoke_seen(p, HDP_V_DESC_CHAIN_REUSE) ? CAUGHT : MISSED;
}

static enum verdict chain_fragment_outside_umem(struct provoke_env *env)
{
	struct hdp_pool *p = umem(env, 4);
	struct xdp_desc d[] = { frag(p, 0, 0, 3), frag(p, 64, 1, 3), frag(p, 2, 2, 3) };

	gather(p, d, 3);
	return provoke_seen(p, HDP_V_DESC_CHAIN_CUT) ? CAUGHT : MISSED;
}

static enum verdict chain_past_limit(struct provoke_env *env)
{
	enum { N = HDP_FWD_CHAIN_MAX + 1 };
	struct hdp_pool *p = umem(env, N);
	struct xdp_desc d[N];

	for (unsigned i = 0; i < N; i++)
		d[i] = frag(p, i, i, N);
	gather(p, d, N);
	return provoke_seen(p, HDP_V_DESC_CHAIN_LONG) ? CAUGHT : MISSED;
}

/*
 * A chain of three frames as the forwarder handles one: frames from the
 * pool, the packet written by "the kernel", the chain gathered whole,
 * then (sent, completed) every frame freed with what was written in it.
 * A stale pointer to the middle frame then writes into it.
 */
static enum verdict chain_write_after_free_middle(struct provoke_env *env)
{
	struct hdp_pool *p = umem(env, 3);
	uintptr_t base = hdp_pool_slots(p)->base;
	struct hdp_extent ext[3];
	void *obj[3];

	/* A first round so that the frames are known clean and checked by extent. */
	for (int round = 0; round < 2; round++) {
		struct xdp_desc d[3];

		if (hdp_pool_alloc_burst(p, obj, 3) != 3)
			return MISSED;
		for (unsigned i = 0; i < 3; i++) {
			uint64_t addr = (uintptr_t)hdp_untag(obj[i]) - base + HDP_FWD_RX_HEADROOM;

			d[i] = (struct xdp_desc){ addr, i < 2 ? ROOM : 100,
						  i < 2 ? XDP_PKT_CONTD : 0 };
			memset((char *)hdp_deref(obj[i]) + HDP_FWD_RX_HEADROOM, 0x42, d[i].len);
			ext[i] = (struct hdp_extent){ HDP_FWD_RX_HEADROOM,
						      HDP_FWD_RX_HEADROOM + d[i].len };
		}
		if (gather(p, d, 3) != HDP_FWD_CHAIN_WHOLE)
			return MISSED;
		hdp_pool_free_burst_extent(p, obj, ext, 3);
	}
	((char *)hdp_untag(obj[1]))[HDP_FWD_RX_HEADROOM + 1000] = 'x';
	hdp_pool_alloc_burst(p, obj, 3);
	return provoke_seen(p, HDP_V_WRITE_AFTER_FREE) ? CAUGHT : MISSED;
}

const struct provoke_case provoke_chain_cases[] = {
	{ "chain-reuses-frame", "an RX descriptor chain that names one frame twice", "",
	  chain_reuses_frame },
	{ "chain-fragment-outside-umem", "an RX chain with a fragment outside the UMEM", "",
	  chain_fragment_outside_umem },
	{ "chain-past-limit", "an RX chain of more frames than the kernel sends", "",
	  chain_past_limit },
	{ "chain-write-after-free-middle",
	  "write after free into the middle frame of a chain sent and freed",
	  "init_on_free=used,init_check_sample=65535", chain_write_after_free_middle },
};

const unsigned provoke_nchain_cases = HDP_ARRAY_SIZE(provoke_chain_cases);
