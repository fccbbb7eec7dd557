// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-lab-mteprobe: does this machine keep MTE tags per 16-byte granule?
 * For the kernel lab's arm64 guest, whose MTE is emulated: Debian 12's
 * QEMU 7.2 keeps one tag for all the even granules of a page and one for
 * all the odd ones in system emulation, and no MTE measurement means
 * anything there. Gives every granule of a few pages its own tag (1-15 in
 * turn) with STG, reads each back with LDG, and prints one line:
 * "granules N wrong W" (W > 0: exit 1). Exit 2 without MTE.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>

#ifndef HWCAP2_MTE
#define HWCAP2_MTE (1 << 18)
#endif
#ifndef PROT_MTE
#define PROT_MTE 0x20
#endif
#ifndef PR_MTE_TAG_SHIFT
#define PR_MTE_TAG_SHIFT 3
#endif

#define GRANULE 16
#define BYTES (4 * 4096)

static unsigned tag_of(unsigned granule)
{
	return 1 + granule % 15;
}

static void store_tag(char *p, unsigned tag)
{
	uintptr_t a = (uintptr_t)p | (uintptr_t)tag << 56;

	__asm__ volatile(".arch armv8.5-a+memtag\n\tstg %0, [%0]" : : "r"(a) : "memory");
}

static unsigned load_tag(const char *p)
{
	uintptr_t a = (uintptr_t)p;

	__asm__ volatile(".arch armv8.5-a+memtag\n\tldg %0, [%0]" : "+r"(a));
	return (unsigned)(a >> 56) & 0xf;
}

int main(void)
{
	unsigned wrong = 0, n = BYTES / GRANULE;
	char *p;

	if (!(getauxval(AT_HWCAP2) & HWCAP2_MTE)) {
		fprintf(stderr, "hdp-lab-mteprobe: this CPU or kernel has no MTE\n");
		return 2;
	}
	/* Tag checks off (TCF none): only the stores and loads of tags are probed. */
	if (prctl(PR_SET_TAGGED_ADDR_CTRL, PR_TAGGED_ADDR_ENABLE | 0xfffeUL << PR_MTE_TAG_SHIFT,
		  0, 0, 0)) {
		perror("hdp-lab-mteprobe: prctl(PR_SET_TAGGED_ADDR_CTRL)");
		return 2;
	}
	p = mmap(NULL, BYTES, PROT_READ | PROT_WRITE | PROT_MTE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (p == MAP_FAILED) {
		perror("hdp-lab-mteprobe: mmap(PROT_MTE)");
		return 2;
	}
	for (unsigned g = 0; g < n; g++)
		store_tag(p + g * GRANULE, tag_of(g));
	for (unsigned g = 0; g < n; g++)
		wrong += load_tag(p + g * GRANULE) != tag_of(g);
	printf("granules %u wrong %u\n", n, wrong);
	return wrong ? 1 : 0;
}
