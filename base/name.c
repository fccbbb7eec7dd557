// SPDX-License-Identifier: BSD-3-Clause
/* A pool's name (hdp/name.h). */
#include <hdp/name.h>

#include <string.h>

bool hdp_pool_name_valid(const char *name)
{
	size_t len = name ? strnlen(name, 32) : 0;

	if (len == 0 || len >= 32)
		return false;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789_-") == len;
}
