// SPDX-License-Identifier: BSD-3-Clause
/*
 * Changing a DPDK pool's profile while it runs (hdp-fwd's control socket
 * in DPDK mode): the same keys and checks as hdp's own pools, the
 * quarantine's included, applied with the next bulk call that crosses
 * the driver. The reason for a refusal comes back as text: the library's
 * log is its own, not the application's.
 */
#include "dpdk_internal.h"

#include <hdp/log.h>
#include <hdp/strbuf.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void capture(void *ctx, enum hdp_log_level level, const char *msg)
{
	struct hdp_strbuf *why = ctx;

	if (level <= HDP_LOG_WARN && !why->used)
		hdp_strbuf_printf(why, "%s", msg);
}

int hdp_dpdk_pool_set(struct rte_mempool *mp, const char *key, const char *value,
		      char *why, size_t why_len)
{
	struct hdp_dpdk_pool *pd = hdp_dpdk_pool_of(mp);
	struct hdp_strbuf w = hdp_strbuf_init(why, why_len);
	hdp_log_fn_t outer_fn;
	void *outer_ctx;
	int ret;

	if (!pd || !pd->applied) {
		hdp_strbuf_printf(&w, "mempool %s: not an hdp pool in use", mp ? mp->name : "?");
		return -ENOENT;
	}
	/* The caller's own capture, if any (hdp-fwd's control socket), goes back after. */
	hdp_log_thread_sink(&outer_fn, &outer_ctx);
	hdp_log_set_thread_sink(capture, &w);
	ret = hdp_harden_pool_set_key(&pd->hp, key, value);
	hdp_log_set_thread_sink(outer_fn, outer_ctx);
	if (ret && !w.used)
		hdp_strbuf_printf(&w, "%s", strerror(-ret));
	return ret;
}

int hdp_dpdk_pool_lent_to_kernel(struct rte_mempool *mp)
{
	struct hdp_dpdk_pool *pd = hdp_dpdk_pool_of(mp);

	if (!pd)
		return -ENOENT;
	pd->lent_to_kernel = true;
	return 0;
}
