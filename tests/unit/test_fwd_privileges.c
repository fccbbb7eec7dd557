// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp_fwd_drop_privileges on a process with threads made before it (as
 * EAL's are in DPDK mode): every thread ends with no capability, no
 * bounding set and no_new_privs, as root and as another user (without
 * CAP_SETPCAP the bounding set stays, and that is no refusal); a thread
 * that cannot be reached (it blocks the signal) is an error naming it,
 * not a forwarder left half privileged. Needs root (capabilities to drop).
 */
#include <criterion/criterion.h>

#include <hdp/fwd.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static sem_t ready;
static _Atomic pid_t last_tid;

/* A thread that says it is running, then waits; its mask is its creator's. */
static void *idle(void *arg)
{
	(void)arg;
	last_tid = gettid();
	sem_post(&ready);
	for (;;)
		pause();
	return NULL;
}

/*
 * Every thread of the process: how many hold a capability, lack
 * no_new_privs, or (if @bounding) keep a bounding set.
 */
static unsigned privileged_threads(unsigned *threads, bool bounding)
{
	DIR *dir = opendir("/proc/self/task");
	struct dirent *e;
	unsigned bad = 0;

	*threads = 0;
	if (!dir)
		return 1000;
	while ((e = readdir(dir))) {
		char path[300], line[128];
		unsigned long long eff = 1, prm = 1, bnd = 1, nnp = 0;
		FILE *fp;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		fp = fopen(path, "r");
		if (!fp)
			continue;
		while (fgets(line, sizeof(line), fp)) {
			sscanf(line, "CapEff:\t%llx", &eff);
			sscanf(line, "CapPrm:\t%llx", &prm);
			sscanf(line, "CapBnd:\t%llx", &bnd);
			sscanf(line, "NoNewPrivs:\t%llu", &nnp);
		}
		fclose(fp);
		bad += eff || prm || (bounding && bnd) || nnp != 1;
		(*threads)++;
	}
	closedir(dir);
	return bad;
}

/*
 * In a child of its own: a fork copies only the calling thread, so the
 * child has none of the test runner's (which may block any signal), only
 * the @n it makes, running before the drop, with SIGRTMIN blocked if
 * @blocking. Its exit status: what hdp_fwd_drop_privileges returned
 * (negated) when it refused and named the last thread made, or 100 + the
 * threads left privileged.
 */
static int drop_with_threads(unsigned n, bool blocking, const char *user, bool setpcap)
{
	struct hdp_fwd_cfg cfg;
	int status, ret;
	unsigned threads;
	sigset_t s;
	pid_t pid;
	pthread_t t;

	if (geteuid() != 0)
		cr_skip_test("needs root: capabilities to drop");
	fflush(NULL);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (pid == 0) {
		if (!setpcap) {
			/* As under a unit that grants only what setting up needs. */
			struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
			struct __user_cap_data_struct data[2];

			if (syscall(SYS_capget, &hdr, data))
				_exit(93);
			data[0].effective &= ~(1u << CAP_SETPCAP);
			data[0].permitted &= ~(1u << CAP_SETPCAP);
			if (syscall(SYS_capset, &hdr, data))
				_exit(93);
		}
		sem_init(&ready, 0, 0);
		sigemptyset(&s);
		sigaddset(&s, SIGRTMIN);
		pthread_sigmask(blocking ? SIG_BLOCK : SIG_UNBLOCK, &s, NULL);
		for (unsigned i = 0; i < n; i++)
			if (pthread_create(&t, NULL, idle, NULL) || sem_wait(&ready))
				_exit(99);
		pthread_sigmask(SIG_UNBLOCK, &s, NULL);
		hdp_fwd_cfg_defaults(&cfg);
		if (user) {
			snprintf(cfg.user, sizeof(cfg.user), "%s", user);
			cfg.uid = cfg.gid = 65534;
		}
		/* What it says goes to a file: a refusal must name the thread that is to blame. */
		FILE *log = tmpfile();

		if (!log || dup2(fileno(log), 2) < 0)
			_exit(95);
		ret = hdp_fwd_drop_privileges(&cfg);
		if (ret) {
			char text[4096], blamed[32], self[32];
			size_t len;

			rewind(log);
			len = fread(text, 1, sizeof(text) - 1, log);
			text[len] = '\0';
			/* The one that blocks the signal, not this thread. */
			snprintf(blamed, sizeof(blamed), "thread %d (", (int)last_tid);
			snprintf(self, sizeof(self), "thread %d (", (int)gettid());
			_exit(strstr(text, blamed) && !strstr(text, self) ? -ret : 94);
		}
		ret = (int)privileged_threads(&threads, setpcap);
		if (user && (getuid() != 65534 || getgid() != 65534))
			_exit(97);
		_exit(threads == n + 1 ? 100 + ret : 98);
	}
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

Test(fwd_privileges, every_thread_made_before_the_drop_drops_too)
{
	cr_assert_eq(drop_with_threads(3, false, NULL, true), 100,
		     "all four threads: no capability, no bounding set, no_new_privs");
}

Test(fwd_privileges, and_as_another_user)
{
	cr_assert_eq(drop_with_threads(3, false, "nobody", true), 100,
		     "all four threads, uid and gid 65534: nothing privileged");
}

Test(fwd_privileges, a_thread_that_cannot_be_reached_is_an_error)
{
	cr_assert_eq(drop_with_threads(1, true, NULL, true), EPERM,
		     "a thread blocking the signal keeps its capabilities: refused");
}

Test(fwd_privileges, without_cap_setpcap_the_bounding_set_stays_and_the_rest_goes)
{
	cr_assert_eq(drop_with_threads(2, false, NULL, false), 100,
		     "no capability and no_new_privs on every thread; the bounding set, "
		     "which takes CAP_SETPCAP to empty, is no reason to refuse");
}
