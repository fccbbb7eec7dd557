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
