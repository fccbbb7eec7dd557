/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp-fwd's metrics file (metrics_file = PATH): the Prometheus exposition
 * of a control source (the AF_XDP forwarder's or the DPDK one's), for
 * node_exporter's textfile collector. Its rules (docs/SECURITY.md):
 *
 * - PATH is taken only if nothing is there or hdp-fwd's own metrics are:
 *   a regular file of the user hdp-fwd writes as, with one link, empty or
 *   starting with HDP_METRICS_MARKER. Anything else is refused before
 *   anything is set up, and at every write.
 * - Each write goes to a file created afresh beside PATH (O_EXCL, a random
 *   name, never one that existed), checked to be a regular file of this
 *   process's own, given metrics_mode whatever the umask, and renamed over
 *   PATH. Nothing another user puts beside PATH is opened for writing, so
 *   nothing there can block the caller or be published.
 * - While writes fail, only the new copy goes: the one written last stays
 *   at PATH until a complete one replaces it (its
 *   hdp_metrics_file_timestamp_seconds tells its age). A failure is said
 *   once with its reason until a write works or fails for another reason
 *   (step or errno); the recovery is said once. At exit the file written
 *   last goes, and only it.
 *
 * Every call is made from one thread (hdp-fwd's control loop).
 */
#ifndef HDP_METRICS_FILE_H
#define HDP_METRICS_FILE_H

struct hdp_ctl_source;
struct hdp_fwd_cfg;
struct hdp_metrics_file;

/* The first line of every metrics file hdp-fwd writes: how it knows its own. */
#define HDP_METRICS_MARKER "# hdp-fwd metrics file"

/*
 * May hdp-fwd take @cfg's metrics_file, as the user it will write as?
 * Before anything is set up. 0 (also without a metrics_file), -EEXIST
 * (something else is there: logged with the path and what it is) or
 * another negative errno (logged).
 */
int hdp_metrics_path_check(const struct hdp_fwd_cfg *cfg);

/*
 * Ready to write @src's Prometheus stats to @cfg's metrics_file every
 * stats_interval (every second when it is 0) in metrics_mode; nothing
 * written yet. Temporary files an earlier hdp-fwd left beside it are
 * removed; anything else there is said once and left alone. Call as the
 * user hdp-fwd runs as. NULL + errno.
 */
struct hdp_metrics_file *hdp_metrics_file_open(const struct hdp_fwd_cfg *cfg,
					       const struct hdp_ctl_source *src);

/* Write now: 0 or a negative errno (said as above; the last copy stays). */
int hdp_metrics_file_write(struct hdp_metrics_file *m);

/* Write if the interval is over. NULL is fine. */
void hdp_metrics_file_tick(struct hdp_metrics_file *m);

/*
 * After a reload: @cfg's stats_interval and metrics_mode from now on, and
 * a write at the next tick, so that the file shows what was changed at
 * once and a shorter interval takes effect at once. NULL is fine.
 */
void hdp_metrics_file_reconfigure(struct hdp_metrics_file *m, const struct hdp_fwd_cfg *cfg);

/* Remove the file if it is still the one written last, and free @m. NULL is fine. */
void hdp_metrics_file_close(struct hdp_metrics_file *m);

#endif /* HDP_METRICS_FILE_H */
