// SPDX-License-Identifier: BSD-3-Clause
/*
 * The control loop's checks before hdp-fwd touches anything: what it will
 * open and make (the control socket, the metrics file) and the right of
 * the user it becomes to do so. Start-up runs them, then the engine's own
 * (afxdp/preflight.c, the DPDK module's hdp_fwd_dpdk_check), then sets
 * up; --check-config runs them all and stops. So a 0 from --check-config
 * means start-up will not refuse the configuration, and what start-up
 * refuses as a configuration error, --check-config refuses the same way,
 * with the same message. Parsing (hdp_fwd_cfg_check) judges the
 * configuration as such; these judge it against the machine. Nothing is
 * created that outlives a check.
 */
#include "control.h"

#include <hdp/metrics_file.h>
#include <hdp/log.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The directory of @path ("." for a bare name), into @dir. */
static void dir_of(const char *path, char *dir, size_t len)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		snprintf(dir, len, ".");
	else
		snprintf(dir, len, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* Who hdp-fwd is once set up, for messages. */
static const char *runner(const struct hdp_fwd_cfg *cfg, char *buf, size_t len)
{
	if (cfg->user[0])
		snprintf(buf, len, "user %s (uid %u)", cfg->user, cfg->uid);
	else
		snprintf(buf, len, "hdp-fwd, without its capabilities once set up,");
	return buf;
}

static int check_ctl(const struct hdp_fwd_cfg *cfg, bool keep_caps)
{
	char why[384], dir[sizeof(cfg->ctl_path)], who[128];
	int ret;

	if (!cfg->ctl_path[0])
		return 0;
	if (hdp_ctl_path_check(cfg->ctl_path, why, sizeof(why)))
		return hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_CTL_SOCKET, "%s", why);
	/*
	 * What the user can do there start-up does not refuse, only says:
	 * root may still use the socket. hdp-fwd hands the service's runtime
	 * directory to the user itself.
	 */
	dir_of(cfg->ctl_path, dir, sizeof(dir));
	if (!cfg->user[0] || keep_caps || hdp_fwd_is_runtime_dir(dir))
		return 0;
	ret = hdp_fwd_access_as_runner(cfg, dir, X_OK);
	if (ret < 0) {
		hdp_log(HDP_LOG_WARN, "control socket %s: %s cannot reach the socket in %s: %s",
			cfg->ctl_path, runner(cfg, who, sizeof(who)), dir, strerror(-ret));
		return 0;
	}
	ret = hdp_fwd_access_as_runner(cfg, dir, W_OK | X_OK);
	if (ret < 0)
		hdp_log(HDP_LOG_WARN, "control socket %s: %s cannot remove it from %s at exit, "
			"where it will be left behind: %s", cfg->ctl_path,
			runner(cfg, who, sizeof(who)), dir, strerror(-ret));
	return 0;
}

/* Written as the user hdp-fwd becomes, at start and every interval. */
static int check_metrics(const struct hdp_fwd_cfg *cfg, bool keep_caps)
{
	char dir[sizeof(cfg->metrics_path)], who[128];
	struct stat st;
	int ret;

	if (!cfg->metrics_path[0])
		return 0;
	dir_of(cfg->metrics_path, dir, sizeof(dir));
	if (stat(dir, &st) && errno == EACCES)
		return 0;	/* a check run unprivileged cannot look: root will */
	if (stat(dir, &st))
		return hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_METRICS_FILE, "its directory %s: %s",
					  dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_METRICS_FILE, "%s is not a directory",
					  dir);
	ret = keep_caps ? 0 : hdp_fwd_access_as_runner(cfg, dir, W_OK | X_OK);
	if (ret < 0)
		return hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_METRICS_FILE, "%s cannot write in %s: %s",
					  runner(cfg, who, sizeof(who)), dir, strerror(-ret));
	return 0;
}

int hdp_control_preflight(const struct hdp_fwd_cfg *cfg, bool keep_caps)
{
	int errors = 0;

	errors += check_ctl(cfg, keep_caps) != 0;
	/* Nothing but hdp-fwd's own metrics there, a directory it may write. */
	errors += hdp_metrics_path_check(cfg) != 0;
	errors += check_metrics(cfg, keep_caps) != 0;
	return errors ? -EINVAL : 0;
}
