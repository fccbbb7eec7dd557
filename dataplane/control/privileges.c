// SPDX-License-Identifier: BSD-3-Clause
/*
 * Once the sockets, the UMEM, the programs and the control socket exist,
 * hdp-fwd needs no privilege at all to forward, report and stop: drop every
 * capability, forbid regaining any through exec, and, when asked, become
 * an unprivileged user so that even the uid owns nothing worth taking.
 * Before that, what that user will need is handed over (the control
 * socket); and the checks before start-up ask, as that user, whether it
 * will be able to do what it must (write the metrics file).
 */
#include "privileges_internal.h"

#include <hdp/ctl.h>
#include <hdp/fwd.h>
#include <hdp/log.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Groups, then gid, then uid: once the uid is gone, nothing else can change. */
static int become_user(const struct hdp_fwd_cfg *cfg)
{
	gid_t gid = (gid_t)cfg->gid;

	if (setgroups(1, &gid) || setresgid(gid, gid, gid) ||
	    setresuid((uid_t)cfg->uid, (uid_t)cfg->uid, (uid_t)cfg->uid)) {
		hdp_log(HDP_LOG_ERR, "cannot become user %s (uid %u, gid %u): %s", cfg->user,
			cfg->uid, cfg->gid, strerror(errno));
		return -errno;
	}
	return 0;
}

/* Does this thread hold CAP_SETPCAP (it can empty the bounding set)? */
static bool can_drop_bounding(void)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	return syscall(SYS_capget, &hdr, data) == 0 && (data[0].effective >> CAP_SETPCAP & 1);
}

/*
 * On every thread (privileges_threads.c: EAL's exist already in DPDK
 * mode): no_new_privs and the bounding set first (that needs
 * CAP_SETPCAP), then the user (glibc changes every thread's), then the
 * threads' own sets; each stage read back from /proc.
 */
int hdp_fwd_drop_privileges(const struct hdp_fwd_cfg *cfg)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	bool bounding = can_drop_bounding();
	int ret;

	memset(data, 0, sizeof(data));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		hdp_log(HDP_LOG_ERR, "cannot set no_new_privs: %s", strerror(errno));
		return -errno;
	}
	if (!bounding)
		hdp_log(HDP_LOG_WARN, "without CAP_SETPCAP the bounding set stays; no_new_privs "
			"keeps any exec from using it");
	hdp_priv_no_new_privs_and_bounding();
	ret = hdp_priv_on_other_threads(hdp_priv_no_new_privs_and_bounding);
	if (ret || (ret = hdp_priv_all_threads_dropped(HDP_PRIV_BOUNDING, bounding)))
		return ret;
	if (cfg->user[0] && become_user(cfg))
		return -EPERM;
	if (syscall(SYS_capset, &hdr, data)) {
		hdp_log(HDP_LOG_ERR, "cannot drop capabilities: %s", strerror(errno));
		return -errno;
	}
	ret = hdp_priv_on_other_threads(hdp_priv_no_capabilities);
	return ret ? ret : hdp_priv_all_threads_dropped(HDP_PRIV_ALL, bounding);
}

bool hdp_fwd_is_runtime_dir(const char *dir)
{
	const char *list = getenv("RUNTIME_DIRECTORY");	/* systemd: "A:B:..." */
	size_t n = strlen(dir);

	while (list && *list) {
		const char *end = strchrnul(list, ':');

		if ((size_t)(end - list) == n && strncmp(list, dir, n) == 0)
			return true;
		list = *end ? end + 1 : end;
	}
	return false;
}

/*
 * Under the shipped unit the socket's directory is the runtime directory
 * systemd made (root's, 0700 under UMask=0077): the user would be denied
 * the socket, and could not remove it at exit. That directory is the
 * service's alone, and systemd removes it at stop, so it goes to the user
 * too. Any other directory stays as it is: chowning a directory the
 * service does not own would give the user more than its socket. Both
 * through the descriptors hdp_ctl_open() kept: no name is looked up again.
 */
int hdp_fwd_ctl_hand_over(const struct hdp_fwd_cfg *cfg, struct hdp_ctl *ctl)
{
	char dir[sizeof(cfg->ctl_path)];
	const char *slash = strrchr(cfg->ctl_path, '/');
	int ret;

	if (!cfg->user[0])
		return 0;
	ret = hdp_ctl_give_socket(ctl, (uid_t)cfg->uid, (gid_t)cfg->gid);
	if (ret) {
		hdp_log(HDP_LOG_ERR, "control socket %s: cannot hand it to user %s: %s",
			cfg->ctl_path, cfg->user, strerror(-ret));
		return ret;
	}
	if (!slash || slash == cfg->ctl_path)
		return 0;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - cfg->ctl_path), cfg->ctl_path);
	if (!hdp_fwd_is_runtime_dir(dir))
		return 0;
	ret = hdp_ctl_give_dir(ctl, (uid_t)cfg->uid, (gid_t)cfg->gid);
	if (ret)
		hdp_log(HDP_LOG_ERR, "runtime directory %s: cannot hand it to user %s: %s", dir,
			cfg->user, strerror(-ret));
	return ret;
}

/*
 * A child drops what hdp-fwd will drop and asks the kernel: every rule
 * (owner, group, mode, ACLs, a read-only mount) applies as it will once
 * hdp-fwd runs.
 */
int hdp_fwd_access_as_runner(const struct hdp_fwd_cfg *cfg, const char *path, int mode)
{
	int status;
	pid_t pid;

	if (geteuid() != 0)
		return 1;	/* cannot become anyone else to find out */
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		int err = 0;

		if (hdp_fwd_drop_privileges(cfg))
			_exit(255);
		if (faccessat(AT_FDCWD, path, mode, AT_EACCESS))
			err = errno > 0 && errno < 255 ? errno : EACCES;	/* an exit status */
		_exit(err);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return 1;
	return -WEXITSTATUS(status);
}
