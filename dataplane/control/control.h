/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp-fwd's control loop, one for both engines: afxdp/ forwards on AF_XDP
 * ports, dpdk/ on DPDK ports (the module hdp-fwd-dpdk.so). An engine says
 * how its ports, pool and workers are set up, started, stopped and torn
 * down, what it reports, and what its own duty is between bursts (struct
 * hdp_engine); the control loop does the rest, the same for both, set up
 * in this order and torn down in the reverse one:
 *
 *	the engine's ports, pool and workers	engine->teardown()
 *	the control socket, handed to --user	closed, its file removed
 *	every privilege dropped
 *	the metrics file, written once		closed, its file removed
 *	forwarding, READY=1			STOPPING=1, workers stopped, summary
 *
 * and between, every tick (hdp_control_tick): control requests, SIGHUP,
 * the status line, the metrics file, and the end of the run (SIGINT or
 * SIGTERM, --duration, or the engine's own verdict).
 *
 * hdp-fwd exports these functions to its DPDK module (hdp-fwd.dynlist).
 */
#ifndef HDP_CONTROL_CONTROL_H
#define HDP_CONTROL_CONTROL_H

#include <hdp/ctl.h>
#include <hdp/fwd.h>

/* How long an engine that only ticks (no run()) waits for control requests at most. */
#define HDP_CONTROL_TICK_MS 100

struct hdp_control;
struct hdp_metrics_file;

/* An engine: its calls, in the order the control loop makes them. */
struct hdp_engine {
	/*
	 * Ports, pool and workers made, nothing forwarding yet: 0, or the
	 * exit status (2: the configuration asks for what cannot be; 1:
	 * anything else), said, with nothing of it left behind.
	 */
	int (*setup)(void *e, struct hdp_control *c);
	/* What the control socket and the metrics file report and change. */
	struct hdp_ctl_source (*source)(void *e);
	/* Forwarding starts, every privilege gone: 0, or the exit status (said). */
	int (*start)(void *e);
	/* The lines said once it forwards; the service manager's STATUS= into @status. */
	void (*announce)(void *e, char *status, size_t len);
	/*
	 * Forward on this thread too, calling hdp_control_tick() between
	 * bursts, until it says to stop. NULL: the workers forward, and this
	 * thread only ticks.
	 */
	void (*run)(void *e);
	/* The engine's own duty each tick (NULL: none): 0, or an exit status to stop with. */
	int (*tick)(void *e);
	/* One status line: @uptime seconds since forwarding began, @dt since the last line. */
	void (*status_line)(void *e, double uptime, double dt);
	/*
	 * A configuration read again and checked (@next): what may change
	 * while this engine runs, applied whole and said (hdp's log, after
	 * @cause), into the running configuration. 0, or a negative errno
	 * with nothing changed.
	 */
	int (*apply)(void *e, const struct hdp_fwd_cfg *next, const char *cause);
	/* Forwarding stops: the workers are told and waited for. */
	void (*stop)(void *e);
	/* What it did, on stdout, after the control loop's "--- summary" line. */
	void (*summary)(void *e);
	/* What setup made, undone: @status, or 1 when frames did not come back (said). */
	int (*teardown)(void *e, int status);
};

struct hdp_control {
	/* hdp-fwd's, set before hdp_control_run(): */
	struct hdp_fwd_cfg *cfg;	/* what runs; a reload changes it */
	const char *config_file;	/* for messages; NULL: none */
	bool keep_caps;			/* --keep-capabilities */
	/*
	 * The configuration read again as at start, the same file and
	 * command line with the same checks, into @next and checked against
	 * what runs (@running): 0, or -EINVAL with the refusal said, each
	 * message after @cause ("SIGHUP", "reload").
	 */
	int (*reread)(const char *cause, const struct hdp_fwd_cfg *running,
		      struct hdp_fwd_cfg *next);
	/* The control loop's own: */
	const struct hdp_engine *engine;
	void *e;
	struct hdp_ctl *ctl;			/* NULL: none */
	struct hdp_metrics_file *metrics;	/* NULL: none */
	double start;			/* hdp_now_s() when forwarding began */
	double last_stats, next_stats;
	unsigned interval;		/* stats_interval when next_stats was set */
	int status;			/* the exit status a tick stopped with */
};

/*
 * Run @engine (@e its state) under the control loop, from set-up to
 * teardown: the exit status, 0 after a clean stop with every frame back
 * in its pool, 1 on a runtime failure, 2 for what the configuration
 * asks and cannot be. SIGINT, SIGTERM and SIGHUP are the control loop's
 * from the call on, set-up included.
 */
int hdp_control_run(struct hdp_control *c, const struct hdp_engine *engine, void *e);

/*
 * One pass of the control loop's duties, waiting up to @wait_ms for
 * control requests: true, or false once the run is to end.
 */
bool hdp_control_tick(struct hdp_control *c, int wait_ms);

/* Seconds since forwarding began (since set-up began, before). */
double hdp_control_uptime(const struct hdp_control *c);

/*
 * The control loop's checks before start-up, for start-up and
 * --check-config alike: the control socket's path and directory, the
 * metrics file's path, its directory and, as root, whether the user
 * hdp-fwd becomes may write there (@keep_caps: hdp-fwd keeps its
 * capabilities). Each engine has checks of its own. Creates nothing that
 * outlives it. 0, or -EINVAL with each error logged naming where it was
 * set.
 */
int hdp_control_preflight(const struct hdp_fwd_cfg *cfg, bool keep_caps);

#endif /* HDP_CONTROL_CONTROL_H */
