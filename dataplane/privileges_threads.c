// SPDX-License-Identifier: BSD-3-Clause
/*
 * Capabilities, the bounding set and no_new_privs belong to a thread, not
 * to the process: capset(2) and prctl(2) change the caller's only. In
 * DPDK mode EAL's threads (its interrupt thread, the worker lcores) exist
 * before hdp-fwd drops its privileges, and kept every capability. So each
 * other thread is made to run the same step itself, in a signal handler
 * (as glibc does for setuid), and then every thread is read back from
 * /proc: one that still holds a capability is an error, not a warning.
 */
#include "privileges_internal.h"

#include <hdp/log.h>

#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static void (*volatile step)(void);
static atomic_uint done;

static void on_signal(int sig)
{
	int saved = errno;

	(void)sig;
	step();
	atomic_fetch_add(&done, 1);
	errno = saved;
}

/* Each step a thread takes for itself: system calls only (a signal handler). */
void hdp_priv_no_new_privs_and_bounding(void)
{
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno == EINVAL)
			break;
}

void hdp_priv_no_capabilities(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2] = { { 0 } };

	syscall(SYS_capset, &hdr, data);
}

/* Calls @fn for each thread of the process but this one; how many there were. */
static int each_other_thread(void (*fn)(pid_t tid, void *ctx), void *ctx)
{
	pid_t self = (pid_t)syscall(SYS_gettid);
	DIR *dir = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid > 0 && tid != self) {
			fn(tid, ctx);
			n++;
		}
	}
	closedir(dir);
	return n;
}

static void signal_one(pid_t tid, void *ctx)
{
	int *sent = ctx;

	if (syscall(SYS_tgkill, getpid(), tid, SIGRTMIN) == 0)
		(*sent)++;
}

int hdp_priv_on_other_threads(void (*fn)(void))
{
	struct sigaction sa = { .sa_handler = on_signal, .sa_flags = SA_RESTART }, old;
	struct timespec tick = { 0, 1000000 };
	int sent = 0, ret;

	step = fn;
	atomic_store(&done, 0);
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGRTMIN, &sa, &old))
		return -errno;
	ret = each_other_thread(signal_one, &sent);
	/* Two seconds at most: a thread that blocks the signal is found below. */
	for (int i = 0; ret >= 0 && i < 2000 && atomic_load(&done) < (unsigned)sent; i++)
		nanosleep(&tick, NULL);
	sigaction(SIGRTMIN, &old, NULL);
	return ret < 0 ? ret : 0;
}

/* The value of "\nKey:\t..." in a /proc status file, in @base, or ~0 if missing. */
static unsigned long long status_field(const char *status, const char *key, int base)
{
	const char *p = strstr(status, key);

	return p ? strtoull(p + strlen(key), NULL, base) : ~0ull;
}

static void check_one(pid_t tid, void *ctx)
{
	char path[64], status[4096], comm[32] = "?";
	int *bad = ctx;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	fp = fopen(path, "r");
	if (!fp)
		return;	/* gone since */
	n = fread(status, 1, sizeof(status) - 1, fp);
	fclose(fp);
	status[n] = '\0';
	sscanf(status, "Name:\t%31s", comm);
	if (status_field(status, "\nCapPrm:\t", 16) || status_field(status, "\nCapEff:\t", 16) ||
	    status_field(status, "\nCapBnd:\t", 16) ||
	    status_field(status, "\nNoNewPrivs:\t", 10) != 1) {
		hdp_log(HDP_LOG_ERR, "thread %d (%s) still holds privileges after they were "
			"dropped", (int)tid, comm);
		(*bad)++;
	}
}

int hdp_priv_all_threads_dropped(void)
{
	int bad = 0, n = each_other_thread(check_one, &bad);

	if (n < 0)
		return 0;	/* no /proc: nothing to read back (one thread, as far as anyone knows) */
	return bad ? -EPERM : 0;
}
