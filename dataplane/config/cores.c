// SPDX-License-Identifier: BSD-3-Clause
/* The workers' CPUs (cores = LIST|auto): one worker per CPU, each one this process may use. */
#include "cfg_internal.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Can this process run on @cpu? (Its affinity mask: online and allowed.) */
static bool cpu_allowed(int cpu)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return cpu < sysconf(_SC_NPROCESSORS_ONLN);
	return CPU_ISSET((size_t)cpu, &set);
}

/* "0-1", "0,2-3": the CPUs this process may use, for messages. */
static const char *allowed_cpus(void)
{
	static char text[128];
	size_t used = 0;
	int c = 0;

	text[0] = '\0';
	while (c < 1024 && used < sizeof(text) - 16) {
		int end;

		if (!cpu_allowed(c)) {
			c++;
			continue;
		}
		for (end = c; end + 1 < 1024 && cpu_allowed(end + 1); end++)
			;
		used += (size_t)snprintf(text + used, sizeof(text) - used,
					 end > c ? "%s%d-%d" : "%s%d", used ? "," : "", c, end);
		c = end + 1;
	}
	return text;
}

/* One worker per CPU this process may run on. */
static int set_auto(struct hdp_fwd_cfg *cfg, const char *list, const char *source, int line)
{
	unsigned n = 0;

	for (int c = 0; c < 1024 && n < HDP_FWD_CORES_MAX; c++)
		if (cpu_allowed(c))
			cfg->cores[n++] = c;
	if (!n)
		return cfg_refuse(source, line, "global", "cores", list, "no CPU allowed");
	cfg->ncores = n;
	return 0;
}

int cfg_cores_set(struct hdp_fwd_cfg *cfg, const char *list, const char *source, int line)
{
	char buf[256], *save = NULL, *tok;
	unsigned n = 0;
	uint32_t lo, hi;

	if (strcmp(list, "auto") == 0)
		return set_auto(cfg, list, source, line);
	if (strlen(list) >= sizeof(buf))
		return cfg_refuse(source, line, "global", "cores", list, "list too long");
	strcpy(buf, list);
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(tok, '-');

		if (dash)
			*dash = '\0';
		if (cfg_u32(tok, 0, 1023, &lo) ||
		    (dash ? cfg_u32(dash + 1, lo, 1023, &hi) : ((hi = lo), 0)))
			return cfg_refuse(source, line, "global", "cores", list,
					  "expected CPU numbers and ranges, e.g. 1 or 0,2 or 0-1");
		for (uint32_t c = lo; c <= hi; c++) {
			if (n == HDP_FWD_CORES_MAX)
				return cfg_refuse(source, line, "global", "cores", list,
						  "more than 16 workers");
			cfg->cores[n++] = (int)c;
		}
	}
	if (!n)
		return cfg_refuse(source, line, "global", "cores", list, "no CPU given");
	for (unsigned i = 0; i < n; i++) {
		if (!cpu_allowed(cfg->cores[i])) {
			char why[200];

			snprintf(why, sizeof(why), "CPU %d is not one this process may run on (it may use %s)",
				 cfg->cores[i], allowed_cpus());
			return cfg_refuse(source, line, "global", "cores", list, why);
		}
	}
	cfg->ncores = n;
	return 0;
}

int hdp_fwd_cfg_set_cores(struct hdp_fwd_cfg *cfg, const char *list, const char *source)
{
	return cfg_cores_set(cfg, list, source, 0);
}

const char *cfg_cores_text(const struct hdp_fwd_cfg *cfg, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < cfg->ncores && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? "," : "",
					 cfg->cores[i]);
	return buf;
}
