// SPDX-License-Identifier: BSD-3-Clause
/*
 * What a value may be so that --check-config can print it as "key = value"
 * and the line reads back as the same value. hdp's INI files have no
 * quoting: libinih drops the spaces around a value and ends it at a ';'
 * that follows a space, and hdp's reader (hardening/profile_ini.c)
 * refuses longer lines than HDP_INI_LINE_MAX. A value that cannot be
 * written is refused where it is set, with the reason, rather than
 * printed as something that reads back as another value.
 *
 * Also what every key's parser shares: decimal numbers as the file writes
 * them, and the one form of a refusal (file, line, section, key, value,
 * why; or the option and its value).
 */
#include "cfg_internal.h"

#include <hdp/log.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The characters libinih takes for space (isspace() in the C locale). */
static bool ini_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

bool hdp_ini_value_fits(const char *key, const char *value, char *why, size_t len)
{
	size_t n = strlen(value), room = HDP_INI_LINE_MAX - strlen(key) - 3;

	if (n > room) {
		snprintf(why, len, "%zu characters: an INI line holds %zu after '%s = ', and "
			 "--check-config could not print it so that it reads back", n, room, key);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)value[i];

		if (c < 0x20 || c == 0x7f) {
			snprintf(why, len, "a control character (byte 0x%02x) cannot be written "
				 "in an INI file", c);
			return false;
		}
	}
	if (n && (ini_space(value[0]) || ini_space(value[n - 1]))) {
		snprintf(why, len, "an INI file drops spaces at the start and end of a value: "
			 "it would read back without them");
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		/* "key = ;..." has a space before the ';' too. */
		if (value[i] == ';' && (i == 0 || ini_space(value[i - 1]))) {
			snprintf(why, len, "a ';' %s starts a comment in an INI file: it would "
				 "read back cut short", i ? "after a space" : "at the start");
			return false;
		}
	}
	return true;
}

int cfg_u32(const char *v, uint32_t lo, uint32_t hi, uint32_t *out)
{
	char *end;
	unsigned long n;

	/* Decimal digits only: strtoul would also take a sign and leading spaces. */
	if (*v < '0' || *v > '9')
		return -EINVAL;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n < lo || n > hi)
		return -EINVAL;
	*out = (uint32_t)n;
	return 0;
}

int cfg_refuse(const char *source, int line, const char *section, const char *key,
	       const char *value, const char *why)
{
	if (line > 0)
		hdp_log(HDP_LOG_ERR, "%s:%d: [%s] key '%s', value '%s': %s", source,
			line, section, key, value, why);
	else
		hdp_log(HDP_LOG_ERR, "%s '%s': %s", source, value, why);
	return -EINVAL;
}
