// SPDX-License-Identifier: BSD-3-Clause
/*
 * arm64 MTE: the CPU compares the pointer's tag (bits 56..59) with the
 * tag of every 16-byte granule it touches. hdp maps pool memory PROT_MTE,
 * asks for the process's tag check mode (tag.h: sync, async or asymm) on
 * every thread that uses it, sets tags with STG (STZG to tag and zero in
 * one pass), and turns a tag check fault into its own violation report:
 * SEGV_MTESERR with the address, SEGV_MTEAERR (asynchronous) with none. A
 * hardware fault cannot be skipped, so it is fatal whatever the policy;
 * hdp's checked copies look at the tags first, so they can honour drop
 * and report.
 */
#include "harden_internal.h"

#include <hdp/tag.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config.h"

#if defined(__aarch64__) && HDP_HAVE_MTE
#include <hdp/region.h>

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef HWCAP2_MTE
#define HWCAP2_MTE (1 << 18)
#endif
#ifndef PROT_MTE
#define PROT_MTE 0x20
#endif
#ifndef HWCAP2_MTE3
#define HWCAP2_MTE3 (1 << 22)
#endif
#ifndef SEGV_MTEAERR
#define SEGV_MTEAERR 8
#endif
#ifndef SEGV_MTESERR
#define SEGV_MTESERR 9
#endif
#ifndef PR_MTE_TCF_SYNC
#define PR_MTE_TCF_SYNC (1UL << 1)
#endif
#ifndef PR_MTE_TCF_ASYNC
#define PR_MTE_TCF_ASYNC (2UL << 1)
#endif
#ifndef PR_MTE_TAG_SHIFT
#define PR_MTE_TAG_SHIFT 3
#endif

#define GRANULE 16

bool tag_mte_probe(void)
{
	return (getauxval(AT_HWCAP2) & HWCAP2_MTE) != 0;
}

static struct sigaction previous_segv;

/*
 * The pools with MTE on, for an asynchronous fault, which names no
 * address: with one, it is that pool's; with more, one of them.
 */
static struct hdp_harden_pool *_Atomic last_mte_pool;
static atomic_uint mte_pools;

/* Async-signal context: only the lock-free lookup, atomics and write(2). */
static void on_segv(int sig, siginfo_t *si, void *uctx)
{
	const struct hdp_region *r;

	if (si->si_code == SEGV_MTESERR) {
		r = hdp_region_lookup_fast((uintptr_t)si->si_addr);
		if (r && r->owner) {
			struct hdp_harden_pool *hp = r->owner;
			struct hdp_violation v = {
				.kind = HDP_V_TAG_MISMATCH,
				.pool = hp->name,
				.addr = si->si_addr,
				.offset = (uintptr_t)hdp_untag(si->si_addr) - hp->layout.base,
				.size = hp->layout.obj_size,
				.detail = "MTE synchronous tag check fault, at the access",
			};

			atomic_fetch_add_explicit(&hp->violations[HDP_V_TAG_MISMATCH], 1,
						  memory_order_relaxed);
			hdp_violation_abort(&v);
		}
	} else if (si->si_code == SEGV_MTEAERR && atomic_load(&mte_pools)) {
		struct hdp_harden_pool *hp = atomic_load(&last_mte_pool);
		bool one = hp && atomic_load(&mte_pools) == 1;
		struct hdp_violation v = {
			.kind = HDP_V_TAG_MISMATCH,
			.pool = one ? hp->name : "one of the MTE pools",
			.offset = SIZE_MAX,
			.size = one ? hp->layout.obj_size : 0,
			.detail = "MTE asynchronous tag check fault: a bad access happened "
				  "before this thread last entered the kernel",
		};

		if (one)
			atomic_fetch_add_explicit(&hp->violations[HDP_V_TAG_MISMATCH], 1,
						  memory_order_relaxed);
		hdp_violation_abort(&v);
	}
	/*
	 * Not ours: the handler before hdp's has it. A synchronous fault
	 * comes again when the access is retried; an asynchronous one does
	 * not, nor does a signal another process sent (si_code <= 0).
	 */
	hdp_fault_pass_on(&previous_segv, sig, si, uctx,
			  si->si_code != SEGV_MTEAERR && si->si_code > 0);
}

static pthread_once_t mte_once = PTHREAD_ONCE_INIT;
static int mte_once_err;
static unsigned long mte_tcf;	/* PR_MTE_TCF_* every thread is given */

static int set_thread_mode(unsigned long tcf)
{
	/* IRG may pick any tag but 0 (the match-all). */
	return prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE | tcf |
		     (0xfffeUL << PR_MTE_TAG_SHIFT), 0, 0, 0) ? -errno : 0;
}

/*
 * The probe's child: a bad read (@write false) or write through a page of
 * tag 0 with a pointer of tag 3, in mode @tcf. Exits 1 for a fault at the
 * access, 2 for one delivered later, 3 for none.
 */
struct probe {
	unsigned long tcf;
	bool write;
	char *page;
};

static void probe_child_segv(int sig, siginfo_t *si, void *uctx)
{
	(void)sig;
	(void)uctx;
	_exit(si->si_code == SEGV_MTESERR ? 1 : si->si_code == SEGV_MTEAERR ? 2 : 4);
}

static int probe_child(void *arg)
{
	const struct probe *pr = arg;
	struct sigaction sa = { .sa_sigaction = probe_child_segv, .sa_flags = SA_SIGINFO };
	volatile char *p = (volatile char *)((uintptr_t)pr->page | 3ull << HDP_TAG_SHIFT);
	sigset_t segv;

	/*
	 * Its own handler table (no CLONE_SIGHAND): the parent's stays as it
	 * is. A fault the calling thread blocks would kill the child instead.
	 */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGSEGV, &sa, NULL);
	sigemptyset(&segv);
	sigaddset(&segv, SIGSEGV);
	sigprocmask(SIG_UNBLOCK, &segv, NULL);
	if (set_thread_mode(pr->tcf))
		_exit(5);
	if (pr->write)
		p[0] = 1;
	else
		(void)p[0];
	/* An asynchronous fault is delivered at the next kernel entry. */
	getppid();
	_exit(3);
}

static char probe_failure[96];	/* why the last probe could not run */

/*
 * One probe, in a child that shares the parent's memory (CLONE_VM) rather
 * than a fork: a fork of a process whose UMEM an AF_XDP socket has pinned
 * copies every pinned page at once (they must stay the parent's for the
 * device), and fails when they are hugepages and no spare ones are left,
 * which is how a switch to MTE at run time found it.
 */
static int probe_access(unsigned long tcf, bool write)
{
	const size_t stack_len = 64 * 1024;
	struct probe pr = { .tcf = tcf, .write = write };
	char *stack;
	int status, ret = -1;
	pid_t pid;

	stack = mmap(NULL, stack_len, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	pr.page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_MTE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stack == MAP_FAILED || pr.page == MAP_FAILED) {
		snprintf(probe_failure, sizeof(probe_failure), "could not map its pages: %s",
			 strerror(errno));
		goto out;
	}
	/* The parent waits (CLONE_VFORK): nothing else runs on the child's stack. */
	pid = clone(probe_child, stack + stack_len, CLONE_VM | CLONE_VFORK | SIGCHLD, &pr);
	if (pid < 0) {
		snprintf(probe_failure, sizeof(probe_failure), "could not start: clone: %s",
			 strerror(errno));
		goto out;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			snprintf(probe_failure, sizeof(probe_failure), "lost its child: waitpid: %s",
				 strerror(errno));
			goto out;
		}
	if (WIFEXITED(status))
		ret = WEXITSTATUS(status);
	else
		snprintf(probe_failure, sizeof(probe_failure), "died of signal %d",
			 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
out:
	if (stack != MAP_FAILED)
		munmap(stack, stack_len);
	if (pr.page != MAP_FAILED)
		munmap(pr.page, 4096);
	return ret;
}

/*
 * What a thread in mode @tcf really gets, read from a bad read and a bad
 * write; -1 when the probe itself failed, and @how says what happened.
 */
static int probe_mode(unsigned long tcf, const char **how)
{
	int rd = probe_access(tcf, false), wr = probe_access(tcf, true);

	*how = "";
	if (rd == 1 && wr == 1)
		return HDP_TAG_CHECK_SYNC;
	if (rd == 2 && wr == 2)
		return HDP_TAG_CHECK_ASYNC;
	if (rd == 1 && wr == 2)
		return HDP_TAG_CHECK_ASYMM;
	if (rd == 3 && wr == 3)
		return HDP_TAG_CHECK_NONE;
	*how = rd < 0 || wr < 0 ? probe_failure : "gave no clear answer";
	return -1;
}

/* Every CPU's mte_tcf_preferred if they agree, "mixed" if not, NULL if there is none. */
static const char *preferred_mode(char *buf, size_t len)
{
	bool any = false;

	for (int cpu = 0; cpu < 4096; cpu++) {
		char path[80], v[16] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/mte_tcf_preferred", cpu);
		f = fopen(path, "re");
		if (!f)
			break;
		if (fgets(v, sizeof(v), f))
			v[strcspn(v, "\n")] = '\0';
		fclose(f);
		if (any && strcmp(v, buf))
			return "mixed";
		snprintf(buf, len, "%s", v);
		any = true;
	}
	return any ? buf : NULL;
}

/*
 * Once a process: the mode wanted, what to ask the kernel for it, what it
 * gives (probed, not assumed: qemu and kernels differ in what they do with
 * two modes at once), said once when it is not what was wanted.
 */
static void mte_enable_process(void)
{
	enum hdp_tag_check want = tag_check_settle(), got;
	const char *how;
	int probed;
	bool mte3 = (getauxval(AT_HWCAP2) & HWCAP2_MTE3) != 0;
	struct sigaction sa;
	char pref_buf[16], why[320];
	const char *pref;

	switch (want) {
	case HDP_TAG_CHECK_ASYNC:
		mte_tcf = PR_MTE_TCF_ASYNC;
		break;
	case HDP_TAG_CHECK_ASYMM:
		/*
		 * No prctl bit asks for asymm: the kernel gives it when the CPU
		 * prefers it and both others are allowed. Without MTE3, sync:
		 * the stricter neighbour, not the weaker one.
		 */
		mte_tcf = mte3 ? PR_MTE_TCF_SYNC | PR_MTE_TCF_ASYNC : PR_MTE_TCF_SYNC;
		break;
	default:
		mte_tcf = PR_MTE_TCF_SYNC;
		break;
	}
	mte_once_err = set_thread_mode(mte_tcf);
	if (mte_once_err == -EINVAL && mte_tcf == (PR_MTE_TCF_SYNC | PR_MTE_TCF_ASYNC)) {
		mte_tcf = PR_MTE_TCF_SYNC;	/* a kernel that takes one mode only */
		mte_once_err = set_thread_mode(mte_tcf);
	}
	if (mte_once_err)
		return;
	probed = probe_mode(mte_tcf, &how);
	pref = preferred_mode(pref_buf, sizeof(pref_buf));
	if (probed >= 0) {
		got = (enum hdp_tag_check)probed;
		tag_check_explain(want, got, mte3, pref, why, sizeof(why));
	} else {
		/* Unprobed: what was asked of the kernel, said to be assumed. */
		got = mte_tcf == PR_MTE_TCF_ASYNC ? HDP_TAG_CHECK_ASYNC : HDP_TAG_CHECK_SYNC;
		snprintf(why, sizeof(why), "tag_check = %s: the probe of the mode in force %s; "
			 "assuming %s", hdp_tag_check_name(want), how, hdp_tag_check_name(got));
	}
	tag_check_record(got, why);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	/* On an application's alternate stack, if it has one: a stack overflow's handler needs it. */
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &previous_segv))
		mte_once_err = -errno;
}

void tag_mte_adopt_thread(void)
{
	static _Thread_local bool adopted;

	if (adopted || !atomic_load(&mte_pools) || mte_once_err)
		return;
	set_thread_mode(mte_tcf);
	adopted = true;
}

/* One more MTE pool, for the asynchronous report. */
static void mte_pool_counted(struct hdp_harden_pool *hp)
{
	atomic_store(&last_mte_pool, hp);
	atomic_fetch_add(&mte_pools, 1);
}

void tag_mte_forget(struct hdp_harden_pool *hp)
{
	struct hdp_harden_pool *expected = hp;

	atomic_compare_exchange_strong(&last_mte_pool, &expected, NULL);
	atomic_fetch_sub(&mte_pools, 1);
}

/* The pool's objects PROT_MTE: each run between guard gaps (whole pages), not the gaps. */
static int map_mte(const struct hdp_layout *l)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = l->base & ~(page - 1);
	size_t len = (l->base + l->span - start + page - 1) & ~(page - 1);

	if (!l->gap_period)
		return mprotect((void *)start, len, PROT_READ | PROT_WRITE | PROT_MTE) ? -errno : 0;
	for (uintptr_t run = l->base; run < l->base + l->span;
	     run += (size_t)l->gap_period * l->stride) {
		size_t run_len = (size_t)l->gap_objs * l->stride;

		if (run_len > l->base + l->span - run)
			run_len = l->base + l->span - run;
		run_len = (run_len + page - 1) & ~(page - 1);
		if (mprotect((void *)run, run_len, PROT_READ | PROT_WRITE | PROT_MTE))
			return -errno;
	}
	return 0;
}

/*
 * Memory that has just become PROT_MTE has tag 0 everywhere. A handle
 * handed out with a soft tag and still held must find that tag there when
 * it is dereferenced: its record (of this epoch: harden.h) says which.
 * Records a burst still acting on the word before changes meanwhile are
 * that burst's to catch up with (burst.c), after this.
 */
static void tag_held_objects(struct hdp_harden_pool *hp)
{
	const struct hdp_layout *l = &hp->layout;
	uint64_t epoch = hdp_epoch_core(atomic_load_explicit(&hp->epoch, memory_order_relaxed));

	for (uint32_t i = 0; i < l->slots; i++) {
		uint64_t m = atomic_load_explicit(&hp->meta[i].state, memory_order_relaxed);

		if (META_EPOCH(m) == epoch && (m & META_ALLOCATED) && (m & META_TAGGED))
			tag_mte_set((void *)(l->base + (uintptr_t)i * l->stride), l->obj_size,
				    META_TAG(m), 0, 0);
	}
}

int tag_mte_attach(struct hdp_harden_pool *hp)
{
	const struct hdp_layout *l = &hp->layout;
	int ret;

	if (l->stride % GRANULE || l->base % GRANULE || l->chunks)
		return -EINVAL;
	pthread_once(&mte_once, mte_enable_process);
	if (mte_once_err)
		return mte_once_err;
	/*
	 * prctl is per thread: threads made after this inherit it, those made
	 * before get it when they first use an MTE pool (tag_mte_adopt_thread).
	 */
	set_thread_mode(mte_tcf);
	if (atomic_load(&hp->mte) == TAG_MTE_YES)
		return 0;
	/*
	 * Bursts that begin from here on wait until the held objects carry
	 * their tags; one that began before sees SWITCHING when it ends, or
	 * else its records are seen here (a fence each side: burst.c).
	 */
	atomic_store(&hp->mte, TAG_MTE_SWITCHING);
	atomic_thread_fence(memory_order_seq_cst);
	ret = map_mte(l);
	if (ret) {
		atomic_store_explicit(&hp->mte, TAG_MTE_NO, memory_order_release);
		return ret;
	}
	tag_held_objects(hp);
	mte_pool_counted(hp);
	atomic_store_explicit(&hp->mte, TAG_MTE_YES, memory_order_release);
	return 0;
}

enum tag_mte_state tag_mte_wait(struct hdp_harden_pool *hp)
{
	unsigned s;

	while ((s = atomic_load_explicit(&hp->mte, memory_order_acquire)) == TAG_MTE_SWITCHING)
		sched_yield();
	return (enum tag_mte_state)s;
}

/*
 * Tag the whole object; zero (STZG) the granules covering [zero_start,
 * zero_end), rounded out to granules (objects are granule aligned).
 */
void tag_mte_set(void *obj, size_t size, unsigned tag, size_t zero_start, size_t zero_end)
{
	uintptr_t base = ((uintptr_t)obj & ~HDP_TAG_MASK) | (uintptr_t)tag << HDP_TAG_SHIFT;
	uintptr_t p = base, end = base + ((size + GRANULE - 1) & ~(size_t)(GRANULE - 1));
	uintptr_t zstart = base + (zero_start & ~(size_t)(GRANULE - 1));
	uintptr_t zend = zero_end > zero_start
			 ? base + ((zero_end + GRANULE - 1) & ~(size_t)(GRANULE - 1)) : zstart;

	for (; p < zstart; p += GRANULE)
		__asm__ volatile(".arch armv8.5-a+memtag\n\tstg %0, [%0]"
				 : : "r"(p) : "memory");
	for (; p < zend; p += GRANULE)
		__asm__ volatile(".arch armv8.5-a+memtag\n\tstzg %0, [%0]"
				 : : "r"(p) : "memory");
	for (; p < end; p += GRANULE)
		__asm__ volatile(".arch armv8.5-a+memtag\n\tstg %0, [%0]"
				 : : "r"(p) : "memory");
}

/* IRG: a random tag from the hardware, excluding 0 and @avoid. */
unsigned tag_mte_choose(void *obj, const unsigned *avoid, unsigned n)
{
	uint64_t exclude = 1;
	uintptr_t tagged;

	for (unsigned i = 0; i < n; i++)
		exclude |= 1u << (avoid[i] & 0xf);
	__asm__ volatile(".arch armv8.5-a+memtag\n\tirg %0, %1, %2"
			 : "=r"(tagged) : "r"(obj), "r"(exclude));
	return (unsigned)(tagged >> HDP_TAG_SHIFT) & 0xf;
}

#else
/* No MTE here: probe says so, and nothing else is ever called. */
bool tag_mte_probe(void)
{
	return false;
}

int tag_mte_attach(struct hdp_harden_pool *hp)
{
	(void)hp;
	return -EOPNOTSUPP;
}

void tag_mte_adopt_thread(void)
{
}

enum tag_mte_state tag_mte_wait(struct hdp_harden_pool *hp)
{
	return (enum tag_mte_state)atomic_load(&hp->mte);
}

void tag_mte_forget(struct hdp_harden_pool *hp)
{
	(void)hp;
}

void tag_mte_set(void *obj, size_t size, unsigned tag, size_t zero_start, size_t zero_end)
{
	(void)obj;
	(void)size;
	(void)tag;
	(void)zero_start;
	(void)zero_end;
}

unsigned tag_mte_choose(void *obj, const unsigned *avoid, unsigned n)
{
	(void)obj;
	(void)avoid;
	(void)n;
	return 1;
}
#endif

unsigned long tag_mte_page_kb(const void *addr)
{
	FILE *f = fopen("/proc/self/smaps", "re");
	char line[4352];	/* a mapping's line, its path included (PATH_MAX) */
	unsigned long lo, hi, kb = 0;
	bool in = false;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
			in = (uintptr_t)addr >= lo && (uintptr_t)addr < hi;
		else if (in && sscanf(line, "KernelPageSize: %lu kB", &kb) == 1)
			break;
	}
	fclose(f);
	return in ? kb : 0;
}

bool hdp_tag_mte_available(void)
{
	return tag_mte_probe();
}
