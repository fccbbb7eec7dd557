// SPDX-License-Identifier: BSD-3-Clause
/*
 * A SIGSEGV that is not hdp's, passed on by hdp's own handlers (guard
 * pages, MTE tag checks) to the handler installed before them, which
 * keeps hdp's in place: an application whose handler mends a fault and
 * returns (a garbage collector's write barrier, a JIT) once took hdp's
 * handler away with it, and the next guard or tag fault went unnamed.
 */
#include <hdp/violation.h>

#include <pthread.h>
#include <signal.h>

void hdp_fault_pass_on(const struct sigaction *prev, int sig, void *info, void *uctx,
		       bool comes_again)
{
	siginfo_t *si = info;
	sigset_t was;

	if (prev->sa_handler == SIG_IGN && si->si_code <= 0)
		return;	/* ignored before hdp: a sent one still is (a fault cannot be) */
	if (prev->sa_handler == SIG_DFL || prev->sa_handler == SIG_IGN) {
		/*
		 * The default action: the process dies, so hdp's handler may go.
		 * A fault comes again when the access is retried; one that would
		 * not (sent by another process, as systemctl kill does, or an
		 * asynchronous tag fault) is raised again, or it would be lost.
		 */
		signal(sig, SIG_DFL);
		if (!comes_again)
			raise(sig);
		return;
	}
	/*
	 * The application's handler, as the kernel would have run it: with
	 * its mask added, the signal itself left unblocked if it asked for
	 * SA_NODEFER (a handler that may fault again, and expects its own
	 * handler then, not death on a blocked fault), and a one-shot
	 * handler (SA_RESETHAND) leaving the default behind it. This
	 * thread's mask, not the process's: other threads keep theirs.
	 */
	if (prev->sa_flags & SA_RESETHAND)
		signal(sig, SIG_DFL);
	pthread_sigmask(SIG_BLOCK, &prev->sa_mask, &was);
	if ((prev->sa_flags & SA_NODEFER) && !sigismember(&prev->sa_mask, sig)) {
		sigset_t self;

		sigemptyset(&self);
		sigaddset(&self, sig);
		pthread_sigmask(SIG_UNBLOCK, &self, NULL);
	}
	if (prev->sa_flags & SA_SIGINFO)
		prev->sa_sigaction(sig, si, uctx);
	else
		prev->sa_handler(sig);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}
