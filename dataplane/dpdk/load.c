// SPDX-License-Identifier: BSD-3-Clause
/*
 * Finding and loading hdp-fwd-dpdk.so. The module takes hdp's own code
 * (configuration, control socket, pools, hardening) from hdp-fwd, which
 * exports it (export_dynamic, dataplane/meson.build): one copy of each, so
 * that the configuration hdp-fwd checked is the one the module runs and
 * its pools are the ones hdp-fwd's counters describe.
 *
 * Installed, the module is in LIBDIR/hdp, reached from hdp-fwd's own
 * directory by the relative libdir that meson computes for RUNPATHs, so an
 * install under any prefix or DESTDIR works as it is; in the build tree it
 * sits next to hdp-fwd. Neither place is used when another user owns it
 * or may write to it, its directory or any directory above: hdp-fwd runs
 * as root, and a copy of it in /tmp must not load whatever someone put
 * beside it. The path is walked once, by descriptors (dir_walk.h), and
 * what was judged is what is loaded: through /proc/self/fd/N/NAME, N the
 * directory the walk reached, which nobody but root may change. (Not
 * /proc/self/fd/M of the file itself: the module finds hdp's DPDK driver
 * by its RUNPATH, $ORIGIN/.., and $ORIGIN would then be /proc/self/fd.)
 */
#include "load.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config.h"
#include "paths/dir_walk.h"

/* Found by name, the functions must have the types their pointers get. */
_Static_assert(_Generic(&hdp_fwd_dpdk_check, hdp_fwd_dpdk_check_fn_t : 1, default : 0),
	       "hdp_fwd_dpdk_check_fn_t is not hdp_fwd_dpdk_check's type");
_Static_assert(_Generic(&hdp_fwd_dpdk_run, hdp_fwd_dpdk_run_fn_t : 1, default : 0),
	       "hdp_fwd_dpdk_run_fn_t is not hdp_fwd_dpdk_run's type");
_Static_assert(sizeof(void *) == sizeof(hdp_fwd_dpdk_run_fn_t),
	       "dlsym()'s pointer does not hold a function's");

#define CANDIDATES_MAX 2
#define UNTRUSTED (-1)	/* a candidate's err: there, but refused */
#define NOT_A_FILE (-2)	/* a candidate's err: a FIFO, a directory, a device */

struct candidate {
	char path[PATH_MAX];
	int err;		/* why it was not taken: an errno, UNTRUSTED or NOT_A_FILE */
	char why[HDP_WALK_WHY_MAX];	/* UNTRUSTED: who may change what */
	int dir;		/* taken: the directory it is in (O_PATH) */
	char name[NAME_MAX + 1];	/* and its name there */
};

/* @a, @b and @c end to end in @dst, of PATH_MAX bytes. */
static int join(char *dst, const char *a, const char *b, const char *c)
{
	int n = snprintf(dst, PATH_MAX, "%s%s%s", a, b, c);

	return n < 0 || n >= PATH_MAX ? -ENAMETOOLONG : 0;
}

/*
 * LIBDIR/hdp/hdp-fwd-dpdk.so from the directory @dir hdp-fwd is in: each
 * "../" of the relative libdir takes a component off @dir, which is
 * canonical (from /proc/self/exe), so that the path said is the plain one.
 */
static int installed_path(char *dst, const char *dir)
{
	const char *rel = HDP_RELATIVE_LIBDIR;
	char up[PATH_MAX];
	size_t n = strlen(dir);

	if (rel[0] == '/')	/* a libdir outside the prefix */
		return join(dst, rel, "/hdp/", HDP_FWD_DPDK_MODULE);
	while (strncmp(rel, "../", 3) == 0) {
		rel += 3;
		while (n > 0 && dir[n - 1] != '/')
			n--;
		if (n > 0)
			n--;
	}
	snprintf(up, sizeof(up), "%.*s/", (int)n, dir);
	return join(dst, up, rel, "/hdp/" HDP_FWD_DPDK_MODULE);
}

/*
 * Where to look, in order: what the environment names (its only
 * candidate), else the installed place, else hdp-fwd's own directory.
 */
static int find_candidates(struct candidate *c, unsigned *n, const char *named)
{
	char dir[PATH_MAX];
	ssize_t len;

	if (named) {
		*n = 1;
		/* With no slash, dlopen() would search the library path instead. */
		return join(c[0].path, strchr(named, '/') ? "" : "./", named, "");
	}
	len = readlink("/proc/self/exe", dir, sizeof(dir) - 1);
	if (len < 0)
		return -errno;
	dir[len] = '\0';
	*strrchr(dir, '/') = '\0';	/* the kernel's path is absolute */
	*n = 2;
	if (installed_path(c[0].path, dir))
		return -ENAMETOOLONG;
	return join(c[1].path, dir, "/", HDP_FWD_DPDK_MODULE);
}

/* Into @why, however long the paths: a reason cut short is still one. */
__attribute__((format(printf, 3, 4)))
static void whyf(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, len, fmt, ap);
	va_end(ap);
}

/*
 * Only root or hdp-fwd's own user may have put it there, and nobody else
 * may change it: hdp-fwd runs as root, and loads what it finds. Its own
 * directory may not even be sticky (as DPDK's rule for -d plugins: a name
 * that is not there yet is anyone's to create). The reason, if not, into
 * @why.
 */
static bool file_trusted(const struct stat *st, const struct hdp_walk *w, const char *path,
			 char *why, size_t len)
{
	char who[160];

	if (!w->trusted) {
		whyf(why, len, "%s", w->why);
		return false;
	}
	if (w->sticky_open) {
		whyf(why, len, "its directory %s %s", w->where,
		     hdp_who_may_write(&w->st, who, sizeof(who)));
		return false;
	}
	if (*hdp_who_may_write(st, who, sizeof(who))) {
		whyf(why, len, "%s %s", path, who);
		return false;
	}
	return true;
}

/*
 * 0 when @c's file is there and may be loaded (c->dir and c->name then
 * say where), else why not (c->err too). Walked once, by descriptors: a
 * FIFO or a device is refused from its fstat, never opened. A module the
 * environment names is the caller's choice: loaded wherever it is, with
 * a warning when another user could change it.
 */
static int examine(struct candidate *c, bool named)
{
	struct hdp_walk w;
	struct stat st;
	int fd = hdp_walk_open(c->path, named ? HDP_WALK_JUDGE : HDP_WALK_TRUSTED, &w);

	if (fd == -EPERM) {
		whyf(c->why, sizeof(c->why), "%s", w.why);
		return c->err = UNTRUSTED;
	}
	if (fd < 0)
		return c->err = -fd;
	c->err = fstat(fd, &st) ? errno : 0;
	close(fd);
	if (!c->err && !S_ISREG(st.st_mode))
		c->err = NOT_A_FILE;
	if (!c->err && !file_trusted(&st, &w, c->path, c->why, sizeof(c->why))) {
		if (named)
			fprintf(stderr, "hdp-fwd: warning: %s (%s): %s: another user could change "
				"the code hdp-fwd loads\n", c->path, HDP_FWD_DPDK_MODULE_ENV, c->why);
		else
			c->err = UNTRUSTED;
	}
	if (c->err) {
		close(w.dir);
		return c->err;
	}
	c->dir = w.dir;
	snprintf(c->name, sizeof(c->name), "%s", w.name);
	return 0;
}

static void say_missing(const struct candidate *c, unsigned n, bool named)
{
	fprintf(stderr, "hdp-fwd: DPDK mode (EAL arguments after --) needs %s, in Debian's "
		"hdp-dpdk package; tried", HDP_FWD_DPDK_MODULE);
	for (unsigned i = 0; i < n; i++)
		fprintf(stderr, "%s %s%s: %s%s", i ? ";" : "", c[i].path,
			named ? " (" HDP_FWD_DPDK_MODULE_ENV ")" : "",
			c[i].err == UNTRUSTED ? "another user owns or may write to it or a "
			"directory on its way, so it is not loaded: " : "",
			c[i].err == UNTRUSTED ? c[i].why :
			c[i].err == NOT_A_FILE ? "not a regular file" : strerror(c[i].err));
	fputc('\n', stderr);
}

int hdp_fwd_dpdk_load(struct hdp_fwd_dpdk_module *m)
{
	struct candidate c[CANDIDATES_MAX];
	/* Ignored under file capabilities or setuid: the environment is the caller's. */
	const char *env = secure_getenv(HDP_FWD_DPDK_MODULE_ENV);
	bool named = env && *env;
	char through[64 + NAME_MAX];
	void *h, *check, *run;
	unsigned n = 0, i;
	int err;

	err = find_candidates(c, &n, named ? env : NULL);
	if (err) {
		fprintf(stderr, "hdp-fwd: DPDK mode (EAL arguments after --): cannot tell where "
			"%s is: %s\n", HDP_FWD_DPDK_MODULE, strerror(-err));
		return -ENOENT;
	}
	for (i = 0; i < n && examine(&c[i], named); i++)
		;
	if (i == n) {
		say_missing(c, n, named);
		return -ENOENT;
	}
	/* Never closed: EAL's threads and memory live as long as the process. */
	snprintf(through, sizeof(through), "/proc/self/fd/%d/%s", c[i].dir, c[i].name);
	h = dlopen(through, RTLD_NOW | RTLD_LOCAL);
	close(c[i].dir);
	if (!h) {
		fprintf(stderr, "hdp-fwd: DPDK mode (EAL arguments after --): %s does not load: "
			"%s; it needs DPDK's libraries and to come from the same hdp as hdp-fwd "
			"(Debian: the hdp-dpdk package of hdp's version)\n", c[i].path, dlerror());
		return -ELIBBAD;
	}
	check = dlsym(h, "hdp_fwd_dpdk_check");
	run = dlsym(h, "hdp_fwd_dpdk_run");
	if (!check || !run) {
		fprintf(stderr, "hdp-fwd: DPDK mode (EAL arguments after --): %s is not hdp-fwd's "
			"DPDK module: %s\n", c[i].path, dlerror());
		dlclose(h);
		return -ELIBBAD;
	}
	/* POSIX makes dlsym()'s pointer a function's; ISO C has no cast for it. */
	memcpy(&m->check, &check, sizeof(check));
	memcpy(&m->run, &run, sizeof(run));
	return 0;
}
