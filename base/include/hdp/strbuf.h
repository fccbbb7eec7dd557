/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Appending formatted text to a fixed buffer, snprintf-style: writing
 * stops at the end of the buffer, counting goes on, so the caller learns
 * the length it would have needed. For stats and reports, never the fast path.
 */
#ifndef HDP_STRBUF_H
#define HDP_STRBUF_H

#include <stddef.h>

#include <hdp/compiler.h>

#ifdef __cplusplus
extern "C" {
#endif

struct hdp_strbuf {
	char *buf;
	size_t len;	/* size of buf */
	size_t used;	/* what was (or would have been) written */
};

static inline struct hdp_strbuf hdp_strbuf_init(char *buf, size_t len)
{
	struct hdp_strbuf s = { buf, len, 0 };

	if (len)
		buf[0] = '\0';
	return s;
}

HDP_API void hdp_strbuf_printf(struct hdp_strbuf *s, const char *fmt, ...) HDP_PRINTF(2, 3);

/*
 * Length of the valid UTF-8 sequence at @p (1 to 4), or 0: no overlong
 * forms, no UTF-16 surrogates, nothing past U+10FFFF. It stops at the
 * first byte that does not continue the sequence, so a NUL ends it.
 */
HDP_API size_t hdp_utf8_len(const unsigned char *p);

/*
 * Append @str as a JSON string, quotes included: '"', '\\' and control
 * characters escaped, valid UTF-8 kept, any other byte as \u00XX (Linux
 * allows all of these in an interface name).
 */
HDP_API void hdp_strbuf_json_string(struct hdp_strbuf *s, const char *str);

#ifdef __cplusplus
}
#endif

#endif /* HDP_STRBUF_H */
