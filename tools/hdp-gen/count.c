// SPDX-License-Identifier: BSD-3-Clause
#include "count.h"

#include <errno.h>
#include <stdlib.h>

int hdp_gen_parse_count(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	*v = strtoull(s, &end, 10);
	return *end || errno || *v < min || *v > max ? -1 : 0;
}
