// SPDX-License-Identifier: BSD-3-Clause
/*
 * The control socket: the seed's debugfs bool, per pool and for every key.
 *
 * Served from one thread without ever waiting on a client: every socket
 * is non-blocking, up to HDP_CTL_CLIENTS_MAX clients are served side by
 * side, each has HDP_CTL_DEADLINE_MS to send its request line and as long
 * again to take its reply, and hdp_ctl_run() returns within the time it
 * was given. A client over the cap gets "error: busy" at once.
 */
#include <hdp/ctl.h>
#include <hdp/log.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "paths/dir_walk.h"
#include "paths/path_own.h"

#define REPLY_MAX 65536
#define DRAIN_MAX 65536		/* bytes read past a request before giving up */

enum client_state {
	CLIENT_FREE = 0,
	CLIENT_READING,		/* waiting for the request line */
	CLIENT_WRITING,		/* sending the reply */
	CLIENT_DRAINING,	/* reply sent: reading to EOF, so close() resets nothing */
};

struct client {
	enum client_state state;
	int fd;
	int64_t deadline;	/* CLOCK_MONOTONIC, ms */
	size_t got;
	char req[HDP_CTL_REQUEST_MAX + 1];
	char *reply;
	size_t reply_len, sent, drained;
};

struct hdp_ctl {
	int fd;
	int dir;			/* the socket's directory, as the walk reached it */
	int node;			/* the socket file (O_PATH): handed over through it */
	struct hdp_ctl_source src;
	struct hdp_path_own own;	/* the socket file we made: remove only that */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	const char *name;		/* its last component, in path */
	struct client clients[HDP_CTL_CLIENTS_MAX];
};

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * The socket's directory, reached by a walk that follows nothing another
 * user may change (dir_walk.h): every directory from "/" down to it must
 * be root's (or hdp-fwd's own user's) and writable by no one else, or the
 * user who may write one could put a link in the socket's place between
 * bind and chown, or anything else there.
 */
static int open_dir(const char *path, char *why, size_t len)
{
	struct hdp_walk w;
	int fd = hdp_dir_walk_parent(path, HDP_WALK_TRUSTED, &w);

	if (fd == -EPERM)
		snprintf(why, len, "%s: a user other than root could put something else in the "
			 "socket's place; its directory and every one above it must be writable "
			 "by root alone (the service's RuntimeDirectory is)", w.why);
	else if (fd == -ELOOP || fd == -ENAMETOOLONG)
		snprintf(why, len, "its directory's path: %s", w.why);
	else if (fd < 0)
		snprintf(why, len, "its directory %s", w.why);
	return fd;
}

/*
 * @name in directory @dir, as a socket address: through the descriptor,
 * so that no directory is looked up again. When that does not fit, the
 * path itself: the walk proved that only root may change any directory
 * on it, so it names the same place.
 */
static void address_of(struct sockaddr_un *sa, int dir, const char *name, const char *path)
{
	*sa = (struct sockaddr_un){ .sun_family = AF_UNIX };
	if ((size_t)snprintf(sa->sun_path, sizeof(sa->sun_path), "/proc/self/fd/%d/%s", dir,
			     name) >= sizeof(sa->sun_path))
		snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", path);
}

/*
 * What is at @path's name in its directory @dir: nothing, or a socket
 * nobody listens on (0); anything else is refused with why.
 */
static int judge_place(int dir, const char *path, char *why, size_t len)
{
	const char *name = hdp_path_base(path);
	struct sockaddr_un sa;
	struct statvfs vfs;
	struct stat st;
	int fd, err;

	/* Read-only to anyone, root too (ProtectSystem=strict outside the runtime directory). */
	if (fstatvfs(dir, &vfs) == 0 && (vfs.f_flag & ST_RDONLY)) {
		snprintf(why, len, "its directory %.*s is on a read-only file system",
			 name == path ? 1 : name - 1 == path ? 1 : (int)(name - path - 1),
			 name == path ? "." : path);
		return -EROFS;
	}
	/* Nothing there; or a check run unprivileged cannot look: root will. */
	if (fstatat(dir, name, &st, AT_SYMLINK_NOFOLLOW)) {
		err = errno;
		if (err == ENOENT || err == EACCES)
			return 0;
		snprintf(why, len, "cannot tell what is there: %s", strerror(err));
		return -err;
	}
	if (!S_ISSOCK(st.st_mode)) {
		snprintf(why, len, "%s is there, not a socket; refusing to replace it "
			 "(give another --ctl)", hdp_path_kind(&st));
		return -EEXIST;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = errno;
		snprintf(why, len, "cannot tell whether it is in use: %s", strerror(err));
		return -err;
	}
	address_of(&sa, dir, name, path);
	err = connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) ? errno : 0;
	close(fd);
	if (err == 0) {
		snprintf(why, len, "another process listens there (another hdp-fwd?); give "
			 "this one another --ctl");
		return -EADDRINUSE;
	}
	if (err != ECONNREFUSED) {
		snprintf(why, len, "cannot tell whether it is in use: %s", strerror(err));
		return -err;
	}
	return 0;
}

int hdp_ctl_path_check(const char *path, char *why, size_t len)
{
	int dir, ret;

	if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
		snprintf(why, len, "path too long (a Unix socket's holds %zu characters)",
			 sizeof(((struct sockaddr_un *)0)->sun_path) - 1);
		return -ENAMETOOLONG;
	}
	dir = open_dir(path, why, len);
	if (dir == -EACCES)
		return 0;	/* a check run unprivileged cannot look: root will */
	if (dir < 0)
		return dir;
	ret = judge_place(dir, path, why, len);
	close(dir);
	return ret;
}

/*
 * Make the name ours to bind: nothing there, or a socket nobody listens
 * on (a forwarder that was killed), which goes. Anything else stays.
 */
static int claim_path(struct hdp_ctl *c)
{
	char why[HDP_WALK_WHY_MAX + 256];
	int ret = judge_place(c->dir, c->path, why, sizeof(why));

	if (ret) {
		hdp_log(HDP_LOG_ERR, "control socket %s: %s", c->path, why);
		return ret;
	}
	if (unlinkat(c->dir, c->name, 0) && errno != ENOENT)
		return -errno;
	return 0;
}

/*
 * The socket file bind made, held by a descriptor from now on: its
 * owner, mode and identity are judged and changed through it. Its mode
 * came from the umask; a default ACL on the directory can widen it, and
 * then it is narrowed through the descriptor (the peer's uid is checked
 * on every connection all the same).
 */
static int hold_node(struct hdp_ctl *c)
{
	char self[64];
	struct stat st;

	c->node = openat(c->dir, c->name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (c->node < 0 || fstat(c->node, &st))
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -EEXIST;
	hdp_path_own_set(&c->own, &st);
	if ((st.st_mode & 07777) == 0600)
		return 0;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", c->node);
	return chmod(self, 0600) ? -errno : 0;
}

struct hdp_ctl *hdp_ctl_open_source(const char *path, const struct hdp_ctl_source *src)
{
	char why[HDP_WALK_WHY_MAX + 256];
	struct sockaddr_un sa;
	struct hdp_ctl *c;
	mode_t old;
	int err;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		hdp_log(HDP_LOG_ERR, "control socket %s: path too long", path);
		errno = ENAMETOOLONG;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->src = *src;
	c->fd = c->node = -1;
	strcpy(c->path, path);
	c->name = hdp_path_base(c->path);
	c->dir = open_dir(path, why, sizeof(why));
	if (c->dir < 0) {
		hdp_log(HDP_LOG_ERR, "control socket %s: %s", path, why);
		err = -c->dir;
		free(c);
		errno = err;
		return NULL;
	}
	err = claim_path(c);
	if (err) {
		errno = -err;
		goto fail;
	}
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0)
		goto err;
	address_of(&sa, c->dir, c->name, c->path);
	/* Owner only from the moment it exists, not after a chmod. */
	old = umask(0177);
	err = bind(c->fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (err)
		goto err;
	err = hold_node(c);
	if (err) {
		errno = -err;
		goto err;
	}
	if (listen(c->fd, 16))
		goto err;
	return c;
err:
	hdp_log(HDP_LOG_ERR, "control socket %s: %s", path, strerror(errno));
fail:
	err = errno;
	if (c->node >= 0)
		close(c->node);
	if (c->fd >= 0)
		close(c->fd);
	close(c->dir);
	free(c);
	errno = err;
	return NULL;
}

int hdp_ctl_give_socket(struct hdp_ctl *c, uid_t uid, gid_t gid)
{
	return fchownat(c->node, "", uid, gid, AT_EMPTY_PATH) ? -errno : 0;
}

int hdp_ctl_give_dir(struct hdp_ctl *c, uid_t uid, gid_t gid)
{
	return fchownat(c->dir, "", uid, gid, AT_EMPTY_PATH) ? -errno : 0;
}

static bool peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen))
		return false;
	return cred.uid == geteuid() || cred.uid == 0;
}

static void client_close(struct client *cl)
{
	close(cl->fd);
	free(cl->reply);
	*cl = (struct client){ .state = CLIENT_FREE, .fd = -1 };
}

/*
 * A one-line answer to a client we will not serve: best effort, then gone.
 * What it already sent is read first, so that closing does not reset the
 * connection before it reads the answer.
 */
static void refuse(int fd, const char *why)
{
	char sink[1024];

	if (send(fd, why, strlen(why), MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		hdp_log(HDP_LOG_DEBUG, "control: refused client went away");
	shutdown(fd, SHUT_WR);
	while (read(fd, sink, sizeof(sink)) > 0)
		;
	close(fd);
}

static void accept_clients(struct hdp_ctl *c, int64_t now)
{
	for (;;) {
		int fd = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		struct client *slot = NULL;

		if (fd < 0)
			return;
		if (!peer_allowed(fd)) {
			refuse(fd, "error: permission denied\n");
			continue;
		}
		for (unsigned i = 0; i < HDP_CTL_CLIENTS_MAX && !slot; i++)
			if (c->clients[i].state == CLIENT_FREE)
				slot = &c->clients[i];
		if (!slot) {
			refuse(fd, "error: busy: too many control clients at once, try again\n");
			continue;
		}
		*slot = (struct client){ .state = CLIENT_READING, .fd = fd,
					 .deadline = now + HDP_CTL_DEADLINE_MS };
	}
}

/* The request is complete (or cannot be): answer it, start sending. */
static void client_answer(struct hdp_ctl *c, struct client *cl, const char *error,
			  int64_t now)
{
	static char reply[REPLY_MAX];

	if (error)
		snprintf(reply, sizeof(reply), "%s", error);
	else
		hdp_ctl_answer_source(&c->src, hdp_ctl_request_line(cl->req, cl->got), reply,
				      sizeof(reply));
	cl->reply_len = strlen(reply);
	cl->reply = malloc(cl->reply_len ? cl->reply_len : 1);
	if (!cl->reply) {
		client_close(cl);
		return;
	}
	memcpy(cl->reply, reply, cl->reply_len);
	cl->state = CLIENT_WRITING;
	cl->deadline = now + HDP_CTL_DEADLINE_MS;
}

static void client_read(struct hdp_ctl *c, struct client *cl, int64_t now)
{
	ssize_t n = read(cl->fd, cl->req + cl->got, HDP_CTL_REQUEST_MAX - cl->got);

	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			client_close(cl);
		return;
	}
	if (n == 0 && cl->got == 0) {
		client_close(cl);	/* connected, said nothing, left */
		return;
	}
	cl->got += (size_t)n;
	if (memchr(cl->req, '\n', cl->got) || n == 0)
		client_answer(c, cl, NULL, now);
	else if (cl->got == HDP_CTL_REQUEST_MAX)
		client_answer(c, cl, "error: request longer than "
			      HDP_CTL_REQUEST_MAX_TEXT " bytes without a newline\n", now);
}

static void client_write(struct client *cl)
{
	ssize_t n = send(cl->fd, cl->reply + cl->sent, cl->reply_len - cl->sent,
			 MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n < 0) {
		if (errno != EAGAIN && errno != EINTR)
			client_close(cl);
		return;
	}
	cl->sent += (size_t)n;
	if (cl->sent == cl->reply_len) {
		shutdown(cl->fd, SHUT_WR);
		cl->state = CLIENT_DRAINING;
	}
}

static void client_drain(struct client *cl)
{
	char sink[4096];
	ssize_t n = read(cl->fd, sink, sizeof(sink));

	if (n > 0)
		cl->drained += (size_t)n;
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR) ||
	    cl->drained > DRAIN_MAX)
		client_close(cl);
}

static short events_of(const struct client *cl)
{
	return cl->state == CLIENT_WRITING ? POLLOUT : POLLIN;
}

/* A client out of time: a late answer if it is still waiting for one. */
static void client_expire(struct hdp_ctl *c, struct client *cl, int64_t now)
{
	if (cl->state == CLIENT_READING && cl->got == 0) {
		client_close(cl);
		return;
	}
	if (cl->state == CLIENT_READING) {
		client_answer(c, cl, "error: no complete request line within "
			      HDP_CTL_DEADLINE_TEXT "\n", now);
		if (cl->state == CLIENT_WRITING)
			client_write(cl);
	}
	client_close(cl);
}

int hdp_ctl_run(struct hdp_ctl *c, int max_ms)
{
	struct pollfd fds[HDP_CTL_CLIENTS_MAX + 1];
	struct client *who[HDP_CTL_CLIENTS_MAX + 1];
	int64_t now = now_ms(), until = now + max_ms;
	unsigned n = 0;
	int ready;

	fds[n] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
	who[n++] = NULL;
	for (unsigned i = 0; i < HDP_CTL_CLIENTS_MAX; i++) {
		struct client *cl = &c->clients[i];

		if (cl->state == CLIENT_FREE)
			continue;
		if (cl->deadline < until)
			until = cl->deadline;
		fds[n] = (struct pollfd){ .fd = cl->fd, .events = events_of(cl) };
		who[n++] = cl;
	}
	ready = poll(fds, n, until > now ? (int)(until - now) : 0);
	if (ready < 0)
		return errno == EINTR ? 0 : -errno;
	now = now_ms();
	for (unsigned i = 1; i < n; i++) {
		struct client *cl = who[i];

		if (fds[i].revents & (POLLIN | POLLOUT | POLLHUP | POLLERR)) {
			if (cl->state == CLIENT_READING)
				client_read(c, cl, now);
			else if (cl->state == CLIENT_WRITING)
				client_write(cl);
			else if (cl->state == CLIENT_DRAINING)
				client_drain(cl);
		}
		if (cl->state != CLIENT_FREE && now >= cl->deadline)
			client_expire(c, cl, now);
	}
	if (fds[0].revents & POLLIN)
		accept_clients(c, now);
	return ready;
}

void hdp_ctl_close(struct hdp_ctl *c)
{
	int err;

	if (!c)
		return;
	for (unsigned i = 0; i < HDP_CTL_CLIENTS_MAX; i++)
		if (c->clients[i].state != CLIENT_FREE)
			client_close(&c->clients[i]);
	close(c->fd);
	/*
	 * Only the socket we made: another may have taken the path since. One
	 * we cannot even look at (a directory the user hdp-fwd became may not
	 * search) is left behind as surely as one we cannot unlink: say so.
	 */
	err = hdp_path_own_remove(c->dir, c->name, &c->own);
	if (err && err != -ESTALE)
		hdp_log(HDP_LOG_WARN, "control socket %s left behind: %s (with --user, only the "
			"service's RuntimeDirectory, which hdp-fwd hands to that user, lets it "
			"remove the socket; the next start replaces it)", c->path,
			strerror(-err));
	close(c->node);
	close(c->dir);
	free(c);
}
