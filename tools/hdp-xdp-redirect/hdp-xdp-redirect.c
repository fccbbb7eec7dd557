// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-xdp-redirect: kernel XDP redirect from one interface to another
 * (devmap), the contender hdp-fwd is measured against. Runs until SIGINT
 * or SIGTERM, then detaches (a BPF link: detached even if killed).
 *   hdp-xdp-redirect --in IF --out IF
 */
#include <hdp/xdp_prog.h>

#include <bpf/bpf.h>
#include <errno.h>
#include <getopt.h>
#include <net/if.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "in", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'o' },
		{ 0 },
	};
	const char *in = NULL, *out = NULL;
	struct hdp_xdp_prog *p;
	uint32_t key = 0, ifindex;
	int opt, map;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'i')
			in = optarg;
		else if (opt == 'o')
			out = optarg;
		else
			return 2;
	}
	if (!in || !out) {
		fprintf(stderr, "usage: hdp-xdp-redirect --in IF --out IF\n");
		return 2;
	}
	ifindex = if_nametoindex(out);
	if (!ifindex) {
		fprintf(stderr, "hdp-xdp-redirect: %s: %s\n", out, strerror(errno));
		return 1;
	}
	p = hdp_xdp_prog_load(hdp_bpf_redirect_devmap, hdp_bpf_redirect_devmap_len,
			      "hdp_redirect_devmap");
	if (!p)
		return 1;
	map = hdp_xdp_prog_map_fd(p, "out_dev");
	if (map < 0 || bpf_map_update_elem(map, &key, &ifindex, 0) ||
	    hdp_xdp_prog_attach(p, in)) {
		hdp_xdp_prog_close(p);
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	printf("redirecting %s -> %s\n", in, out);
	fflush(stdout);
	while (!stop)
		pause();
	hdp_xdp_prog_close(p);
	return 0;
}
