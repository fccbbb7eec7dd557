// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-sink: the end of the line. Counts every frame arriving on an
 * interface with an XDP_DROP program (exact, per CPU, at the driver), or
 * captures the first frames with AF_PACKET so tests can look at them.
 *   hdp-sink --iface IF [--duration S] [--expect N] [--idle S] [--every S]
 *   hdp-sink --iface IF --capture N [--duration S]
 */
#include <hdp/xdp_prog.h>

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

struct counts {
	uint64_t packets, bytes;
};

static int read_counts(int map, struct counts *total)
{
	int ncpus = libbpf_num_possible_cpus();
	struct counts *per = calloc((size_t)ncpus, sizeof(*per));
	uint32_t key = 0;

	if (!per)
		return -1;
	memset(total, 0, sizeof(*total));
	if (bpf_map_lookup_elem(map, &key, per)) {
		free(per);
		return -1;
	}
	for (int i = 0; i < ncpus; i++) {
		total->packets += per[i].packets;
		total->bytes += per[i].bytes;
	}
	free(per);
	return 0;
}

static int count(const char *ifname, double duration, uint64_t expect, double idle,
		 double every)
{
	struct hdp_xdp_prog *p = hdp_xdp_prog_load(hdp_bpf_sink_count,
						   hdp_bpf_sink_count_len, "hdp_sink_count");
	struct counts c = { 0 }, last = { 0 };
	double start = now_s(), last_change = start, next_report = start + every;
	int map;

	if (!p || hdp_xdp_prog_attach(p, ifname))
		return 1;
	map = hdp_xdp_prog_map_fd(p, "sink_counts");
	printf("counting on %s\n", ifname);
	fflush(stdout);
	while (!stop) {
		struct timespec nap = { .tv_nsec = 20000000 };
		double t;

		nanosleep(&nap, NULL);
		read_counts(map, &c);
		t = now_s();
		if (c.packets != last.packets)
			last_change = t;
		if (every > 0 && t >= next_report) {
			printf("at %.3f s: %llu frames\n", t - start,
			       (unsigned long long)c.packets);
			fflush(stdout);
			next_report += every;
		}
		last = c;
		if (expect && c.packets >= expect)
			break;
		if (duration > 0 && t - start >= duration)
			break;
		if (idle > 0 && c.packets && t - last_change >= idle)
			break;
	}
	read_counts(map, &c);
	printf("received %llu frames, %llu bytes\n", (unsigned long long)c.packets,
	       (unsigned long long)c.bytes);
	hdp_xdp_prog_close(p);
	return 0;
}

static int capture(const char *ifname, unsigned n, double duration)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	unsigned char frame[2048];
	double start = now_s();
	unsigned got = 0;
	int fd;

	sll.sll_ifindex = (int)if_nametoindex(ifname);
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (!sll.sll_ifindex || fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "hdp-sink: capture on %s: %s\n", ifname, strerror(errno));
		return 1;
	}
	printf("capturing on %s\n", ifname);
	fflush(stdout);
	while (!stop && got < n && (duration <= 0 || now_s() - start < duration)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t len;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		len = recv(fd, frame, sizeof(frame), 0);
		if (len <= 0)
			continue;
		printf("frame %u len %zd:", got, len);
		for (ssize_t i = 0; i < len && i < 64; i++)
			printf(" %02x", frame[i]);
		printf("\n");
		got++;
	}
	printf("captured %u frames\n", got);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "duration", required_argument, NULL, 'd' },
		{ "expect", required_argument, NULL, 'e' },
		{ "idle", required_argument, NULL, 'I' },
		{ "capture", required_argument, NULL, 'c' },
		{ "every", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *ifname = NULL;
	double duration = 0, idle = 0, every = 0;
	unsigned long expect = 0, cap = 0;
	char *end;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'd': duration = strtod(optarg, &end); if (*end || duration < 0) goto bad; break;
		case 'I': idle = strtod(optarg, &end); if (*end || idle < 0) goto bad; break;
		case 'e': expect = strtoul(optarg, &end, 10); if (*end) goto bad; break;
		case 'c': cap = strtoul(optarg, &end, 10); if (*end || !cap) goto bad; break;
		case 'E': every = strtod(optarg, &end); if (*end || every < 0) goto bad; break;
		case 'h':
			printf("usage: hdp-sink --iface IF [--duration S] [--expect N] [--idle S] [--capture N]\n");
			return 0;
		default:
			return 2;
		}
	}
	if (!ifname || optind != argc) {
		fprintf(stderr, "usage: hdp-sink --iface IF [--duration S] [--expect N] [--idle S] [--capture N]\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	return cap ? capture(ifname, (unsigned)cap, duration) : count(ifname, duration, expect, idle, every);
bad:
	fprintf(stderr, "hdp-sink: bad value '%s'\n", optarg);
	return 2;
}
