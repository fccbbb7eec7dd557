/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp-fwd over DPDK ethdev ports (any PMD), when started with EAL
 * arguments after "--". The ports are DPDK device names (net_pcap0,
 * net_null0, 0000:01:00.0, ...); every mbuf comes from the pool "mbufs",
 * made with the hdp mempool driver under hdp-fwd's own profiles.
 *
 * The two functions below are all of the module hdp-fwd-dpdk.so that
 * hdp-fwd sees: it looks them up by name (dpdk/load.c), so their
 * pointer types are part of the interface too.
 */
#ifndef HDP_FWD_DPDK_H
#define HDP_FWD_DPDK_H

#include <hdp/fwd.h>

#define HDP_FWD_DPDK_POOL "mbufs"

struct hdp_control;

/*
 * The DPDK engine's checks before start-up, after the control loop's
 * (hdp-fwd.c's preflight, which --check-config runs too): every port a
 * whole device, and of the EAL arguments before EAL sees them, not too
 * many and no net_af_xdp device on an interface another XDP program runs
 * on. (hdp-fwd's own rules on them, without DPDK:
 * hdp_fwd_eal_args_check.) 0 or -EINVAL (said on stderr).
 */
int hdp_fwd_dpdk_check(const struct hdp_fwd_cfg *cfg, int eal_argc, char **eal_argv);
typedef int (*hdp_fwd_dpdk_check_fn_t)(const struct hdp_fwd_cfg *cfg, int eal_argc,
				       char **eal_argv);

/*
 * Forward on DPDK ports under hdp-fwd's control loop, @c
 * (control/control.h), from EAL's start to its clean-up: hdp-fwd's exit
 * status (0 after a clean stop with every mbuf back in its pool, 1 on a
 * runtime failure, 2 for EAL arguments EAL refuses or devices it does
 * not have, said on stderr). Call after the checks before start-up.
 */
int hdp_fwd_dpdk_run(struct hdp_control *c, int eal_argc, char **eal_argv);
typedef int (*hdp_fwd_dpdk_run_fn_t)(struct hdp_control *c, int eal_argc, char **eal_argv);

#endif /* HDP_FWD_DPDK_H */
