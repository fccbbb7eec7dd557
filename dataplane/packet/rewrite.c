// SPDX-License-Identifier: BSD-3-Clause
/* Header rewrites of the forwarding modes. */
#include <hdp/fwd.h>

#include <errno.h>
#include <string.h>

int hdp_fwd_rewrite(enum hdp_fwd_mode mode, uint8_t *frame, uint32_t len,
		    const struct hdp_port_cfg *out)
{
	uint8_t tmp[6];

	if (mode == HDP_FWD_IO)
		return 0;
	/* Modes that touch headers want a whole Ethernet frame. */
	if (len < HDP_ETH_ZLEN)
		return -EINVAL;
	if (mode == HDP_FWD_MACSWAP) {
		memcpy(tmp, frame, 6);
		memcpy(frame, frame + 6, 6);
		memcpy(frame + 6, tmp, 6);
	} else {
		memcpy(frame, out->dst_mac, 6);
		memcpy(frame + 6, out->src_mac, 6);
	}
	return 0;
}
