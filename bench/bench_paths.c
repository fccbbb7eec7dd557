// SPDX-License-Identifier: BSD-3-Clause
/*
 * Where hdp-bench finds its Python package, the shipped profiles and the
 * programs it measures: the source and build trees when it runs from the
 * build tree, the installed directories when it runs from an installed
 * bindir. An install with DESTDIR (packaging, tests) works as it is: the
 * part of our own path before the configured bindir is put in front of
 * every installed directory.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench.h"
#include "config.h"

static int join(char *dst, size_t len, const char *a, const char *b)
{
	int n = snprintf(dst, len, "%s%s", a, b);

	return n < 0 || (size_t)n >= len ? -1 : 0;
}

static bool is_file(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int from_build_tree(struct bench_paths *p, const char *exe)
{
	char want[PATH_MAX], *real;

	if (join(want, sizeof(want), HDP_BUILD_DIR, "/bench/hdp-bench"))
		return -1;
	real = realpath(want, NULL);
	if (!real)
		return -1;
	if (strcmp(real, exe)) {
		free(real);
		return -1;
	}
	free(real);
	p->installed = false;
	if (join(p->scripts, sizeof(p->scripts), HDP_SOURCE_DIR, "/bench") ||
	    join(p->configs, sizeof(p->configs), HDP_SOURCE_DIR, "/configs") ||
	    join(p->build, sizeof(p->build), HDP_BUILD_DIR, "") ||
	    join(p->driver, sizeof(p->driver), HDP_BUILD_DIR, "/dpdk/librte_mempool_hdp.so"))
		return -1;
	p->bindir[0] = '\0';
	return 0;
}

static int from_install(struct bench_paths *p, const char *exe)
{
	static const char suffix[] = HDP_INSTALL_BINDIR "/hdp-bench";
	size_t n = strlen(exe), s = strlen(suffix);
	char root[PATH_MAX], probe[BENCH_PATH_MAX + 32];

	if (n < s || strcmp(exe + n - s, suffix) || n - s >= sizeof(root))
		return -1;
	memcpy(root, exe, n - s);	/* DESTDIR, or nothing */
	root[n - s] = '\0';
	p->installed = true;
	p->build[0] = '\0';
	if (snprintf(p->scripts, sizeof(p->scripts), "%s%s", root, HDP_INSTALL_LIBEXECDIR) < 0 ||
	    snprintf(p->configs, sizeof(p->configs), "%s%s", root, HDP_INSTALL_SYSCONFDIR) < 0 ||
	    snprintf(p->bindir, sizeof(p->bindir), "%s%s", root, HDP_INSTALL_BINDIR) < 0 ||
	    snprintf(p->driver, sizeof(p->driver), "%s%s/librte_mempool_hdp.so", root,
		     HDP_INSTALL_LIBDIR) < 0)
		return -1;
	snprintf(probe, sizeof(probe), "%s/hdpbench/__main__.py", p->scripts);
	if (!is_file(probe)) {
		fprintf(stderr, "hdp-bench: installed as %s, but its helper scripts are not in %s\n",
			exe, p->scripts);
		return -2;
	}
	return 0;
}

int bench_paths_find(struct bench_paths *p)
{
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int err;

	if (n < 0) {
		fprintf(stderr, "hdp-bench: /proc/self/exe: %s\n", strerror(errno));
		return -1;
	}
	exe[n] = '\0';
	if (from_build_tree(p, exe) == 0)
		return 0;
	err = from_install(p, exe);
	if (err == 0)
		return 0;
	if (err == -1)
		fprintf(stderr,
			"hdp-bench: runs from %s, which is neither the build tree's (%s/bench) nor "
			"an installed bindir (%s): cannot find its helper scripts and profiles\n",
			exe, HDP_BUILD_DIR, HDP_INSTALL_BINDIR);
	return -1;
}

/*
 * The Python side's contract: BUILD_DIR for a build tree, or HDP_BIN_DIR
 * and HDP_CONFIG_DIR for an installed system (bench/hdpbench/paths.py).
 */
void bench_paths_export(const struct bench_paths *p)
{
	if (p->installed) {
		setenv("HDP_BIN_DIR", p->bindir, 1);
		setenv("HDP_CONFIG_DIR", p->configs, 1);
	} else {
		setenv("BUILD_DIR", p->build, 0);
	}
}
