/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Paths where hdp-fwd makes a file of its own (the control socket, the
 * metrics file): what is there, in words for a refusal, and which file
 * this process made, so that it removes that one and nothing else. Both
 * refuse a path holding anything but their own kind of file before
 * anything is set up, and leave it as it was.
 */
#ifndef HDP_PATH_OWN_H
#define HDP_PATH_OWN_H

#include <stdbool.h>
#include <sys/stat.h>

/* "a directory", "a FIFO", "a symbolic link"...: what @st (lstat) is. */
const char *hdp_path_kind(const struct stat *st);

/* The file this process made at a path, known by device and inode. */
struct hdp_path_own {
	dev_t dev;
	ino_t ino;
	bool made;
};

/* Remember @st (an fstat of what was made) as ours. */
void hdp_path_own_set(struct hdp_path_own *own, const struct stat *st);

/* Is @st (an lstat or fstatat of the path) the file @own remembers? */
bool hdp_path_own_is(const struct hdp_path_own *own, const struct stat *st);

/*
 * Remove @name in directory @dir (a descriptor: the name is not looked up
 * through any other directory) if it is still the file @own remembers; a
 * symbolic link or any other file put there since is left alone. 0
 * (removed, or nothing there), -ESTALE (something else is there) or a
 * negative errno.
 */
int hdp_path_own_remove(int dir, const char *name, const struct hdp_path_own *own);

#endif /* HDP_PATH_OWN_H */
