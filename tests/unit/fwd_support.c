// SPDX-License-Identifier: BSD-3-Clause
#include "fwd_support.h"

#include <criterion/criterion.h>

#include <hdp/fwd.h>

#include "support.h"

struct hdp_fwd *loopback_forwarder(struct hdp_fwd_cfg *cfg, const char *ports,
				   const char *harden)
{
	struct hdp_fwd *fwd;

	capture_logs();
	cr_assert_eq(hdp_fwd_cfg_set_ports(cfg, ports, "test"), 0, "%s", captured_logs());
	if (harden)
		cr_assert_eq(hdp_harden_config_parse_string(&cfg->harden, harden, "test"), 0,
			     "%s", captured_logs());
	cr_assert_eq(hdp_fwd_cfg_check(cfg), 0, "%s", captured_logs());
	fwd = hdp_fwd_create_loopback(cfg);
	cr_assert_not_null(fwd, "%s", captured_logs());
	return fwd;
}
