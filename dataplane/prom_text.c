// SPDX-License-Identifier: BSD-3-Clause
/* Prometheus text format helpers (prom_text.h). */
#include "prom_text.h"

void hdp_prom_label(struct hdp_strbuf *o, const char *name, const char *value)
{
	hdp_strbuf_printf(o, "%s=\"", name);
	for (const char *c = value; *c; c++) {
		if (*c == '\\' || *c == '"')
			hdp_strbuf_printf(o, "\\%c", *c);
		else if (*c == '\n')
			hdp_strbuf_printf(o, "\\n");
		else
			hdp_strbuf_printf(o, "%c", *c);
	}
	hdp_strbuf_printf(o, "\"");
}

void hdp_prom_family(struct hdp_strbuf *o, const char *name, const char *type,
		     const char *help)
{
	hdp_strbuf_printf(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}
