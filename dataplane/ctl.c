// SPDX-License-Identifier: BSD-3-Clause
/* The control socket: the seed's debugfs bool, per pool and for every key. */
#include <hdp/ctl.h>
#include <hdp/fwd.h>
#include <hdp/log.h>
#include <hdp/strbuf.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

struct hdp_ctl {
	int fd;
	struct hdp_fwd *f;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

struct hdp_ctl *hdp_ctl_open(const char *path, struct hdp_fwd *f)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
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
	c->f = f;
	strcpy(c->path, path);
	strcpy(sa.sun_path, path);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (c->fd < 0)
		goto err;
	unlink(path);
	/* Owner only from the moment it exists, not after a chmod. */
	old = umask(0177);
	err = bind(c->fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (err || chmod(path, 0600) || listen(c->fd, 8))
		goto err;
	return c;
err:
	err = errno;
	hdp_log(HDP_LOG_ERR, "control socket %s: %s", path, strerror(err));
	if (c->fd >= 0)
		close(c->fd);
	free(c);
	errno = err;
	return NULL;
}

int hdp_ctl_fd(const struct hdp_ctl *c)
{
	return c->fd;
}

/* Errors from hdp_pool_set() go to the log: catch them for the reply. */
static void capture_sink(void *ctx, enum hdp_log_level level, const char *msg)
{
	if (level <= HDP_LOG_WARN)
		hdp_strbuf_printf(ctx, "error: %s\n", msg);
}

static int pools_text(struct hdp_pool *pool, void *ctx)
{
	struct hdp_pool_stats st;
	char text[4096];

	hdp_pool_stats_get(pool, &st);
	hdp_pool_stats_text(&st, text, sizeof(text));
	hdp_strbuf_printf(ctx, "%s", text);
	return 0;
}

static int pools_json(struct hdp_pool *pool, void *ctx)
{
	struct hdp_strbuf *o = ctx;
	struct hdp_pool_stats st;
	char json[4096];

	hdp_pool_stats_get(pool, &st);
	hdp_pool_stats_json(&st, json, sizeof(json));
	hdp_strbuf_printf(o, "%s%s", o->used > 1 ? "," : "", json);
	return 0;
}

static int answer(struct hdp_fwd *f, const char *req, struct hdp_strbuf *o)
{
	char pool[64], key[64], value[64], extra;
	struct hdp_pool *p;
	int ret;

	if (strcmp(req, "stats") == 0) {
		o->used = (size_t)hdp_fwd_stats_text(f, o->buf, o->len);
		return 0;
	}
	if (strcmp(req, "stats json") == 0) {
		o->used = (size_t)hdp_fwd_stats_json(f, o->buf, o->len);
		hdp_strbuf_printf(o, "\n");
		return 0;
	}
	if (strcmp(req, "pools") == 0) {
		hdp_pool_foreach(pools_text, o);
		return 0;
	}
	if (strcmp(req, "pools json") == 0) {
		hdp_strbuf_printf(o, "[");
		hdp_pool_foreach(pools_json, o);
		hdp_strbuf_printf(o, "]\n");
		return 0;
	}
	if (sscanf(req, "set %63s %63s %63s %c", pool, key, value, &extra) == 3) {
		p = hdp_pool_find(pool);
		if (!p) {
			hdp_strbuf_printf(o, "error: no pool is called '%s' (try: pools)\n", pool);
			return -ENOENT;
		}
		hdp_log_set_sink(capture_sink, o);
		ret = hdp_pool_set(p, key, value);
		hdp_log_set_sink(NULL, NULL);
		if (ret == 0) {
			hdp_strbuf_printf(o, "ok: pool %s: %s=%s\n", pool, key, value);
			hdp_log(HDP_LOG_INFO, "control: pool %s: %s=%s", pool, key, value);
		} else if (!o->used) {
			hdp_strbuf_printf(o, "error: %s\n", strerror(-ret));
		}
		return ret;
	}
	if (strcmp(req, "help") == 0) {
		hdp_strbuf_printf(o, "stats | stats json | pools | pools json | set POOL KEY VALUE\n");
		return 0;
	}
	hdp_strbuf_printf(o, "error: unknown request '%.64s' (try: help)\n", req);
	return -EINVAL;
}

char *hdp_ctl_request_line(char *buf, size_t got)
{
	if (got > HDP_CTL_REQUEST_MAX)
		got = HDP_CTL_REQUEST_MAX;
	buf[got] = '\0';
	/* A NUL inside the line ends it too: what is answered is what is logged. */
	buf[strcspn(buf, "\r\n")] = '\0';
	return buf;
}

int hdp_ctl_answer(struct hdp_fwd *f, const char *req, char *reply, size_t len)
{
	struct hdp_strbuf o = hdp_strbuf_init(reply, len);
	int ret;

	if (!len)
		return -ENOSPC;
	ret = answer(f, req, &o);
	/* Half a JSON document is worse than none: say what was cut instead. */
	if (o.used >= len) {
		snprintf(reply, len, "error: the reply needs %zu bytes, %zu given\n", o.used + 1,
			 len);
		return -ENOSPC;
	}
	return ret;
}

static bool peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t clen = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen))
		return false;
	return cred.uid == geteuid() || cred.uid == 0;
}

void hdp_ctl_serve(struct hdp_ctl *c)
{
	static char reply[65536];
	char req[HDP_CTL_REQUEST_MAX + 1];
	size_t got = 0;
	int fd = accept4(c->fd, NULL, NULL, SOCK_CLOEXEC);

	if (fd < 0)
		return;
	if (!peer_allowed(fd)) {
		static const char no[] = "error: permission denied\n";

		if (write(fd, no, sizeof(no) - 1) < 0)
			hdp_log(HDP_LOG_DEBUG, "control: refused peer went away");
		close(fd);
		return;
	}
	/* One line, within a second: a silent or half-closed client is dropped. */
	while (got < HDP_CTL_REQUEST_MAX) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, 1000) <= 0)
			break;
		n = read(fd, req + got, HDP_CTL_REQUEST_MAX - got);
		if (n <= 0)
			break;
		got += (size_t)n;
		if (memchr(req, '\n', got))
			break;
	}
	hdp_ctl_request_line(req, got);
	if (got) {
		size_t off = 0, len;

		hdp_ctl_answer(c->f, req, reply, sizeof(reply));
		len = strlen(reply);
		while (off < len) {
			ssize_t n = send(fd, reply + off, len - off, MSG_NOSIGNAL);

			if (n <= 0)
				break;
			off += (size_t)n;
		}
	}
	close(fd);
}

void hdp_ctl_close(struct hdp_ctl *c)
{
	if (!c)
		return;
	close(c->fd);
	/* After --user, removal needs that user's write access to the directory. */
	if (unlink(c->path) && errno != ENOENT)
		hdp_log(HDP_LOG_WARN, "control socket %s left behind: %s (with --user, put it "
			"in a directory that user may write)", c->path, strerror(errno));
	free(c);
}
