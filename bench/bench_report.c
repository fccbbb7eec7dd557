// SPDX-License-Identifier: BSD-3-Clause
/* hdp-bench's output: JSON for machines, Markdown for people, PNG plots. */
#include "bench.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "config.h"

uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void bench_stat_of(double *s, unsigned n, struct bench_stat *out)
{
	double sorted[BENCH_TRIALS_MAX];

	memcpy(sorted, s, sizeof(double) * n);
	qsort(sorted, n, sizeof(double), cmp_double);
	out->min = sorted[0];
	out->max = sorted[n - 1];
	out->median = n % 2 ? sorted[n / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

void bench_progress(const char *fmt, ...)
{
	va_list ap;

	fputs("hdp-bench: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static FILE *open_out(const struct bench_opts *o, const char *name)
{
	char path[4096];
	FILE *f;

	if (!o->out_dir)
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", o->out_dir, name);
	f = fopen(path, "we");
	if (!f)
		fprintf(stderr, "hdp-bench: %s: %s\n", path, strerror(errno));
	return f;
}

/* "y", "n" or "unknown" for a kernel config option. */
static const char *kconfig(const char *option)
{
	static char line[512];
	char path[256], cmd[300];
	struct utsname u;
	const char *result = "unknown";
	size_t len = strlen(option);
	FILE *f;

	uname(&u);
	snprintf(path, sizeof(path), "/boot/config-%s", u.release);
	f = fopen(path, "re");
	if (!f && access("/proc/config.gz", R_OK) == 0) {
		snprintf(cmd, sizeof(cmd), "zcat /proc/config.gz 2>/dev/null");
		f = popen(cmd, "r");
	}
	if (!f)
		return result;
	result = "n";
	while (fgets(line, sizeof(line), f))
		if (strncmp(line, option, len) == 0 && line[len] == '=')
			result = line[len + 1] == 'y' ? "y" : "m";
	fclose(f);
	return result;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

int bench_report_open(struct bench_report *r, const struct bench_opts *o,
		      const char *mode)
{
	char cmdline[1024] = "";
	struct utsname u;
	FILE *f;

	memset(r, 0, sizeof(*r));
	r->o = o;
	r->json = open_out(o, "results.json");
	r->md = open_out(o, "results.md");
	if (o->out_dir && (!r->json || !r->md))
		return -1;
	uname(&u);
	f = fopen("/proc/cmdline", "re");
	if (f) {
		if (!fgets(cmdline, sizeof(cmdline), f))
			cmdline[0] = '\0';
		cmdline[strcspn(cmdline, "\n")] = '\0';
		fclose(f);
	}
	if (r->json) {
		fprintf(r->json, "{\"mode\":\"%s\",\"version\":\"%s\",\"trials\":%u,"
			"\"quick\":%s,\"machine\":{\"arch\":\"%s\",\"cpus\":%ld,"
			"\"pinned_cpu\":%d,\"date\":%lld},\"kernel\":{\"release\":",
			mode, HDP_VERSION, o->trials, o->quick ? "true" : "false",
			u.machine, sysconf(_SC_NPROCESSORS_ONLN), o->cpu,
			(long long)time(NULL));
		json_string(r->json, u.release);
		fprintf(r->json, ",\"cmdline\":");
		json_string(r->json, cmdline);
		fprintf(r->json, ",\"hardened_usercopy\":\"%s\",\"init_on_alloc_default\":\"%s\","
			"\"init_on_free_default\":\"%s\",\"kasan\":\"%s\"},\"runs\":[",
			kconfig("CONFIG_HARDENED_USERCOPY"),
			kconfig("CONFIG_INIT_ON_ALLOC_DEFAULT_ON"),
			kconfig("CONFIG_INIT_ON_FREE_DEFAULT_ON"), kconfig("CONFIG_KASAN"));
	}
	bench_report_md(r, "# hdp-bench %s\n\nhdp %s, kernel %s (%s), %ld CPUs\n\n", mode,
			HDP_VERSION, u.release, u.machine, sysconf(_SC_NPROCESSORS_ONLN));
	return 0;
}

void bench_report_md(struct bench_report *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (r->md) {
		va_start(ap, fmt);
		vfprintf(r->md, fmt, ap);
		va_end(ap);
	}
	fflush(stdout);
}

static void json_stat(FILE *f, const char *name, const struct bench_stat *s)
{
	if (s)
		fprintf(f, ",\"%s\":{\"median\":%.3f,\"min\":%.3f,\"max\":%.3f}", name,
			s->median, s->min, s->max);
}

void bench_report_run(struct bench_report *r, const char *contender,
		      const char *profile, const struct bench_stat *pps,
		      const struct bench_stat *ns, const struct bench_stat *cycles,
		      double ratio_to_off, const char *extra)
{
	if (!r->json)
		return;
	fprintf(r->json, "%s{\"contender\":\"%s\",\"profile\":", r->nruns++ ? "," : "",
		contender);
	if (profile)
		fprintf(r->json, "\"%s\"", profile);
	else
		fprintf(r->json, "null");
	json_stat(r->json, "pps", pps);
	json_stat(r->json, "ns_per_pkt", ns);
	json_stat(r->json, "cycles_per_pkt", cycles);
	fprintf(r->json, ",\"ratio_to_off\":%.4f%s%s}", ratio_to_off, extra ? "," : "",
		extra ? extra : "");
}

void bench_report_top(struct bench_report *r, const char *key, const char *json)
{
	size_t used = strlen(r->top);
	int n = snprintf(r->top + used, sizeof(r->top) - used, ",\"%s\":%s", key, json);

	if (n < 0 || (size_t)n >= sizeof(r->top) - used) {
		r->top[used] = '\0';	/* all of a field or none: the JSON stays whole */
		bench_progress("results.json: no room for \"%s\"", key);
	}
}

void bench_plot_begin(struct bench_report *r, const char *name, const char *xlabel,
		      const char *ylabel)
{
	char file[64];

	snprintf(r->plot_name, sizeof(r->plot_name), "%s", name);
	snprintf(r->plot_x, sizeof(r->plot_x), "%s", xlabel);
	snprintf(r->plot_y, sizeof(r->plot_y), "%s", ylabel);
	snprintf(file, sizeof(file), "%s.dat", name);
	r->plot = open_out(r->o, file);
}

void bench_plot_point(struct bench_report *r, double x, double y)
{
	if (r->plot)
		fprintf(r->plot, "%g %g\n", x, y);
}

/* gnuplot, if it is there: a PNG next to the data. */
void bench_plot_end(struct bench_report *r)
{
	char cmd[8192];
	int ret;

	if (!r->plot)
		return;
	fclose(r->plot);
	r->plot = NULL;
	snprintf(cmd, sizeof(cmd),
		 "cd '%s' && gnuplot -e \"set terminal pngcairo size 800,500 noenhanced; "
		 "set output '%s.png'; set grid; set xlabel '%s'; set ylabel '%s'; "
		 "plot '%s.dat' using 1:2 with linespoints lw 2 title '%s'\" 2>/dev/null",
		 r->o->out_dir, r->plot_name, r->plot_x, r->plot_y, r->plot_name,
		 r->plot_name);
	ret = system(cmd);
	if (ret)
		bench_progress("no plot for %s (is gnuplot installed?)", r->plot_name);
	else
		bench_report_md(r, "\n![%s](%s.png)\n", r->plot_name, r->plot_name);
}

int bench_report_close(struct bench_report *r)
{
	if (r->json) {
		fprintf(r->json, "]%s}\n", r->top);
		fclose(r->json);
	}
	if (r->md)
		fclose(r->md);
	if (r->o->out_dir)
		printf("\nresults in %s: results.json, results.md\n", r->o->out_dir);
	return 0;
}
