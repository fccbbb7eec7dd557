// SPDX-License-Identifier: BSD-3-Clause
/*
 * For test_pool_guard, run as a process of its own so that hdp's SIGSEGV
 * handler is installed after the application's, as in an application that
 * sets up its own handler (a garbage collector's barrier) before it makes
 * its first pool: a test process may have made a pool, and installed
 * hdp's handler, before the test that needs this order.
 *
 * usage: guard_app_handler [MODE]
 *   mends (the default)  a handler (SA_SIGINFO, SA_NODEFER, a mask) mends a
 *                        fault of its own page, then a write at base[-1]
 *   one-shot             the same with a one-shot handler (SA_RESETHAND)
 *   one-shot-siginfo     a one-shot SA_SIGINFO handler, which checks the
 *                        fault's si_addr and si_code
 *   sigqueue             a one-shot SA_SIGINFO handler gets a SIGSEGV sent
 *                        with sigqueue, and checks its siginfo
 *   sent-default         no handler: a SIGSEGV sent with sigqueue
 *   fault-default        no handler: a fault in a page of its own
 * The first four end in base[-1] = 1, which the test wants as SIGABRT from
 * hdp's guard_page report; the last two in the default action (SIGSEGV),
 * which the test traces. Exits 2 (usage), 3 (no pool), 4 (no page), 5
 * (the application's handler got a signal not its own, or not as it was),
 * 6 (its own never reached it), 7 (run with SIGSEGV blocked though it
 * asked for SA_NODEFER), 8 (without its sa_mask), 9 (hdp's handler is no
 * longer installed), 10 (a handler came before hdp's: a sanitizer's), 11
 * (alive after its default action).
 */
#include <hdp/pool.h>

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define QUEUED_VALUE 4242

static char *app_page;
static volatile sig_atomic_t app_mended, app_queued;

/* The application's: mends a fault in its page and returns; any other ends the process. */
static void app_segv(int sig, siginfo_t *si, void *uctx)
{
	sigset_t now;

	(void)sig;
	(void)uctx;
	if ((char *)si->si_addr != app_page)
		_exit(5);
	pthread_sigmask(SIG_BLOCK, NULL, &now);
	if (sigismember(&now, SIGSEGV))
		_exit(7);
	if (!sigismember(&now, SIGUSR1))
		_exit(8);
	mprotect(app_page, 4096, PROT_READ | PROT_WRITE);
	app_mended++;
}

/* A one-shot handler without siginfo: a fault of its page is all it can be here. */
static void app_oneshot(int sig)
{
	(void)sig;
	mprotect(app_page, 4096, PROT_READ | PROT_WRITE);
	app_mended++;
}

/* A one-shot handler that checks the fault as the kernel described it. */
static void app_oneshot_siginfo(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	if (sig != SIGSEGV || si->si_signo != SIGSEGV || si->si_code != SEGV_ACCERR ||
	    (char *)si->si_addr != app_page)
		_exit(5);
	mprotect(app_page, 4096, PROT_READ | PROT_WRITE);
	app_mended++;
}

/* A one-shot handler for a SIGSEGV this process queued itself. */
static void app_queued_siginfo(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	if (sig != SIGSEGV || si->si_code != SI_QUEUE || si->si_pid != getpid() ||
	    si->si_uid != getuid() || si->si_value.sival_int != QUEUED_VALUE)
		_exit(5);
	app_queued++;
}

/* The application's handler, with SIGUSR1 in its mask (app_segv checks it is blocked). */
static int install(void (*plain)(int), void (*info)(int, siginfo_t *, void *), int flags)
{
	struct sigaction sa = { .sa_flags = flags };

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	if (info) {
		sa.sa_sigaction = info;
		sa.sa_flags |= SA_SIGINFO;
	} else {
		sa.sa_handler = plain;
	}
	return sigaction(SIGSEGV, &sa, NULL);
}

/* Is the handler installed now hdp's, and not the default a one-shot handler left? */
static bool hdp_handler_installed(void)
{
	struct sigaction now;

	return sigaction(SIGSEGV, NULL, &now) == 0 && now.sa_handler != SIG_DFL &&
	       now.sa_handler != SIG_IGN;
}

static int queue_to_self(void)
{
	return sigqueue(getpid(), SIGSEGV, (union sigval){ .sival_int = QUEUED_VALUE });
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "mends";
	bool by_default = !strcmp(mode, "sent-default") || !strcmp(mode, "fault-default");
	struct hdp_pool *pool;
	struct hdp_pool_region lay;
	int ret = -1;

	app_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (app_page == MAP_FAILED)
		return 4;
	if (!strcmp(mode, "mends"))
		ret = install(NULL, app_segv, SA_NODEFER);
	else if (!strcmp(mode, "one-shot"))
		ret = install(app_oneshot, NULL, SA_RESETHAND);
	else if (!strcmp(mode, "one-shot-siginfo"))
		ret = install(NULL, app_oneshot_siginfo, SA_RESETHAND);
	else if (!strcmp(mode, "sigqueue"))
		ret = install(NULL, app_queued_siginfo, SA_RESETHAND);
	else if (by_default)
		ret = hdp_handler_installed() ? 10 : 0;
	if (ret)
		return ret < 0 ? 2 : ret;
	pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "guarded", .obj_size = 2048, .obj_count = 64, .mem = HDP_MEM_PLAIN,
	});
	if (!pool)
		return 3;
	hdp_pool_region(pool, &lay);

	if (!strcmp(mode, "sent-default")) {
		queue_to_self();
		return 11;
	}
	if (!strcmp(mode, "sigqueue")) {
		queue_to_self();
		if (app_queued != 1)
			return 6;
	} else {
		/* The application's fault, mended by its handler behind hdp's. */
		*(volatile char *)app_page = 1;
		if (by_default)
			return 11;
		if (app_mended != 1)
			return 6;
	}
	/* A one-shot handler spent: hdp's must be what is installed, not the default. */
	if (strcmp(mode, "one-shot") && !hdp_handler_installed())
		return 9;
	/* Then a run off the pool: hdp's handler is still there to name it. */
	((volatile char *)lay.base)[-1] = 1;
	return 0;
}
