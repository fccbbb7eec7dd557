// SPDX-License-Identifier: BSD-3-Clause
/* A keeper process (hdp/keeper.h): forked, fed over a pipe, sealed, waited for. */
#include <hdp/keeper.h>
#include <hdp/compiler.h>
#include <hdp/log.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* Both ends above 2 (hdp-fwd may start without 0, 1 or 2): -1 if not. */
static int above_stdio(int fd)
{
	int moved;

	if (fd > 2)
		return fd;
	moved = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	close(fd);
	return moved;
}

HDP_NORETURN static void child(int fds[2], const char *name, void (*run)(int fd))
{
	/* Its own copy of the write end first: with it open, EOF never comes. */
	close(fds[1]);
	if (dup2(fds[0], 3) < 0)
		_exit(1);
	if (close_range(4, ~0u, 0))
		for (int fd = 4; fd < 1024; fd++)
			close(fd);
	/* 0, 1 and 2 open (on /dev/null if hdp-fwd had none): what it opens is above. */
	for (int fd = 0; fd < 3; fd++)
		if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd)
			_exit(1);
	/* Its parent's terminal and service manager signal the group: outlive them. */
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	run(3);
	_exit(0);
}

int hdp_keeper_start(struct hdp_keeper *k, const char *name, void (*run)(int fd))
{
	int fds[2], err;

	k->fd = -1;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	fds[0] = above_stdio(fds[0]);
	fds[1] = above_stdio(fds[1]);
	if (fds[0] < 0 || fds[1] < 0) {
		err = -EMFILE;
		goto fail;
	}
	fflush(NULL);
	k->pid = fork();
	if (k->pid < 0) {
		err = -errno;
		goto fail;
	}
	if (k->pid == 0)
		child(fds, name, run);
	close(fds[0]);
	k->fd = fds[1];
	return 0;
fail:
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return err;
}

#define SEAL "sealed\n"

/*
 * A keeper that cannot be sealed would take whatever comes later: it is
 * stopped instead (what it was to undo stays, said), never left open.
 */
void hdp_keeper_seal(struct hdp_keeper *k)
{
	int status;

	if (k->fd < 0 || write(k->fd, SEAL, sizeof(SEAL) - 1) == (ssize_t)sizeof(SEAL) - 1)
		return;
	hdp_log(HDP_LOG_WARN, "a keeper process could not be sealed (%s): stopped; what it "
		"was to undo at the end will not be undone", strerror(errno));
	kill(k->pid, SIGKILL);
	close(k->fd);
	k->fd = -1;
	while (waitpid(k->pid, &status, 0) < 0 && errno == EINTR)
		;
}

/* Everything before the seal line, if there is one (else all: none came). */
static void cut_at_seal(char *buf)
{
	for (char *line = buf; *line;) {
		char *next = strchr(line, '\n');

		if (strncmp(line, SEAL, sizeof(SEAL) - 1) == 0) {
			*line = '\0';
			return;
		}
		if (!next)
			return;
		line = next + 1;
	}
}

size_t hdp_keeper_read_all(int fd, char *buf, size_t cap)
{
	static char drop[512];
	size_t got = 0;
	ssize_t n;

	for (;;) {
		bool keep = got < cap - 1;

		n = read(fd, keep ? buf + got : drop, keep ? cap - 1 - got : sizeof(drop));
		if (n == 0 || (n < 0 && errno != EINTR))
			break;
		if (n > 0 && keep)
			got += (size_t)n;
	}
	buf[got] = '\0';
	cut_at_seal(buf);
	return strlen(buf);
}

void hdp_keeper_finish(struct hdp_keeper *k)
{
	int status;

	if (k->fd < 0)
		return;
	close(k->fd);
	k->fd = -1;
	while (waitpid(k->pid, &status, 0) < 0 && errno == EINTR)
		;
}
