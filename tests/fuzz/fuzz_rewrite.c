// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: the packet parsing behind macswap and l2 on frames of any
 * length and content, in a buffer of exactly that length (ASan sees one
 * byte too far). Each mode must do exactly what it says: io touches
 * nothing, runts are refused untouched, the others write the two MAC
 * addresses and not one byte past them.
 */
#include <hdp/fwd.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct hdp_port_cfg out = {
		.src_mac = { 2, 0, 0, 0, 0, 0xaa }, .dst_mac = { 2, 0, 0, 0, 0, 0xbb },
	};
	enum hdp_fwd_mode mode;
	uint32_t len;
	uint8_t *frame;
	int ret;

	if (size < 1)
		return 0;
	mode = (enum hdp_fwd_mode)(data[0] % 3);
	len = (uint32_t)(size - 1);
	frame = malloc(len ? len : 1);
	if (!frame)
		return 0;
	memcpy(frame, data + 1, len);
	ret = hdp_fwd_rewrite(mode, frame, len, &out);
	if (mode == HDP_FWD_IO || len < HDP_ETH_ZLEN) {
		if ((ret != 0) != (mode != HDP_FWD_IO) || memcmp(frame, data + 1, len))
			abort();	/* io or a refused runt: not one byte changed */
	} else {
		const uint8_t *dst = mode == HDP_FWD_MACSWAP ? data + 7 : out.dst_mac;
		const uint8_t *src = mode == HDP_FWD_MACSWAP ? data + 1 : out.src_mac;

		if (ret || memcmp(frame, dst, 6) || memcmp(frame + 6, src, 6) ||
		    memcmp(frame + 12, data + 13, len - 12))
			abort();
	}
	free(frame);
	return 0;
}
