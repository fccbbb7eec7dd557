// SPDX-License-Identifier: BSD-3-Clause
/*
 * The workers' nice value (worker_nice). A worker often shares its core
 * with the kernel thread that receives its packets (threaded NAPI; veth's
 * always, a NIC's when threaded). At equal priority the scheduler halves
 * the core between them, and under overload the receive thread does its
 * whole work (skb, XDP, the copy into the UMEM) for packets the worker
 * has no time to take, which the socket then drops: measured on veth,
 * a quarter of the core went to packets dropped that way. A worker ahead
 * of that thread takes what it was given first; the receive thread runs
 * when the worker sleeps, and what the core cannot carry is dropped
 * before any work is spent on it, in the device's ring.
 *
 * Linux keeps the nice value per thread, and a new thread starts with its
 * creator's: the main thread takes the workers' value for as long as it
 * makes them, and gives it back after, which needs no privilege.
 */
#include <hdp/fwd.h>
#include <hdp/log.h>

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>

static int nice_of_this_thread(void)
{
	errno = 0;
	return getpriority(PRIO_PROCESS, 0);	/* 0: the calling thread, on Linux */
}

/*
 * A worker_nice the thread cannot take: refused when the file set it;
 * the default is said once (@say: at the check start-up runs first).
 */
static int cannot(const struct hdp_fwd_cfg *cfg, int current, int err, bool say)
{
	if (cfg->origin[HDP_FWD_KEY_WORKER_NICE].source) {
		hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_WORKER_NICE,
				   "the workers cannot run at it: %s (below the current %d it "
				   "needs CAP_SYS_NICE, or RLIMIT_NICE of %d or more; "
				   "worker_nice = %d keeps the current)", strerror(err), current,
				   20 - cfg->worker_nice, current);
		return -EPERM;
	}
	if (say)
		hdp_log(HDP_LOG_WARN, "the workers run at nice %d, not worker_nice's default %d: "
			"%s (it needs CAP_SYS_NICE); under overload the kernel's receive work on "
			"their core then takes CPU for packets they will drop "
			"(docs/OPERATIONS.md)", current, cfg->worker_nice, strerror(err));
	return 0;
}

int hdp_fwd_priority_check(const struct hdp_fwd_cfg *cfg)
{
	int current = nice_of_this_thread();

	if (errno || current <= cfg->worker_nice)
		return 0;	/* a later place needs no privilege */
	/* Tried, then given back: a nice value raised again needs nothing. */
	if (setpriority(PRIO_PROCESS, 0, cfg->worker_nice))
		return cannot(cfg, current, errno, true);
	(void)setpriority(PRIO_PROCESS, 0, current);
	return 0;
}

int hdp_fwd_priority_for_workers(const struct hdp_fwd_cfg *cfg, int *saved)
{
	*saved = nice_of_this_thread();
	if (errno)
		*saved = 0;
	if (*saved == cfg->worker_nice || !setpriority(PRIO_PROCESS, 0, cfg->worker_nice))
		return 0;
	return cannot(cfg, *saved, errno, false);
}

void hdp_fwd_priority_restore(int saved)
{
	/* Raising a nice value needs nothing; lowering it back may not be allowed. */
	if (saved > nice_of_this_thread())
		(void)setpriority(PRIO_PROCESS, 0, saved);
}
