// SPDX-License-Identifier: BSD-3-Clause
/*
 * The control socket's answers on AF_XDP ports (hdp/ctl.h): the
 * forwarder's stats as text, JSON or Prometheus text, hdp's own pools,
 * and "set" on any of them.
 */
#include <hdp/ctl.h>
#include <hdp/fwd.h>
#include <hdp/strbuf.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

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

/* The forwarder's stats, appended to what @o holds (the metrics file puts its own lines first). */
static int fwd_stats(void *ctx, const char *format, struct hdp_strbuf *o)
{
	size_t room = o->used < o->len ? o->len - o->used : 0;
	char *at = room ? o->buf + o->used : NULL;
	struct hdp_fwd *f = ctx;
	int n;

	if (!format)
		n = hdp_fwd_stats_text(f, at, room);
	else if (strcmp(format, "json") == 0)
		n = hdp_fwd_stats_json(f, at, room);
	else
		n = hdp_fwd_stats_prometheus(f, at, room);
	if (n < 0)
		return n;
	o->used += (size_t)n;
	if (format && strcmp(format, "json") == 0)
		hdp_strbuf_printf(o, "\n");
	return 0;
}

static int fwd_pools(void *ctx, bool json, struct hdp_strbuf *o)
{
	(void)ctx;
	if (!json) {
		hdp_pool_foreach(pools_text, o);
		return 0;
	}
	hdp_strbuf_printf(o, "[");
	hdp_pool_foreach(pools_json, o);
	hdp_strbuf_printf(o, "]\n");
	return 0;
}

static int fwd_set(void *ctx, const char *pool, const char *key, const char *value,
		   struct hdp_strbuf *o)
{
	struct hdp_pool *p = hdp_pool_find(pool);

	(void)ctx;
	if (!p) {
		hdp_strbuf_printf(o, "error: no pool is called '%.31s' (try: pools)\n", pool);
		return -ENOENT;
	}
	return hdp_pool_set(p, key, value);
}

struct hdp_ctl_source hdp_ctl_fwd_source(struct hdp_fwd *f)
{
	return (struct hdp_ctl_source){ .stats = fwd_stats, .pools = fwd_pools, .set = fwd_set,
					.ctx = f };
}

struct hdp_ctl *hdp_ctl_open(const char *path, struct hdp_fwd *f)
{
	struct hdp_ctl_source src = hdp_ctl_fwd_source(f);

	return hdp_ctl_open_source(path, &src);
}

int hdp_ctl_answer(struct hdp_fwd *f, const char *req, char *reply, size_t len)
{
	struct hdp_ctl_source src = hdp_ctl_fwd_source(f);

	return hdp_ctl_answer_source(&src, req, reply, len);
}
