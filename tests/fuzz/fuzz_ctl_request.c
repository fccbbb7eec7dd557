// SPDX-License-Identifier: BSD-3-Clause
/*
 * libFuzzer: hdp-ctl's request parser and every answer, as the control
 * socket serves them, into reply buffers of any size (exactly that size:
 * ASan sees a byte too far). The forwarder answering is a real one on
 * in-memory rings that has forwarded a few bursts, so stats and pools are
 * not empty; "set" requests really change its pool's profile.
 */
#include <hdp/ctl.h>
#include <hdp/fwd.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"

static struct hdp_fwd *forwarder(void)
{
	static struct hdp_fwd_cfg cfg;
	static const uint8_t packet[64] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0 };
	struct hdp_fwd *f;

	hdp_fwd_cfg_defaults(&cfg);
	if (hdp_fwd_cfg_set_ports(&cfg, "a,b", "fuzz") || hdp_fwd_cfg_check(&cfg))
		abort();
	f = hdp_fwd_create_loopback(&cfg);
	if (!f)
		abort();
	for (int i = 0; i < 4; i++)
		hdp_fwd_loopback_step(f, packet, sizeof(packet), 32);
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hdp_fwd *f;
	char req[HDP_CTL_REQUEST_MAX + 1];
	size_t len, got;
	char *reply;

	fuzz_quiet();
	if (!f)
		f = forwarder();
	if (size < 2)
		return 0;
	/* The server's buffer is 64 KiB; smaller ones find truncation bugs. */
	len = data[0] & 1 ? 65536 : 1 + (size_t)data[1] * 4;
	got = size - 2 < HDP_CTL_REQUEST_MAX ? size - 2 : HDP_CTL_REQUEST_MAX;
	memcpy(req, data + 2, got);
	reply = malloc(len);
	if (!reply)
		return 0;
	hdp_ctl_answer(f, hdp_ctl_request_line(req, got), reply, len);
	if (strnlen(reply, len) == len)
		abort();	/* the reply must end inside its buffer */
	free(reply);
	return 0;
}
