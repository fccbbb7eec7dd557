// SPDX-License-Identifier: BSD-3-Clause
/* Prometheus text format helpers (prom_text.h). */
#include "prom_text.h"

/*
 * A label value must be UTF-8, or the whole exposition is refused
 * (promtool: "invalid label value"), and Linux allows any byte but '/',
 * ':' and white space in an interface name. A byte that starts no valid
 * sequence becomes the character of the same number (0xff: U+00FF, "ÿ"),
 * as the JSON stats write it ("\u00ff"), so a name reads the same in
 * both and two names that differ in such a byte stay two series.
 */
void hdp_prom_label(struct hdp_strbuf *o, const char *name, const char *value)
{
	const unsigned char *c = (const unsigned char *)value;

	hdp_strbuf_printf(o, "%s=\"", name);
	while (*c) {
		size_t n;

		if (*c == '\\' || *c == '"') {
			hdp_strbuf_printf(o, "\\%c", *c++);
		} else if (*c == '\n') {
			hdp_strbuf_printf(o, "\\n");
			c++;
		} else if (*c < 0x80) {
			hdp_strbuf_printf(o, "%c", *c++);
		} else if ((n = hdp_utf8_len(c)) != 0) {
			hdp_strbuf_printf(o, "%.*s", (int)n, (const char *)c);
			c += n;
		} else {
			hdp_strbuf_printf(o, "%c%c", 0xc0 | *c >> 6, 0x80 | (*c & 0x3f));
			c++;
		}
	}
	hdp_strbuf_printf(o, "\"");
}

void hdp_prom_family(struct hdp_strbuf *o, const char *name, const char *type,
		     const char *help)
{
	hdp_strbuf_printf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}
