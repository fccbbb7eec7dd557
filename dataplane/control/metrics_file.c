// SPDX-License-Identifier: BSD-3-Clause
/*
 * The metrics file (hdp/metrics_file.h): which file at its path is
 * hdp-fwd's own, how each copy is made and published, and what happens
 * while that fails: the last good copy stays, and each new reason for
 * failing is said once.
 *
 * The threat is a user who may write the textfile directory (on Debian it
 * belongs to "prometheus"), or a typo in metrics_file. The first may put
 * anything beside the path and must neither stall the control loop (a
 * FIFO opened for writing blocks until a reader comes) nor get hdp-fwd to
 * write or publish a file of theirs (which they could then rewrite); the
 * second must not cost the file it names.
 */
#include <hdp/ctl.h>
#include <hdp/fwd.h>
#include <hdp/log.h>
#include <hdp/metrics_file.h>
#include <hdp/strbuf.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "paths/dir_walk.h"
#include "paths/path_own.h"
#include "clock.h"
#include "prom_text.h"

#define TEXT_MAX (1 << 18)
#define TMP_TRIES 8		/* fresh names tried before giving up on a write */
#define STRANGERS_SAID_MAX 4	/* foreign files beside the path named one by one */
#define WHY_MAX 384

/*
 * The step of a write that failed. With its errno, it tells one failure
 * from another: a temporary file's random name or a byte count in the
 * words would make every failure look new.
 */
enum write_step {
	STEP_NONE,
	STEP_RENDER,	/* the text itself */
	STEP_CREATE,	/* the temporary file beside the path */
	STEP_MODE,
	STEP_WRITE,	/* writing or closing it */
	STEP_TARGET,	/* something else at the path now */
	STEP_RENAME,
};

struct write_failure {
	enum write_step step;
	int err;		/* negative errno */
	char why[WHY_MAX];
};

struct hdp_metrics_file {
	struct hdp_ctl_source src;
	int dir;			/* the path's directory (dir_walk.h) */
	char path[HDP_FWD_METRICS_PATH_MAX];
	const char *base;		/* its last component, in path */
	unsigned mode;
	unsigned interval;		/* seconds between writes */
	double next;			/* CLOCK_MONOTONIC seconds of the next write */
	struct hdp_path_own own;	/* the file renamed into place last */
	struct write_failure said;	/* the failure said last; STEP_NONE: writes work */
	uint64_t failures;		/* writes that failed since start */
	char text[TEXT_MAX];
};

static unsigned interval_of(const struct hdp_fwd_cfg *cfg)
{
	return cfg->stats_interval ? cfg->stats_interval : 1;
}

/*
 * Is @name in @dir, whose fstatat is @st, hdp-fwd's own metrics as @owner
 * writes them? If not, what it is goes into @what. Nothing here can
 * block: only a regular file is opened, with O_NONBLOCK in case a FIFO
 * took its place since the fstatat (then the fstat tells).
 */
static bool is_own_metrics(int dir, const char *name, const struct stat *st, uid_t owner,
			   char *what, size_t len)
{
	static const char marker[] = HDP_METRICS_MARKER;
	char head[sizeof(marker)];
	struct stat fst;
	ssize_t n = -1;
	int fd;

	if (!S_ISREG(st->st_mode)) {
		snprintf(what, len, "%s", hdp_path_kind(st));
		return false;
	}
	if (st->st_uid != owner) {
		snprintf(what, len, "a file of uid %u (hdp-fwd writes as uid %u)",
			 (unsigned)st->st_uid, (unsigned)owner);
		return false;
	}
	if (st->st_nlink != 1) {
		snprintf(what, len, "a file with %lu links", (unsigned long)st->st_nlink);
		return false;
	}
	if (st->st_size == 0)
		return true;
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(what, len, "a file hdp-fwd cannot read (%s)", strerror(errno));
		return false;
	}
	if (fstat(fd, &fst) == 0 && fst.st_dev == st->st_dev && fst.st_ino == st->st_ino)
		n = read(fd, head, sizeof(head) - 1);
	close(fd);
	if (n < 0) {
		snprintf(what, len, "a file that changed while hdp-fwd read it");
		return false;
	}
	if ((size_t)n < sizeof(marker) - 1 || memcmp(head, marker, sizeof(marker) - 1)) {
		snprintf(what, len, "a regular file that hdp-fwd did not write (its first line "
			 "is not \"%s...\")", marker);
		return false;
	}
	return true;
}

/*
 * The directory of @path, reached without following a link that anyone
 * but root or hdp-fwd's user could have put on the way (dir_walk.h): the
 * directory itself may be others' (a textfile collector's), but nobody
 * else chooses which directory it is. A descriptor, or a negative errno
 * with why in @w.
 */
static int open_dir(const char *path, struct hdp_walk *w)
{
	int fd = hdp_dir_walk_parent(path, HDP_WALK_OWN_LINKS, w);

	if (fd == -EPERM)
		snprintf(w->why + strlen(w->why), sizeof(w->why) - strlen(w->why), ": hdp-fwd "
			 "follows no link another user may change on the way to its metrics file");
	return fd;
}

int hdp_metrics_path_check(const struct hdp_fwd_cfg *cfg)
{
	uid_t owner = cfg->user[0] ? (uid_t)cfg->uid : geteuid();
	const char *path = cfg->metrics_path;
	struct hdp_walk w;
	char what[160];
	struct stat st;
	int dir, err;

	if (!path[0])
		return 0;
	dir = open_dir(path, &w);
	/* No such directory is said where the directory is judged (preflight). */
	if (dir == -ENOENT || dir == -ENOTDIR || (dir == -EACCES && geteuid() != 0))
		return 0;
	if (dir < 0) {
		hdp_log(HDP_LOG_ERR, "metrics file %s: %s", path, w.why);
		return dir;
	}
	err = fstatat(dir, hdp_path_base(path), &st, AT_SYMLINK_NOFOLLOW) ? errno : 0;
	/* Nothing there; or a check run unprivileged cannot look: start-up (root) will. */
	if (err == ENOENT || (err == EACCES && geteuid() != 0) ||
	    (!err && is_own_metrics(dir, hdp_path_base(path), &st, owner, what, sizeof(what)))) {
		close(dir);
		return 0;
	}
	close(dir);
	if (err) {
		hdp_log(HDP_LOG_ERR, "metrics file %s: %s", path, strerror(err));
		return -err;
	}
	hdp_log(HDP_LOG_ERR, "metrics file %s: %s is there; refusing to replace it: hdp-fwd "
		"replaces only metrics it wrote (give another metrics_file, or remove it)",
		path, what);
	return -EEXIST;
}

/*
 * Temporary files beside the path (PATH.tmp.*, and PATH.tmp, the one name
 * hdp-fwd used before): an earlier hdp-fwd killed while writing left its
 * own, which go. Anyone else's are named once and left alone: no write
 * ever opens a name that exists, so they can do nothing.
 */
static void sweep_beside(const struct hdp_metrics_file *m)
{
	char full[HDP_FWD_METRICS_PATH_MAX + 256], what[160];
	const char *base = m->base;
	size_t blen = strlen(base);
	unsigned strangers = 0;
	struct dirent *e;
	struct stat st;
	int fd = openat(m->dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return;		/* the first write says why */
	}
	while ((e = readdir(d))) {
		const char *rest = e->d_name + blen;

		if (strncmp(e->d_name, base, blen) || strncmp(rest, ".tmp", 4) ||
		    (rest[4] && rest[4] != '.'))
			continue;
		snprintf(full, sizeof(full), "%.*s%s", (int)(base - m->path), m->path, e->d_name);
		if (fstatat(m->dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue;
		if (is_own_metrics(m->dir, e->d_name, &st, geteuid(), what, sizeof(what))) {
			if (unlinkat(m->dir, e->d_name, 0) == 0)
				hdp_log(HDP_LOG_INFO, "metrics file %s: removed %s, left by an "
					"earlier hdp-fwd", m->path, full);
		} else if (strangers++ < STRANGERS_SAID_MAX) {
			hdp_log(HDP_LOG_WARN, "metrics file %s: %s beside it is %s, not hdp-fwd's: "
				"left alone, and never written (each write makes a new file)",
				m->path, full, what);
		}
	}
	closedir(d);
	if (strangers > STRANGERS_SAID_MAX)
		hdp_log(HDP_LOG_WARN, "metrics file %s: and %u more such files beside it",
			m->path, strangers - STRANGERS_SAID_MAX);
}

struct hdp_metrics_file *hdp_metrics_file_open(const struct hdp_fwd_cfg *cfg,
					       const struct hdp_ctl_source *src)
{
	struct hdp_metrics_file *m;
	struct hdp_walk w;
	int err;

	if (cfg->metrics_path[0] != '/') {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->src = *src;
	snprintf(m->path, sizeof(m->path), "%s", cfg->metrics_path);
	m->base = hdp_path_base(m->path);
	m->dir = open_dir(m->path, &w);
	if (m->dir < 0) {
		err = -m->dir;
		hdp_log(HDP_LOG_ERR, "metrics file %s: %s", m->path, w.why);
		free(m);
		errno = err;
		return NULL;
	}
	m->mode = cfg->metrics_mode;
	m->interval = interval_of(cfg);
	sweep_beside(m);
	return m;
}

/* The exposition: the marker, the file's own freshness, then the source's. */
static int render(struct hdp_metrics_file *m, size_t *len, char *why)
{
	struct hdp_strbuf o = hdp_strbuf_init(m->text, sizeof(m->text));
	struct timespec wall;
	int ret;

	clock_gettime(CLOCK_REALTIME, &wall);
	hdp_strbuf_printf(&o, "%s: written by hdp-fwd (pid %ld) every %u s; removed when it stops "
			  "or cannot write it\n", HDP_METRICS_MARKER, (long)getpid(), m->interval);
	hdp_prom_family(&o, "hdp_metrics_file_timestamp_seconds", "gauge",
			"When hdp-fwd wrote this file (Unix time): a file older than a few "
			"intervals is stale.");
	hdp_strbuf_printf(&o, "hdp_metrics_file_timestamp_seconds %lld.%03ld\n",
			  (long long)wall.tv_sec, wall.tv_nsec / 1000000);
	hdp_prom_family(&o, "hdp_metrics_file_interval_seconds", "gauge",
			"How often hdp-fwd writes this file.");
	hdp_strbuf_printf(&o, "hdp_metrics_file_interval_seconds %u\n", m->interval);
	hdp_prom_family(&o, "hdp_metrics_file_write_failures_total", "counter",
			"Writes of this file that failed since hdp-fwd started.");
	hdp_strbuf_printf(&o, "hdp_metrics_file_write_failures_total %llu\n",
			  (unsigned long long)m->failures);
	ret = m->src.stats(m->src.ctx, "prometheus", &o);
	if (ret) {
		snprintf(why, WHY_MAX, "no stats to write: %s", strerror(-ret));
		return ret;
	}
	if (o.used >= sizeof(m->text)) {
		snprintf(why, WHY_MAX, "the metrics need %zu bytes, more than the %d hdp-fwd keeps",
			 o.used + 1, TEXT_MAX);
		return -E2BIG;
	}
	*len = o.used;
	return 0;
}

/*
 * A file nobody else has seen: a random name beside the path, in its
 * directory's descriptor, created by this call (O_EXCL; O_NOFOLLOW and
 * O_NONBLOCK so that nothing found there is ever followed or waited on),
 * then checked to be what was asked for. Its name goes into @tmp.
 */
static int create_fresh(const struct hdp_metrics_file *m, char *tmp, size_t tmp_len,
			struct stat *st, char *why)
{
	int fd = -1;

	for (int i = 0; i < TMP_TRIES && fd < 0; i++) {
		uint32_t r;

		/* Early in boot without entropy: unpredictable enough for one write. */
		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r = (uint32_t)getpid() * 2654435761u ^ (uint32_t)(uint64_t)(hdp_now_s() * 1e9) ^
			    (uint32_t)i;
		if ((size_t)snprintf(tmp, tmp_len, "%s.tmp.%08x", m->base, r) >= tmp_len ||
		    strlen(tmp) > NAME_MAX) {
			snprintf(why, WHY_MAX, "name too long for a temporary name beside it");
			return -ENAMETOOLONG;
		}
		fd = openat(m->dir, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK |
			    O_CLOEXEC, 0600);
		if (fd < 0 && errno != EEXIST) {
			int err = errno;

			snprintf(why, WHY_MAX, "cannot create %.*s%s: %s", (int)(m->base - m->path),
				 m->path, tmp, strerror(err));
			return -err;
		}
	}
	if (fd < 0) {
		snprintf(why, WHY_MAX, "%d fresh names beside it were all taken", TMP_TRIES);
		return -EEXIST;
	}
	if (fstat(fd, st) || !S_ISREG(st->st_mode) || st->st_uid != geteuid() ||
	    st->st_nlink != 1) {
		snprintf(why, WHY_MAX, "%.*s%s, just created, is not a plain file of hdp-fwd's "
			 "own: left as it is", (int)(m->base - m->path), m->path, tmp);
		close(fd);
		return -EPERM;
	}
	return fd;
}

static int write_all(int fd, const char *text, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);

		if (w < 0 && errno != EINTR)
			return -errno;
		if (w == 0)
			return -EIO;	/* a regular file takes something, or says why */
		if (w > 0)
			done += (size_t)w;
	}
	return 0;
}

/* The path still free for a new copy: nothing there, or hdp-fwd's own. */
static int check_target(const struct hdp_metrics_file *m, char *why)
{
	char what[160];
	struct stat st;

	if (fstatat(m->dir, m->base, &st, AT_SYMLINK_NOFOLLOW)) {
		int err = errno;

		if (err == ENOENT)
			return 0;
		snprintf(why, WHY_MAX, "cannot tell what is there: %s", strerror(err));
		return -err;
	}
	if (hdp_path_own_is(&m->own, &st) ||
	    is_own_metrics(m->dir, m->base, &st, geteuid(), what, sizeof(what)))
		return 0;
	snprintf(why, WHY_MAX, "%s is there now: not replaced", what);
	return -EEXIST;
}

/* @step failed with @err, in the words already in @f->why if any: @err back. */
static int failed_at(struct write_failure *f, enum write_step step, int err)
{
	f->step = step;
	f->err = err;
	if (!f->why[0])
		snprintf(f->why, WHY_MAX, "%s", strerror(-err));
	return err;
}

/* Give the fresh file @fd (named @tmp) its mode and the text, and close it. */
static int fill_fresh(const struct hdp_metrics_file *m, int fd, const char *tmp, size_t len,
		      struct write_failure *f)
{
	int ret = 0;

	/* The umask (UMask=0077 under systemd) must not hide it from the collector. */
	if (fchmod(fd, m->mode)) {
		ret = -errno;
		snprintf(f->why, WHY_MAX, "cannot give %s mode %04o: %s", tmp, m->mode,
			 strerror(-ret));
		failed_at(f, STEP_MODE, ret);
	}
	if (!ret && (ret = write_all(fd, m->text, len))) {
		snprintf(f->why, WHY_MAX, "cannot write %s: %s", tmp, strerror(-ret));
		failed_at(f, STEP_WRITE, ret);
	}
	if (close(fd) && !ret) {
		ret = -errno;
		snprintf(f->why, WHY_MAX, "cannot write %s: %s", tmp, strerror(-ret));
		failed_at(f, STEP_WRITE, ret);
	}
	return ret;
}

/*
 * Render, write a fresh file, give it its mode, rename it over the path,
 * all in the directory's descriptor. Whatever fails, only the fresh file
 * goes: the copy at the path stays until a complete one replaces it, so
 * that a file system with room for one copy but not two keeps one. No
 * fsync: a collector reads through the page cache, and after a crash an
 * empty or old file is replaced by the next write.
 */
static int publish(struct hdp_metrics_file *m, struct write_failure *f)
{
	char tmp[NAME_MAX + 16];
	struct hdp_path_own made;
	struct stat st;
	size_t len;
	int fd, ret;

	ret = render(m, &len, f->why);
	if (ret)
		return failed_at(f, STEP_RENDER, ret);
	fd = create_fresh(m, tmp, sizeof(tmp), &st, f->why);
	if (fd < 0)
		return failed_at(f, STEP_CREATE, fd);
	hdp_path_own_set(&made, &st);
	ret = fill_fresh(m, fd, tmp, len, f);
	if (!ret && (ret = check_target(m, f->why)))
		failed_at(f, STEP_TARGET, ret);
	if (!ret && renameat(m->dir, tmp, m->dir, m->base)) {
		ret = -errno;
		snprintf(f->why, WHY_MAX, "cannot rename %s over it: %s", tmp, strerror(-ret));
		failed_at(f, STEP_RENAME, ret);
	}
	if (ret) {
		hdp_path_own_remove(m->dir, tmp, &made);
		return ret;
	}
	m->own = made;
	return 0;
}

/* What a collector finds at the path while writes fail, in words for the log. */
static const char *what_stays(const struct hdp_metrics_file *m)
{
	struct stat st;

	if (fstatat(m->dir, m->base, &st, AT_SYMLINK_NOFOLLOW))
		return "nothing is there until a write works";
	if (hdp_path_own_is(&m->own, &st))
		return "the last complete copy stays, its hdp_metrics_file_timestamp_seconds "
		       "telling its age";
	return "the file there is left as it is";
}

/*
 * A write failed. Said once for each new reason (the step and the errno):
 * the same failure again, interval after interval, is only counted, in
 * hdp_metrics_file_write_failures_total of the next copy written.
 */
static void note_failure(struct hdp_metrics_file *m, const struct write_failure *f)
{
	m->failures++;
	if (m->said.step == f->step && m->said.err == f->err)
		return;
	m->said = *f;
	hdp_log(HDP_LOG_ERR, "metrics file %s: %s; %s (said once until a write works or fails "
		"otherwise)", m->path, f->why, what_stays(m));
}

int hdp_metrics_file_write(struct hdp_metrics_file *m)
{
	struct write_failure f = { .step = STEP_NONE };
	int ret = publish(m, &f);

	m->next = hdp_now_s() + m->interval;
	if (ret) {
		note_failure(m, &f);
	} else if (m->said.step != STEP_NONE) {
		m->said.step = STEP_NONE;
		hdp_log(HDP_LOG_INFO, "metrics file %s: written again (%llu writes failed since "
			"hdp-fwd started)", m->path, (unsigned long long)m->failures);
	}
	return ret;
}

void hdp_metrics_file_tick(struct hdp_metrics_file *m)
{
	if (m && hdp_now_s() >= m->next)
		hdp_metrics_file_write(m);
}

void hdp_metrics_file_reconfigure(struct hdp_metrics_file *m, const struct hdp_fwd_cfg *cfg)
{
	if (!m)
		return;
	m->interval = interval_of(cfg);
	m->mode = cfg->metrics_mode;
	m->next = 0;
}

void hdp_metrics_file_close(struct hdp_metrics_file *m)
{
	int err;

	if (!m)
		return;
	/* Stopped: its figures go with it, rather than stay as if current. */
	err = m->own.made ? hdp_path_own_remove(m->dir, m->base, &m->own) : 0;
	if (err == -ESTALE)
		hdp_log(HDP_LOG_INFO, "metrics file %s: left alone: it is no longer the file "
			"hdp-fwd wrote", m->path);
	else if (err)
		hdp_log(HDP_LOG_WARN, "metrics file %s: left behind: %s", m->path, strerror(-err));
	close(m->dir);
	free(m);
}
