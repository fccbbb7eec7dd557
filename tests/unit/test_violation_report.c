// SPDX-License-Identifier: BSD-3-Clause
#include <criterion/criterion.h>
#include <criterion/redirect.h>

#include <hdp/log.h>
#include <hdp/profile.h>
#include <hdp/violation.h>

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "support.h"

static const struct hdp_violation sample = {
	.kind = HDP_V_FREE_INTERIOR,
	.pool = "rx",
	.addr = (void *)0x1000,
	.offset = 4100,
	.size = 2048,
};

Test(violation_report, format_names_check_pool_offset_and_size)
{
	char buf[256];

	hdp_violation_format(&sample, buf, sizeof(buf));
	cr_assert_str_eq(buf, "violation: free_interior in pool 'rx': 0x1000 at offset 4100, size 2048");
}

Test(violation_report, format_says_outside_and_adds_the_detail)
{
	struct hdp_violation v = sample;
	char buf[256];

	v.kind = HDP_V_FREE_FOREIGN;
	v.offset = SIZE_MAX;
	v.detail = "belongs to region 'tx'";
	hdp_violation_format(&v, buf, sizeof(buf));
	cr_assert_str_eq(buf, "violation: free_foreign in pool 'rx': 0x1000 outside the region, size 2048: belongs to region 'tx'");
}

/*
 * The line is built by hand (no snprintf: the MTE fault handler uses it):
 * numbers in full, NULL as 0x0, and a short buffer cut but terminated,
 * with the whole length returned, as snprintf would.
 */
Test(violation_report, the_hand_built_line_formats_numbers_and_cuts_safely)
{
	struct hdp_violation v = sample;
	char buf[256], small[12];
	int n;

	v.addr = NULL;
	v.offset = 18446744073709551614u;
	v.size = 0;
	hdp_violation_format(&v, buf, sizeof(buf));
	cr_assert_str_eq(buf, "violation: free_interior in pool 'rx': 0x0 at offset "
			      "18446744073709551614, size 0");
	v.addr = (void *)0xfedcba9876543210u;
	hdp_violation_format(&v, buf, sizeof(buf));
	cr_assert(strstr(buf, "0xfedcba9876543210 at offset"), "%s", buf);
	memset(small, 'x', sizeof(small));
	n = hdp_violation_format(&sample, small, sizeof(small));
	cr_assert_eq(n, (int)strlen("violation: free_interior in pool 'rx': 0x1000 at offset 4100, size 2048"));
	cr_assert_str_eq(small, "violation: ");
	cr_assert_eq(hdp_violation_format(&sample, NULL, 0), n);
}

Test(violation_report, names_and_policies_round_trip)
{
	struct hdp_profile p;
	const char *why;

	hdp_profile_defaults(&p);
	for (int i = HDP_POLICY_ABORT; i <= HDP_POLICY_REPORT; i++) {
		cr_assert_eq(hdp_profile_set_key(&p, "on_violation",
						 hdp_policy_name((enum hdp_policy)i), &why), 0);
		cr_assert_eq(p.on_violation, (enum hdp_policy)i);
	}
	cr_assert_eq(hdp_profile_set_key(&p, "on_violation", "panic", &why), -EINVAL);
	cr_assert_str_eq(why, "expected abort, drop or report");
	cr_assert_str_eq(hdp_violation_name(HDP_V_DOUBLE_FREE), "double_free");
	cr_assert_str_eq(hdp_violation_name((enum hdp_violation_kind)hdp_violation_kinds()),
			 "unknown");
	cr_assert_str_eq(hdp_violation_name(HDP_V__COUNT), "redzone_overwritten");
	for (unsigned k = 0; k < hdp_violation_kinds(); k++)
		cr_assert_str_neq(hdp_violation_name((enum hdp_violation_kind)k), "unknown");
}

/* The limiter's clock (report.c): a window a second. */
static time_t coarse_second(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	return now.tv_sec;
}

Test(violation_report, report_policy_is_rate_limited)
{
	const char *s;
	time_t first, last;
	long lines = 0;

	capture_logs();
	first = coarse_second();
	for (int i = 0; i < 1000; i++)
		hdp_violation_report(HDP_POLICY_REPORT, &sample);
	last = coarse_second();
	/*
	 * At most the budget in each second the loop took, however long a
	 * busy machine made it take; with 1000 reports that bound is far
	 * below 1000 unless the loop took a minute and more.
	 */
	for (s = captured_logs(); *s; s++)
		lines += *s == '\n';
	cr_assert_geq(lines, 1);
	cr_assert_leq(lines, (long)(last - first + 1) * HDP_VIOLATION_REPORTS_PER_SEC,
		      "%ld lines in %ld s", lines, (long)(last - first + 1));
	cr_assert(log_contains("warning: violation: free_interior in pool 'rx'"));
}

Test(violation_report, abort_writes_one_line_to_stderr, .init = cr_redirect_stderr,
     .signal = SIGABRT)
{
	hdp_violation_report(HDP_POLICY_ABORT, &sample);
}

/*
 * The death test above cannot look at its own output, so this one checks
 * the line the abort path writes by running it in a child and reading it.
 */
#include <sys/wait.h>
#include <unistd.h>

Test(violation_report, abort_line_is_the_formatted_report)
{
	int fds[2];
	char buf[512] = "";
	ssize_t n;
	int status;
	pid_t pid;

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		dup2(fds[1], STDERR_FILENO);
		hdp_violation_abort(&sample);
	}
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	waitpid(pid, &status, 0);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
	cr_assert_gt(n, 0);
	cr_assert_str_eq(buf, "hdp: violation: free_interior in pool 'rx': 0x1000 at offset 4100, size 2048\n");
}
