// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-fwd's rules on the EAL arguments after "--", before DPDK is loaded:
 * cores given once, in whatever form EAL reads them, and no second "--".
 */
#include <criterion/criterion.h>

#include <hdp/fwd.h>

#include <errno.h>
#include <stdlib.h>

#include "support.h"

/* Up to 6 words after the program's name. */
struct words {
	const char *w[6];
};

static bool names_lcores(struct words args)
{
	char *argv[8] = { "hdp-fwd" };
	int argc = 1;

	for (int i = 0; i < 6 && args.w[i]; i++)
		argv[argc++] = (char *)args.w[i];
	return hdp_fwd_eal_names_lcores(argc, argv);
}

/* -c1 attached slipped past "cores given twice", and EAL dumped its usage. */
Test(fwd_eal_args, every_form_of_eal_cores_is_recognised)
{
	static const struct words forms[] = {
		{ { "-l", "0" } }, { { "-l0" } }, { { "-l", "0-1" } }, { { "-c", "1" } },
		{ { "-c1" } }, { { "-c0x3" } }, { { "-vc1" } }, { { "-v", "-l", "0" } },
		{ { "--lcores", "0@1" } }, { { "--lcores=0@1,1@1" } }, { { "--lcore", "0" } },
		{ { "--lc=0" } }, { { "--in-memory", "--no-pci", "-l", "0" } },
		{ { "net_null0", "-l0" } }, { { "-n", "4", "-c1" } },
	};

	for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		cr_assert(names_lcores(forms[i]), "form %zu (%s %s ...) not seen", i,
			  forms[i].w[0], forms[i].w[1] ? forms[i].w[1] : "");
}

Test(fwd_eal_args, other_options_and_their_arguments_are_not_cores)
{
	static const struct words others[] = {
		{ { "--in-memory", "--no-pci" } }, { { "--main-lcore", "0" } },
		{ { "--log-level", "lib.eal:debug" } }, { { "-s", "0x2" } }, { { "-S", "1" } },
		{ { "-a", "-l0" } }, { { "-d/usr/lib/-l.so" } }, { { "-n", "4" } },
		{ { "--file-prefix=lc" } }, { { "--vdev", "net_null0,lcores" } }, { { "--l" } },
		{ { "-" } }, { { 0 } },
	};

	for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); i++)
		cr_assert_not(names_lcores(others[i]), "form %zu (%s ...) taken for cores", i,
			      others[i].w[0] ? others[i].w[0] : "none");
}

static struct hdp_fwd_cfg *cfg;

static void setup(void)
{
	capture_logs();
	cfg = malloc(sizeof(*cfg));
	hdp_fwd_cfg_defaults(cfg);
}

/* --cores 0 -- -c1: refused by hdp-fwd, not by EAL's usage dump. */
Test(fwd_eal_args, cores_given_to_both_are_refused, .init = setup)
{
	char *attached[] = { "hdp-fwd", "-c1", "--no-pci" };
	char *eal_only[] = { "hdp-fwd", "--no-pci" };

	cr_assert_eq(hdp_fwd_eal_args_check(cfg, 3, attached), 0, "unpinned: EAL's cores rule");
	cr_assert_eq(hdp_fwd_cfg_set_cores(cfg, "0", "--cores"), 0);
	cr_assert_eq(hdp_fwd_eal_args_check(cfg, 2, eal_only), 0, "%s", captured_logs());
	cr_assert_eq(hdp_fwd_eal_args_check(cfg, 3, attached), -EINVAL);
	cr_assert(log_contains("cores given twice"), "%s", captured_logs());
}

/*
 * "-- -l 0 --no-pci -- --mode macswap --duration 100" ran in io mode for
 * 1 s: EAL ends its arguments at the second "--", and hdp-fwd had read
 * its own. Refused, naming what follows it.
 */
Test(fwd_eal_args, a_second_separator_is_refused, .init = setup)
{
	char *argv[] = { "hdp-fwd", "-l", "0", "--no-pci", "--", "--mode", "macswap" };
	char *last[] = { "hdp-fwd", "-l", "0", "--" };

	cr_assert_eq(hdp_fwd_eal_args_check(cfg, 7, argv), -EINVAL);
	cr_assert(log_contains("a second '--' among the EAL arguments (before '--mode')"), "%s",
		  captured_logs());
	clear_logs();
	cr_assert_eq(hdp_fwd_eal_args_check(cfg, 4, last), -EINVAL);
	cr_assert(log_contains("(their last word)"), "%s", captured_logs());
}
