// SPDX-License-Identifier: BSD-3-Clause
/*
 * The control socket's requests and their answers: "stats", "pools"
 * (each optionally "json"), "stats prometheus", "set POOL KEY VALUE",
 * "reload", "help". Words are
 * separated by exactly one space; anything else is refused, so that what
 * is answered is exactly what was asked. What is answered is the
 * source's: an engine's forwarder (afxdp/answers.c, dpdk/answers.c), and
 * the control loop's reload.
 */
#include <hdp/ctl.h>
#include <hdp/log.h>
#include <hdp/strbuf.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#define WORDS_MAX 4

/* Errors from hdp_pool_set() go to the log: this thread's go to the reply. */
static void capture_sink(void *ctx, enum hdp_log_level level, const char *msg)
{
	if (level <= HDP_LOG_WARN)
		hdp_strbuf_printf(ctx, "error: %s\n", msg);
}

/* Split @req in place at single spaces; -1 for an empty word or too many. */
static int split_words(char *req, char **words)
{
	int n = 0;

	for (char *w = req;; w++) {
		char *space = strchr(w, ' ');

		if (n == WORDS_MAX || space == w || !*w)
			return -1;
		words[n++] = w;
		if (!space)
			return n;
		*space = '\0';
		w = space;
	}
}

static int set_key(const struct hdp_ctl_source *src, const char *pool, const char *key,
		   const char *value, struct hdp_strbuf *o)
{
	int ret;

	hdp_log_set_thread_sink(capture_sink, o);
	ret = src->set(src->ctx, pool, key, value, o);
	hdp_log_set_thread_sink(NULL, NULL);
	if (ret == 0) {
		hdp_strbuf_printf(o, "ok: pool %s: %s=%s\n", pool, key, value);
		hdp_log(HDP_LOG_INFO, "control: pool %s: %s=%s", pool, key, value);
	} else if (!o->used) {
		hdp_strbuf_printf(o, "error: %s\n", strerror(-ret));
	}
	return ret;
}

/*
 * A reload's messages: into the reply, each after its level, and unlike
 * set's to the log as well, where a SIGHUP's go: the journal keeps what
 * was refused however the reload was asked for.
 */
static void reload_sink(void *ctx, enum hdp_log_level level, const char *msg)
{
	hdp_strbuf_printf(ctx, "%s: %s\n", hdp_log_level_name(level), msg);
	hdp_log_set_thread_sink(NULL, NULL);
	hdp_log(level, "%s", msg);
	hdp_log_set_thread_sink(reload_sink, ctx);
}

/*
 * "reload": the reply's first word is the verdict (hdp-ctl's exit status
 * reads it), the messages follow in the order they were logged.
 */
static int reload_config(const struct hdp_ctl_source *src, struct hdp_strbuf *o)
{
	char said[16384];
	struct hdp_strbuf log = hdp_strbuf_init(said, sizeof(said));
	int ret;

	if (!src->reload) {
		hdp_strbuf_printf(o, "error: this forwarder does not reload over its control "
				  "socket (send it SIGHUP)\n");
		return -EOPNOTSUPP;
	}
	hdp_log_set_thread_sink(reload_sink, &log);
	ret = src->reload(src->reload_ctx);
	hdp_log_set_thread_sink(NULL, NULL);
	hdp_strbuf_printf(o, ret ? "error: reload refused, nothing changed\n" : "ok: reloaded\n");
	if (log.used < sizeof(said)) {
		hdp_strbuf_printf(o, "%s", said);
	} else {
		/* Whole lines only, then where the rest is. */
		char *cut = strrchr(said, '\n');

		hdp_strbuf_printf(o, "%.*s(more in the log)\n", cut ? (int)(cut - said + 1) : 0,
				  said);
	}
	return ret;
}

static int answer(const struct hdp_ctl_source *src, const char *request, struct hdp_strbuf *o)
{
	char req[HDP_CTL_REQUEST_MAX + 1], *w[WORDS_MAX];
	int n;

	snprintf(req, sizeof(req), "%s", request);
	n = split_words(req, w);
	if (n == 1 && strcmp(w[0], "stats") == 0)
		return src->stats(src->ctx, NULL, o);
	if (n == 2 && strcmp(w[0], "stats") == 0 &&
	    (strcmp(w[1], "json") == 0 || strcmp(w[1], "prometheus") == 0))
		return src->stats(src->ctx, w[1], o);
	if (n == 1 && strcmp(w[0], "pools") == 0)
		return src->pools(src->ctx, false, o);
	if (n == 2 && strcmp(w[0], "pools") == 0 && strcmp(w[1], "json") == 0)
		return src->pools(src->ctx, true, o);
	if (n == 4 && strcmp(w[0], "set") == 0)
		return set_key(src, w[1], w[2], w[3], o);
	if (n == 1 && strcmp(w[0], "reload") == 0)
		return reload_config(src, o);
	if (n == 1 && strcmp(w[0], "help") == 0) {
		hdp_strbuf_printf(o, "stats | stats json | stats prometheus | pools | pools json | "
				  "set POOL KEY VALUE | reload\n");
		return 0;
	}
	hdp_strbuf_printf(o, "error: unknown request '%.64s' (try: help)\n", request);
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

int hdp_ctl_answer_source(const struct hdp_ctl_source *src, const char *req, char *reply,
			  size_t len)
{
	struct hdp_strbuf o = hdp_strbuf_init(reply, len);
	int ret;

	if (!len)
		return -ENOSPC;
	ret = answer(src, req, &o);
	/* Half a JSON document is worse than none: say what was cut instead. */
	if (o.used >= len) {
		snprintf(reply, len, "error: the reply needs %zu bytes, %zu given\n", o.used + 1,
			 len);
		return -ENOSPC;
	}
	return ret;
}
