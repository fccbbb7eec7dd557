// SPDX-License-Identifier: BSD-3-Clause
/*
 * A SIGSEGV that is not hdp's, passed on by hdp's own handlers (guard
 * pages, MTE tag checks) to the handler installed before them, which
 * keeps hdp's in place: an application whose handler mends a fault and
 * returns (a garbage collector's write barrier, a JIT) once took hdp's
 * handler away with it, and the next guard or tag fault went unnamed.
 */
#include <hdp/violation.h>

#include <signal.h>

void hdp_fault_pass_on(const struct sigaction *prev, int sig, void *info, void *uctx,
		       bool comes_again)
{
	siginfo_t *si = info;

	/* A handler of the application's: called as the kernel would have (not its mask). */
	if (prev->sa_flags & SA_SIGINFO) {
		prev->sa_sigaction(sig, si, uctx);
		return;
	}
	if (prev->sa_handler != SIG_DFL && prev->sa_handler != SIG_IGN) {
		prev->sa_handler(sig);
		return;
	}
	/* Ignored before hdp: a sent one still is (a fault cannot be, and kills). */
	if (prev->sa_handler == SIG_IGN && si->si_code <= 0)
		return;
	/*
	 * The default action: the process dies, so hdp's handler may go. A
	 * fault comes again when the access is retried; one that would not
	 * (sent by another process, as systemctl kill does, or an
	 * asynchronous tag fault) is raised again, or it would be swallowed.
	 */
	signal(sig, SIG_DFL);
	if (!comes_again)
		raise(sig);
	(void)uctx;
}
