/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The AF_XDP engine as hdp-fwd runs it: its checks before start-up, and
 * the forwarder (hdp/fwd.h) under the control loop (control/control.h).
 */
#ifndef HDP_AFXDP_AFXDP_H
#define HDP_AFXDP_AFXDP_H

#include <hdp/fwd.h>

struct hdp_control;

/*
 * After the control loop's checks (hdp_control_preflight), for start-up
 * and --check-config alike: max_frame against the longest chain, the
 * interfaces and their queues (ports given as IF expanded), their MTUs,
 * huge_dir, and the UMEM pool's profile on a trial pool. 0; -EINVAL for
 * the configuration's errors, each logged naming where it was set;
 * another negative errno when a check could not run (logged).
 */
int hdp_afxdp_preflight(struct hdp_fwd_cfg *cfg);

/* Forward on AF_XDP ports under @c (hdp_control_run): hdp-fwd's exit status. */
int hdp_afxdp_run(struct hdp_control *c);

#endif /* HDP_AFXDP_AFXDP_H */
