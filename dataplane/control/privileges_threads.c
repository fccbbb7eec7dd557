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
 * (si_pid is the sender's word only; a forged signal can at most end a
 * wait early, and the read-back has the last word.) The handler stays
 * installed once set: a signal still pending at the end must not find
 * the default action (which ends the process).
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
	/* One that never answered (it blocks the signal, or it exited): the read-back says. */
	atomic_fetch_add(&round_now, 1);	/* what comes later is ignored */
	return 0;
}

struct readback {
	enum hdp_priv_stage stage;
	bool bounding;		/* the bounding set can go (CAP_SETPCAP) */
	int bad;
};

/* What a thread's status says it still holds after @rb's stage, or NULL. */
static const char *still_held(FILE *fp, const struct readback *rb, char *comm, size_t len)
{
	unsigned long long prm = ~0ull, eff = ~0ull, inh = ~0ull, amb = ~0ull, bnd = ~0ull;
	unsigned long long nnp = 0;
	char line[256];

	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "Name:\t%31[^\n]", comm) == 1)
			comm[len - 1] = '\0';
		sscanf(line, "CapInh:\t%llx", &inh);
		sscanf(line, "CapPrm:\t%llx", &prm);
		sscanf(line, "CapEff:\t%llx", &eff);
		sscanf(line, "CapBnd:\t%llx", &bnd);
		sscanf(line, "CapAmb:\t%llx", &amb);
		sscanf(line, "NoNewPrivs:\t%llu", &nnp);
	}
	if (nnp != 1)
		return "no_new_privs is not set";
	if (rb->bounding && bnd)
		return "its bounding set is not empty";
	if (rb->stage == HDP_PRIV_ALL && (prm || eff || inh || amb))
		return "it holds capabilities";
	return NULL;
}

static void check_one(pid_t tid, void *ctx)
{
	struct readback *rb = ctx;
	char path[64], comm[32] = "?";
	const char *held;
	FILE *fp;

	snprintf(path, sizeof(path), "/proc/self/task/%d/status", (int)tid);
	fp = fopen(path, "r");
	if (!fp) {
		if (errno == ENOENT || errno == ESRCH)
			return;	/* gone since */
		hdp_log(HDP_LOG_ERR, "thread %d: cannot read what it holds: %s", (int)tid,
			strerror(errno));
		rb->bad++;
		return;
	}
	held = still_held(fp, rb, comm, sizeof(comm));
	fclose(fp);
	if (held) {
		hdp_log(HDP_LOG_ERR, "thread %d (%s) did not drop its privileges: %s", (int)tid,
			comm, held);
		rb->bad++;
	}
}

int hdp_priv_all_threads_dropped(enum hdp_priv_stage stage, bool bounding)
{
	struct readback rb = { .stage = stage, .bounding = bounding };
	int n = each_thread(true, check_one, &rb);

	if (n < 0) {
		hdp_log(HDP_LOG_ERR, "cannot list the process's threads (/proc/self/task) to read "
			"back their privileges: %s", strerror(-n));
		return n;
	}
	return rb.bad ? -EPERM : 0;
}
