// SPDX-License-Identifier: BSD-3-Clause
#include <hdp/log.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static hdp_log_fn_t log_fn;
static void *log_ctx;
static _Atomic int log_threshold = HDP_LOG_INFO;
/* A thread that captures its own messages (the control socket's replies). */
static _Thread_local hdp_log_fn_t thread_fn;
static _Thread_local void *thread_ctx;

const char *hdp_log_level_name(enum hdp_log_level level)
{
	switch (level) {
	case HDP_LOG_ERR:   return "error";
	case HDP_LOG_WARN:  return "warning";
	case HDP_LOG_INFO:  return "info";
	case HDP_LOG_DEBUG: return "debug";
	}
	return "?";
}

static void log_to_stderr(enum hdp_log_level level, const char *msg)
{
	char line[1100];
	int n = snprintf(line, sizeof(line), "hdp: %s: %s\n",
			 hdp_log_level_name(level), msg);

	if (n < 0)
		return;
	if ((size_t)n >= sizeof(line))
		n = sizeof(line) - 1;
	/* One write(2) per line, so concurrent processes do not interleave. */
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}

void hdp_log(enum hdp_log_level level, const char *fmt, ...)
{
	char msg[1024];	/* a profile's text and a path fit */
	va_list ap;

	if ((int)level > atomic_load_explicit(&log_threshold, memory_order_relaxed))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);

	if (thread_fn) {
		thread_fn(thread_ctx, level, msg);
		return;
	}
	pthread_mutex_lock(&log_lock);
	if (log_fn)
		log_fn(log_ctx, level, msg);
	else
		log_to_stderr(level, msg);
	pthread_mutex_unlock(&log_lock);
}

void hdp_log_set_sink(hdp_log_fn_t fn, void *ctx)
{
	pthread_mutex_lock(&log_lock);
	log_fn = fn;
	log_ctx = ctx;
	pthread_mutex_unlock(&log_lock);
}

void hdp_log_set_thread_sink(hdp_log_fn_t fn, void *ctx)
{
	thread_fn = fn;
	thread_ctx = ctx;
}

void hdp_log_thread_sink(hdp_log_fn_t *fn, void **ctx)
{
	*fn = thread_fn;
	*ctx = thread_ctx;
}

void hdp_log_set_level(enum hdp_log_level level)
{
	atomic_store_explicit(&log_threshold, (int)level, memory_order_relaxed);
}
