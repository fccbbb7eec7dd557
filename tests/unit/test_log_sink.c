// SPDX-License-Identifier: BSD-3-Clause
/*
 * The log's sinks: a thread that captures its own messages (the control
 * socket, for its replies) never catches another thread's, such as a
 * worker's violation report, which goes to the process's sink.
 */
#include <criterion/criterion.h>

#include <hdp/log.h>
#include <hdp/strbuf.h>

#include <pthread.h>
#include <string.h>

#include "support.h"

TestSuite(log_sink, .init = capture_logs);

static void capture(void *ctx, enum hdp_log_level level, const char *msg)
{
	(void)level;
	hdp_strbuf_printf(ctx, "%s\n", msg);
}

static void *worker(void *arg)
{
	(void)arg;
	hdp_log(HDP_LOG_WARN, "violation: from the worker");
	return NULL;
}

Test(log_sink, a_thread_sink_catches_only_its_own_thread)
{
	char buf[256];
	struct hdp_strbuf reply = hdp_strbuf_init(buf, sizeof(buf));
	pthread_t t;

	hdp_log_set_thread_sink(capture, &reply);
	hdp_log(HDP_LOG_ERR, "from the control thread");
	pthread_create(&t, NULL, worker, NULL);
	pthread_join(t, NULL);
	hdp_log_set_thread_sink(NULL, NULL);
	cr_assert_str_eq(buf, "from the control thread\n");
	cr_assert(log_contains("violation: from the worker"), "%s", captured_logs());
	cr_assert(!log_contains("from the control thread"), "%s", captured_logs());
}

Test(log_sink, without_a_thread_sink_the_process_sink_gets_it)
{
	hdp_log(HDP_LOG_ERR, "plain");
	cr_assert(log_contains("plain"));
}
