// SPDX-License-Identifier: BSD-3-Clause
/*
 * The metrics file's rules (hdp/metrics_file.h), in a directory of its own
 * with a stand-in source: which path it takes and what it refuses, naming
 * it; each copy a fresh file in metrics_mode whatever the umask; nothing
 * beside the path ever opened, blocked on or published; its own leftovers
 * swept; a failing write keeps the last complete copy (on a file system
 * with room for one copy but not two too) and is said once for each new
 * reason; a reload writes at once; at exit only the file it wrote goes.
 */
#include <criterion/criterion.h>

#include <hdp/ctl.h>
#include <hdp/fwd.h>
#include <hdp/log.h>
#include <hdp/metrics_file.h>
#include <hdp/strbuf.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "support.h"

static char dir[32];
static char path[64];
static struct hdp_fwd_cfg cfg;
static bool huge;	/* the stand-in source's next answer does not fit */
static bool mounted;	/* a tmpfs of the test's own on dir, in its own mount namespace */

static int stand_in_stats(void *ctx, const char *format, struct hdp_strbuf *o)
{
	(void)ctx;
	cr_assert_str_eq(format, "prometheus");
	if (huge)
		hdp_strbuf_printf(o, "# %300000s\n", "");
	hdp_strbuf_printf(o, "# HELP t_total A test counter.\n# TYPE t_total counter\n"
			  "t_total 1\n");
	return 0;
}

static const struct hdp_ctl_source src = { .stats = stand_in_stats };

static void setup(void)
{
	capture_logs();
	snprintf(dir, sizeof(dir), "/tmp/hdp-metrics-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/hdp.prom", dir);
	hdp_fwd_cfg_defaults(&cfg);
	snprintf(cfg.metrics_path, sizeof(cfg.metrics_path), "%s", path);
	huge = false;
	mounted = false;
}

static void teardown(void)
{
	char cmd[128];

	if (mounted)
		umount2(dir, MNT_DETACH);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(metrics_file, .init = setup, .fini = teardown);

static void put(const char *p, const char *text)
{
	FILE *f = fopen(p, "we");

	cr_assert_not_null(f, "%s: %s", p, strerror(errno));
	fputs(text, f);
	cr_assert_eq(fclose(f), 0);
}

static char *slurp(const char *p)
{
	static char buf[4096];
	FILE *f = fopen(p, "re");
	size_t n;

	cr_assert_not_null(f, "%s: %s", p, strerror(errno));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

static unsigned occurrences(const char *haystack, const char *needle)
{
	unsigned n = 0;

	for (const char *p = strstr(haystack, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

static unsigned files_in_dir(void)
{
	char cmd[128];
	unsigned n = 0;
	FILE *ls;

	snprintf(cmd, sizeof(cmd), "ls -A '%s' | wc -l", dir);
	ls = popen(cmd, "r");
	cr_assert_not_null(ls);
	cr_assert_eq(fscanf(ls, "%u", &n), 1);
	pclose(ls);
	return n;
}

static void refused(const char *what)
{
	clear_logs();
	cr_assert_eq(hdp_metrics_path_check(&cfg), -EEXIST, "%s was taken", what);
	cr_assert(log_contains(path) && log_contains(what), "%s: %s", what, captured_logs());
}

Test(metrics_file, the_path_is_taken_when_free_empty_or_its_own)
{
	cr_assert_eq(hdp_metrics_path_check(&cfg), 0, "%s", captured_logs());
	put(path, "");
	cr_assert_eq(hdp_metrics_path_check(&cfg), 0, "empty: %s", captured_logs());
	put(path, HDP_METRICS_MARKER ": left by a killed hdp-fwd\nt_total 1\n");
	cr_assert_eq(hdp_metrics_path_check(&cfg), 0, "its own: %s", captured_logs());
	cfg.metrics_path[0] = '\0';
	cr_assert_eq(hdp_metrics_path_check(&cfg), 0);
}

Test(metrics_file, anything_else_at_the_path_is_refused_by_name_and_left_as_it_was)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char other[160];
	struct stat st;
	int fd;

	put(path, "[global]\nports = eth1,eth2\n");	/* a typo naming the config */
	refused("a regular file that hdp-fwd did not write");
	cr_assert_str_eq(slurp(path), "[global]\nports = eth1,eth2\n");
	cr_assert_eq(unlink(path), 0);

	cr_assert_eq(mkdir(path, 0755), 0);
	refused("a directory");
	cr_assert_eq(rmdir(path), 0);

	snprintf(other, sizeof(other), "%s/own.prom", dir);
	put(other, HDP_METRICS_MARKER "\n");
	cr_assert_eq(symlink(other, path), 0);
	refused("a symbolic link");		/* even to metrics of its own */
	cr_assert_eq(unlink(path), 0);

	cr_assert_eq(link(other, path), 0);
	refused("a file with 2 links");
	cr_assert_eq(unlink(path), 0);

	cr_assert_eq(mkfifo(path, 0666), 0);
	refused("a FIFO");
	cr_assert_eq(lstat(path, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode));
	cr_assert_eq(unlink(path), 0);

	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	refused("a socket");
	close(fd);
	cr_assert_eq(unlink(path), 0);

	if (geteuid() != 0)
		cr_skip_test("another user's file needs root to make");
	put(path, HDP_METRICS_MARKER "\n");
	cr_assert_eq(chown(path, 65534, 65534), 0);
	refused("a file of uid 65534");
	/* With user =, hdp-fwd writes as that user: its own file is that user's. */
	cfg.uid = cfg.gid = 65534;
	snprintf(cfg.user, sizeof(cfg.user), "65534");
	cr_assert_eq(hdp_metrics_path_check(&cfg), 0, "%s", captured_logs());
}

Test(metrics_file, each_copy_is_fresh_in_its_mode_whatever_the_umask)
{
	mode_t old = umask(077);
	struct hdp_metrics_file *m = hdp_metrics_file_open(&cfg, &src);
	struct stat st, again;
	const char *text;

	cr_assert_not_null(m);
	cr_assert_eq(hdp_metrics_file_write(m), 0, "%s", captured_logs());
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_mode & 07777, 0644, "mode %o", st.st_mode & 07777);
	text = slurp(path);
	cr_assert(strncmp(text, HDP_METRICS_MARKER ":", strlen(HDP_METRICS_MARKER) + 1) == 0,
		  "%s", text);
	cr_assert(strstr(text, "\nt_total 1\n") && strstr(text, "\nhdp_metrics_file_timestamp_seconds "),
		  "%s", text);
	cr_assert_eq(files_in_dir(), 1, "a temporary file stayed");

	cfg.metrics_mode = 0640;
	hdp_metrics_file_reconfigure(m, &cfg);
	hdp_metrics_file_tick(m);
	cr_assert_eq(stat(path, &again), 0);
	cr_assert_eq(again.st_mode & 07777, 0640, "mode %o", again.st_mode & 07777);
	cr_assert_neq(again.st_ino, st.st_ino, "not a new file");
	hdp_metrics_file_close(m);
	umask(old);
	cr_assert_eq(access(path, F_OK), -1, "not removed at close");
}

Test(metrics_file, nothing_beside_the_path_is_opened_published_or_said_twice)
{
	char fifo[160], foreign[160], stale[160];
	struct hdp_metrics_file *m;
	struct stat st;

	snprintf(fifo, sizeof(fifo), "%s.tmp", path);
	snprintf(foreign, sizeof(foreign), "%s.tmp.00000000", path);
	snprintf(stale, sizeof(stale), "%s.tmp.deadbeef", path);
	cr_assert_eq(mkfifo(fifo, 0666), 0);
	put(foreign, "not hdp-fwd's\n");
	put(stale, HDP_METRICS_MARKER ": half of a copy\n");
	alarm(10);	/* a FIFO opened for writing would hang here */
	m = hdp_metrics_file_open(&cfg, &src);
	cr_assert_not_null(m);
	for (int i = 0; i < 5; i++)
		cr_assert_eq(hdp_metrics_file_write(m), 0, "%s", captured_logs());
	alarm(0);
	cr_assert_eq(lstat(fifo, &st), 0);
	cr_assert(S_ISFIFO(st.st_mode));
	cr_assert_str_eq(slurp(foreign), "not hdp-fwd's\n");
	cr_assert_eq(access(stale, F_OK), -1, "its own leftover stayed");
	cr_assert_eq(occurrences(captured_logs(), "is a FIFO, not hdp-fwd's"), 1, "%s",
		     captured_logs());
	cr_assert_eq(occurrences(captured_logs(), foreign), 1, "%s", captured_logs());
	cr_assert_eq(stat(path, &st), 0);
	cr_assert_eq(st.st_uid, geteuid());
	hdp_metrics_file_close(m);
	cr_assert_eq(files_in_dir(), 2, "the foreign files are left, nothing else");
}

static char *copy_of(const char *text)
{
	char *c = strdup(text);

	cr_assert_not_null(c);
	return c;
}

Test(metrics_file, a_failing_write_keeps_the_last_copy_and_is_said_once)
{
	struct hdp_metrics_file *m = hdp_metrics_file_open(&cfg, &src);
	char *last;

	cr_assert_eq(hdp_metrics_file_write(m), 0, "%s", captured_logs());
	last = copy_of(slurp(path));
	huge = true;
	for (int i = 0; i < 3; i++) {
		cr_assert_eq(hdp_metrics_file_write(m), -E2BIG);
		cr_assert_str_eq(slurp(path), last, "the last copy did not stay as it was");
	}
	cr_assert_eq(files_in_dir(), 1, "a temporary file stayed");
	cr_assert_eq(occurrences(captured_logs(), "more than the"), 1, "%s", captured_logs());
	cr_assert(log_contains("the last complete copy stays"), "%s", captured_logs());
	huge = false;
	cr_assert_eq(hdp_metrics_file_write(m), 0);
	cr_assert_eq(hdp_metrics_file_write(m), 0);
	cr_assert_eq(occurrences(captured_logs(), "written again (3 writes failed"), 1, "%s",
		     captured_logs());
	cr_assert(strstr(slurp(path), "\nhdp_metrics_file_write_failures_total 3\n"), "%s",
		  slurp(path));
	hdp_metrics_file_close(m);
	free(last);
}

/* Lines the log has for the metrics file, error or not. */
static unsigned lines_about_it(void)
{
	char needle[96];

	snprintf(needle, sizeof(needle), "metrics file %s:", path);
	return occurrences(captured_logs(), needle);
}

Test(metrics_file, a_new_reason_to_fail_is_said_once_more)
{
	struct hdp_metrics_file *m = hdp_metrics_file_open(&cfg, &src);
	char other[160];

	cr_assert_eq(hdp_metrics_file_write(m), 0, "%s", captured_logs());
	huge = true;
	cr_assert_eq(hdp_metrics_file_write(m), -E2BIG);
	cr_assert_eq(hdp_metrics_file_write(m), -E2BIG);
	cr_assert_eq(lines_about_it(), 1, "%s", captured_logs());
	/* Another step fails: something else at the path now. */
	huge = false;
	snprintf(other, sizeof(other), "%s/edge.ini", dir);
	put(other, "[global]\n");
	cr_assert_eq(rename(other, path), 0);
	cr_assert_eq(hdp_metrics_file_write(m), -EEXIST);
	cr_assert_eq(hdp_metrics_file_write(m), -EEXIST);
	cr_assert_eq(lines_about_it(), 2, "%s", captured_logs());
	cr_assert(log_contains("not replaced"), "%s", captured_logs());
	/* And back to the first: a change too. */
	huge = true;
	cr_assert_eq(hdp_metrics_file_write(m), -E2BIG);
	cr_assert_eq(lines_about_it(), 3, "%s", captured_logs());
	cr_assert_eq(occurrences(captured_logs(), "more than the"), 2, "%s", captured_logs());
	huge = false;
	cr_assert_eq(unlink(path), 0);
	cr_assert_eq(hdp_metrics_file_write(m), 0);
	cr_assert_eq(hdp_metrics_file_write(m), 0);
	cr_assert_eq(lines_about_it(), 4, "%s", captured_logs());
	cr_assert_eq(occurrences(captured_logs(), "written again (5 writes failed"), 1, "%s",
		     captured_logs());
	hdp_metrics_file_close(m);
}

/* Write @p full of zeros until the file system has no room left. */
static void fill_up(const char *p)
{
	static const char zeros[4096];
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	ssize_t w;

	cr_assert_geq(fd, 0, "%s: %s", p, strerror(errno));
	do
		w = write(fd, zeros, sizeof(zeros));
	while (w > 0);
	cr_assert_eq(errno, ENOSPC, "%s: %s", p, strerror(errno));
	cr_assert_eq(close(fd), 0);
}

/*
 * A file system with room for one copy but not two (a tmpfs of this
 * test's own, in a mount namespace of its own): the copy written while
 * there was room stays, whole, at every read, and the failure is one
 * line, not an error and a "written again" every other interval.
 */
Test(metrics_file, room_for_one_copy_but_not_two_keeps_that_copy)
{
	struct hdp_metrics_file *m;
	char filler[160], *last;

	if (geteuid() != 0)
		cr_skip_test("a tmpfs of its own needs root");
	cr_assert_eq(unshare(CLONE_NEWNS), 0, "%s", strerror(errno));
	/* Source and type are not read for a propagation change (memcheck reads them). */
	cr_assert_eq(mount("none", "/", "none", MS_REC | MS_PRIVATE, NULL), 0, "%s",
		     strerror(errno));
	cr_assert_eq(mount("tmpfs", dir, "tmpfs", 0, "size=16k,mode=700"), 0, "%s",
		     strerror(errno));
	mounted = true;
	m = hdp_metrics_file_open(&cfg, &src);
	cr_assert_not_null(m);
	cr_assert_eq(hdp_metrics_file_write(m), 0, "%s", captured_logs());
	last = copy_of(slurp(path));
	snprintf(filler, sizeof(filler), "%s/filler", dir);
	fill_up(filler);
	for (int i = 0; i < 6; i++) {
		cr_assert_eq(hdp_metrics_file_write(m), -ENOSPC, "write %d: %s", i,
			     captured_logs());
		cr_assert_eq(access(path, F_OK), 0, "write %d: the copy is gone", i);
		cr_assert_str_eq(slurp(path), last, "write %d: the copy changed", i);
	}
	cr_assert_eq(files_in_dir(), 2, "a temporary file stayed");
	cr_assert_eq(lines_about_it(), 1, "%s", captured_logs());
	cr_assert(log_contains("No space left on device; the last complete copy stays"), "%s",
		  captured_logs());
	cr_assert_not(log_contains("written again"), "%s", captured_logs());
	/* Room again: written, said once. */
	cr_assert_eq(unlink(filler), 0);
	cr_assert_eq(hdp_metrics_file_write(m), 0, "%s", captured_logs());
	cr_assert_eq(lines_about_it(), 2, "%s", captured_logs());
	cr_assert(log_contains("written again (6 writes failed"), "%s", captured_logs());
	cr_assert(strstr(slurp(path), "\nhdp_metrics_file_write_failures_total 6\n"), "%s",
		  slurp(path));
	hdp_metrics_file_close(m);
	free(last);
}

Test(metrics_file, only_its_own_file_is_replaced_or_removed)
{
	struct hdp_metrics_file *m = hdp_metrics_file_open(&cfg, &src);
	char other[160];

	cr_assert_eq(hdp_metrics_file_write(m), 0, "%s", captured_logs());
	snprintf(other, sizeof(other), "%s/edge.ini", dir);
	put(other, "[global]\n");
	cr_assert_eq(rename(other, path), 0);	/* put there while it runs */
	cr_assert_eq(hdp_metrics_file_write(m), -EEXIST);
	cr_assert(log_contains("a regular file that hdp-fwd did not write") &&
		  log_contains("not replaced"), "%s", captured_logs());
	hdp_metrics_file_close(m);
	cr_assert_str_eq(slurp(path), "[global]\n");
	cr_assert_eq(files_in_dir(), 1);
}

Test(metrics_file, a_reload_writes_at_once_and_keeps_the_new_interval)
{
	struct hdp_metrics_file *m;
	struct stat a, b;

	cfg.stats_interval = 30;
	m = hdp_metrics_file_open(&cfg, &src);
	cr_assert_eq(hdp_metrics_file_write(m), 0);
	cr_assert_eq(stat(path, &a), 0);
	hdp_metrics_file_tick(m);
	cr_assert_eq(stat(path, &b), 0);
	cr_assert_eq(a.st_ino, b.st_ino, "written before its interval");
	cfg.stats_interval = 1;
	hdp_metrics_file_reconfigure(m, &cfg);
	hdp_metrics_file_tick(m);
	cr_assert_eq(stat(path, &b), 0);
	cr_assert_neq(a.st_ino, b.st_ino, "a reload did not write at once");
	cr_assert(strstr(slurp(path), "\nhdp_metrics_file_interval_seconds 1\n"));
	hdp_metrics_file_close(m);
}
