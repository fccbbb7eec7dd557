/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Reaching a directory so that nobody else chooses where it is. Root
 * resolving a path through a directory another user may write lets that
 * user swap a name for a symbolic link between a check and a use, and
 * have root create, chown or load whatever the link names. The walk goes
 * from "/" one component at a time (openat with O_PATH|O_NOFOLLOW), judges
 * each directory and each link from its descriptor, and hands back the
 * last directory as a descriptor: whatever the caller then does there is
 * relative to it (openat, fstatat, renameat), so no name on the way is
 * looked up twice.
 *
 * A directory is trusted when only root or this process's effective uid
 * can change what is in it: one of theirs, writable by no group and no
 * one else, or sticky (where only an entry of root's or ours is safe: the
 * next directory or link is judged on its own owner), or on a read-only
 * mount. A link is followed as far as the directory it is in is trusted.
 */
#ifndef HDP_DIR_WALK_H
#define HDP_DIR_WALK_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/stat.h>

enum hdp_walk_rule {
	/* Every directory and link on the way trusted, or the walk refuses. */
	HDP_WALK_TRUSTED,
	/* Directories may be anyone's; a link only where a trusted one would be. */
	HDP_WALK_OWN_LINKS,
	/* Everything is followed; the result says whether all of it was trusted. */
	HDP_WALK_JUDGE,
};

#define HDP_WALK_WHY_MAX 512

struct hdp_walk {
	struct stat st;		/* the directory reached */
	bool trusted;		/* everything on the way was */
	bool sticky_open;	/* it is sticky and others may add to it */
	char where[PATH_MAX];	/* its path, as walked (links resolved) */
	int dir;		/* hdp_walk_open: that directory (O_PATH), the caller's to close */
	char name[NAME_MAX + 1];	/* hdp_walk_open: the entry's name in it */
	char why[HDP_WALK_WHY_MAX];	/* why not trusted, or why the walk failed */
};

/*
 * Open directory @path (relative ones from the working directory) by
 * @rule: an O_PATH|O_DIRECTORY descriptor (close-on-exec), or a negative
 * errno with the reason in w->why: -EPERM when @rule refuses what it met
 * (naming the directory or link and who may change it), -ELOOP for too
 * many links, or what the system said (-ENOENT, -ENOTDIR, -EACCES...).
 */
int hdp_dir_walk(const char *path, enum hdp_walk_rule rule, struct hdp_walk *w);

/*
 * As hdp_dir_walk(), to whatever @path's last component names (after
 * following links, as @rule lets): an O_PATH descriptor of it, not
 * entered even if it is a directory. The directory it is in stays open
 * in w->dir (to close), its name there in w->name; w->st and
 * w->sticky_open are that directory's.
 */
int hdp_walk_open(const char *path, enum hdp_walk_rule rule, struct hdp_walk *w);

/* As hdp_dir_walk(), for the directory @path's last component is in. */
int hdp_dir_walk_parent(const char *path, enum hdp_walk_rule rule, struct hdp_walk *w);

/* @path's last component: after its last '/', or all of it. */
const char *hdp_path_base(const char *path);

/*
 * "belongs to user nobody (uid 65534)", "may be written by group staff
 * (gid 50, mode 0775)", "may be written by anyone (mode 0777)", or "" when
 * only root and this process may change @st (an fstat), into @buf.
 */
const char *hdp_who_may_write(const struct stat *st, char *buf, size_t len);

#endif /* HDP_DIR_WALK_H */
