// SPDX-License-Identifier: BSD-3-Clause
/*
 * Capabilities, the bounding set and no_new_privs belong to a thread, not
 * to the process: capset(2) and prctl(2) change the caller's only. In
 * DPDK mode EAL's threads (its interrupt thread, the worker lcores) exist
 * before hdp-fwd drops its privileges, and kept every capability. So each
 * other thread is made to run the same step itself, in a signal handler
 * (as glibc does for setuid), and then every thread, this one too, is
 * read back from /proc: one that still holds anything is an error, named.
 */
#include "privileges_internal.h"

#include <hdp/log.h>

#include <dirent.h>
#include <errno.h>
#include <linux/capability.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * The round a signal belongs to travels with it (its si_value): a late one
 * from an earlier round, or one after the last, is ignored, never counted.
 * The handler stays installed once set: a signal still pending at the end
 * must not find the default action (which ends the process).
 */
static void (*volatile step)(void);
static _Atomic int round_now;
static atomic_uint done;

static void on_signal(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	(void)sig;
	(void)uc;
	if (si->si_code == SI_QUEUE && si->si_pid == getpid() &&
	    si->si_value.sival_int == atomic_load(&round_now) && step) {
		step();
		atomic_fetch_add(&done, 1);
	}
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

/* Calls @fn for each thread of the process (this one only if @self); how many. */
static int each_thread(bool self, void (*fn)(pid_t tid, void *ctx), void *ctx)
{
	pid_t me = (pid_t)syscall(SYS_gettid);
	DIR *dir = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!dir)
		return -errno;
	while ((e = readdir(dir))) {
		pid_t tid = (pid_t)atoi(e->d_name);

		if (tid > 0 && (self || tid != me)) {
			fn(tid, ctx);
			n++;
		}
	}
	closedir(dir);
	return n;
}

static void signal_one(pid_t tid, void *ctx)
{
	siginfo_t si;
	int *sent = ctx;

	memset(&si, 0, sizeof(si));
	si.si_signo = SIGRTMIN;
	si.si_code = SI_QUEUE;
	si.si_pid = getpid();
	si.si_uid = getuid();
	si.si_value.sival_int = atomic_load(&round_now);
	if (syscall(SYS_rt_tgsigqueueinfo, getpid(), tid, SIGRTMIN, &si) == 0)
		(*sent)++;
}

int hdp_priv_on_other_threads(void (*fn)(void))
{
	static bool installed;
	struct timespec tick = { 0, 1000000 };
	int sent = 0, ret;

	if (!installed) {
		struct sigaction sa = { .sa_sigaction = on_signal,
					.sa_flags = SA_SIGINFO | SA_RESTART };

		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGRTMIN, &sa, NULL))
			return -errno;
		installed = true;
	}
	step = fn;
	atomic_store(&done, 0);
	atomic_fetch_add(&round_now, 1);
	ret = each_thread(false, signal_one, &sent);
	if (ret < 0) {
		hdp_log(HDP_LOG_ERR, "cannot list the process's threads (/proc/self/task) to "
			"drop their privileges: %s", strerror(-ret));
		return ret;
	}
	/* Two seconds at most: a thread that blocks the signal never answers. */
	for (int i = 0; i < 2000 && atomic_load(&done) < (unsigned)sent; i++)
		nanosleep(&tick, NULL);
	ret = atomic_load(&done) < (unsigned)sent ? -ETIMEDOUT : 0;
	atomic_fetch_add(&round_now, 1);	/* what comes later is ignored */
	return ret;
}

/* The value of "\nKey:\t..." in a /proc status file, in @base, or ~0 if missing. */
static unsigned long long status_field(const char *status, const char *key, int base)
{
	const char *p = strstr(status, key);

	return p ? strtoull(p + strlen(key), NULL, base) : ~0ull;
}

static bool unprivileged(const char *status)
{
	static const char *const sets[] = { "\nCapInh:\t", "\nCapPrm:\t", "\nCapEff:\t",
					    "\nCapBnd:\t", "\nCapAmb:\t" };

	for (unsigned i = 0; i < sizeof(sets) / sizeof(sets[0]); i++)
		if (status_field(status, sets[i], 16))
			return false;
	return status_field(status, "\nNoNewPrivs:\t", 10) == 1;
}

static void check_one(pid_t tid, void *ctx)
{
	char path[64], status[4096], comm[32] = "?";
	int *bad = ctx;
	FILE *fp;
	size_t n;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	fp = fopen(path, "r");
	if (!fp) {
		if (errno == ENOENT || errno == ESRCH)
			return;	/* gone since */
		hdp_log(HDP_LOG_ERR, "thread %d: cannot read what it holds: %s", (int)tid,
			strerror(errno));
		(*bad)++;
		return;
	}
	n = fread(status, 1, sizeof(status) - 1, fp);
	fclose(fp);
	status[n] = '\0';
	sscanf(status, "Name:\t%31[^\n]", comm);
	if (!unprivileged(status)) {
		hdp_log(HDP_LOG_ERR, "thread %d (%s) still holds privileges after they were "
			"dropped%s", (int)tid, comm,
			status_field(status, "\nCapEff:\t", 16) == 0 &&
			status_field(status, "\nCapBnd:\t", 16)
			? " (its bounding set: dropping it takes CAP_SETPCAP)" : "");
		(*bad)++;
	}
}

int hdp_priv_all_threads_dropped(void)
{
	int bad = 0, n = each_thread(true, check_one, &bad);

	if (n < 0) {
		hdp_log(HDP_LOG_ERR, "cannot list the process's threads (/proc/self/task) to read "
			"back their privileges: %s", strerror(-n));
		return n;
	}
	return bad ? -EPERM : 0;
}
