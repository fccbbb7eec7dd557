// SPDX-License-Identifier: BSD-3-Clause
/*
 * For test_pool_guard, run as a process of its own so that hdp's SIGSEGV
 * handler is installed after the application's, as in an application that
 * sets up its own handler (a garbage collector's barrier) before it makes
 * its first pool: a test process may have made a pool, and installed
 * hdp's handler, before the test that needs this order. Exits 3 (no pool),
 * 4 (no page), 5 (the application's handler got a fault not its own), 6
 * (its own fault never reached it); the test wants SIGABRT from hdp's
 * guard_page report instead.
 */
#include <hdp/pool.h>

#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

static char *app_page;
static volatile sig_atomic_t app_mended;

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

int main(void)
{
	struct sigaction sa = { .sa_sigaction = app_segv, .sa_flags = SA_SIGINFO | SA_NODEFER };
	struct hdp_pool *pool;
	struct hdp_pool_region lay;

	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, SIGUSR1);
	app_page = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (app_page == MAP_FAILED || sigaction(SIGSEGV, &sa, NULL))
		return 4;
	pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "guarded", .obj_size = 2048, .obj_count = 64, .mem = HDP_MEM_PLAIN,
	});
	if (!pool)
		return 3;
	hdp_pool_region(pool, &lay);
	/* The application's fault, mended by its handler behind hdp's. */
	*(volatile char *)app_page = 1;
	if (app_mended != 1)
		return 6;
	/* Then a run off the pool: hdp's handler is still there to name it. */
	((volatile char *)lay.base)[-1] = 1;
	return 0;
}
