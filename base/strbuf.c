// SPDX-License-Identifier: BSD-3-Clause
#include <hdp/strbuf.h>

#include <stdarg.h>
#include <stdio.h>

void hdp_strbuf_printf(struct hdp_strbuf *s, const char *fmt, ...)
{
	size_t room = s->used < s->len ? s->len - s->used : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(room ? s->buf + s->used : NULL, room, fmt, ap);
	va_end(ap);
	if (n > 0)
		s->used += (size_t)n;
}

size_t hdp_utf8_len(const unsigned char *p)
{
	size_t n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 ? 2 : 0;

	if (p[0] >= 0xf8)
		return 0;
	for (size_t i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong three-byte forms and UTF-16 surrogates are not UTF-8. */
	if (n == 3 && ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0)))
		return 0;
	if (n == 4 && ((p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90)))
		return 0;
	return n;
}

void hdp_strbuf_json_string(struct hdp_strbuf *s, const char *str)
{
	const unsigned char *p = (const unsigned char *)str;

	hdp_strbuf_printf(s, "\"");
	while (*p) {
		size_t n;

		if (*p == '"' || *p == '\\') {
			hdp_strbuf_printf(s, "\\%c", *p++);
		} else if (*p < 0x20 || *p == 0x7f) {
			hdp_strbuf_printf(s, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			hdp_strbuf_printf(s, "%c", *p++);
		} else if ((n = hdp_utf8_len(p)) != 0) {
			hdp_strbuf_printf(s, "%.*s", (int)n, (const char *)p);
			p += n;
		} else {
			hdp_strbuf_printf(s, "\\u%04x", *p++);
		}
	}
	hdp_strbuf_printf(s, "\"");
}
