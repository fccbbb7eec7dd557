// SPDX-License-Identifier: BSD-3-Clause
/*
 * Violations: a pool's count of each kind, the one-line report (built
 * without stdio), the rate limit, the abort path, and what a freed
 * handle that is no object of the pool is.
 */
#include "harden_internal.h"
#include "protection_internal.h"

#include <hdp/log.h>
#include <hdp/region.h>

#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *hdp_violation_name(enum hdp_violation_kind kind)
{
	const char *name;

	if ((unsigned)kind < HDP_V__OWN_END)
		return hdp_core_violation_name(kind);
	name = hdp_registry_violation_name((unsigned)kind);
	return name ? name : "unknown";
}

unsigned hdp_violation_kinds(void)
{
	return HDP_V__OWN_END + hdp_registry()->nviolations;
}

/*
 * The report line is built by hand, not by snprintf: the abort path runs
 * where memory may be corrupt and from the MTE fault handler, where only
 * async-signal-safe calls may run. Constant strings and numbers formatted
 * here; writing stops at the end of the buffer, counting goes on.
 */
struct line {
	char *buf;
	size_t len, used;
};

static void put_str(struct line *l, const char *s)
{
	for (; *s; s++, l->used++)
		if (l->used + 1 < l->len)
			l->buf[l->used] = *s;
}

static void put_num(struct line *l, uint64_t v, unsigned base)
{
	char digits[24];
	int n = 0;

	do {
		digits[n++] = "0123456789abcdef"[v % base];
		v /= base;
	} while (v);
	while (n--) {
		if (l->used + 1 < l->len)
			l->buf[l->used] = digits[n];
		l->used++;
	}
}

static size_t build_line(const struct hdp_violation *v, char *buf, size_t len)
{
	struct line l = { buf, len, 0 };

	put_str(&l, "violation: ");
	put_str(&l, hdp_violation_name(v->kind));
	put_str(&l, " in pool '");
	put_str(&l, v->pool ? v->pool : "?");
	if (!v->addr && v->offset == SIZE_MAX) {
		/* An asynchronous hardware fault says when it was noticed, not where. */
		put_str(&l, "': at no known address");
	} else {
		put_str(&l, "': 0x");
		put_num(&l, (uint64_t)(uintptr_t)v->addr, 16);
		if (v->offset == SIZE_MAX) {
			put_str(&l, " outside the region");
		} else {
			put_str(&l, " at offset ");
			put_num(&l, v->offset, 10);
		}
	}
	put_str(&l, ", size ");
	put_num(&l, v->size, 10);
	if (v->detail) {
		put_str(&l, ": ");
		put_str(&l, v->detail);
	}
	if (len)
		buf[l.used < len ? l.used : len - 1] = '\0';
	return l.used;
}

const char *hdp_violation_count_detail(char *buf, size_t len, uint64_t n, const char *unit,
				       const char *rest)
{
	struct line l = { buf, len, 0 };

	put_num(&l, n, 10);
	put_str(&l, " ");
	put_str(&l, unit);
	if (n != 1)
		put_str(&l, "s");
	put_str(&l, rest);
	if (len)
		buf[l.used < len ? l.used : len - 1] = '\0';
	return buf;
}

int hdp_violation_format(const struct hdp_violation *v, char *buf, size_t len)
{
	return (int)build_line(v, buf, len);
}

void hdp_violation_abort(const struct hdp_violation *v)
{
	char line[384];
	size_t n;

	memcpy(line, "hdp: ", 5);
	n = 5 + build_line(v, line + 5, sizeof(line) - 6);
	if (n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* Memory may be corrupt: no stdio, no locks, one write, then die. */
	if (write(STDERR_FILENO, line, n) < 0)
		abort();
	abort();
}

/* A fixed window per second: simple, and exact enough for a log. */
static pthread_mutex_t rate_lock = PTHREAD_MUTEX_INITIALIZER;
static time_t rate_window;
static unsigned rate_used;
static unsigned long rate_suppressed;

static bool report_allowed(unsigned long *suppressed)
{
	struct timespec now;
	bool ok;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &now);
	pthread_mutex_lock(&rate_lock);
	if (now.tv_sec != rate_window) {
		rate_window = now.tv_sec;
		rate_used = 0;
	}
	ok = rate_used < HDP_VIOLATION_REPORTS_PER_SEC;
	if (ok) {
		rate_used++;
		*suppressed = rate_suppressed;
		rate_suppressed = 0;
	} else {
		rate_suppressed++;
	}
	pthread_mutex_unlock(&rate_lock);
	return ok;
}

void hdp_violation_report(enum hdp_policy policy, const struct hdp_violation *v)
{
	unsigned long suppressed;
	char line[384];

	switch (policy) {
	case HDP_POLICY_DROP:
		return;
	case HDP_POLICY_REPORT:
		if (!report_allowed(&suppressed))
			return;
		hdp_violation_format(v, line, sizeof(line));
		if (suppressed)
			hdp_log(HDP_LOG_WARN, "%s (%lu earlier reports suppressed)",
				line, suppressed);
		else
			hdp_log(HDP_LOG_WARN, "%s", line);
		return;
	case HDP_POLICY_ABORT:
	default:
		hdp_violation_abort(v);
	}
}

void hdp_harden_pool_violation(struct hdp_harden_pool *hp, enum hdp_violation_kind kind,
			       const void *addr, size_t size, const char *detail)
{
	uintptr_t off = (uintptr_t)hdp_untag(addr) - hp->layout.base;
	struct hdp_violation v = {
		.kind = kind,
		.pool = hp->name,
		.addr = addr,
		.offset = off < hp->layout.span ? off : SIZE_MAX,
		.size = size,
		.detail = detail,
	};

	atomic_fetch_add_explicit(&hp->violations[kind], 1, memory_order_relaxed);
	hdp_violation_report(hdp_view_policy(hdp_harden_pool_view(hp)), &v);
}

void hdp_protection_violation(const struct hdp_protection_burst *b, unsigned i,
			      const void *addr, size_t size, const char *detail)
{
	hdp_harden_pool_violation(b->pool->hp, (enum hdp_violation_kind)(b->violation_base + i),
				  addr, size, detail);
}

/*
 * Which kind of bad free @obj is: inside the pool's slots (or its gaps)
 * but no object's start, just past its last object or in the rest of its
 * region, or nowhere in it (another region's, named, or none). A pool
 * with no region of its own (a DPDK mempool) tells only inside from not.
 */
void report_invalid_free(struct hdp_harden_pool *hp, const void *obj)
{
	const struct hdp_layout *l = &hp->layout;
	uintptr_t a = (uintptr_t)hdp_untag(obj) + hp->area_off, off = a - l->base;
	enum hdp_violation_kind kind = HDP_V_FREE_FOREIGN;
	const char *detail = NULL;
	struct hdp_region other;
	char why[96];
	uint32_t idx;
	size_t in_slot;

	if (hdp_layout_slot(l, a, &idx, &in_slot)) {
		kind = HDP_V_FREE_INTERIOR;
		if (hdp_layout_is_gap(l, idx))
			detail = "in a guard gap, not an object";
	} else if (hp->region_len && (off < hp->region_len || off == l->span)) {
		kind = HDP_V_FREE_PAST_END;
	} else if (hdp_region_find(obj, &other) == 0) {
		snprintf(why, sizeof(why), "belongs to region '%s'", other.name);
		detail = why;
	}
	hdp_harden_pool_violation(hp, kind, obj, l->obj_size, detail);
}
