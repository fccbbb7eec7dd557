/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp-fwd's control socket: a Unix stream socket, mode 0600, one request
 * line per connection, one reply. Requests: "stats", "stats json",
 * "pools", "pools json", "set POOL KEY VALUE", "reload", "help", words
 * separated by one space. Only the forwarder's own user (or root) is served.
 *
 * What it guarantees (docs/SECURITY.md): no client can hold the thread
 * that serves it for longer than the call it is in; each client has
 * HDP_CTL_DEADLINE_MS to send its line and as long to take its reply;
 * at most HDP_CTL_CLIENTS_MAX are served at once and the rest are told
 * "busy"; a request longer than HDP_CTL_REQUEST_MAX bytes is answered
 * with an error, and the connection closes without a reset.
 */
#ifndef HDP_CTL_H
#define HDP_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct hdp_fwd;
struct hdp_ctl;
struct hdp_strbuf;

/*
 * What the socket reports and changes: an engine's forwarder (the AF_XDP
 * one, hdp_ctl_open, or the DPDK one) through @ctx, and the control
 * loop's reload through @reload_ctx. The requests and their strict
 * parsing are the same for every source.
 */
struct hdp_ctl_source {
	/* "stats", "stats json" (@format "json"), "stats prometheus". */
	int (*stats)(void *ctx, const char *format, struct hdp_strbuf *o);
	/* "pools", "pools json". */
	int (*pools)(void *ctx, bool json, struct hdp_strbuf *o);
	/*
	 * "set POOL KEY VALUE": 0, -ENOENT (no such pool: say so in @o) or
	 * another negative errno with the reason logged (the log of this
	 * thread goes into the reply).
	 */
	int (*set)(void *ctx, const char *pool, const char *key, const char *value,
		   struct hdp_strbuf *o);
	void *ctx;
	/*
	 * "reload": read the configuration file again and apply it whole or
	 * not at all, as SIGHUP does: 0, or a negative errno. What it logs
	 * goes to the log as always and into the reply, whose first word
	 * says which ("ok:" or "error:"), so that a service manager's reload
	 * fails when the file is refused. NULL: not offered (said so).
	 */
	int (*reload)(void *reload_ctx);
	void *reload_ctx;
};

#define HDP_CTL_DEFAULT_PATH "/run/hdp-fwd.sock"
#define HDP_CTL_REQUEST_MAX 512
#define HDP_CTL_REQUEST_MAX_TEXT "512"
#define HDP_CTL_DEADLINE_MS 1000
#define HDP_CTL_DEADLINE_TEXT "1 s"
#define HDP_CTL_CLIENTS_MAX 8

/*
 * Listen at @path. Its directory, and every one above it, must be one
 * only root (or this process's user) may write, or errno EPERM: it is
 * reached from "/" without following anything another user may change,
 * and kept open, so the socket is bound, judged and handed over through
 * descriptors, never by looking its name up again. A socket nobody
 * listens on (left by a killed forwarder) is replaced; anything else is
 * refused: errno EADDRINUSE (another process listens there), EEXIST (not
 * a socket), ENOENT (no such directory). NULL + errno, logged.
 */
struct hdp_ctl *hdp_ctl_open(const char *path, struct hdp_fwd *f);

/* The same for any source (copied). */
struct hdp_ctl *hdp_ctl_open_source(const char *path, const struct hdp_ctl_source *src);

/*
 * Give the socket file, or its directory, to @uid and @gid (fchownat on
 * the descriptors hdp_ctl_open kept: no name is followed). 0 or a
 * negative errno.
 */
int hdp_ctl_give_socket(struct hdp_ctl *c, uid_t uid, gid_t gid);
int hdp_ctl_give_dir(struct hdp_ctl *c, uid_t uid, gid_t gid);

/*
 * The same refusals, without binding: for a check before anything is set
 * up, while the socket itself appears only once the forwarder is ready
 * (its existence is what waiting clients look for). 0, or -EADDRINUSE,
 * -EEXIST, -ENAMETOOLONG, -ENOENT or -ENOTDIR (no such directory),
 * -EROFS (a read-only one), -EPERM (a directory on the way that another
 * user may write, named with who), -ELOOP or another negative errno,
 * with the reason in @why (not logged: the caller knows where the path
 * came from). A directory this process may not search (a check run
 * unprivileged) passes: root judges it at start-up.
 */
int hdp_ctl_path_check(const char *path, char *why, size_t len);

/*
 * Wait up to @max_ms for clients and serve whatever is ready: accept,
 * read, answer, send, drop the ones out of time. Returns within @max_ms
 * (plus the time answers take). Returns what poll() returned, or a
 * negative errno.
 */
int hdp_ctl_run(struct hdp_ctl *c, int max_ms);

/*
 * Stop listening, drop the clients, remove the socket file if it is still
 * the one this made (not one another process put there since). NULL is fine.
 */
void hdp_ctl_close(struct hdp_ctl *c);

/*
 * The request in the first @got bytes of @buf (which has room for
 * HDP_CTL_REQUEST_MAX + 1): its first line, NUL-terminated in place.
 */
char *hdp_ctl_request_line(char *buf, size_t got);

/* Answer one request into @reply (used by the server; exposed for tests). */
int hdp_ctl_answer(struct hdp_fwd *f, const char *request, char *reply,
		   size_t len);
int hdp_ctl_answer_source(const struct hdp_ctl_source *src, const char *request,
			  char *reply, size_t len);

/* The AF_XDP forwarder @f as a source. */
struct hdp_ctl_source hdp_ctl_fwd_source(struct hdp_fwd *f);

#endif /* HDP_CTL_H */
