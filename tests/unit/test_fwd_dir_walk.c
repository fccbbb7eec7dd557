// SPDX-License-Identifier: BSD-3-Clause
/*
 * dir_walk (dataplane/paths/dir_walk.h), in a directory of its own under /tmp:
 * what each rule takes and refuses, and what it names when it refuses;
 * links followed only from where nobody else could have put them; an
 * entry reached without opening it (a FIFO does not block); loops, and
 * names that are no directory.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dir_walk.h"

static char top[32];

static void make_top(void)
{
	snprintf(top, sizeof(top), "/tmp/hdp-walk-XXXXXX");
	cr_assert_not_null(mkdtemp(top));
}

static void remove_top(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", top);
	cr_expect_eq(system(cmd), 0);
}

TestSuite(dir_walk, .init = make_top, .fini = remove_top);

/* @top/@rel as a path, made a directory of @mode. */
static const char *dir_at(const char *rel, mode_t mode)
{
	static char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", top, rel);
	cr_assert_eq(mkdir(path, 0700), 0, "mkdir %s: %s", path, strerror(errno));
	cr_assert_eq(chmod(path, mode), 0);
	return path;
}

/* @top/@rel; four at a time may be in use (a call's arguments). */
static const char *in_top(const char *rel)
{
	static char paths[4][PATH_MAX];
	static unsigned next;
	char *path = paths[next++ % 4];

	snprintf(path, PATH_MAX, "%s/%s", top, rel);
	return path;
}

Test(dir_walk, own_directories_are_trusted_and_reached)
{
	struct hdp_walk w;
	char real[PATH_MAX];
	int fd;

	dir_at("a", 0755);
	dir_at("a/b", 0700);
	fd = hdp_dir_walk(in_top("a/b"), HDP_WALK_TRUSTED, &w);
	cr_assert_geq(fd, 0, "%s", w.why);
	cr_expect(w.trusted);
	cr_expect(!w.sticky_open);
	cr_assert_not_null(realpath(in_top("a/b"), real));
	cr_expect_str_eq(w.where, real);
	cr_expect_eq(faccessat(fd, ".", F_OK, 0), 0);
	close(fd);
}

Test(dir_walk, a_group_or_anyone_writable_directory_is_refused_by_name)
{
	struct hdp_walk w;

	dir_at("g", 0775);
	cr_expect_eq(hdp_dir_walk(in_top("g"), HDP_WALK_TRUSTED, &w), -EPERM);
	cr_expect(strstr(w.why, "may be written by group") != NULL, "%s", w.why);
	cr_expect(strstr(w.why, "/g ") != NULL, "names the directory: %s", w.why);
	dir_at("w", 0777);
	dir_at("w/below", 0755);
	cr_expect_eq(hdp_dir_walk(in_top("w/below"), HDP_WALK_TRUSTED, &w), -EPERM);
	cr_expect(strstr(w.why, "/w may be written by anyone (mode 0777)") != NULL, "%s", w.why);
}

Test(dir_walk, a_sticky_directory_anyone_may_write_passes_and_says_so)
{
	struct hdp_walk w;
	int fd;

	dir_at("t", 01777);
	fd = hdp_dir_walk(in_top("t"), HDP_WALK_TRUSTED, &w);
	cr_assert_geq(fd, 0, "%s", w.why);
	cr_expect(w.trusted);
	cr_expect(w.sticky_open);
	close(fd);
}

Test(dir_walk, own_links_passes_others_directories_but_not_their_links)
{
	struct hdp_walk w;
	int fd;

	dir_at("open", 0777);
	dir_at("open/real", 0755);
	fd = hdp_dir_walk(in_top("open/real"), HDP_WALK_OWN_LINKS, &w);
	cr_assert_geq(fd, 0, "%s", w.why);
	cr_expect(!w.trusted);
	close(fd);
	cr_assert_eq(symlink(in_top("open/real"), in_top("open/link")), 0);
	cr_expect_eq(hdp_dir_walk(in_top("open/link"), HDP_WALK_OWN_LINKS, &w), -EPERM);
	cr_expect(strstr(w.why, "/open/link is a symbolic link in ") != NULL, "%s", w.why);
	cr_expect(strstr(w.why, "may be written by anyone") != NULL, "%s", w.why);
	cr_expect_eq(hdp_dir_walk(in_top("open/link"), HDP_WALK_TRUSTED, &w), -EPERM);
}

Test(dir_walk, judge_follows_everything_and_names_the_first_doubt)
{
	struct hdp_walk w;
	int fd;

	dir_at("open", 0777);
	dir_at("open/real", 0755);
	cr_assert_eq(symlink("real", in_top("open/link")), 0);
	fd = hdp_dir_walk(in_top("open/link"), HDP_WALK_JUDGE, &w);
	cr_assert_geq(fd, 0, "%s", w.why);
	cr_expect(!w.trusted);
	cr_expect(strstr(w.why, "/open may be written by anyone") != NULL, "%s", w.why);
	close(fd);
}

Test(dir_walk, links_in_trusted_directories_are_followed)
{
	struct hdp_walk w;
	char real[PATH_MAX];
	int fd;

	dir_at("d", 0755);
	dir_at("d/e", 0755);
	cr_assert_eq(symlink("d/e", in_top("rel")), 0);
	cr_assert_eq(symlink(in_top("d"), in_top("abs")), 0);
	cr_assert_not_null(realpath(in_top("d/e"), real));
	fd = hdp_dir_walk(in_top("rel"), HDP_WALK_TRUSTED, &w);
	cr_assert_geq(fd, 0, "%s", w.why);
	cr_expect_str_eq(w.where, real);
	close(fd);
	fd = hdp_dir_walk(in_top("abs/e/../e"), HDP_WALK_TRUSTED, &w);
	cr_assert_geq(fd, 0, "%s", w.why);
	cr_expect_str_eq(w.where, real);
	cr_expect(w.trusted);
	close(fd);
}

Test(dir_walk, relative_paths_start_from_the_working_directory)
{
	char cwd[PATH_MAX];
	struct hdp_walk w;
	int fd;

	dir_at("c", 0755);
	cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
	cr_assert_eq(chdir(top), 0);
	fd = hdp_dir_walk("c", HDP_WALK_TRUSTED, &w);
	cr_assert_eq(chdir(cwd), 0);
	cr_assert_geq(fd, 0, "%s", w.why);
	cr_expect(strstr(w.where, "/c") != NULL, "%s", w.where);
	close(fd);
}

Test(dir_walk, loops_missing_names_and_files_are_refused)
{
	struct hdp_walk w;

	cr_assert_eq(symlink("loop2", in_top("loop1")), 0);
	cr_assert_eq(symlink("loop1", in_top("loop2")), 0);
	cr_expect_eq(hdp_dir_walk(in_top("loop1"), HDP_WALK_TRUSTED, &w), -ELOOP);
	cr_expect(strstr(w.why, "symbolic links") != NULL, "%s", w.why);
	cr_expect_eq(hdp_dir_walk(in_top("none/x"), HDP_WALK_TRUSTED, &w), -ENOENT);
	cr_expect(strstr(w.why, "/none: No such file or directory") != NULL, "%s", w.why);
	close(open(in_top("file"), O_WRONLY | O_CREAT, 0644));
	cr_expect_eq(hdp_dir_walk(in_top("file/x"), HDP_WALK_TRUSTED, &w), -ENOTDIR);
	cr_expect(strstr(w.why, "/file is not a directory") != NULL, "%s", w.why);
}

Test(dir_walk, an_entry_is_reached_without_being_opened)
{
	struct hdp_walk w;
	struct stat st;
	int fd;

	cr_assert_eq(mkfifo(in_top("fifo"), 0600), 0);
	cr_assert_eq(symlink("fifo", in_top("to-fifo")), 0);
	fd = hdp_walk_open(in_top("to-fifo"), HDP_WALK_TRUSTED, &w);	/* no reader: must not block */
	cr_assert_geq(fd, 0, "%s", w.why);
	cr_expect_eq(fstat(fd, &st), 0);
	cr_expect(S_ISFIFO(st.st_mode));
	cr_expect_str_eq(w.name, "fifo");
	cr_expect_eq(fstatat(w.dir, w.name, &st, AT_SYMLINK_NOFOLLOW), 0);
	cr_expect(S_ISFIFO(st.st_mode));
	close(w.dir);
	close(fd);
}

Test(dir_walk, a_directory_of_another_user_is_named_with_its_owner)
{
	struct hdp_walk w;

	if (geteuid() != 0)
		cr_skip_test("needs root, to give a directory to uid 65534");
	dir_at("theirs", 0755);
	cr_assert_eq(chown(in_top("theirs"), 65534, 65534), 0);
	cr_expect_eq(hdp_dir_walk(in_top("theirs"), HDP_WALK_TRUSTED, &w), -EPERM);
	cr_expect(strstr(w.why, "/theirs belongs to user ") != NULL, "%s", w.why);
	cr_expect(strstr(w.why, "(uid 65534)") != NULL, "%s", w.why);
	dir_at("sticky", 01777);
	cr_assert_eq(symlink(in_top("theirs"), in_top("sticky/link")), 0);
	cr_assert_eq(lchown(in_top("sticky/link"), 65534, 65534), 0);
	cr_expect_eq(hdp_dir_walk(in_top("sticky/link"), HDP_WALK_OWN_LINKS, &w), -EPERM);
	cr_expect(strstr(w.why, "/sticky/link, a symbolic link in sticky ") != NULL, "%s", w.why);
}
