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

const char *const bench_outputs_report[] = { "results.json", "results.md", NULL };
const char *const bench_outputs_sample[] = {
	"results.json", "results.md", "sample.dat", "sample.png", NULL
};
const char *const bench_outputs_regions[] = {
	"results.json", "results.md", "regions.dat", "regions.png", NULL
};

/* A new file in out_dir that becomes @name when committed; NULL without one. */
static FILE *open_out(const struct bench_opts *o, const char *name, struct bench_out_file *of)
{
	of->f = NULL;
	return o->out_dir ? bench_out_create(o->out_fd, name, of) : NULL;
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
	if (o->out_dir && (!open_out(o, "results.json", &r->json) ||
			   !open_out(o, "results.md", &r->md))) {
		bench_out_discard(o->out_fd, &r->json);
		return -1;
	}
	uname(&u);
	f = fopen("/proc/cmdline", "re");
	if (f) {
		if (!fgets(cmdline, sizeof(cmdline), f))
			cmdline[0] = '\0';
		cmdline[strcspn(cmdline, "\n")] = '\0';
		fclose(f);
	}
	if (r->json.f) {
		fprintf(r->json.f, "{\"mode\":\"%s\",\"version\":\"%s\",\"trials\":%u,"
			"\"quick\":%s,\"machine\":{\"arch\":\"%s\",\"cpus\":%ld,"
			"\"pinned_cpu\":%d,\"date\":%lld},\"kernel\":{\"release\":",
			mode, HDP_VERSION, o->trials, o->quick ? "true" : "false",
			u.machine, sysconf(_SC_NPROCESSORS_ONLN), o->cpu,
			(long long)time(NULL));
		json_string(r->json.f, u.release);
		fprintf(r->json.f, ",\"cmdline\":");
		json_string(r->json.f, cmdline);
		fprintf(r->json.f, ",\"hardened_usercopy\":\"%s\",\"init_on_alloc_default\":\"%s\","
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
	if (r->md.f) {
		va_start(ap, fmt);
		vfprintf(r->md.f, fmt, ap);
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
	if (!r->json.f)
		return;
	fprintf(r->json.f, "%s{\"contender\":\"%s\",\"profile\":", r->nruns++ ? "," : "",
		contender);
	if (profile)
		fprintf(r->json.f, "\"%s\"", profile);
	else
		fprintf(r->json.f, "null");
	json_stat(r->json.f, "pps", pps);
	json_stat(r->json.f, "ns_per_pkt", ns);
	json_stat(r->json.f, "cycles_per_pkt", cycles);
	fprintf(r->json.f, ",\"ratio_to_off\":%.4f%s%s}", ratio_to_off, extra ? "," : "",
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
	r->plot_n = 0;
	open_out(r->o, file, &r->plot);
}

void bench_plot_point(struct bench_report *r, double x, double y)
{
	if (!r->plot.f)
		return;
	fprintf(r->plot.f, "%g %g\n", x, y);
	if (r->plot_n < BENCH_PLOT_POINTS_MAX) {
		r->plot_pts[r->plot_n][0] = x;
		r->plot_pts[r->plot_n][1] = y;
		r->plot_n++;
	}
}

/* gnuplot, if it is there: a PNG next to the data, the data inline in its script. */
void bench_plot_end(struct bench_report *r)
{
	char script[8192], png[64];
	size_t used;

	if (!r->plot.f)
		return;
	if (bench_out_commit(r->o->out_fd, &r->plot))
		return;
	used = (size_t)snprintf(script, sizeof(script),
		"set terminal pngcairo size 800,500 noenhanced\nset grid\nset xlabel '%s'\n"
		"set ylabel '%s'\nplot '-' using 1:2 with linespoints lw 2 title '%s'\n",
		r->plot_x, r->plot_y, r->plot_name);
	for (unsigned i = 0; i < r->plot_n && used < sizeof(script); i++)
		used += (size_t)snprintf(script + used, sizeof(script) - used, "%g %g\n",
					 r->plot_pts[i][0], r->plot_pts[i][1]);
	if (used < sizeof(script))
		snprintf(script + used, sizeof(script) - used, "e\n");
	snprintf(png, sizeof(png), "%s.png", r->plot_name);
	if (used >= sizeof(script) || bench_out_gnuplot(r->o->out_fd, png, script))
		bench_progress("no plot for %s (is gnuplot installed?)", r->plot_name);
	else
		bench_report_md(r, "\n![%s](%s.png)\n", r->plot_name, r->plot_name);
}

int bench_report_close(struct bench_report *r)
{
	int ret = 0;

	if (r->json.f) {
		fprintf(r->json.f, "]%s}\n", r->top);
		ret |= bench_out_commit(r->o->out_fd, &r->json);
	}
	if (r->md.f)
		ret |= bench_out_commit(r->o->out_fd, &r->md);
	if (r->o->out_dir && !ret)
		printf("\nresults in %s: results.json, results.md\n", r->o->out_dir);
	return ret ? 1 : 0;
}
