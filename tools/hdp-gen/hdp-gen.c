// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-gen: send an exact number of Ethernet/IPv4/UDP frames out of one
 * interface (AF_PACKET, sendmmsg in batches), for tests and the demo.
 * Frames carry a sequence number; --size below 60 makes runts, and a
 * range MIN-MAX mixes lengths that grow and shrink from frame to frame.
 * --flows N gives frames N different address and port 4-tuples, so that
 * the kernel's flow hash (and a NIC's RSS) spreads them over queues.
 */
#include <hdp/fwd.h>

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/ip.h>
#include <netinet/udp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define FRAME_MAX 1514

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static uint16_t csum(const void *p, size_t n)
{
	const uint16_t *w = p;
	uint32_t sum = 0;

	for (; n > 1; n -= 2)
		sum += *w++;
	if (n)
		sum += *(const uint8_t *)w;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * Ethernet + IPv4 + UDP (when it fits), then the sequence number. The
 * headers are built in aligned locals and copied: at offset 14 of a frame
 * an IPv4 header is not 4-byte aligned.
 */
static void build(uint8_t *f, unsigned size, const uint8_t *dst, const uint8_t *src,
		  uint32_t seq, uint32_t flow)
{
	struct ether_header eth = { .ether_type = htons(ETHERTYPE_IP) };
	struct iphdr ip = { 0 };
	struct udphdr udp = { 0 };
	unsigned l3 = size > sizeof(eth) ? size - (unsigned)sizeof(eth) : 0;

	memset(f, 0, size);
	memcpy(eth.ether_dhost, dst, 6);
	memcpy(eth.ether_shost, src, 6);
	memcpy(f, &eth, sizeof(eth));
	if (l3 >= sizeof(ip) + sizeof(udp) + 4) {
		ip.version = 4;
		ip.ihl = 5;
		ip.ttl = 64;
		ip.protocol = IPPROTO_UDP;
		ip.tot_len = htons((uint16_t)l3);
		/* 198.18.0.0/15, the benchmarking range: sources in .18, destinations in .19. */
		ip.saddr = htonl(0xc6120001 + flow);
		ip.daddr = htonl(0xc6130001 + flow);
		ip.check = csum(&ip, sizeof(ip));
		udp.source = htons((uint16_t)(flow ? 1024 + flow % 60000 : 9));
		udp.dest = htons((uint16_t)(flow ? 1024 + (flow * 7919u) % 60000 : 9));
		udp.len = htons((uint16_t)(l3 - sizeof(ip)));
		memcpy(f + sizeof(eth), &ip, sizeof(ip));
		memcpy(f + sizeof(eth) + sizeof(ip), &udp, sizeof(udp));
		memcpy(f + sizeof(eth) + sizeof(ip) + sizeof(udp), &seq, 4);
		/* A payload with no zero byte: left behind, it is never taken for a wipe. */
		for (unsigned i = sizeof(eth) + sizeof(ip) + sizeof(udp) + 4; i < size; i++)
			f[i] = (uint8_t)(0x80 | ((seq + i) & 0x7f));
	}
}

/* "N" or "MIN-MAX", each 14..FRAME_MAX: 0 or -1. */
static int parse_sizes(const char *s, unsigned *min, unsigned *max)
{
	char *end;

	*min = (unsigned)strtoul(s, &end, 10);
	*max = *min;
	if (*end == '-' && end != s)
		*max = (unsigned)strtoul(end + 1, &end, 10);
	if (*end || *s == '-' || *min < 14 || *max > FRAME_MAX || *min > *max)
		return -1;
	return 0;
}

/* The length of frame @seq: a hash, so a rerun sends the same mix. */
static unsigned size_of(uint32_t seq, unsigned min, unsigned max)
{
	uint32_t h = seq * 2654435761u;

	h ^= h >> 15;
	return min + h % (max - min + 1);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hdp-gen --iface IF [--count N] [--size BYTES|MIN-MAX] [--rate PPS]\n"
		"               [--flows N] [--dst-mac MAC] [--src-mac MAC]\n"
		"  --count N     frames to send (default 1000; 0: until SIGINT)\n"
		"  --size BYTES  frame length without FCS, 14..1514 (default 60;\n"
		"                below 60 makes runts); MIN-MAX: every length in\n"
		"                between, at random, so frames grow and shrink\n"
		"  --rate PPS    pace to this rate (default: as fast as possible)\n"
		"  --flows N     N flows (addresses and UDP ports), frame after frame in\n"
		"                turn, 1..65535 (default 1), for queues to share them\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "iface", required_argument, NULL, 'i' },
		{ "count", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "rate", required_argument, NULL, 'r' },
		{ "flows", required_argument, NULL, 'f' },
		{ "dst-mac", required_argument, NULL, 'd' },
		{ "src-mac", required_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static uint8_t frames[BATCH][FRAME_MAX];
	uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x02 }, src[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	const char *ifname = NULL;
	unsigned long count = 1000, rate = 0, sent = 0, flows = 1;
	unsigned size_min = 60, size_max = 60;
	bool src_given = false;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct timespec t0, t1;
	double secs;
	char *end;
	int opt, fd;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'n':
			count = strtoul(optarg, &end, 10);
			if (*end || *optarg == '-')
				goto bad;
			break;
		case 's':
			if (parse_sizes(optarg, &size_min, &size_max))
				goto bad;
			break;
		case 'r':
			rate = strtoul(optarg, &end, 10);
			if (*end || *optarg == '-')
				goto bad;
			break;
		case 'f':
			flows = strtoul(optarg, &end, 10);
			if (*end || *optarg == '-' || flows < 1 || flows > 65535)
				goto bad;
			break;
		case 'd':
			if (hdp_mac_parse(optarg, dst))
				goto bad;
			break;
		case 'S':
			if (hdp_mac_parse(optarg, src))
				goto bad;
			src_given = true;
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!ifname || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (!src_given)
		hdp_mac_of_interface(ifname, src);
	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "hdp-gen: interface %s: %s\n", ifname, strerror(errno));
		return 1;
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "hdp-gen: AF_PACKET on %s: %s (needs CAP_NET_RAW)\n", ifname,
			strerror(errno));
		return 1;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (!stop && (count == 0 || sent < count)) {
		unsigned n = count && count - sent < BATCH ? (unsigned)(count - sent) : BATCH;
		int r;

		for (unsigned i = 0; i < n; i++) {
			unsigned size = size_of((uint32_t)(sent + i), size_min, size_max);

			build(frames[i], size, dst, src, (uint32_t)(sent + i),
			      (uint32_t)((sent + i) % flows));
			iov[i] = (struct iovec){ frames[i], size };
			msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
		}
		r = sendmmsg(fd, msgs, n, 0);
		if (r < 0) {
			if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR)
				continue;
			fprintf(stderr, "hdp-gen: send on %s: %s\n", ifname, strerror(errno));
			break;
		}
		sent += (unsigned)r;
		if (rate) {
			struct timespec now;
			double due;

			clock_gettime(CLOCK_MONOTONIC, &now);
			due = (double)sent / (double)rate -
			      ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9);
			if (due > 0) {
				struct timespec nap = { (time_t)due, (long)((due - (double)(time_t)due) * 1e9) };

				nanosleep(&nap, NULL);
			}
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	if (size_min == size_max)
		printf("sent %lu frames of %u bytes in %.2f s (%.0f pps)\n", sent, size_min, secs,
		       secs > 0 ? (double)sent / secs : 0.0);
	else
		printf("sent %lu frames of %u-%u bytes in %.2f s (%.0f pps)\n", sent, size_min,
		       size_max, secs, secs > 0 ? (double)sent / secs : 0.0);
	close(fd);
	return 0;
bad:
	fprintf(stderr, "hdp-gen: bad value '%s'\n", optarg);
	usage(stderr);
	return 2;
}
