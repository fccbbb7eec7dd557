/* SPDX-License-Identifier: BSD-3-Clause */
/* What every fuzz target shares: the entry point, and silence. */
#ifndef HDP_FUZZ_H
#define HDP_FUZZ_H

#include <hdp/log.h>

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Rejected input is the common case: its messages are not the point. */
static inline void fuzz_quiet_sink(void *ctx, enum hdp_log_level level,
				   const char *msg)
{
	(void)ctx;
	(void)level;
	(void)msg;
}

static inline void fuzz_quiet(void)
{
	hdp_log_set_sink(fuzz_quiet_sink, NULL);
}

#endif /* HDP_FUZZ_H */
