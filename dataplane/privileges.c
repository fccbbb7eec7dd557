// SPDX-License-Identifier: BSD-3-Clause
/*
 * Once the sockets, the UMEM, the programs and the control socket exist,
 * hdp-fwd needs no privilege at all to forward, report and stop: drop every
 * capability, forbid regaining any through exec, and, when asked, become
 * an unprivileged user so that even the uid owns nothing worth taking.
 */
#include <hdp/fwd.h>
#include <hdp/log.h>

#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
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

int hdp_fwd_drop_privileges(const struct hdp_fwd_cfg *cfg)
{
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		hdp_log(HDP_LOG_ERR, "cannot set no_new_privs: %s", strerror(errno));
		return -errno;
	}
	/* Bounding set first (needs CAP_SETPCAP), then the thread's own sets. */
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno == EINVAL)
			break;
	if (cfg->user[0] && become_user(cfg))
		return -EPERM;
	if (syscall(SYS_capset, &hdr, data)) {
		hdp_log(HDP_LOG_ERR, "cannot drop capabilities: %s", strerror(errno));
		return -errno;
	}
	return 0;
}
