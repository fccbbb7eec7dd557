/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp's diagnostics: one sink for every message a person should read
 * (bad arguments, fallbacks, leak reports, violation reports under the
 * "report" policy). Never called on the fast path.
 */
#ifndef HDP_LOG_H
#define HDP_LOG_H

#include <hdp/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

enum hdp_log_level {
	HDP_LOG_ERR,
	HDP_LOG_WARN,
	HDP_LOG_INFO,
	HDP_LOG_DEBUG,
};

typedef void (*hdp_log_fn_t)(void *ctx, enum hdp_log_level level,
			     const char *msg);

/*
 * Log one message. The default sink writes "hdp: <level>: <msg>\n" to
 * stderr for levels up to the threshold set by hdp_log_set_level()
 * (default HDP_LOG_INFO). Messages are cut at 512 bytes.
 */
HDP_API void hdp_log(enum hdp_log_level level, const char *fmt, ...) HDP_PRINTF(2, 3);

/*
 * Replace the sink; NULL restores the default. The sink is called with
 * an internal lock held, so messages never interleave; it must not log.
 */
HDP_API void hdp_log_set_sink(hdp_log_fn_t fn, void *ctx);

/*
 * Replace the sink for the calling thread's messages only (NULL: back to
 * the process's sink): a thread can capture what its own calls log, say
 * for a reply, without catching another thread's reports.
 */
HDP_API void hdp_log_set_thread_sink(hdp_log_fn_t fn, void *ctx);

/*
 * The calling thread's sink now (*fn NULL: none), for a caller that
 * captures for a while inside another's capture (the DPDK driver's
 * hdp_dpdk_pool_set under hdp-fwd's control socket) and then puts it back.
 */
HDP_API void hdp_log_thread_sink(hdp_log_fn_t *fn, void **ctx);

/* Messages above @level are discarded before formatting. */
HDP_API void hdp_log_set_level(enum hdp_log_level level);

/* "error", "warning", "info" or "debug". */
HDP_API const char *hdp_log_level_name(enum hdp_log_level level);

#ifdef __cplusplus
}
#endif

#endif /* HDP_LOG_H */
