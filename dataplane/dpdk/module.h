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
#include <hdp/keeper.h>

#include <signal.h>

#define HDP_FWD_DPDK_POOL "mbufs"

/* What hdp-fwd's main lends the DPDK forwarder. */
struct hdp_fwd_dpdk_hooks {
	volatile sig_atomic_t *stop;		/* SIGINT, SIGTERM */
	volatile sig_atomic_t *reload;		/* SIGHUP */
	/*
	 * The configuration read again, with the same checks and messages
	 * as on AF_XDP ports (hdp's log, each after @cause: "SIGHUP" or
	 * "reload"): 0 with @next checked against @running, or nonzero with
	 * the refusal said.
	 */
	int (*reread)(const char *cause, const struct hdp_fwd_cfg *running,
		      struct hdp_fwd_cfg *next);
	const char *config_file;		/* for messages; NULL: none */
	bool drop_privileges;
	struct hdp_keeper *xdp_keeper;		/* hdp/xdp_keeper.h (fd -1: none) */
};

/*
 * What the module refuses of the EAL arguments before EAL sees them: too
 * many, or a net_af_xdp device on an interface another XDP program runs
 * on. (hdp-fwd's own rules on them, without DPDK: hdp_fwd_eal_args_check.)
 * Part of the checks before start-up (hdp-fwd.c's preflight), which
 * --check-config runs too. 0 or -EINVAL (said on stderr).
 */
int hdp_fwd_dpdk_check(const struct hdp_fwd_cfg *cfg, int eal_argc, char **eal_argv);
typedef int (*hdp_fwd_dpdk_check_fn_t)(const struct hdp_fwd_cfg *cfg, int eal_argc,
				       char **eal_argv);

/*
 * Run until *@hooks->stop or cfg->duration: 0 after a clean stop with
 * every mbuf back in its pool, 1 on a runtime failure, 2 for EAL
 * arguments EAL refuses or devices it does not have (said on stderr).
 * Call after the checks before start-up.
 */
int hdp_fwd_dpdk_run(struct hdp_fwd_cfg *cfg, int eal_argc, char **eal_argv,
		     const struct hdp_fwd_dpdk_hooks *hooks);
typedef int (*hdp_fwd_dpdk_run_fn_t)(struct hdp_fwd_cfg *cfg, int eal_argc, char **eal_argv,
				     const struct hdp_fwd_dpdk_hooks *hooks);

#endif /* HDP_FWD_DPDK_H */
