/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prometheus' text exposition format (0.0.4), the two pieces every
 * exporter of hdp-fwd's (AF_XDP and DPDK ports) writes with: a family's
 * HELP and TYPE lines, and a label with its value escaped.
 */
#ifndef HDP_PROM_TEXT_H
#define HDP_PROM_TEXT_H

#include <hdp/strbuf.h>

/*
 * name="value", with '\\', '"' and newlines escaped as the format asks, and
 * always valid UTF-8: a byte that is not is written as the character of
 * the same number, as the JSON stats write it. Every label value goes
 * through here, whoever named it.
 */
void hdp_prom_label(struct hdp_strbuf *o, const char *name, const char *value);

/* "# HELP name help" and "# TYPE name type". */
void hdp_prom_family(struct hdp_strbuf *o, const char *name, const char *type,
		     const char *help);

#endif /* HDP_PROM_TEXT_H */
