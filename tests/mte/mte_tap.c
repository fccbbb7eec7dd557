// SPDX-License-Identifier: BSD-3-Clause
#include "mte_tap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int mte_failed;
static int n;
volatile int *mte_ran_on;

int mte_tap_start(void)
{
	/* Each line out as it is said: a test that aborts keeps what it said before. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!hdp_tag_mte_available()) {
		printf("1..0 # SKIP no MTE here: run under qemu-aarch64 -cpu max\n");
		return 1;
	}
	mte_ran_on = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mte_ran_on == MAP_FAILED) {
		printf("Bail out! no shared page\n");
		exit(1);
	}
	return 0;
}

void ok(int cond, const char *what)
{
	printf("%sok %d - %s\n", cond ? "" : "not ", ++n, what);
	mte_failed += !cond;
}

unsigned memory_tag_of(const void *p)
{
	uintptr_t t = (uintptr_t)p;

	__asm__ volatile(".arch armv8.5-a+memtag\n\tldg %0, [%0]" : "+r"(t));
	return (unsigned)(t >> 56) & 0xf;
}

void dies_when(void (*fn)(void), int sig, const char *words, int later, const char *what)
{
	char buf[4096] = "";
	int fds[2], status;
	ssize_t len = 0, r;
	bool died, said, when;
	pid_t pid;

	fflush(stdout);
	*mte_ran_on = 0;
	if (pipe(fds))
		exit(1);
	pid = fork();
	if (pid == 0) {
		/*
		 * The mark's page mapped in this process before the access: a
		 * kernel does not copy a shared mapping's entries at fork, and
		 * the page fault of a first write would be the kernel entry that
		 * delivers an asynchronous fault before the mark is made.
		 */
		*mte_ran_on = 0;
		dup2(fds[1], STDERR_FILENO);
		fn();
		_exit(0);
	}
	close(fds[1]);
	while ((r = read(fds[0], buf + len, sizeof(buf) - 1 - (size_t)len)) > 0)
		len += r;
	buf[len] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	died = WIFSIGNALED(status) && WTERMSIG(status) == sig;
	said = !words || strstr(buf, words);
	when = later < 0 || *mte_ran_on == later;
	ok(died && said && when, what);
	if (!(died && said && when))
		printf("# child ended with status 0x%x, ran on %d (wanted %d): %s\n", status,
		       *mte_ran_on, later, buf);
}

void lives(void (*fn)(void), const char *what)
{
	static char buf[1 << 16];
	size_t len = 0;
	int fds[2], status;
	const char *tail, *nl;
	ssize_t r;
	pid_t pid;

	fflush(stdout);
	if (pipe(fds))
		exit(1);
	pid = fork();
	if (pid == 0) {
		/*
		 * The mark's page mapped in this process before the access: a
		 * kernel does not copy a shared mapping's entries at fork, and
		 * the page fault of a first write would be the kernel entry that
		 * delivers an asynchronous fault before the mark is made.
		 */
		*mte_ran_on = 0;
		dup2(fds[1], STDERR_FILENO);
		fn();
		_exit(0);
	}
	close(fds[1]);
	/* Keep the last half of a long story: where it ended. */
	while ((r = read(fds[0], buf + len, sizeof(buf) - 1 - len)) > 0) {
		len += (size_t)r;
		if (len == sizeof(buf) - 1) {
			memmove(buf, buf + len / 2, len - len / 2);
			len -= len / 2;
		}
	}
	buf[len] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	ok(WIFEXITED(status) && WEXITSTATUS(status) == 0, what);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return;
	printf("# child ended with status 0x%x; the end of its stderr:\n", status);
	tail = len > 1024 ? buf + len - 1024 : buf;
	for (; *tail; tail = nl + 1) {
		nl = strchr(tail, '\n');
		printf("# %.*s\n", nl ? (int)(nl - tail) : (int)strlen(tail), tail);
		if (!nl)
			break;
	}
}

const char *fault_words(enum hdp_tag_check m, bool write, const char *pool, char *buf,
			size_t len)
{
	bool sync_here = m == HDP_TAG_CHECK_SYNC || (m == HDP_TAG_CHECK_ASYMM && !write);

	if (sync_here)
		snprintf(buf, len, "tag_mismatch in pool '%s'", pool);
	else
		snprintf(buf, len, "MTE asynchronous tag check fault");
	return buf;
}
