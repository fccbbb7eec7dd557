/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the forwarder's unit tests. */
#ifndef HDP_TEST_FWD_SUPPORT_H
#define HDP_TEST_FWD_SUPPORT_H

struct hdp_fwd;
struct hdp_fwd_cfg;

/*
 * A forwarder whose rings live in memory, the test playing the kernel:
 * @cfg (defaults and whatever sizes the test wants already set) takes
 * the ports @ports and, unless NULL, the profile @harden (a --harden
 * string), is checked and created. Any refusal fails the test with the
 * forwarder's own words. Logs are captured (support.h).
 */
struct hdp_fwd *loopback_forwarder(struct hdp_fwd_cfg *cfg, const char *ports,
				   const char *harden);
#endif /* HDP_TEST_FWD_SUPPORT_H */
