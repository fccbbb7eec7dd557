/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp-fwd's DPDK mode is a module, hdp-fwd-dpdk.so, loaded only when EAL
 * arguments are given: hdp-fwd itself links no DPDK library, so hdp
 * installs and forwards on AF_XDP ports without DPDK (Debian ships the
 * module in hdp-dpdk).
 */
#ifndef HDP_FWD_DPDK_LOAD_H
#define HDP_FWD_DPDK_LOAD_H

#include "module.h"

#define HDP_FWD_DPDK_MODULE "hdp-fwd-dpdk.so"
#define HDP_FWD_DPDK_MODULE_ENV "HDP_FWD_DPDK_MODULE"

/* The module's entry points (module.h). */
struct hdp_fwd_dpdk_module {
	hdp_fwd_dpdk_check_fn_t check;
	hdp_fwd_dpdk_run_fn_t run;
};

/*
 * Find the module and load it for good: $HDP_FWD_DPDK_MODULE if set,
 * else LIBDIR/hdp/ reached from hdp-fwd's own directory (installed),
 * else hdp-fwd's own directory (the build tree). 0 with @m filled;
 * -ENOENT when there is none, -ELIBBAD when it does not load, either
 * said on stderr with the paths tried and what to install.
 */
int hdp_fwd_dpdk_load(struct hdp_fwd_dpdk_module *m);

#endif /* HDP_FWD_DPDK_LOAD_H */
