// SPDX-License-Identifier: BSD-3-Clause
/*
 * Once the sockets, the UMEM, the programs and the control socket exist,
 * hdp-fwd needs no privilege at all to forward, report and stop: drop every
 * capability, and forbid regaining any through exec.
 */
#include <hdp/fwd.h>
#include <hdp/log.h>

#include <errno.h>
#include <linux/capability.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int hdp_fwd_drop_privileges(void)
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
	if (syscall(SYS_capset, &hdr, data)) {
		hdp_log(HDP_LOG_ERR, "cannot drop capabilities: %s", strerror(errno));
		return -errno;
	}
	return 0;
}
