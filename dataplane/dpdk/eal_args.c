// SPDX-License-Identifier: BSD-3-Clause
/*
 * The EAL arguments after "--", as far as hdp-fwd judges them itself,
 * before it loads DPDK: words only, read the way rte_eal_init()'s
 * getopt_long reads them (DPDK 22.11's options), so that no spelling EAL
 * takes slips past a rule. EAL judges everything else when it starts.
 */
#include <hdp/fwd.h>
#include <hdp/log.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>

/* EAL's short options that take an argument, attached (-a0000:01:00.0) or next. */
#define EAL_SHORT_WITH_ARG "abcdlmnrsS"
/* EAL's short options without one: more may follow in the same word (-vc1). */
#define EAL_SHORT_FLAGS "hv"
/* getopt_long takes a long option by a prefix no other option shares: --lc is --lcores. */
#define EAL_LCORES_PREFIX_MIN 2

/* "--NAME" or "--NAME=...": is NAME "lcores", or a prefix of it getopt_long takes? */
static bool long_option_is_lcores(const char *word)
{
	size_t n = strcspn(word + 2, "=");

	return n >= EAL_LCORES_PREFIX_MIN && n <= strlen("lcores") &&
	       strncmp(word + 2, "lcores", n) == 0;
}

/*
 * A word of short options ("-l", "-l0", "-vc1", "-a" with its argument
 * next): does it give -c or -l? *@skip_next: its option's argument is the
 * next word.
 */
static bool short_options_name_lcores(const char *word, bool *skip_next)
{
	*skip_next = false;
	for (const char *o = word + 1; *o; o++) {
		if (*o == 'c' || *o == 'l')
			return true;
		if (strchr(EAL_SHORT_FLAGS, *o))
			continue;
		if (strchr(EAL_SHORT_WITH_ARG, *o))
			*skip_next = !o[1];	/* else the rest of the word is its argument */
		return false;		/* an argument, or an option EAL refuses */
	}
	return false;
}

bool hdp_fwd_eal_names_lcores(int argc, char *const *argv)
{
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		bool skip_next;

		if (w[0] != '-' || !w[1])
			continue;	/* not an option: getopt_long reads on past it */
		if (w[1] == '-') {
			if (long_option_is_lcores(w))
				return true;
			continue;
		}
		if (short_options_name_lcores(w, &skip_next))
			return true;
		i += skip_next;
	}
	return false;
}

/* The index of a "--" among EAL's words, or 0. */
static int second_separator(int argc, char *const *argv)
{
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			return i;
	return 0;
}

int hdp_fwd_eal_args_check(const struct hdp_fwd_cfg *cfg, int argc, char *const *argv)
{
	int sep = second_separator(argc, argv);

	/*
	 * rte_eal_init() stops at it and leaves the rest to the program,
	 * which has read its own options by then: they would be dropped.
	 */
	if (sep) {
		const char *next = sep + 1 < argc ? argv[sep + 1] : NULL;

		hdp_log(HDP_LOG_ERR, "a second '--' among the EAL arguments (%s%s%s): hdp-fwd's "
			"options go before the first '--' and EAL's after it; nothing may follow "
			"EAL's, or it would be ignored", next ? "before '" : "their last word",
			next ? next : "", next ? "'" : "");
		return -EINVAL;
	}
	/* Both given: refused, rather than one silently losing. */
	if (cfg->ncores && cfg->cores[0] >= 0 && hdp_fwd_eal_names_lcores(argc, argv)) {
		hdp_log(HDP_LOG_ERR, "cores given twice, to hdp-fwd (--cores or cores =) and to EAL "
			"(-l, -c or --lcores, in any form): give them once");
		return -EINVAL;
	}
	return 0;
}
