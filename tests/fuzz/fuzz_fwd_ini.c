// SPDX-License-Identifier: BSD-3-Clause
/* libFuzzer: any hdp-fwd INI file is loaded or refused, never crashes. */
#include <hdp/fwd.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct hdp_fwd_cfg cfg;
	char path[64];
	int fd = memfd_create("fuzz.ini", 0);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	fuzz_quiet();
	hdp_fwd_cfg_defaults(&cfg);
	if (hdp_fwd_cfg_load(&cfg, path) == 0)
		hdp_fwd_cfg_check(&cfg);
	close(fd);
	return 0;
}
