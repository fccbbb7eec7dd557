// SPDX-License-Identifier: BSD-3-Clause
/*
 * arm64 MTE: the CPU compares the pointer's tag (bits 56..59) with the
 * tag of every 16-byte granule it touches. hdp maps pool memory PROT_MTE,
 * asks for synchronous tag-check faults, sets tags with STG (STZG to tag
 * and zero in one pass), and turns a SEGV_MTESERR into its own violation
 * report. A hardware fault cannot be skipped, so it is fatal whatever the
 * policy; hdp's checked copies look at the tags first, so they can honour
 * drop and report.
 */
#include "harden_internal.h"

#include <hdp/tag.h>

#include <errno.h>

#include "config.h"

#if defined(__aarch64__) && HDP_HAVE_MTE
#include <hdp/region.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef HWCAP2_MTE
#define HWCAP2_MTE (1 << 18)
#endif
#ifndef PROT_MTE
#define PROT_MTE 0x20
#endif
#ifndef SEGV_MTESERR
#define SEGV_MTESERR 9
#endif
#ifndef PR_MTE_TCF_SYNC
#define PR_MTE_TCF_SYNC (1UL << 1)
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

/* Async-signal context: only the lock-free lookup and write(2). */
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
				.detail = "MTE synchronous tag check fault",
			};

			hdp_violation_abort(&v);
		}
	}
	/* Not ours: let the previous handler (or the default) have it. */
	sigaction(SIGSEGV, &previous_segv, NULL);
	(void)sig;
	(void)uctx;
}

static pthread_once_t mte_once = PTHREAD_ONCE_INIT;
static int mte_once_err;

static void mte_enable_process(void)
{
	struct sigaction sa;

	/* Synchronous faults; IRG may pick any tag but 0 (the match-all). */
	if (prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_SYNC |
		  (0xfffeUL << PR_MTE_TAG_SHIFT), 0, 0, 0)) {
		mte_once_err = -errno;
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &previous_segv))
		mte_once_err = -errno;
}

int tag_mte_attach(struct hdp_harden_pool *hp)
{
	const struct hdp_layout *l = &hp->layout;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = l->base & ~(page - 1);
	size_t len = (l->base + l->span - start + page - 1) & ~(page - 1);

	if (l->stride % GRANULE || l->base % GRANULE || l->chunks)
		return -EINVAL;
	pthread_once(&mte_once, mte_enable_process);
	if (mte_once_err)
		return mte_once_err;
	/* prctl is per thread: threads made before this inherit nothing. */
	prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE | PR_MTE_TCF_SYNC |
	      (0xfffeUL << PR_MTE_TAG_SHIFT), 0, 0, 0);
	if (!l->gap_period) {
		if (mprotect((void *)start, len, PROT_READ | PROT_WRITE | PROT_MTE))
			return -errno;
		return 0;
	}
	/* Each run of objects between guard gaps (whole pages), not the gaps. */
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

bool hdp_tag_mte_available(void)
{
	return tag_mte_probe();
}
