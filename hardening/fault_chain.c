// SPDX-License-Identifier: BSD-3-Clause
/*
 * A SIGSEGV that is not hdp's, passed on by hdp's own handlers (guard
 * pages, MTE tag checks) to the handler installed before them, as the
 * kernel would have delivered it: with the same siginfo and ucontext, the
 * handler's mask, a one-shot handler once; or to the default action.
 * hdp's handlers stay installed whatever that handler does: an
 * application whose handler mends a fault and returns (a garbage
 * collector's write barrier, a JIT) keeps hdp's guard and tag reports.
 * The process's disposition changes only on the way to the default
 * action, which ends the process.
 */
#include <hdp/violation.h>

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Either kind of handler: one pointer, read or exchanged as sa_handler. */
union handler {
	void (*plain)(int);
	void (*info)(int, siginfo_t *, void *);
};

_Static_assert(offsetof(struct sigaction, sa_handler) ==
	       offsetof(struct sigaction, sa_sigaction) &&
	       sizeof(union handler) == sizeof(void (*)(int)),
	       "sa_handler and sa_sigaction share their storage");

/*
 * The handler this signal goes to. A one-shot handler (SA_RESETHAND) gets
 * the first signal only, and @prev holds SIG_DFL from then on, as the
 * kernel leaves the disposition behind such a handler; the exchange makes
 * two threads faulting at once agree on which of them had it.
 */
static union handler handler_for_this_signal(struct sigaction *prev)
{
	union handler h;

	if (prev->sa_flags & SA_RESETHAND)
		h.plain = __atomic_exchange_n(&prev->sa_handler, SIG_DFL, __ATOMIC_ACQ_REL);
	else
		h.plain = __atomic_load_n(&prev->sa_handler, __ATOMIC_ACQUIRE);
	return h;
}

/*
 * The default action, for the signal described by @si: the process dies
 * of it (SIGSEGV: with a core), as it would have without hdp.
 *
 * A fault that @comes_again is left to the retry of the access, which
 * the kernel turns into its own SIGSEGV, with the fault's own siginfo
 * and a core. (Should another thread make the access valid first, the
 * process goes on without hdp's handler, where without hdp it would have
 * died at the fault.) A signal
 * that was sent goes back on this thread's queue with its own siginfo
 * (the sender's pid, uid and value), taken as soon as hdp's handler
 * returns. Only a sent one: an emulator (valgrind, qemu-user) takes a
 * queued siginfo with a fault's si_code for a fault of its own, so an
 * asynchronous fault (MTE), which no retry brings back, is raised.
 */
static void take_default_action(int sig, siginfo_t *si, bool comes_again)
{
	struct sigaction dfl = { .sa_handler = SIG_DFL };

	sigemptyset(&dfl.sa_mask);
	sigaction(sig, &dfl, NULL);
	if (comes_again)
		return;
	/* Without rt_tgsigqueueinfo (a seccomp filter), raised all the same. */
	if (si->si_code > 0 || syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), sig, si))
		raise(sig);
}

/*
 * The application's handler, as the kernel would have run it: with its
 * mask added, the signal itself left unblocked if it asked for SA_NODEFER
 * (a handler that may fault again, and expects its own handler then, not
 * death on a blocked fault). This thread's mask, not the process's: other
 * threads keep theirs.
 */
static void run_handler(const struct sigaction *prev, union handler h, int sig, siginfo_t *si,
			void *uctx)
{
	sigset_t was;

	pthread_sigmask(SIG_BLOCK, &prev->sa_mask, &was);
	if ((prev->sa_flags & SA_NODEFER) && !sigismember(&prev->sa_mask, sig)) {
		sigset_t self;

		sigemptyset(&self);
		sigaddset(&self, sig);
		pthread_sigmask(SIG_UNBLOCK, &self, NULL);
	}
	if (prev->sa_flags & SA_SIGINFO)
		h.info(sig, si, uctx);
	else
		h.plain(sig);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
}

void hdp_fault_pass_on(struct sigaction *prev, int sig, void *info, void *uctx,
		       bool comes_again)
{
	siginfo_t *si = info;
	union handler h = handler_for_this_signal(prev);

	/* Sent ones (si_code <= 0) only: the kernel kills for a fault it cannot deliver. */
	if (h.plain == SIG_IGN && si->si_code <= 0)
		return;
	if (h.plain == SIG_DFL || h.plain == SIG_IGN) {
		take_default_action(sig, si, comes_again);
		return;
	}
	run_handler(prev, h, sig, si, uctx);
}
