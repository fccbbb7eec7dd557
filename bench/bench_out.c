// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-bench's --out directory, kept as bench/bench_out.py keeps it for the
 * scripts. hdp-bench runs as root, and the directory may be another
 * user's: that user must not get root to write through a link put at an
 * output's name, nor hang the run's end on a FIFO there. So the directory
 * is walked to without following a link another user could have placed
 * (dir_walk.h) and held as a descriptor; an output name holding anything
 * but a regular file is refused before the run; every output is a new
 * file (O_CREAT|O_EXCL|O_NOFOLLOW, a random name beside it) renamed over
 * its name at the end, which replaces whatever is there without opening
 * it; and gnuplot draws into such a file from its standard output, with
 * its data inline, so that it opens no name at all.
 */
#include "bench_out.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dir_walk.h"
#include "path_own.h"

int bench_out_open(const char *path)
{
	struct hdp_walk w;
	int parent, fd;

	parent = hdp_dir_walk_parent(path, HDP_WALK_OWN_LINKS, &w);
	if (parent >= 0) {
		if (mkdirat(parent, hdp_path_base(path), 0755) && errno != EEXIST) {
			fprintf(stderr, "hdp-bench: --out %s: %s\n", path, strerror(errno));
			close(parent);
			return -1;
		}
		close(parent);
	}
	fd = hdp_dir_walk(path, HDP_WALK_OWN_LINKS, &w);
	if (fd < 0) {
		fprintf(stderr, "hdp-bench: --out %s: %s\n", path, w.why);
		return -1;
	}
	return fd;
}

int bench_out_check(int dir, const char *where, const char *const *names)
{
	struct stat st;

	for (; *names; names++) {
		if (fstatat(dir, *names, &st, AT_SYMLINK_NOFOLLOW) || S_ISREG(st.st_mode))
			continue;
		fprintf(stderr, "hdp-bench: --out %s: %s is %s: refusing to write results there "
			"(remove it, or give another --out)\n", where, *names, hdp_path_kind(&st));
		return -1;
	}
	return 0;
}

/* A new file beside @name, made by this call: its descriptor, its name in @of->tmp. */
static int fresh(int dir, const char *name, struct bench_out_file *of)
{
	int fd = -1;

	snprintf(of->name, sizeof(of->name), "%s", name);
	for (int i = 0; i < 16 && fd < 0; i++) {
		uint64_t r = 0;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (uint64_t)getpid() << 32 ^ (uint64_t)i;
		snprintf(of->tmp, sizeof(of->tmp), ".%.32s.%012llx", name,
			 (unsigned long long)(r & 0xffffffffffffull));
		fd = openat(dir, of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0)
		fprintf(stderr, "hdp-bench: %s: cannot make a new file for it: %s\n", name,
			strerror(errno));
	return fd;
}

FILE *bench_out_create(int dir, const char *name, struct bench_out_file *of)
{
	int fd = fresh(dir, name, of);

	of->f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (fd >= 0 && !of->f) {
		close(fd);
		unlinkat(dir, of->tmp, 0);
	}
	return of->f;
}

/* Rename @of's file over its name; on failure it goes, and that is said. */
static int publish(int dir, const struct bench_out_file *of, int err)
{
	if (!err && renameat(dir, of->tmp, dir, of->name))
		err = errno;
	if (!err)
		return 0;
	fprintf(stderr, "hdp-bench: %s: not written: %s\n", of->name, strerror(err));
	unlinkat(dir, of->tmp, 0);
	return -1;
}

int bench_out_commit(int dir, struct bench_out_file *of)
{
	int err = 0;

	if (!of->f)
		return 0;
	if (ferror(of->f) || fclose(of->f))
		err = errno ? errno : EIO;
	of->f = NULL;
	return publish(dir, of, err);
}

void bench_out_discard(int dir, struct bench_out_file *of)
{
	if (!of->f)
		return;
	fclose(of->f);
	of->f = NULL;
	unlinkat(dir, of->tmp, 0);
}

int bench_out_gnuplot(int dir, const char *name, const char *script)
{
	struct sigaction ignore = { .sa_handler = SIG_IGN }, old;
	struct bench_out_file of;
	int fd = fresh(dir, name, &of), in[2], status = -1;
	size_t len = strlen(script), done = 0;
	pid_t pid;

	if (fd < 0)
		return -1;
	if (pipe2(in, O_CLOEXEC)) {
		close(fd);
		return publish(dir, &of, errno);
	}
	fflush(NULL);
	/* gnuplot gone early must not kill hdp-bench with SIGPIPE. */
	sigaction(SIGPIPE, &ignore, &old);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGPIPE, &old, NULL);
		if (dup2(in[0], 0) < 0 || dup2(fd, 1) < 0)
			_exit(127);
		execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(fd);
	while (pid > 0 && done < len) {
		ssize_t n = write(in[1], script + done, len - done);

		if (n <= 0)
			break;
		done += (size_t)n;
	}
	close(in[1]);
	sigaction(SIGPIPE, &old, NULL);
	if (pid > 0)
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	if (pid < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		unlinkat(dir, of.tmp, 0);
		return -1;	/* no gnuplot, or it failed: no plot, said by the caller */
	}
	return publish(dir, &of, 0);
}
