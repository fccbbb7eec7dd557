// SPDX-License-Identifier: BSD-3-Clause
/* The test is the build: each only_*.c included one header and nothing else. */
#include <stdio.h>

int main(void)
{
	puts("every public header compiles on its own");
	return 0;
}
