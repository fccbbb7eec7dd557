// SPDX-License-Identifier: BSD-3-Clause
#include "sizes.h"

#include "frame.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int hdp_gen_sizes_parse(const char *arg, struct hdp_gen_sizes *s)
{
	unsigned long min, max;
	char *end;

	if (!strcmp(arg, "imix")) {
		*s = (struct hdp_gen_sizes){ .min = 60, .max = 1514, .imix = 1 };
		return 0;
	}
	if (*arg < '0' || *arg > '9')
		return -1;
	min = strtoul(arg, &end, 10);
	max = min;
	if (*end == '-') {
		if (end[1] < '0' || end[1] > '9')
			return -1;
		max = strtoul(end + 1, &end, 10);
	}
	if (*end || min < HDP_GEN_FRAME_MIN || max > HDP_GEN_FRAME_MAX || min > max)
		return -1;
	*s = (struct hdp_gen_sizes){ .min = (unsigned)min, .max = (unsigned)max };
	return 0;
}

void hdp_gen_sizes_name(const struct hdp_gen_sizes *s, char *buf, size_t len)
{
	if (s->imix)
		snprintf(buf, len, "imix (60/590/1514)");
	else if (s->min == s->max)
		snprintf(buf, len, "%u", s->min);
	else
		snprintf(buf, len, "%u-%u", s->min, s->max);
}
