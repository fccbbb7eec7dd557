// SPDX-License-Identifier: BSD-3-Clause
/* What is at a path, and whether it is the file we made there (path_own.h). */
#include "path_own.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

const char *hdp_path_kind(const struct stat *st)
{
	switch (st->st_mode & S_IFMT) {
	case S_IFREG:	return "a regular file";
	case S_IFDIR:	return "a directory";
	case S_IFLNK:	return "a symbolic link";
	case S_IFIFO:	return "a FIFO";
	case S_IFSOCK:	return "a socket";
	case S_IFCHR:	return "a character device";
	case S_IFBLK:	return "a block device";
	}
	return "something of an unknown type";
}

void hdp_path_own_set(struct hdp_path_own *own, const struct stat *st)
{
	*own = (struct hdp_path_own){ .dev = st->st_dev, .ino = st->st_ino, .made = true };
}

bool hdp_path_own_is(const struct hdp_path_own *own, const struct stat *st)
{
	return own->made && st->st_dev == own->dev && st->st_ino == own->ino;
}

int hdp_path_own_remove(int dir, const char *name, const struct hdp_path_own *own)
{
	struct stat st;

	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!hdp_path_own_is(own, &st))
		return -ESTALE;
	if (unlinkat(dir, name, 0) && errno != ENOENT)
		return -errno;
	return 0;
}
