// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-provoke: the LKDTM of hdp. Commits one named memory-safety
 * violation against a real, hardened pool and says whether hdp caught it.
 * Exit status: 0 caught, 1 missed, 2 usage error.
 *
 * Every case runs in a child process, so that a case caught under
 * on_violation=abort (the default) can die the way it should while the
 * parent reports the signal and the line hdp wrote.
 */
#include "config.h"
#include "provoke.h"

#include <hdp/log.h>

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hdp-provoke [--harden SPEC] CASE\n"
		"       hdp-provoke --list\n"
		"Commit the violation CASE against a hardened pool; exit 0 if hdp\n"
		"caught it, 1 if it went unnoticed, 2 for a usage error.\n"
		"  --harden SPEC  profile overrides, e.g. \"bounds=off,tag=off\"\n"
		"  --list         print every case, one name per line\n"
		"  --describe     with --list: add what each case does\n");
}

struct hdp_pool *provoke_pool(struct provoke_env *env, const char *name,
			      size_t size, unsigned count)
{
	return provoke_pool_gapped(env, name, size, count, 0);
}

struct hdp_pool *provoke_pool_gapped(struct provoke_env *env, const char *name,
				     size_t size, unsigned count, unsigned guard_gap)
{
	struct hdp_pool *pool = hdp_pool_create(&(struct hdp_pool_params){
		.name = name, .obj_size = size, .obj_align = 16, .obj_count = count,
		.mem = HDP_MEM_PLAIN, .guard_gap = guard_gap,
	});

	if (!pool || hdp_pool_configure(pool, env->cfg)) {
		fprintf(stderr, "hdp-provoke: cannot set up pool '%s'\n", name);
		exit(2);
	}
	return pool;
}

unsigned long long provoke_seen(struct hdp_pool *pool, enum hdp_violation_kind kind)
{
	struct hdp_pool_stats st;

	hdp_pool_stats_get(pool, &st);
	return (unsigned long long)st.harden.violations[kind];
}

bool provoke_case_at(unsigned i, struct provoke_case *out)
{
	const struct {
		const struct provoke_case *cases;
		unsigned n;
	} tables[] = {
		{ provoke_cases, provoke_ncases },
		{ provoke_chain_cases, provoke_nchain_cases },
#if HDP_HAVE_LIBXDP
		{ provoke_fwd_cases, provoke_nfwd_cases },
#endif
		{ provoke_protection_cases, provoke_nprotection_cases },
	};

	for (unsigned t = 0; t < HDP_ARRAY_SIZE(tables); i -= tables[t++].n) {
		if (i < tables[t].n) {
			*out = tables[t].cases[i];
			return true;
		}
	}
	return false;
}

static const struct provoke_case *find_case(const char *name)
{
	static struct provoke_case c;

	for (unsigned i = 0; provoke_case_at(i, &c); i++)
		if (strcmp(c.name, name) == 0)
			return &c;
	return NULL;
}

/* The case's needs below, the user's --harden above. */
static int build_config(struct hdp_harden_config *cfg, const struct provoke_case *c,
			const char *spec)
{
	hdp_harden_config_init(cfg);
	if (*c->needs) {
		/* The file layer: parse the needs as a string, then move them down. */
		if (hdp_harden_config_parse_string(cfg, c->needs, "case"))
			return -EINVAL;
		cfg->file = cfg->string;
		memset(&cfg->string, 0, sizeof(cfg->string));
	}
	if (spec && hdp_harden_config_parse_string(cfg, spec, "--harden"))
		return -EINVAL;
	return hdp_harden_config_validate(cfg);
}

static int run_child(const struct provoke_case *c, struct hdp_harden_config *cfg,
		     const char *spec, int err_fd)
{
	struct provoke_env env = { .cfg = cfg, .spec = spec };
	enum verdict v;

	dup2(err_fd, STDERR_FILENO);
	close(err_fd);
	v = c->run(&env);
	fflush(stdout);
	_exit(v == CAUGHT ? 0 : 1);
}

/* The last line hdp wrote about a violation, if any. */
static const char *report_line(char *buf)
{
	char *line = strstr(buf, "violation: "), *end;

	if (!line)
		return NULL;
	end = strchr(line, '\n');
	if (end)
		*end = '\0';
	return line;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "harden", required_argument, NULL, 'H' },
		{ "list", no_argument, NULL, 'l' },
		{ "describe", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static struct hdp_harden_config cfg;
	const struct provoke_case *c;
	const char *spec = NULL, *line;
	bool list = false, describe = false;
	char buf[8192];
	size_t used = 0;
	int opt, fds[2], status;
	ssize_t n;
	pid_t pid;

	while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (opt) {
		case 'H': spec = optarg; break;
		case 'l': list = true; break;
		case 'd': describe = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (list) {
		struct provoke_case lc;

		for (unsigned i = 0; provoke_case_at(i, &lc); i++) {
			if (describe)
				printf("%-32s %s\n", lc.name, lc.what);
			else
				puts(lc.name);
		}
		return 0;
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	c = find_case(argv[optind]);
	if (!c) {
		fprintf(stderr, "hdp-provoke: no case called '%s' (try --list)\n",
			argv[optind]);
		return 2;
	}
	if (build_config(&cfg, c, spec))
		return 2;

	if (pipe(fds) < 0) {
		perror("hdp-provoke: pipe");
		return 2;
	}
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("hdp-provoke: fork");
		return 2;
	}
	if (pid == 0) {
		close(fds[0]);
		run_child(c, &cfg, spec, fds[1]);
	}
	close(fds[1]);
	while (used < sizeof(buf) - 1 &&
	       (n = read(fds[0], buf + used, sizeof(buf) - 1 - used)) > 0)
		used += (size_t)n;
	buf[used] = '\0';
	close(fds[0]);
	if (waitpid(pid, &status, 0) < 0) {
		perror("hdp-provoke: waitpid");
		return 2;
	}
	line = report_line(buf);
	if (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT && line) {
		printf("%s: caught (aborted): %s\n", c->name, line);
		return 0;
	}
	if (WIFSIGNALED(status)) {
		printf("%s: missed: the process died of %s without an hdp report\n",
		       c->name, strsignal(WTERMSIG(status)));
		if (used)
			fputs(buf, stderr);
		return 1;
	}
	if (WEXITSTATUS(status) == 0) {
		printf("%s: caught%s%s\n", c->name, line ? ": " : " (the protection did its work)",
		       line ? line : "");
		return 0;
	}
	if (WEXITSTATUS(status) == 2) {
		fputs(buf, stderr);
		return 2;
	}
	printf("%s: missed\n", c->name);
	return 1;
}
