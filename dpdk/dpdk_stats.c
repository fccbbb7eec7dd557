// SPDX-License-Identifier: BSD-3-Clause
/*
 * Per-pool counters and the effective profile, as a struct and as DPDK
 * telemetry: /hdp/pools (every pool made with the hdp ops) and
 * /hdp/pool,NAME (one pool, violations by kind), for dpdk-telemetry.py.
 */
#include "dpdk_internal.h"

#include <hdp/counter.h>
#include <hdp/protection.h>
#include <hdp/strbuf.h>

#include <errno.h>
#include <string.h>

#include <rte_telemetry.h>

static void gather(struct hdp_dpdk_pool *pd, struct hdp_harden_stats *hs)
{
	hdp_harden_stats_get(&pd->hp, hs);
}

static void fill(struct hdp_dpdk_pool *pd, struct hdp_dpdk_pool_stats *st)
{
	struct hdp_harden_stats hs;

	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i <= RTE_MAX_LCORE; i++) {
		st->allocs += hdp_counter_read(&pd->lcore[i].allocs);
		st->frees += hdp_counter_read(&pd->lcore[i].frees);
		st->rejected += hdp_counter_read(&pd->lcore[i].rejected);
	}
	st->held = hdp_dpdk_held(pd);
	st->in_pool = rte_ring_count(pd->ring) + st->held;
	st->is_mbuf = pd->is_mbuf;
	st->area_off = pd->area_off;
	st->area_len = pd->area_len;
	st->chunks = pd->chunk_count;
	st->spanned = pd->span_slots != 0;
	if (!pd->hp_ready)
		return;
	gather(pd, &hs);
	st->held_cut_short = hs.held_cut_short;
	st->quarantine_depth = hs.quarantine_depth;
	st->bytes_wiped = hs.counters[HDP_C_BYTES_WIPED];
	st->checks = hs.counters[HDP_C_CHECKS];
	for (unsigned k = 0; k < HDP_V_MAX; k++)
		st->violations += hs.violations[k];
	st->double_frees = hs.violations[HDP_V_DOUBLE_FREE];
	st->bad_frees = hs.violations[HDP_V_FREE_FOREIGN] + hs.violations[HDP_V_FREE_INTERIOR] +
			hs.violations[HDP_V_FREE_PAST_END];
	st->writes_after_free = hs.violations[HDP_V_WRITE_AFTER_FREE];
	st->flags = hs.flags;
	memcpy(st->exclude, hs.exclude, sizeof(st->exclude));
	memcpy(st->profile, hs.profile_text, sizeof(st->profile));
}

int hdp_dpdk_pool_stats_get(const struct rte_mempool *mp, struct hdp_dpdk_pool_stats *st)
{
	struct hdp_dpdk_pool *pd = hdp_dpdk_pool_of(mp);

	if (!pd)
		return -ENOENT;
	fill(pd, st);
	return 0;
}

int hdp_dpdk_pool_harden_stats(const struct rte_mempool *mp, struct hdp_harden_stats *out)
{
	struct hdp_dpdk_pool *pd = hdp_dpdk_pool_of(mp);

	if (!pd)
		return -ENOENT;
	if (!pd->hp_ready)
		return -EAGAIN;
	gather(pd, out);
	return 0;
}

static const char *on_off(unsigned flags, unsigned bit)
{
	return (flags & bit) ? "on" : "off";
}

/* A telemetry dict the hardening report's figures go into: all, or the first (the policy). */
struct figures {
	struct rte_tel_data *d;
	bool all;
	unsigned seen;
};

static void add_figure(void *ctx, const char *name, uint64_t value, const char *text)
{
	struct figures *f = ctx;

	if (f->seen++ && !f->all)
		return;
	if (text)
		rte_tel_data_add_dict_string(f->d, name, text);
	else
		rte_tel_data_add_dict_u64(f->d, name, value);
}

/* One pool as a telemetry dict: counters, then the effective profile. */
static void pool_dict(struct hdp_dpdk_pool *pd, struct rte_tel_data *d, bool by_kind)
{
	struct hdp_dpdk_pool_stats st;
	const struct rte_mempool *mp = pd->mp;

	fill(pd, &st);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "ops", HDP_DPDK_OPS_NAME);
	rte_tel_data_add_dict_u64(d, "size", mp->size);
	rte_tel_data_add_dict_u64(d, "cache_size", mp->cache_size);
	rte_tel_data_add_dict_u64(d, "in_pool", st.in_pool);
	rte_tel_data_add_dict_u64(d, "held", st.held);
	rte_tel_data_add_dict_u64(d, "quarantine_depth", st.quarantine_depth);
	rte_tel_data_add_dict_u64(d, "held_cut_short", st.held_cut_short);
	rte_tel_data_add_dict_u64(d, "allocs", st.allocs);
	rte_tel_data_add_dict_u64(d, "frees", st.frees);
	rte_tel_data_add_dict_u64(d, "rejected", st.rejected);
	rte_tel_data_add_dict_u64(d, "bytes_wiped", st.bytes_wiped);
	rte_tel_data_add_dict_u64(d, "checks", st.checks);
	rte_tel_data_add_dict_u64(d, "violations", st.violations);
	rte_tel_data_add_dict_string(d, "hardened", st.is_mbuf ? "mbuf data room" : "whole object");
	rte_tel_data_add_dict_u64(d, "area_offset", st.area_off);
	rte_tel_data_add_dict_u64(d, "area_bytes", st.area_len);
	rte_tel_data_add_dict_u64(d, "chunks", st.chunks);
	rte_tel_data_add_dict_string(d, "indexed_as", st.chunks <= 1 ? "one chunk" :
				     st.spanned ? "one span" : "chunk table");
	rte_tel_data_add_dict_string(d, "init_on_alloc", on_off(st.flags, HDP_HF_INIT_ALLOC));
	rte_tel_data_add_dict_string(d, "init_on_free",
				     !(st.flags & HDP_HF_INIT_FREE) ? "off" :
				     (st.flags & HDP_HF_INIT_USED) ? "used" : "on");
	rte_tel_data_add_dict_string(d, "init_check", on_off(st.flags, HDP_HF_INIT_CHECK));
	rte_tel_data_add_dict_string(d, "init_check_extent",
				     !(st.flags & HDP_HF_INIT_CHECK) ? "-" :
				     (st.flags & HDP_HF_INIT_CHECK_HEAD) ? "head" : "all");
	rte_tel_data_add_dict_string(d, "init_exclude", st.exclude[0] ? st.exclude : "-");
	if (pd->hp_ready) {
		/* The policy; by kind, then the violations by kind and each protection. */
		struct figures f = { .d = d, .all = by_kind };
		struct hdp_harden_stats hs;

		gather(pd, &hs);
		hdp_harden_stats_each(&hs, add_figure, &f);
	}
}

int hdp_dpdk_pool_protections(const struct rte_mempool *mp, int json, char *buf, size_t len)
{
	struct hdp_dpdk_pool *pd = hdp_dpdk_pool_of(mp);
	struct hdp_strbuf o = hdp_strbuf_init(buf, len);
	struct hdp_harden_stats hs;

	if (!pd)
		return -ENOENT;
	if (!pd->hp_ready)
		return json ? (hdp_strbuf_printf(&o, "\"protections\":{}"), 0) : 0;
	gather(pd, &hs);
	if (json)
		hdp_protection_stats_json(&o, &hs);
	else
		hdp_protection_stats_text(&o, &hs);
	return o.used < len ? 0 : -ENOSPC;
}

static void add_pool(struct hdp_dpdk_pool *pd, void *arg)
{
	struct rte_tel_data *d = arg, *one = rte_tel_data_alloc();

	if (!one)
		return;
	pool_dict(pd, one, false);
	rte_tel_data_add_dict_container(d, pd->mp->name, one, 0);
}

static int tel_pools(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	hdp_dpdk_pools_foreach(add_pool, d);
	return 0;
}

struct find {
	const char *name;
	struct rte_tel_data *d;
	bool found;
};

static void one_pool(struct hdp_dpdk_pool *pd, void *arg)
{
	struct find *f = arg;

	if (!f->found && strcmp(pd->mp->name, f->name) == 0) {
		pool_dict(pd, f->d, true);
		f->found = true;
	}
}

static int tel_pool(const char *cmd, const char *params, struct rte_tel_data *d)
{
	struct find f = { params, d, false };

	(void)cmd;
	if (!params || !*params)
		return -EINVAL;
	hdp_dpdk_pools_foreach(one_pool, &f);
	return f.found ? 0 : -ENOENT;
}

RTE_INIT(hdp_dpdk_telemetry)
{
	rte_telemetry_register_cmd("/hdp/pools", tel_pools,
				   "Every hdp-hardened mempool: counters and effective profile.");
	rte_telemetry_register_cmd("/hdp/pool", tel_pool,
				   "One hdp-hardened mempool, violations by kind. Parameter: pool name");
}
