// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-gen: send an exact number of Ethernet/IPv4/UDP frames out of one
 * interface (AF_PACKET, sendmmsg in batches; paced with --rate, a batch
 * holds only the frames that are due), for tests, the demo and
 * benchmarks. Frames are laid out as frame.h says: a sequence number, a
 * CRC32C over the payload, their own length, a payload that changes from
 * frame to frame, so hdp-sink --verify can check every byte. Lengths run
 * from 14 (runts below 60) to 9014 (a full frame at MTU 9000): one length,
 * a range mixed frame by frame, or IMIX. --flows N gives frames N address
 * and port 4-tuples, so that the kernel's flow hash (and a NIC's RSS)
 * spreads them over queues. --corrupt and --truncate spoil every K-th frame
 * on purpose, to prove that a verifier catches it. --stamp sends one frame
 * at a time with its send time written into it just before the send, for
 * hdp-bench latency (hdp-sink --latency reads it).
 */
#include "count.h"
#include "frame.h"
#include "pace.h"
#include "sizes.h"

#include <hdp/fwd.h>

#include <errno.h>
#include <getopt.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hdp-gen --iface IF [--count N] [--size BYTES|MIN-MAX|imix] [--rate PPS]\n"
		"               [--flows N] [--dst-mac MAC] [--src-mac MAC]\n"
		"               [--corrupt K] [--truncate K] [--stamp]\n"
		"  --count N      frames to send (default 1000, at most 4294967296; 0: until\n"
		"                 SIGINT)\n"
		"  --size BYTES   frame length without FCS, 14..9014 (default 60; below\n"
		"                 60 makes runts; 9014 is a full frame at MTU 9000); the\n"
		"                 interface's MTU must carry it (exit 2 if not)\n"
		"         MIN-MAX every length in between, at random, so frames grow\n"
		"                 and shrink\n"
		"         imix    simple IMIX, 7:4:1 of 60, 590 and 1514 bytes (64, 594\n"
		"                 and 1518 on the wire with FCS), interleaved\n"
		"  --rate PPS     pace to this rate, frame by frame (default: as fast as\n"
		"                 possible)\n"
		"  --stamp        one frame per send, each with its send time\n"
		"                 (CLOCK_MONOTONIC) written into it just before, for\n"
		"                 hdp-sink --latency; frames of 60 bytes or more\n"
		"  --flows N      N flows (addresses and UDP ports), frame after frame in\n"
		"                 turn, 1..65535 (default 1), for queues to share them\n"
		"  --corrupt K    flip a bit in the last byte of every K-th frame after its\n"
		"                 checksum was computed (a test of the verifier)\n"
		"  --truncate K   send every K-th frame a quarter short of the length its\n"
		"                 headers state (a test of the verifier)\n"
		"Every frame of 54 bytes or more carries a sequence number (0, 1, 2, ...), its\n"
		"length and a CRC32C of its payload, for hdp-sink --verify; shorter frames\n"
		"carry none and use none up (layout: tools/hdp-gen/frame.h).\n");
}

/* 0 if frames of up to @max bytes fit @ifname's MTU; else says why, exit status 2. */
static int check_mtu(int fd, const char *ifname, const struct hdp_gen_sizes *sizes)
{
	struct ifreq ifr = { 0 };
	char name[40];

	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFMTU, &ifr)) {
		fprintf(stderr, "hdp-gen: MTU of %s: %s\n", ifname, strerror(errno));
		return 1;
	}
	if (sizes->max <= (unsigned)ifr.ifr_mtu + HDP_GEN_ETH_HLEN)
		return 0;
	hdp_gen_sizes_name(sizes, name, sizeof(name));
	fprintf(stderr,
		"hdp-gen: --size %s does not fit %s: its MTU %d carries frames of at most %u bytes; "
		"a %u-byte frame needs an MTU of %u\n",
		name, ifname, ifr.ifr_mtu, ifr.ifr_mtu + HDP_GEN_ETH_HLEN, sizes->max,
		sizes->max - HDP_GEN_ETH_HLEN);
	return 2;
}

/* Spoil what --corrupt and --truncate ask for; returns the length to send. */
static unsigned spoil(uint8_t *f, unsigned len, uint64_t seq, uint64_t corrupt,
		      uint64_t truncate)
{
	if (corrupt && (seq + 1) % corrupt == 0)
		f[len - 1] ^= 0x01;
	if (truncate && (seq + 1) % truncate == 0) {
		unsigned cut = len / 4 ? len / 4 : 1;

		len = len - cut < HDP_GEN_ETH_HLEN ? HDP_GEN_ETH_HLEN : len - cut;
	}
	return len;
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
		{ "corrupt", required_argument, NULL, 'c' },
		{ "truncate", required_argument, NULL, 't' },
		{ "stamp", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	static uint8_t frames[BATCH][HDP_GEN_FRAME_MAX];
	uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x02 }, src[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	const char *ifname = NULL;
	uint64_t count = 1000, rate = 0, flows = 1, corrupt = 0, truncate = 0;
	uint64_t sent = 0;	/* 64 bits where long is 32: pacing past 2^32 frames */
	uint32_t numbered = 0;	/* sequence numbers used: frames that carry one */
	uint32_t seq_after[BATCH];	/* numbered, once a batch's frame I is sent */
	unsigned long long bytes = 0;
	struct hdp_gen_sizes sizes = { .min = 60, .max = 60 };
	bool src_given = false, stamp = false;
	uint64_t t0_ns;
	struct sockaddr_ll sll = { .sll_family = AF_PACKET };
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	struct timespec t0, t1;
	char name[40];
	double secs;
	int opt, idx = 0, fd, err;

	while ((opt = getopt_long(argc, argv, "", opts, &idx)) != -1) {
		switch (opt) {
		case 'i': ifname = optarg; break;
		case 'n':
			/* Sequence numbers are 32 bits: a counted run is at most 2^32 frames. */
			if (hdp_gen_parse_count(optarg, 0, UINT64_C(1) << 32, &count))
				goto bad;
			break;
		case 's':
			if (hdp_gen_sizes_parse(optarg, &sizes))
				goto bad;
			break;
		case 'r':
			if (hdp_gen_parse_count(optarg, 0, UINT64_MAX, &rate))
				goto bad;
			break;
		case 'f':
			if (hdp_gen_parse_count(optarg, 1, HDP_GEN_FLOWS_MAX, &flows))
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
		case 'c':
			if (hdp_gen_parse_count(optarg, 1, UINT64_MAX, &corrupt))
				goto bad;
			break;
		case 't':
			if (hdp_gen_parse_count(optarg, 1, UINT64_MAX, &truncate))
				goto bad;
			break;
		case 'T': stamp = true; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!ifname || optind != argc) {
		usage(stderr);
		return 2;
	}
	if (stamp && (corrupt || truncate)) {
		fprintf(stderr, "hdp-gen: --stamp measures latency; --corrupt and --truncate are for "
			"hdp-sink --verify runs, without it\n");
		return 2;
	}
	if (stamp && sizes.min < HDP_GEN_STAMPED_MIN) {
		fprintf(stderr, "hdp-gen: --stamp needs frames of %u bytes or more (--size)\n",
			HDP_GEN_STAMPED_MIN);
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
	/* Refused up front: otherwise sendmmsg fails frame by frame with EMSGSIZE. */
	err = check_mtu(fd, ifname, &sizes);
	if (err) {
		close(fd);
		return err;
	}
	hdp_gen_frame_init();
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	hdp_gen_pace_init();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	t0_ns = hdp_gen_now_ns();
	while (!stop && (count == 0 || sent < count)) {
		unsigned n = count && count - sent < BATCH ? (unsigned)(count - sent) : BATCH;
		uint32_t seq = numbered;
		int r;

		/* Stamped: one frame a send, or the stamp tells the batch's wait. */
		if (stamp)
			n = 1;
		/* Paced: the frames due, built before the wait for the first of them. */
		n = hdp_gen_pace_batch(t0_ns, hdp_gen_now_ns(), sent, rate, n);
		for (unsigned i = 0; i < n; i++) {
			unsigned size = hdp_gen_size_of(&sizes, (uint32_t)(sent + i));
			uint32_t flow = (uint32_t)((sent + i) % flows);

			if (stamp)
				hdp_gen_frame_build_stamped(frames[i], size, dst, src, seq, flow);
			else
				hdp_gen_frame_build(frames[i], size, dst, src, seq, flow);
			seq += hdp_gen_frame_numbered(size);
			seq_after[i] = seq;
			if (corrupt | truncate)
				size = spoil(frames[i], size, sent + i, corrupt, truncate);
			iov[i] = (struct iovec){ frames[i], size };
			msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
		}
		hdp_gen_pace_until(t0_ns, sent, rate, &stop);
		if (stop)
			break;
		/* Last, just before the send: the time the frame waits from here on. */
		if (stamp)
			hdp_gen_frame_stamp(frames[0], hdp_gen_now_ns());
		r = sendmmsg(fd, msgs, n, 0);
		if (r < 0) {
			if (errno == ENOBUFS || errno == EAGAIN || errno == EINTR)
				continue;
			fprintf(stderr, "hdp-gen: send on %s: %s\n", ifname, strerror(errno));
			break;
		}
		for (int i = 0; i < r; i++)
			bytes += iov[i].iov_len;
		if (r > 0)
			numbered = seq_after[r - 1];
		sent += (unsigned)r;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	hdp_gen_sizes_name(&sizes, name, sizeof(name));
	/* One line; scripts read the count as its second word. */
	printf("sent %llu frames of %s bytes in %.2f s (%.0f pps, %.3f Gbit/s); %llu bytes\n",
	       (unsigned long long)sent, name, secs, secs > 0 ? (double)sent / secs : 0.0,
	       secs > 0 ? (double)bytes * 8 / secs / 1e9 : 0.0, bytes);
	close(fd);
	return 0;
bad:
	if (opt == 's')
		fprintf(stderr, "hdp-gen: bad value '%s' for --size: expected BYTES, MIN-MAX (MIN "
			"no more than MAX) or imix, lengths from %u to %u bytes without FCS\n",
			optarg, HDP_GEN_FRAME_MIN, HDP_GEN_FRAME_MAX);
	else
		fprintf(stderr, "hdp-gen: bad value '%s' for --%s\n", optarg, opts[idx].name);
	usage(stderr);
	return 2;
}
