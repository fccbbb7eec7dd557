/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp-fwd's control socket: a Unix stream socket, mode 0600, one request
 * line per connection, one reply. Requests: "stats", "stats json",
 * "pools", "pools json", "set POOL KEY VALUE", "help". Only the
 * forwarder's own user (or root) is served.
 */
#ifndef HDP_CTL_H
#define HDP_CTL_H

#include <stddef.h>

struct hdp_fwd;
struct hdp_ctl;

#define HDP_CTL_DEFAULT_PATH "/run/hdp-fwd.sock"
#define HDP_CTL_REQUEST_MAX 512

/* Listen at @path (a stale socket there is replaced). NULL + errno. */
struct hdp_ctl *hdp_ctl_open(const char *path, struct hdp_fwd *f);
int hdp_ctl_fd(const struct hdp_ctl *c);

/* Serve one pending connection; never blocks longer than a second. */
void hdp_ctl_serve(struct hdp_ctl *c);

/* Stop listening and remove the socket file. NULL is fine. */
void hdp_ctl_close(struct hdp_ctl *c);

/*
 * The request in the first @got bytes of @buf (which has room for
 * HDP_CTL_REQUEST_MAX + 1): its first line, NUL-terminated in place.
 */
char *hdp_ctl_request_line(char *buf, size_t got);

/* Answer one request into @reply (used by the server; exposed for tests). */
int hdp_ctl_answer(struct hdp_fwd *f, const char *request, char *reply,
		   size_t len);

#endif /* HDP_CTL_H */
