// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-sink: the end of the line. Counts every frame arriving on an
 * interface with an XDP_DROP program (exact, per CPU, at the driver, whole
 * frames of any number of buffers), checks every frame hdp-gen sent byte
 * for byte (--verify, verify.c), or captures the first frames with
 * AF_PACKET so tests can look at them.
 */
#include "count.h"
#include "sink.h"

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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static void on_signal(int sig)
{
	(void)sig;
	sink_stop = 1;
}

static int count(const char *ifname, const struct sink_opts *o)
{
	struct hdp_xdp_prog *p = hdp_xdp_prog_load(hdp_bpf_sink_count,
						   hdp_bpf_sink_count_len, "hdp_sink_count");
	struct sink_counts c = { 0 }, last = { 0 };
	double start = sink_now(), last_change = start, next_report = start + o->every;
	int map;

	if (!p || hdp_xdp_prog_attach(p, ifname)) {
		hdp_xdp_prog_close(p);
		return 1;
	}
	map = hdp_xdp_prog_map_fd(p, "sink_counts");
	printf("counting on %s\n", ifname);
	fflush(stdout);
	while (!sink_stop) {
		struct timespec nap = { .tv_nsec = 20000000 };
		double t;

		nanosleep(&nap, NULL);
		sink_read_counts(map, &c);
		t = sink_now();
		if (c.packets != last.packets)
			last_change = t;
		if (o->every > 0 && t >= next_report) {
			printf("at %.3f s: %llu frames\n", t - start,
			       (unsigned long long)c.packets);
			fflush(stdout);
			next_report += o->every;
		}
		last = c;
		if (o->expect && c.packets >= o->expect)
			break;
		if (o->duration > 0 && t - start >= o->duration)
			break;
		if (o->idle > 0 && c.packets && t - last_change >= o->idle)
			break;
	}
	sink_read_counts(map, &c);
	printf("received %llu frames, %llu bytes\n", (unsigned long long)c.packets,
	       (unsigned long long)c.bytes);
	hdp_xdp_prog_close(p);
	return 0;
}

#define CAPTURE_MAX 1000000	/* printed frames: more is a log, not a capture */

static int capture(const char *ifname, unsigned n, double duration)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	static unsigned char frame[16384];
	double start = sink_now();
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
	while (!sink_stop && got < n && (duration <= 0 || sink_now() - start < duration)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t len;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		/* MSG_TRUNC: the frame's own length, even past the buffer. */
		len = recv(fd, frame, sizeof(frame), MSG_TRUNC);
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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hdp-sink --iface IF [--verify] [--duration S] [--expect N] [--idle S]\n"
		"                [--every S]\n"
		"       hdp-sink --iface IF --capture N [--duration S]\n"
		"       hdp-sink --iface IF --latency [--duration S] [--expect N] [--idle S]\n"
		"  (default)     count every frame and its bytes with an XDP program, and\n"
		"                drop it: full rate, frames of any size (marked for\n"
		"                fragments, so it attaches at MTU 9000 too)\n"
		"  --verify      also check every frame hdp-gen sent, byte for byte: its\n"
		"                CRC32C, its length, its payload, its sequence number;\n"
		"                counts corrupted, truncated, reordered, duplicated, lost\n"
		"                and foreign frames; exit 1 if any (tens of thousands of\n"
		"                frames a second, not full rate); frames below 54 bytes\n"
		"                carry no number: checked, and counted as unnumbered\n"
		"  --capture N   print the first N frames (first 64 bytes of each)\n"
		"  --latency     take every frame hdp-gen --stamp sent: the time since its\n"
		"                stamp at the driver's XDP hook, into a histogram; at the\n"
		"                end one JSON line: percentiles, min, mean, max, frames\n"
		"                reordered and missing, the histogram (then dropped)\n"
		"  --duration S  stop after S seconds\n"
		"  --expect N    stop after N frames; with --verify, N is the run hdp-gen\n"
		"                sent: N frames must arrive, every sequence number of the\n"
		"                run among them\n"
		"  --idle S      stop S seconds after the last frame (once one came)\n"
		"  --every S     print the count every S seconds\n");
}

/*
 * Seconds, 0 to 1e9, a decimal (an exponent allowed; no sign, space, hex,
 * nan or inf); 0 (or not given) means no limit. Too small to hold is 0.
 */
static int seconds(const char *v, double *out)
{
	char *end;

	if (!((*v >= '0' && *v <= '9') || *v == '.') || strpbrk(v, "xX"))
		return -1;
	*out = strtod(v, &end);
	return *end || !(*out >= 0) || *out > 1e9 ? -1 : 0;
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
		{ "verify", no_argument, NULL, 'v' },
		{ "latency", no_argument, NULL, 'L' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *ifname = NULL;
	struct sink_opts o = { 0 };
	uint64_t cap = 0;
	int opt, idx = 0, verify = 0, latency = 0;

	while ((opt = getopt_long(argc, argv, "", opts, &idx)) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'd': if (seconds(optarg, &o.duration)) goto bad; break;
		case 'I': if (seconds(optarg, &o.idle)) goto bad; break;
		/* Sequence numbers are 32 bits: a run is at most 2^32 frames. */
		case 'e': if (hdp_gen_parse_count(optarg, 0, UINT64_C(1) << 32, &o.expect)) goto bad; break;
		case 'c': if (hdp_gen_parse_count(optarg, 1, CAPTURE_MAX, &cap)) goto bad; break;
		case 'E': if (seconds(optarg, &o.every)) goto bad; break;
		case 'v': verify = 1; break;
		case 'L': latency = 1; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!ifname || optind != argc || (!!cap + verify + latency > 1)) {
		if (!!cap + verify + latency > 1)
			fprintf(stderr, "hdp-sink: --capture, --verify and --latency exclude each other\n");
		usage(stderr);
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (cap)
		return capture(ifname, (unsigned)cap, o.duration);
	if (latency)
		return sink_latency(ifname, &o);
	return verify ? sink_verify(ifname, &o) : count(ifname, &o);
bad:
	fprintf(stderr, "hdp-sink: bad value '%s' for --%s: %s\n", optarg, opts[idx].name,
		strchr("dIE", opt) ? "expected seconds, 0 to 1000000000" :
		opt == 'e' ? "expected frames, 0 to 4294967296" : "expected frames, 1 to 1000000");
	usage(stderr);
	return 2;
}
