// SPDX-License-Identifier: BSD-3-Clause
/*
 * Guard pages: a run off either end of a pool's region faults, and the
 * report names the pool and how far off it was; for every kind of
 * memory; the region's own first and last bytes stay usable.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

/* In a child: make the pool, touch @off from the region's base; the report and how it died. */
static int touch_in_child(enum hdp_mem_kind mem, long off, char *out, size_t len)
{
	int fds[2], status;
	ssize_t n, used = 0;
	pid_t pid;

	cr_assert_eq(pipe(fds), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		struct hdp_pool *pool;
		struct hdp_pool_layout lay;

		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		pool = hdp_pool_create(&(struct hdp_pool_params){
			.name = "guarded", .obj_size = 2048, .obj_count = 64, .mem = mem,
		});
		if (!pool)
			_exit(3);
		hdp_pool_layout(pool, &lay);
		if (off == LONG_MIN) {
			/* A fault nowhere near a pool: a page of our own, inaccessible. */
			char *far = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (far == MAP_FAILED)
				_exit(4);
			far[0] = 1;
		} else {
			((volatile char *)lay.base)[off] = 1;
		}
		_exit(0);
	}
	close(fds[1]);
	/* Read to the end, keeping what fits: a child writing to a closed pipe dies of SIGPIPE. */
	for (;;) {
		char rest[512];
		size_t room = len - 1 - (size_t)used;

		n = room ? read(fds[0], out + used, room) : read(fds[0], rest, sizeof(rest));
		if (n <= 0)
			break;
		if (room)
			used += n;
	}
	out[used] = '\0';
	close(fds[0]);
	waitpid(pid, &status, 0);
	return status;
}

static void faults_named(enum hdp_mem_kind mem, long off, const char *words)
{
	char report[1024];
	int status = touch_in_child(mem, off, report, sizeof(report));

	if (WIFEXITED(status) && WEXITSTATUS(status) == 3)
		cr_skip_test("no pool of kind %s here", hdp_mem_kind_name(mem));
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
		  "%s, byte %ld: status %#x: %s", hdp_mem_kind_name(mem), off, status, report);
	cr_assert(strstr(report, "violation: guard_page in pool 'guarded'"), "%s", report);
	cr_assert(strstr(report, words), "%s", report);
}

static long region_len(enum hdp_mem_kind mem)
{
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = "measured", .obj_size = 2048, .obj_count = 64, .mem = mem,
	});
	struct hdp_pool_layout lay;

	cr_assert_not_null(pool);
	hdp_pool_layout(pool, &lay);
	/* Its first and last bytes are the pool's own. */
	((volatile char *)lay.base)[0] = 1;
	((volatile char *)lay.base)[lay.region_len - 1] = 1;
	hdp_pool_destroy(pool);
	return (long)lay.region_len;
}

Test(pool_guard, plain_pages)
{
	long len = region_len(HDP_MEM_PLAIN);

	faults_named(HDP_MEM_PLAIN, len, "1 byte past the end of its region");
	faults_named(HDP_MEM_PLAIN, len + 4095, "4096 bytes past the end of its region");
	faults_named(HDP_MEM_PLAIN, -1, "1 byte before the start of its region");
	faults_named(HDP_MEM_PLAIN, -(2 << 20), "2097152 bytes before the start");
}

Test(pool_guard, hugepages)
{
	if (hugepages_available() < 2)
		cr_skip_test("needs 2 free hugepages");
	faults_named(HDP_MEM_HUGE_ANON, region_len(HDP_MEM_HUGE_ANON),
		     "1 byte past the end of its region");
	faults_named(HDP_MEM_HUGE_MEMFD, -1, "1 byte before the start of its region");
}

Test(pool_guard, a_fault_elsewhere_is_not_called_a_guard)
{
	char report[1024];
	int status = touch_in_child(HDP_MEM_PLAIN, LONG_MIN, report, sizeof(report));

	/*
	 * Outside every pool's guard: passed on to the handler before hdp's,
	 * the default (killed by SIGSEGV) or a sanitizer's (its report, a
	 * failing exit).
	 */
	cr_assert((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) ||
		  (WIFEXITED(status) && WEXITSTATUS(status) != 0 && strstr(report, "SEGV")),
		  "status %#x: %s", status, report);
	cr_assert(!strstr(report, "guard_page"), "%s", report);
}
