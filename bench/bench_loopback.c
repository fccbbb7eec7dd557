// SPDX-License-Identifier: BSD-3-Clause
/*
 * What micro and micro --threads forward: the frame, and a profile
 * applied to the loopback forwarder's UMEM pool.
 */
#include "bench.h"

#include <hdp/fwd.h>

#include <stdio.h>
#include <string.h>

/* A 60-byte Ethernet/IPv4/UDP frame, the size the end-to-end runs use. */
const uint8_t bench_packet[60] = {
	0x02, 0, 0, 0, 0, 0x02, 0x02, 0, 0, 0, 0, 0x01, 0x08, 0x00,
	0x45, 0, 0, 46, 0, 0, 0, 0, 64, 17, 0, 0, 198, 18, 0, 1, 198, 18, 0, 2,
	0, 9, 0, 9, 0, 26, 0, 0,
};

void bench_packet_fill(uint8_t *buf, uint32_t len)
{
	uint16_t ip_len = (uint16_t)(len - 14), udp_len = (uint16_t)(len - 34);

	memset(buf, 0, len);
	memcpy(buf, bench_packet, sizeof(bench_packet));
	buf[16] = (uint8_t)(ip_len >> 8);
	buf[17] = (uint8_t)ip_len;
	buf[38] = (uint8_t)(udp_len >> 8);
	buf[39] = (uint8_t)udp_len;
}

/* [global] and [port:…] of a shipped file are hdp-fwd's, not ours. */
static int other_section(void *ctx, const char *section, const char *key,
			 const char *value, const char *file, int line)
{
	(void)ctx, (void)section, (void)key, (void)value, (void)file, (void)line;
	return 0;
}

int bench_apply_profile(struct hdp_fwd *f, const char *spec, const char *configs)
{
	static struct hdp_harden_config cfg;
	char path[BENCH_PATH_MAX + 64];

	hdp_harden_config_init(&cfg);
	hdp_harden_config_declare(&cfg, HDP_FWD_UMEM_POOL);
	if (spec[0] == '@') {
		if (snprintf(path, sizeof(path), "%s/%s", configs, spec + 1) >= (int)sizeof(path))
			return -1;
		if (hdp_harden_config_load_file(&cfg, path, other_section, NULL))
			return -1;
	} else if (hdp_harden_config_parse_string(&cfg, spec, "bench")) {
		return -1;
	}
	return hdp_pool_configure(hdp_fwd_pool(f), &cfg) ? -1 : 0;
}

int bench_fresh_state(struct hdp_fwd *f, const char *configs)
{
	/* No quarantine while the frames go back in order: it keeps its own. */
	if (bench_apply_profile(f, BENCH_SPEC_OFF, configs))
		return -1;
	if (hdp_fwd_loopback_reset(f)) {
		fprintf(stderr, "hdp-bench: cannot bring the loopback forwarder back to its "
			"state as made\n");
		return -1;
	}
	return 0;
}
