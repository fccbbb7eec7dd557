// SPDX-License-Identifier: BSD-3-Clause
/*
 * The guards around a pool's region (inaccessible address space each
 * side, the pool's mapping leaves them) and the guard gaps between its
 * runs of objects (made inaccessible here): a fault in one is reported
 * as a guard_page violation naming the pool (how far before its start or
 * past its end; in a gap, how far past the object before it or before
 * the one after it), then the process aborts, as under
 * on_violation=abort: a faulting access cannot be dropped or skipped.
 * Async-signal context: a lock-free scan of a fixed table, the violation
 * line in one write(2), abort().
 */
#include "harden_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#define WATCHED_MAX 256		/* pools watched at once */

struct watched {
	_Atomic(struct hdp_harden_pool *) hp;	/* NULL: free slot */
	uintptr_t base;
	size_t len, guard;
};

static struct watched table[WATCHED_MAX];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction previous_segv;
static pthread_once_t handler_once = PTHREAD_ONCE_INIT;
static int handler_err;

/* Append @v in decimal to @buf (NUL-terminated, @len bytes): no stdio here. */
static void put_decimal(char *buf, size_t len, uint64_t v)
{
	char digits[24];
	size_t used = strlen(buf), n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < sizeof(digits));
	while (n && used + 1 < len)
		buf[used++] = digits[--n];
	buf[used] = '\0';
}

static void append(char *buf, size_t len, const char *s)
{
	size_t used = strlen(buf);

	while (*s && used + 1 < len)
		buf[used++] = *s++;
	buf[used] = '\0';
}

/*
 * @a is inside the region: if it is in a guard gap, say where from the
 * nearer object (its slot) and return
 * true.
 */
static bool in_gap(const struct hdp_layout *l, uintptr_t a, char *detail, size_t len)
{
	uint32_t slot, first_gap, after;
	uintptr_t gap_start, gap_end;
	size_t in_slot;

	if (!hdp_layout_slot(l, a, &slot, &in_slot) || !hdp_layout_is_gap(l, slot))
		return false;
	first_gap = slot - slot % l->gap_period + l->gap_objs;
	after = slot - slot % l->gap_period + l->gap_period;
	gap_start = hdp_layout_slot_addr(l, first_gap);
	gap_end = hdp_layout_slot_addr(l, after);
	if (a - gap_start < gap_end - a) {
		hdp_violation_count_detail(detail, len, a - gap_start + 1, "byte",
					   " past the end of object ");
		put_decimal(detail, len, first_gap - 1);
	} else {
		hdp_violation_count_detail(detail, len, gap_end - a, "byte", " before object ");
		put_decimal(detail, len, after);
	}
	append(detail, len, ", in a guard gap");
	return true;
}

static void on_segv(int sig, siginfo_t *si, void *uctx)
{
	uintptr_t a = (uintptr_t)hdp_untag(si->si_addr);
	/* kill(2) and friends: no fault, and si_addr holds no address. */
	bool sent = si->si_code <= 0;

	for (unsigned i = 0; i < WATCHED_MAX && !sent; i++) {
		struct hdp_harden_pool *hp = atomic_load_explicit(&table[i].hp,
								  memory_order_acquire);
		const struct watched *w = &table[i];
		size_t offset = SIZE_MAX;	/* "outside the region" */
		char detail[96];

		if (!hp || a + w->guard < w->base || a >= w->base + w->len + w->guard)
			continue;
		/* No stdio: this runs in a signal handler. */
		if (a < w->base)
			hdp_violation_count_detail(detail, sizeof(detail), w->base - a, "byte",
						   " before the start of its region");
		else if (a >= w->base + w->len)
			hdp_violation_count_detail(detail, sizeof(detail),
						   a - (w->base + w->len) + 1, "byte",
						   " past the end of its region");
		else if (in_gap(&hp->layout, a, detail, sizeof(detail)))
			offset = a - w->base;
		else
			continue;
		atomic_fetch_add_explicit(&hp->violations[HDP_V_GUARD_PAGE], 1,
					  memory_order_relaxed);
		hdp_violation_abort(&(struct hdp_violation){
			.kind = HDP_V_GUARD_PAGE, .pool = hp->name, .addr = si->si_addr,
			.offset = offset, .size = 0, .detail = detail,
		});
	}
	/* Not ours: the handler before hdp's has it; a fault comes again, a sent one not. */
	hdp_fault_pass_on(&previous_segv, sig, si, uctx, !sent);
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	/* On an application's alternate stack, if it has one: a stack overflow's handler needs it. */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &previous_segv))
		handler_err = -errno;
}

/* Make every guard gap inaccessible (the region is plain, private pages). */
static int protect_gaps(const struct hdp_harden_pool *hp)
{
	const struct hdp_layout *l = &hp->layout;
	size_t gap_len = (size_t)(l->gap_period - l->gap_objs) * l->stride;

	for (uint32_t at = l->gap_objs; l->gap_period && at < l->slots; at += l->gap_period) {
		if (mprotect((void *)hdp_layout_slot_addr(l, at), gap_len, PROT_NONE)) {
			int err = errno;

			hdp_log(HDP_LOG_ERR, "pool '%s': cannot protect its guard gap at slot %u: %s",
				hp->name, at, strerror(err));
			return -err;
		}
	}
	return 0;
}

/* A free entry of the table, filled for @hp and published; UINT_MAX when all are taken. */
static unsigned watch_slot(struct hdp_harden_pool *hp, const void *base, size_t len,
			   size_t guard)
{
	unsigned slot = UINT_MAX;

	pthread_mutex_lock(&table_lock);
	for (unsigned i = 0; i < WATCHED_MAX && slot == UINT_MAX; i++) {
		if (atomic_load_explicit(&table[i].hp, memory_order_relaxed))
			continue;
		table[i].base = (uintptr_t)base;
		table[i].len = len;
		table[i].guard = guard;
		/* The handler reads the fields after it sees the pool. */
		atomic_store_explicit(&table[i].hp, hp, memory_order_release);
		slot = i;
	}
	pthread_mutex_unlock(&table_lock);
	return slot;
}

int guard_watch(struct hdp_harden_pool *hp, const void *base, size_t len, size_t guard)
{
	int ret = protect_gaps(hp);

	if (ret)
		return ret;
	pthread_once(&handler_once, install);
	if (!handler_err)
		hp->guard_slot = watch_slot(hp, base, len, guard);
	/* Not fatal: a run off the region still faults, unnamed. */
	if (hp->guard_slot == UINT_MAX)
		hdp_log(HDP_LOG_WARN, "pool '%s': no handler for its guard pages (%s): a run "
			"off its region still faults, without the pool's name", hp->name,
			strerror(handler_err ? -handler_err : ENOSPC));
	return 0;
}

void guard_unwatch(struct hdp_harden_pool *hp)
{
	if (hp->guard_slot >= WATCHED_MAX)
		return;
	pthread_mutex_lock(&table_lock);
	atomic_store_explicit(&table[hp->guard_slot].hp, NULL, memory_order_release);
	pthread_mutex_unlock(&table_lock);
	hp->guard_slot = UINT_MAX;
}
