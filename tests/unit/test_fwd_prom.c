// SPDX-License-Identifier: BSD-3-Clause
/*
 * The Prometheus exposition of a forwarder whose interface names are not
 * UTF-8 (Linux allows any byte but '/', ':' and white space): every label
 * value is still valid UTF-8, each such byte written as the character of
 * the same number, as the JSON stats write it, so two names stay two
 * series and read the same in both.
 */
#include <criterion/criterion.h>

#include <hdp/ctl.h>
#include <hdp/fwd.h>

#include <stdbool.h>
#include <string.h>

#include "fwd_support.h"
#include "support.h"

static struct hdp_fwd_cfg cfg;
static struct hdp_fwd *fwd;
static char reply[1 << 18];

/* 0xff and 0xfe start nothing; 0xc3 '(' is a sequence cut short; the euro sign is fine. */
#define NAMES "a\xff:0,a\xfe:0,b\xc3(:0,c\xe2\x82\xac:0"

static void make_forwarder(void)
{
	hdp_fwd_cfg_defaults(&cfg);
	fwd = loopback_forwarder(&cfg, NAMES, NULL);
}

static void drop_forwarder(void)
{
	cr_assert_eq(hdp_fwd_loopback_destroy(fwd), 0);
}

TestSuite(fwd_prom, .init = make_forwarder, .fini = drop_forwarder);

/* RFC 3629, strictly: no overlong forms, no surrogates, nothing past U+10FFFF. */
static bool valid_utf8(const unsigned char *p)
{
	while (*p) {
		unsigned n = *p < 0x80 ? 1 : *p >= 0xc2 && *p <= 0xdf ? 2 :
			     *p >= 0xe0 && *p <= 0xef ? 3 : *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;

		if (!n)
			return false;
		for (unsigned i = 1; i < n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return false;
		if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] >= 0xa0) ||
		    (p[0] == 0xf0 && p[1] < 0x90) || (p[0] == 0xf4 && p[1] >= 0x90))
			return false;
		p += n;
	}
	return true;
}

Test(fwd_prom, every_label_value_is_utf8_whatever_the_interface_names)
{
	cr_assert_eq(hdp_ctl_answer(fwd, "stats prometheus", reply, sizeof(reply)), 0, "%s",
		     reply);
	cr_assert(valid_utf8((const unsigned char *)reply), "not UTF-8:\n%s", reply);
}

Test(fwd_prom, a_byte_that_is_not_utf8_reads_as_in_the_json_stats)
{
	static const char *const want[] = {
		"hdp_port_rx_packets_total{port=\"a\xc3\xbf\",queue=\"0\"} 0\n",
		"hdp_port_rx_packets_total{port=\"a\xc3\xbe\",queue=\"0\"} 0\n",
		"hdp_port_rx_packets_total{port=\"b\xc3\x83(\",queue=\"0\"} 0\n",
		"hdp_port_rx_packets_total{port=\"c\xe2\x82\xac\",queue=\"0\"} 0\n",
		",peer=\"a\xc3\xbf\",",
	};
	static char json[1 << 16];

	cr_assert_eq(hdp_ctl_answer(fwd, "stats prometheus", reply, sizeof(reply)), 0);
	for (size_t i = 0; i < HDP_ARRAY_SIZE(want); i++)
		cr_assert_not_null(strstr(reply, want[i]), "no %s in\n%s", want[i], reply);
	cr_assert_eq(hdp_ctl_answer(fwd, "stats json", json, sizeof(json)), 0);
	cr_assert_not_null(strstr(json, "\"a\\u00ff\""), "%s", json);
	cr_assert_not_null(strstr(json, "\"b\\u00c3(\""), "%s", json);
}
