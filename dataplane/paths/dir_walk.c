// SPDX-License-Identifier: BSD-3-Clause
/* Reaching a directory so that nobody else chooses where it is (dir_walk.h). */
#include "dir_walk.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define LINKS_MAX 40	/* as the kernel's own path walk */

struct walker {
	enum hdp_walk_rule rule;
	struct hdp_walk *w;
	int fd;				/* the directory reached so far */
	bool here_trusted;		/* it, judged on its own */
	bool here_sticky_open;		/* it is sticky and others may add to it */
	char done[PATH_MAX];		/* its path, for messages */
	char rest[2 * PATH_MAX];	/* what is left to walk */
	unsigned links;
	bool want_entry;		/* the last component is the caller's, unentered */
	int entry;			/* it, once reached (O_PATH) */
};

/* Into w->why, however long the names: a message cut short is still one. */
__attribute__((format(printf, 2, 3)))
static void sayf(struct walker *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->w->why, sizeof(k->w->why), fmt, ap);
	va_end(ap);
}

const char *hdp_path_base(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static bool ours(uid_t uid)
{
	return uid == 0 || uid == geteuid();
}

const char *hdp_who_may_write(const struct stat *st, char *buf, size_t len)
{
	char name[256];
	struct passwd pw, *pwp = NULL;
	struct group gr, *grp = NULL;

	if (!ours(st->st_uid)) {
		getpwuid_r(st->st_uid, &pw, name, sizeof(name), &pwp);
		snprintf(buf, len, "belongs to user %.64s (uid %u)", pwp ? pwp->pw_name : "?",
			 (unsigned)st->st_uid);
	} else if (st->st_mode & S_IWOTH) {
		snprintf(buf, len, "may be written by anyone (mode %04o)",
			 (unsigned)(st->st_mode & 07777));
	} else if (st->st_mode & S_IWGRP) {
		getgrgid_r(st->st_gid, &gr, name, sizeof(name), &grp);
		snprintf(buf, len, "may be written by group %.64s (gid %u, mode %04o)",
			 grp ? grp->gr_name : "?", (unsigned)st->st_gid,
			 (unsigned)(st->st_mode & 07777));
	} else {
		buf[0] = '\0';
	}
	return buf;
}

/* Nobody can change a read-only mount, whatever its modes say. */
static bool read_only(int fd)
{
	struct statvfs vfs;

	return fstatvfs(fd, &vfs) == 0 && (vfs.f_flag & ST_RDONLY);
}

/*
 * Is directory @fd (fstat @st) one only root and we may change? A sticky
 * one others may write counts as ours: what they add there is judged by
 * its own owner when the walk meets it.
 */
static bool dir_trusted(int fd, const struct stat *st, bool *sticky_open)
{
	bool others_write = st->st_mode & (S_IWGRP | S_IWOTH);

	*sticky_open = false;
	if (read_only(fd))
		return true;
	if (!ours(st->st_uid))
		return false;
	if (!others_write)
		return true;
	*sticky_open = st->st_mode & S_ISVTX;
	return *sticky_open;
}

/*
 * Something on the way that others may change, said in w->why (the first
 * such thing: the one a refusal names). Refused (-EPERM) when @refuse.
 */
__attribute__((format(printf, 3, 4)))
static int untrusted(struct walker *k, bool refuse, const char *fmt, ...)
{
	va_list ap;

	if (k->w->trusted || refuse) {
		va_start(ap, fmt);
		vsnprintf(k->w->why, sizeof(k->w->why), fmt, ap);
		va_end(ap);
	}
	k->w->trusted = false;
	return refuse ? -EPERM : 0;
}

static int move_to(struct walker *k, int fd, const char *name)
{
	struct stat st;
	size_t n = strlen(k->done);

	if (fstat(fd, &st)) {
		int err = -errno;

		close(fd);
		return err;
	}
	if (k->fd >= 0)
		close(k->fd);
	k->fd = fd;
	if (strcmp(name, "..") == 0) {
		while (n > 0 && k->done[n - 1] != '/')
			n--;
		k->done[n > 1 ? n - 1 : n] = '\0';
	} else if (name[0]) {
		snprintf(k->done + n, sizeof(k->done) - n, "%s%s", n > 1 ? "/" : "", name);
	}
	k->w->st = st;
	k->here_trusted = dir_trusted(fd, &st, &k->here_sticky_open);
	return 0;
}

static int restart_at_root(struct walker *k)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	strcpy(k->done, "/");
	return move_to(k, fd, "");
}

/* The next component of k->rest into @name (NAME_MAX + 1): 1, 0 at the end, or -errno. */
static int next_name(struct walker *k, char *name)
{
	char *r = k->rest;
	size_t n;

	r += strspn(r, "/");
	n = strcspn(r, "/");
	if (n == 0)
		return 0;
	if (n > NAME_MAX) {
		sayf(k, "a name on the way is longer than %d bytes", NAME_MAX);
		return -ENAMETOOLONG;
	}
	memcpy(name, r, n);
	name[n] = '\0';
	/*
	 * The rest moves to the front by hand: valgrind 3.19 takes the
	 * fortified memmove (__memmove_chk) for __memcpy_chk and reports the
	 * overlap as an error.
	 */
	for (char *to = k->rest, *from = r + n; (*to++ = *from++);)
		;
	return 1;
}

/*
 * A directory entered: the walk's rule decides what one that others may
 * change means. The message names it and who.
 */
static int judge_dir(struct walker *k)
{
	char who[160];

	if (k->here_trusted)
		return 0;
	return untrusted(k, k->rule == HDP_WALK_TRUSTED, "%s %s", k->done,
			 hdp_who_may_write(&k->w->st, who, sizeof(who)));
}

/*
 * A link at @name (descriptor @fd, fstat @st) in the current directory:
 * as trustworthy as the directory it is in, and in a sticky one others
 * may write, only if it is root's or ours. Followed by putting its text
 * in front of what is left.
 */
static int follow_link(struct walker *k, int fd, const struct stat *st, const char *name)
{
	char target[PATH_MAX], rest[sizeof(k->rest)], who[160];
	ssize_t n;
	int ret;

	if (!k->here_trusted) {
		ret = untrusted(k, k->rule != HDP_WALK_JUDGE, "%s%s%s is a symbolic link in %s, "
				"which %s", k->done, strcmp(k->done, "/") ? "/" : "", name, k->done,
				hdp_who_may_write(&k->w->st, who, sizeof(who)));
		if (ret)
			return ret;
	} else if (k->here_sticky_open && !ours(st->st_uid)) {
		/* The directory is as it should be: the link, anyone's to put there, is not. */
		ret = untrusted(k, k->rule != HDP_WALK_JUDGE, "%s%s%s, a symbolic link in sticky %s, "
				"%s", k->done, strcmp(k->done, "/") ? "/" : "", name, k->done,
				hdp_who_may_write(st, who, sizeof(who)));
		if (ret)
			return ret;
	}
	if (++k->links > LINKS_MAX) {
		sayf(k, "more than %d symbolic links on the way", LINKS_MAX);
		return -ELOOP;
	}
	n = readlinkat(fd, "", target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	if ((size_t)snprintf(rest, sizeof(rest), "%s/%s", target, k->rest) >= sizeof(rest)) {
		sayf(k, "path too long once its links are followed");
		return -ENAMETOOLONG;
	}
	memcpy(k->rest, rest, sizeof(rest));
	return target[0] == '/' ? restart_at_root(k) : 0;
}

/* Nothing but slashes left: @name was the last component. */
static bool at_end(const struct walker *k)
{
	return k->rest[strspn(k->rest, "/")] == '\0';
}

/*
 * One component: a directory to enter, a link to follow, or (the last
 * one, when the caller wants what it names) the entry itself.
 */
static int step(struct walker *k, const char *name)
{
	struct stat st;
	int fd, ret;

	if (strcmp(name, ".") == 0)
		return 0;
	fd = openat(k->fd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		ret = -errno;
		sayf(k, "%s%s%s: %s", k->done, strcmp(k->done, "/") ? "/" : "", name,
		     strerror(-ret));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	if (S_ISLNK(st.st_mode)) {
		ret = follow_link(k, fd, &st, name);
		close(fd);
		return ret;
	}
	if (k->want_entry && at_end(k)) {
		k->entry = fd;
		snprintf(k->w->name, sizeof(k->w->name), "%s", name);
		return 0;
	}
	if (!S_ISDIR(st.st_mode)) {
		sayf(k, "%s%s%s is not a directory", k->done, strcmp(k->done, "/") ? "/" : "",
		     name);
		close(fd);
		return -ENOTDIR;
	}
	ret = move_to(k, fd, name);
	return ret ? ret : judge_dir(k);
}

static int walk(const char *path, enum hdp_walk_rule rule, bool want_entry, struct hdp_walk *w)
{
	struct walker k = { .rule = rule, .w = w, .fd = -1, .want_entry = want_entry,
			    .entry = -1 };
	char cwd[PATH_MAX], name[NAME_MAX + 1];
	int ret;

	*w = (struct hdp_walk){ .trusted = true, .dir = -1 };
	if (path[0] != '/' && !getcwd(cwd, sizeof(cwd))) {
		ret = -errno;
		sayf(&k, "cannot tell the working directory: %s", strerror(-ret));
		return ret;
	}
	if ((size_t)snprintf(k.rest, sizeof(k.rest), "%s/%s", path[0] == '/' ? "" : cwd,
			     path) >= sizeof(k.rest)) {
		sayf(&k, "path too long");
		return -ENAMETOOLONG;
	}
	ret = restart_at_root(&k);
	if (!ret)
		ret = judge_dir(&k);
	while (!ret && k.entry < 0 && (ret = next_name(&k, name)) == 1)
		ret = step(&k, name);
	if (!ret && want_entry && k.entry < 0) {
		sayf(&k, "%s is a directory", k.done);
		ret = -EISDIR;
	}
	if (ret) {
		if (k.fd >= 0)
			close(k.fd);
		return ret;
	}
	w->sticky_open = k.here_sticky_open;
	memcpy(w->where, k.done, sizeof(w->where));
	if (!want_entry)
		return k.fd;
	w->dir = k.fd;
	return k.entry;
}

int hdp_dir_walk(const char *path, enum hdp_walk_rule rule, struct hdp_walk *w)
{
	return walk(path, rule, false, w);
}

int hdp_walk_open(const char *path, enum hdp_walk_rule rule, struct hdp_walk *w)
{
	return walk(path, rule, true, w);
}

int hdp_dir_walk_parent(const char *path, enum hdp_walk_rule rule, struct hdp_walk *w)
{
	const char *base = hdp_path_base(path);
	char dir[PATH_MAX];

	if (base == path)
		return hdp_dir_walk(".", rule, w);
	if ((size_t)snprintf(dir, sizeof(dir), "%.*s", (int)(base - path), path) >= sizeof(dir)) {
		*w = (struct hdp_walk){ .dir = -1, .why = "path too long" };
		return -ENAMETOOLONG;
	}
	return hdp_dir_walk(dir, rule, w);
}
