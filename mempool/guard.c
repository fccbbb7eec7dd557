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

/* Numbers into a detail line without stdio: this runs in a signal handler. */
static void put(char **p, char *end, const char *s)
{
	while (*s && *p < end - 1)
		*(*p)++ = *s++;
	**p = '\0';
}

static void put_num(char **p, char *end, uint64_t v)
{
	char digits[24];
	int n = 0;

	do {
		digits[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n-- && *p < end - 1)
		*(*p)++ = digits[n];
	**p = '\0';
}

static void on_segv(int sig, siginfo_t *si, void *uctx)
{
	uintptr_t a = (uintptr_t)hdp_untag(si->si_addr);

	for (unsigned i = 0; i < HDP_POOL_MAX; i++) {
		struct hdp_harden_pool *hp = atomic_load_explicit(&table[i].hp,
								  memory_order_acquire);
		const struct watched *w = &table[i];
		char detail[96], *p = detail, *end = detail + sizeof(detail);

		if (!hp || a + w->guard < w->base || a >= w->base + w->len + w->guard ||
		    (a >= w->base && a < w->base + w->len))
			continue;
		if (a < w->base) {
			put_num(&p, end, w->base - a);
			put(&p, end, w->base - a == 1 ? " byte" : " bytes");
			put(&p, end, " before the start of its region");
		} else {
			put_num(&p, end, a - (w->base + w->len) + 1);
			put(&p, end, a == w->base + w->len ? " byte" : " bytes");
			put(&p, end, " past the end of its region");
		}
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
