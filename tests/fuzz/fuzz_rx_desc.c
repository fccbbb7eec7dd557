// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: forged RX descriptors and frames of any length. Whatever the
 * bytes, a descriptor the check accepts lies inside its chunk, and the
 * rewrite of an accepted frame stays inside it; the check never crashes,
 * with bounds on (drop policy) or off.
 */
#include <hdp/fwd.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static struct hdp_pool *pool[2];

static struct hdp_pool *make(const char *name, const char *spec)
{
	static struct hdp_harden_config cfg;
	struct hdp_pool *p = hdp_pool_create(&(struct hdp_pool_params){
		.name = name, .obj_size = 2048, .obj_align = 2048, .obj_count = 16,
		.mem = HDP_MEM_PLAIN,
	});

	hdp_harden_config_init(&cfg);
	hdp_harden_config_declare(&cfg, name);
	if (!p || hdp_harden_config_parse_string(&cfg, spec, "fuzz") ||
	    hdp_pool_configure(p, &cfg))
		abort();
	return p;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hdp_port_cfg out = { .dst_mac = { 2, 0, 0, 0, 0, 2 } };

	fuzz_quiet();
	if (!pool[0]) {
		pool[0] = make("umem", "on_violation=drop,tag=off");
		pool[1] = make("umem2", "bounds=off,tag=off");
	}
	for (size_t off = 0; off + 13 <= size; off += 13) {
		uint64_t addr;
		uint32_t len;
		void *frame;
		struct hdp_pool_region lay;
		struct hdp_pool *p = pool[data[off + 12] & 1];

		memcpy(&addr, data + off, 8);
		memcpy(&len, data + off + 8, 4);
		if (data[off + 12] & 2)
			addr %= 16 * 2048 + 4096;	/* near the edges, often */
		if (data[off + 12] & 4)
			len %= 2100;
		if (hdp_fwd_rx_desc(p, addr, len, &frame))
			continue;
		hdp_pool_region(p, &lay);
		if ((char *)frame < (char *)lay.base ||
		    (char *)frame + len > (char *)lay.base + (addr / 2048 + 1) * 2048)
			abort();	/* accepted, yet outside its chunk */
		hdp_fwd_rewrite((enum hdp_fwd_mode)(data[off + 12] >> 3 & 3) % 3, frame,
				len, &out);
	}
	return 0;
}
