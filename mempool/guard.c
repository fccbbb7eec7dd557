// SPDX-License-Identifier: BSD-3-Clause
/*
 * A fault in the guard around a pool's region, named: which pool, how far
 * before its start or past its end. Async-signal context: a lock-free scan
 * of a fixed table, the violation line in one write(2), abort().
 */
#include "guard.h"

#include <hdp/harden.h>
#include <hdp/pool.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

struct watched {
	_Atomic(struct hdp_harden_pool *) hp;	/* NULL: free slot */
	uintptr_t base;
	size_t len, guard;
};

static struct watched table[HDP_POOL_MAX];
static struct sigaction previous_segv;
static pthread_once_t handler_once = PTHREAD_ONCE_INIT;
static int handler_err;

static void on_segv(int sig, siginfo_t *si, void *uctx)
{
	uintptr_t a = (uintptr_t)hdp_untag(si->si_addr);

	for (unsigned i = 0; i < HDP_POOL_MAX; i++) {
		struct hdp_harden_pool *hp = atomic_load_explicit(&table[i].hp,
								  memory_order_acquire);
		const struct watched *w = &table[i];
		char detail[96];

		if (!hp || a + w->guard < w->base || a >= w->base + w->len + w->guard ||
		    (a >= w->base && a < w->base + w->len))
			continue;
		/* No stdio: this runs in a signal handler. */
		if (a < w->base)
			hdp_violation_count_detail(detail, sizeof(detail), w->base - a, "byte",
						   " before the start of its region");
		else
			hdp_violation_count_detail(detail, sizeof(detail),
						   a - (w->base + w->len) + 1, "byte",
						   " past the end of its region");
		atomic_fetch_add_explicit(&hp->violations[HDP_V_GUARD_PAGE], 1,
					  memory_order_relaxed);
		hdp_violation_abort(&(struct hdp_violation){
			.kind = HDP_V_GUARD_PAGE, .pool = hp->name, .addr = si->si_addr,
			.offset = SIZE_MAX, .size = 0, .detail = detail,
		});
	}
	/* Not ours: let the previous handler (or the default) have it. */
	sigaction(SIGSEGV, &previous_segv, NULL);
	(void)sig;
	(void)uctx;
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &previous_segv))
		handler_err = -errno;
}

int guard_watch(uint16_t id, struct hdp_harden_pool *hp, uintptr_t base, size_t len,
		size_t guard)
{
	pthread_once(&handler_once, install);
	if (id >= HDP_POOL_MAX)
		return -EINVAL;
	table[id].base = base;
	table[id].len = len;
	table[id].guard = guard;
	atomic_store_explicit(&table[id].hp, hp, memory_order_release);
	return handler_err;
}

void guard_unwatch(uint16_t id)
{
	if (id < HDP_POOL_MAX)
		atomic_store_explicit(&table[id].hp, NULL, memory_order_release);
}
