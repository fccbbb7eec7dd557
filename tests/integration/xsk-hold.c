// SPDX-License-Identifier: BSD-3-Clause
/*
 * xsk-hold IF QUEUE SECONDS: hold an AF_XDP socket bound to IF's QUEUE (no
 * XDP program of its own) for SECONDS, then close it, as another AF_XDP
 * application would. Prints "held" once bound. For run-queue-wait.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xdp/xsk.h>

#define FRAMES 64
#define FRAME_SIZE 4096

int main(int argc, char **argv)
{
	struct xsk_socket_config scfg = {
		.rx_size = FRAMES,
		.tx_size = FRAMES,
		.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD,
	};
	struct xsk_umem_config ucfg = {
		.fill_size = FRAMES, .comp_size = FRAMES, .frame_size = FRAME_SIZE,
	};
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rx;
	struct xsk_socket *xsk;
	struct xsk_umem *umem;
	void *mem;
	int ret;

	if (argc != 4) {
		fprintf(stderr, "usage: xsk-hold IF QUEUE SECONDS\n");
		return 2;
	}
	if (posix_memalign(&mem, 4096, FRAMES * FRAME_SIZE))
		return 1;
	ret = xsk_umem__create(&umem, mem, FRAMES * FRAME_SIZE, &fill, &comp, &ucfg);
	if (!ret)
		ret = xsk_socket__create(&xsk, argv[1], (unsigned)atoi(argv[2]), umem, &rx, &tx,
					 &scfg);
	if (ret) {
		fprintf(stderr, "xsk-hold: %s:%s: %s\n", argv[1], argv[2], strerror(-ret));
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	usleep((useconds_t)(atof(argv[3]) * 1e6));
	xsk_socket__delete(xsk);
	xsk_umem__delete(umem);
	free(mem);
	return 0;
}
