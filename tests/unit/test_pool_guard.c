// SPDX-License-Identifier: BSD-3-Clause
/*
 * Guard pages: a run off either end of a pool's region faults, and the
 * report names the pool and how far off it was; for every kind of
 * memory; the region's own first and last bytes stay usable. Guard gaps
 * every K objects: a run off one run of objects faults in the gap, named
 * by the nearer object; every object stays whole and usable, a gap is no
 * object to free, and layouts that cannot have whole-page gaps are
 * refused with the reason. Any other SIGSEGV goes where it would without
 * hdp, with its own siginfo: the application's handler (a one-shot one
 * once) or the default action, and hdp's handler stays.
 */
#include <criterion/criterion.h>

#include <hdp/pool.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

/* Objects between guard gaps for the next child's pool (0: none). */
static uint32_t child_guard_gap;

/*
 * A one-shot SIGSEGV handler of the application's (SA_RESETHAND), installed
 * before the child's pool: it mends nothing and returns.
 */
static bool child_app_oneshot;

static void app_oneshot(int sig)
{
	(void)sig;
}

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
		struct hdp_pool_region lay;

		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		if (child_app_oneshot) {
			struct sigaction sa = { .sa_handler = app_oneshot, .sa_flags = SA_RESETHAND };

			if (sigaction(SIGSEGV, &sa, NULL))
				_exit(4);
		}
		pool = hdp_pool_create(&(struct hdp_pool_params){
			.name = "guarded", .obj_size = 2048, .obj_count = 64, .mem = mem,
			.guard_gap = child_guard_gap,
		});
		if (!pool)
			_exit(3);
		hdp_pool_region(pool, &lay);

		if (off == LONG_MAX) {
			/* No fault: SIGSEGV sent, as by kill -SEGV or systemctl kill. */
			kill(getpid(), SIGSEGV);
		} else if (off == LONG_MIN) {
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
	struct hdp_pool_region lay;

	cr_assert_not_null(pool);
	hdp_pool_region(pool, &lay);

	/* Its first and last bytes are the pool's own. */
	((volatile char *)lay.base)[0] = 1;
	((volatile char *)lay.base)[lay.len - 1] = 1;
	hdp_pool_destroy(pool);
	return (long)lay.len;
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

/*
 * The child died of a SIGSEGV that hdp did not take for a guard page: by
 * the default handler (killed by SIGSEGV) or a sanitizer's (its report,
 * a failing exit).
 */
static void died_of_sigsegv_unnamed(int status, const char *report)
{
	cr_assert((WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV) ||
		  (WIFEXITED(status) && WEXITSTATUS(status) != 0 && strstr(report, "SEGV")),
		  "status %#x: %s", status, report);
	cr_assert(!strstr(report, "guard_page"), "%s", report);
}

Test(pool_guard, a_fault_elsewhere_is_not_called_a_guard)
{
	char report[1024];
	int status = touch_in_child(HDP_MEM_PLAIN, LONG_MIN, report, sizeof(report));

	/* Outside every pool's guard: passed on to the handler before hdp's. */
	died_of_sigsegv_unnamed(status, report);
}

Test(pool_guard, a_sigsegv_another_process_sends_still_kills)
{
	char report[1024];
	int status = touch_in_child(HDP_MEM_PLAIN, LONG_MAX, report, sizeof(report));

	/*
	 * Not a fault, so no retry brings it back: the handler queues it again
	 * for the default action (or hands it to a sanitizer's handler).
	 * Swallowed, the child would go on and exit 0, as hdp-fwd did under
	 * systemctl kill.
	 */
	died_of_sigsegv_unnamed(status, report);
}

/* Under valgrind (its preload in the environment)? */
static bool under_valgrind(void)
{
	const char *preload = getenv("LD_PRELOAD");

	return preload && strstr(preload, "vgpreload");
}

/* guard_app_handler in @mode (guard_app_handler.c): its status, what it said in @report. */
static int run_app(const char *mode, char *report, size_t len)
{
	char cmd[256];
	size_t used;
	FILE *p;

	/*
	 * memcheck calls the helper's mended fault an invalid write and keeps
	 * the page inaccessible to it, delivers a signal queued to itself
	 * later than the kernel does, and a helper it does not follow leaves
	 * the lane an unfinished log: these run natively only.
	 */
	if (under_valgrind())
		cr_skip_test("under valgrind: memcheck takes the helper's faults and signals itself");
	snprintf(cmd, sizeof(cmd), "exec %s %s 2>&1", GUARD_APP_HANDLER, mode);
	p = popen(cmd, "r");
	cr_assert_not_null(p);
	used = fread(report, 1, len - 1, p);
	report[used] = '\0';
	return pclose(p);
}

/* The helper in @mode ended with hdp's report of its write at base[-1]. */
static void guard_still_named(const char *mode)
{
	char report[1024];
	int status = run_app(mode, report, sizeof(report));

	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT,
		  "%s: status %#x (exit %d: 5 a signal not as it was, 6 none came, 9 hdp's handler "
		  "gone; signal %d): %s", mode, status, WIFEXITED(status) ? WEXITSTATUS(status) : -1,
		  WIFSIGNALED(status) ? WTERMSIG(status) : 0, report);
	cr_assert(strstr(report, "violation: guard_page in pool 'guarded'"), "%s", report);
	cr_assert(strstr(report, "1 byte before the start of its region"), "%s", report);
}

/*
 * An application's handler that mends its own faults gets them, and hdp's
 * stays: a guard fault after one of the application's is still named.
 * (hdp's handler once put the application's back for good at its first
 * fault, and the guard fault went to it: status 5; and ran it with
 * SIGSEGV blocked though it asked for SA_NODEFER: status 7.) In a process
 * of its own (guard_app_handler.c), where hdp's handler comes second for
 * sure.
 */
Test(pool_guard, an_application_handler_gets_its_faults_and_hdp_keeps_its_own)
{
	guard_still_named("mends");
}

/*
 * A one-shot handler (SA_RESETHAND) mends one fault of its own: it is
 * spent, hdp's is not. (hdp's handler once reset the process's SIGSEGV to
 * the default for the one-shot handler, taking itself away: the write at
 * base[-1] then died of a plain SIGSEGV, unnamed.)
 */
Test(pool_guard, a_one_shot_application_handler_mends_once_and_hdp_keeps_its_own)
{
	guard_still_named("one-shot");
}

/* An SA_SIGINFO handler gets the fault as the kernel described it: si_addr, si_code. */
Test(pool_guard, an_application_handler_gets_the_fault_with_its_own_siginfo)
{
	guard_still_named("one-shot-siginfo");
}

/*
 * A SIGSEGV sent with sigqueue (no fault) goes to the application's
 * handler with its siginfo as sent: SI_QUEUE, the sender, the value; and
 * hdp's handler stays.
 */
Test(pool_guard, a_queued_sigsegv_reaches_the_application_handler_as_sent)
{
	guard_still_named("sigqueue");
}

/* Every SIGSEGV a traced run of the helper in @mode took: how many, the first and last. */
struct segv_trace {
	int status;
	unsigned delivered;
	siginfo_t first, last;
};

static void trace_app(const char *mode, struct segv_trace *t)
{
	pid_t pid;

	if (under_valgrind())
		cr_skip_test("under valgrind: memcheck runs the helper, and is what a tracer sees");
	memset(t, 0, sizeof(*t));
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		const char *asan = getenv("ASAN_OPTIONS");
		char options[512];
		int null = open("/dev/null", O_WRONLY);

		/* LeakSanitizer stops the world with ptrace, which a traced process cannot. */
		snprintf(options, sizeof(options), "%s%sdetect_leaks=0", asan ? asan : "",
			 asan ? ":" : "");
		setenv("ASAN_OPTIONS", options, 1);
		setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });	/* no core in the build tree */
		dup2(null, STDERR_FILENO);
		ptrace(PTRACE_TRACEME, 0, NULL, NULL);
		execl(GUARD_APP_HANDLER, GUARD_APP_HANDLER, mode, (char *)NULL);
		_exit(127);
	}
	for (;;) {
		int sig;

		cr_assert_eq(waitpid(pid, &t->status, 0), pid);
		if (!WIFSTOPPED(t->status))
			break;
		sig = WSTOPSIG(t->status);
		if (sig == SIGSEGV) {
			cr_assert_eq(ptrace(PTRACE_GETSIGINFO, pid, NULL,
					    t->delivered ? &t->last : &t->first), 0);
			t->delivered++;
		} else if (sig == SIGTRAP) {
			sig = 0;	/* the stop at exec */
		}
		ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig);
	}
	if (WIFEXITED(t->status) && WEXITSTATUS(t->status) == 10)
		cr_skip_test("a handler comes before hdp's (a sanitizer's)");
	if (t->delivered == 1)
		t->last = t->first;
}

/*
 * With no handler before hdp's, a SIGSEGV another process sends (kill
 * -SEGV, systemctl kill) kills as the default does, and what kills is
 * that signal as sent: SI_QUEUE, its sender, its value. (hdp's handler
 * once raised a signal of its own instead: SI_TKILL, no value.)
 */
Test(pool_guard, a_sent_sigsegv_dies_by_default_with_its_own_siginfo, .timeout = 20)
{
	struct segv_trace t;

	trace_app("sent-default", &t);
	cr_assert(WIFSIGNALED(t.status) && WTERMSIG(t.status) == SIGSEGV, "status %#x", t.status);
	cr_assert_eq(t.first.si_code, SI_QUEUE);
	cr_assert_eq(t.delivered, 2, "the signal sent, then the one its default action takes");
	cr_assert_eq(t.last.si_code, SI_QUEUE, "si_code %d (SI_TKILL is %d)", t.last.si_code,
		     SI_TKILL);
	cr_assert_eq(t.last.si_pid, t.first.si_pid);
	cr_assert_eq(t.last.si_uid, t.first.si_uid);
	cr_assert_eq(t.last.si_value.sival_int, t.first.si_value.sival_int);
}

/*
 * A fault that is not hdp's, with no handler before hdp's: the default
 * action, with the fault's own address and code.
 */
Test(pool_guard, a_fault_elsewhere_dies_by_default_with_its_own_siginfo, .timeout = 20)
{
	struct segv_trace t;

	trace_app("fault-default", &t);
	cr_assert(WIFSIGNALED(t.status) && WTERMSIG(t.status) == SIGSEGV, "status %#x", t.status);
	cr_assert_eq(t.first.si_code, SEGV_ACCERR);
	cr_assert_eq(t.last.si_code, SEGV_ACCERR);
	cr_assert_eq(t.last.si_addr, t.first.si_addr);
}

/*
 * A one-shot handler (SA_RESETHAND) that returns without mending: the
 * fault comes again, the handler is spent and the default kills, as
 * without hdp, rather than going round hdp's handler and the
 * application's for ever.
 */
Test(pool_guard, a_one_shot_application_handler_leaves_the_default_behind, .timeout = 20)
{
	char report[1024];
	int status;

	child_app_oneshot = true;
	status = touch_in_child(HDP_MEM_PLAIN, LONG_MIN, report, sizeof(report));
	died_of_sigsegv_unnamed(status, report);
}

/* 2048-byte objects, 4 between gaps: two 4 KiB pages' slots (4, 5) per gap. */
Test(pool_guard, a_run_off_the_objects_before_a_gap_faults_named)
{
	child_guard_gap = 4;
	faults_named(HDP_MEM_PLAIN, 4 * 2048, "1 byte past the end of object 3, in a guard gap");
	faults_named(HDP_MEM_PLAIN, 6 * 2048 - 1, "1 byte before object 6, in a guard gap");
	faults_named(HDP_MEM_PLAIN, 10 * 2048 + 99, "100 bytes past the end of object 9");
	faults_named(HDP_MEM_PLAIN, -1, "1 byte before the start of its region");
	child_guard_gap = 0;
}

static struct hdp_pool *gapped(uint32_t count, uint32_t gap)
{
	return hdp_pool_create(&(struct hdp_pool_params){
		.name = "gapped", .obj_size = 2048, .obj_count = count, .mem = HDP_MEM_PLAIN,
		.guard_gap = gap, .on_violation = HDP_POLICY_REPORT,
		.flags = HDP_POOL_F_NO_CACHE,
	});
}

Test(pool_guard, every_object_between_the_gaps_is_whole_and_usable, .init = capture_logs)
{
	struct hdp_pool *pool = gapped(10, 4);
	struct hdp_pool_region lay;
	const struct hdp_layout *slots;
	struct hdp_pool_stats st;
	void *objs[10], *gap;
	bool seen[14] = { false };

	cr_assert_not_null(pool, "%s", captured_logs());
	hdp_pool_region(pool, &lay);
	slots = hdp_pool_slots(pool);
	cr_assert_eq(slots->slots, 14, "10 objects and two gaps of two slots");
	cr_assert_eq(slots->gap_objs, 4);
	cr_assert_eq((slots->gap_period - slots->gap_objs), 2);
	cr_assert_eq(hdp_pool_alloc_bulk(pool, objs, 10), 0);
	cr_assert_null(hdp_pool_alloc(pool), "ten objects, not fourteen");
	for (int i = 0; i < 10; i++) {
		uint32_t idx = hdp_pool_obj_index(pool, hdp_untag(objs[i]));

		cr_assert_lt(idx, 14);
		cr_assert(idx % 6 < 4, "object %u is in a gap", idx);
		cr_assert_not(seen[idx]);
		seen[idx] = true;
		memset(hdp_untag(objs[i]), 0xa5, 2048);	/* every byte of it, no fault */
	}
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.obj_count, 10);
	cr_assert_eq(st.in_use, 10);

	/* A gap's slot is no object: refused, named, not freed. */
	gap = hdp_pool_obj_at(pool, 4);
	cr_assert_eq(hdp_pool_free_burst(pool, &gap, 1), 0);
	cr_assert_eq(violations(pool, HDP_V_FREE_INTERIOR), 1);
	cr_assert(log_contains("in a guard gap, not an object"), "%s", captured_logs());

	/* A checked copy that would run into the gap: bounds says so first. */
	cr_assert_eq(hdp_pool_set(pool, "bounds", "on"), 0, "%s", captured_logs());
	cr_assert_eq(hdp_pool_copy_in(pool, (char *)hdp_pool_obj_at(pool, 3) + 2040,
				      "0123456789abcdef", 16), -EFAULT);
	cr_assert_eq(violations(pool, violation_kind("bounds_object_end")), 1);

	cr_assert_eq(hdp_pool_free_burst(pool, objs, 10), 10);
	hdp_pool_stats_get(pool, &st);
	cr_assert_eq(st.in_use, 0);
	cr_assert_eq(st.free_shared, 10);
	hdp_pool_destroy(pool);
}

static void refused(const struct hdp_pool_params *p, const char *why)
{
	clear_logs();
	errno = 0;
	cr_assert_null(hdp_pool_create(p));
	cr_assert_eq(errno, EINVAL);
	cr_assert(log_contains(why), "%s", captured_logs());
}

Test(pool_guard, layouts_without_whole_page_gaps_are_refused, .init = capture_logs)
{
	long page = sysconf(_SC_PAGESIZE);
	struct hdp_pool_params p = {
		.name = "gapped", .obj_size = 2048, .obj_count = 64, .mem = HDP_MEM_PLAIN,
		.guard_gap = 4,
	};

	p.mem = HDP_MEM_AUTO;
	refused(&p, "guard_gap 4 needs plain pages (mem plain, not auto)");
	p.mem = HDP_MEM_PLAIN;
	p.guard_gap = 64;
	refused(&p, "guard_gap 64 is not below the object count 64");
	p.guard_gap = 4;
	p.obj_size = 3000;
	p.obj_align = 8;
	refused(&p, "guard_gap needs an object stride that divides the page size");
	p.obj_size = 2048;
	p.obj_align = 0;
	if (page == 4096) {
		p.guard_gap = 3;
		refused(&p, "guard_gap 3: 3 objects of 2048 bytes do not end on a page boundary: "
			    "use a multiple of 2");
	}
	/* A stride of whole pages takes one slot a gap, with any count between. */
	p.obj_size = (size_t)page;
	p.guard_gap = 3;
	{
		struct hdp_pool *pool = hdp_pool_create(&p);
		struct hdp_pool_region lay;
	const struct hdp_layout *slots;

		cr_assert_not_null(pool, "%s", captured_logs());
		hdp_pool_region(pool, &lay);
		slots = hdp_pool_slots(pool);
		cr_assert_eq((slots->gap_period - slots->gap_objs), 1);
		cr_assert_eq(slots->slots, 64 + 63 / 3);
		hdp_pool_destroy(pool);
	}
}
