// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-sink --verify: every frame hdp-gen sent, checked byte for byte
 * (frame.h) and accounted for by its sequence number (seqs.h).
 *
 * How the frames are read, and why this way: the XDP program counts every
 * frame with all its bytes and passes it up (XDP_PASS); an AF_PACKET
 * socket reads it with recvmmsg into 16 KiB buffers, so a frame of several
 * buffers arrives as one copy, whole, and its true length comes with it
 * (MSG_TRUNC). The kernel builds the skb for XDP_PASS anyway, and packet
 * sockets have been doing this for decades: tens of thousands of 9000-byte
 * frames a second (and several hundred thousand small ones) are well within
 * reach of one core. The alternatives are worse for a verifier:
 * - AF_XDP with XDP_USE_SG: copy mode on veth anyway, libxdp 1.3.1 knows
 *   nothing of multi-buffer, and reassembling descriptor chains is code
 *   that could itself be wrong in the very way being tested for;
 * - in BPF with bpf_xdp_load_bytes: a CRC over 9000 bytes and one sequence
 *   bitmap for all CPUs are a fight with the verifier, and order across
 *   CPUs cannot be seen there.
 * What the socket cannot keep up with is not hidden: frames the XDP
 * program counted and the socket never delivered (its own drop counter,
 * PACKET_STATISTICS, says how many overflowed it) are "unread", and fail
 * the run like any other loss.
 */
#include "frame.h"
#include "seqs.h"
#include "sink.h"

#include <hdp/xdp_prog.h>

#include <arpa/inet.h>
#include <errno.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH 64
/* Past any frame hdp-gen makes (9014): longer ones are foreign, not cut. */
#define BUF_LEN 16384
/* Room for a burst the reader was not scheduled for: thousands of jumbo frames. */
#define RCVBUF (64 << 20)
/* Bad frames described one by one on stderr, before only the counts go on. */
#define REPORT_MAX 10

struct verify {
	struct seqs seqs;
	uint64_t frames, bytes;		/* read from the socket */
	uint64_t intact, corrupted, truncated, foreign;
	uint64_t reported;
	bool no_memory;
};

static int open_socket(const char *ifname)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int fd, one = 1, size = RCVBUF;

	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (!sll.sll_ifindex) {
		fprintf(stderr, "hdp-sink: interface %s: %s\n", ifname, strerror(errno));
		return -1;
	}
	fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "hdp-sink: AF_PACKET on %s: %s (needs CAP_NET_RAW)\n", ifname,
			strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	/* Frames this host sends are not frames it received. */
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	/* Past net.core.rmem_max with CAP_NET_ADMIN (which XDP needs anyway). */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &size, sizeof(size)))
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	return fd;
}

static const char *verdict_name(enum hdp_gen_verdict v)
{
	switch (v) {
	case HDP_GEN_INTACT: return "intact";
	case HDP_GEN_CORRUPTED: return "corrupted";
	case HDP_GEN_TRUNCATED: return "truncated";
	case HDP_GEN_FOREIGN: return "foreign";
	case HDP_GEN_UNNUMBERED: return "unnumbered";
	}
	return "?";
}

static void judge(struct verify *v, const uint8_t *f, size_t len)
{
	struct hdp_gen_check c;

	v->frames++;
	v->bytes += len;
	if (len > BUF_LEN) {
		c = (struct hdp_gen_check){ .verdict = HDP_GEN_FOREIGN,
					    .why = "longer than any frame hdp-gen makes" };
	} else if (hdp_gen_frame_check(f, len, &c) == HDP_GEN_INTACT) {
		v->intact++;
		if (seqs_add(&v->seqs, c.seq, c.flow))
			v->no_memory = true;
		return;
	} else if (c.verdict == HDP_GEN_UNNUMBERED) {
		v->intact++;
		seqs_add_unnumbered(&v->seqs);
		return;
	}
	switch (c.verdict) {
	case HDP_GEN_CORRUPTED: v->corrupted++; break;
	case HDP_GEN_TRUNCATED: v->truncated++; break;
	default: v->foreign++; break;
	}
	if (v->reported++ < REPORT_MAX)
		fprintf(stderr, "hdp-sink: frame %llu (%zu bytes, seq %u?, states %u bytes): %s: %s\n",
			(unsigned long long)v->frames - 1, len, c.seq, c.stated,
			verdict_name(c.verdict), c.why);
}

/* Read and judge what is queued, without waiting: frames read. */
static unsigned drain(int fd, struct verify *v)
{
	static uint8_t bufs[BATCH][BUF_LEN];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	unsigned total = 0;
	int r;

	do {
		for (unsigned i = 0; i < BATCH; i++) {
			iov[i] = (struct iovec){ bufs[i], BUF_LEN };
			msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
		}
		/* MSG_TRUNC: msg_len is the frame's length even past the buffer. */
		r = recvmmsg(fd, msgs, BATCH, MSG_DONTWAIT | MSG_TRUNC, NULL);
		for (int i = 0; i < r; i++)
			judge(v, bufs[i], msgs[i].msg_len);
		total += r > 0 ? (unsigned)r : 0;
	} while (r == BATCH);
	return total;
}

/* Wait for frames for up to @ms: frames read. */
static unsigned wait_and_drain(int fd, struct verify *v, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	return drain(fd, v);
}

static int report(const struct verify *v, const struct sink_counts *xdp, unsigned drops)
{
	uint64_t lost = seqs_lost(&v->seqs), extra = seqs_extra(&v->seqs);
	uint64_t unread = xdp->packets > v->frames ? xdp->packets - v->frames : 0;
	/* Nothing at all is no evidence: without --expect it would read "ok". */
	bool bad = v->corrupted || v->truncated || v->foreign || v->seqs.reordered ||
		   v->seqs.duplicated || extra || lost || unread || v->no_memory ||
		   !v->frames;

	printf("received %llu frames, %llu bytes\n", (unsigned long long)xdp->packets,
	       (unsigned long long)xdp->bytes);
	printf("verified frames=%llu bytes=%llu intact=%llu corrupted=%llu truncated=%llu "
	       "reordered=%llu duplicated=%llu lost=%llu foreign=%llu extra=%llu unread=%llu "
	       "unnumbered=%llu\n",
	       (unsigned long long)v->frames, (unsigned long long)v->bytes,
	       (unsigned long long)v->intact, (unsigned long long)v->corrupted,
	       (unsigned long long)v->truncated, (unsigned long long)v->seqs.reordered,
	       (unsigned long long)v->seqs.duplicated, (unsigned long long)lost,
	       (unsigned long long)v->foreign, (unsigned long long)extra,
	       (unsigned long long)unread, (unsigned long long)v->seqs.unnumbered);
	if (lost) {
		uint64_t first, last = 0;
		int runs = 0;

		printf("lost sequence numbers:");
		for (; runs < 5 && !seqs_next_gap(&v->seqs, runs ? last + 1 : 0, &first, &last); runs++)
			printf(first == last ? " %llu" : " %llu-%llu", (unsigned long long)first,
			       (unsigned long long)last);
		printf(runs == 5 ? " ...\n" : "\n");
		if (v->seqs.unnumbered && v->seqs.expect)
			printf("frames too short for a number came, and are not told apart: "
			       "the last numbers counted lost may stand for them\n");
	}
	if (unread)
		printf("%llu frames passed the XDP program but were not read; the socket "
		       "dropped %u of them (slow the sender down)\n",
		       (unsigned long long)unread, drops);
	if (v->no_memory)
		printf("out of memory for sequence numbers: the counts are incomplete\n");
	if (!v->frames)
		printf("no frame came: nothing was verified\n");
	else if (!v->seqs.expect)
		printf("without --expect, frames lost after the last one that came are not "
		       "counted\n");
	printf("verdict: %s\n", bad ? "FAILED" : "ok");
	return bad ? 1 : 0;
}

int sink_verify(const char *ifname, const struct sink_opts *o)
{
	struct hdp_xdp_prog *p = NULL;
	struct verify v = { 0 };
	struct sink_counts xdp = { 0 };
	struct tpacket_stats st = { 0 };
	socklen_t st_len = sizeof(st);
	double start, last_change, next_report, settle_end;
	int fd, map, status = 1;

	hdp_gen_frame_init();
	if (seqs_init(&v.seqs, o->expect)) {
		fprintf(stderr, "hdp-sink: no memory for %llu sequence numbers\n",
			(unsigned long long)o->expect);
		return 1;
	}
	/* The socket first: no frame the program passes goes unread. */
	fd = open_socket(ifname);
	if (fd < 0)
		goto out_seqs;
	p = hdp_xdp_prog_load(hdp_bpf_sink_count, hdp_bpf_sink_count_len, "hdp_sink_pass");
	if (!p || hdp_xdp_prog_attach(p, ifname))
		goto out_prog;
	map = hdp_xdp_prog_map_fd(p, "sink_counts");
	printf("verifying on %s\n", ifname);
	fflush(stdout);
	start = sink_now();
	last_change = start;
	next_report = start + o->every;
	while (!sink_stop && !v.no_memory) {
		double t;

		if (wait_and_drain(fd, &v, 20))
			last_change = sink_now();
		t = sink_now();
		if (o->every > 0 && t >= next_report) {
			printf("at %.3f s: %llu frames\n", t - start, (unsigned long long)v.frames);
			fflush(stdout);
			next_report += o->every;
		}
		if (o->expect && v.frames >= o->expect)
			break;
		if (o->duration > 0 && t - start >= o->duration)
			break;
		if (o->idle > 0 && v.frames && t - last_change >= o->idle)
			break;
	}
	/*
	 * Frames the program counted may still be on their way up to the
	 * socket, and a duplicate may trail the last frame: read until the
	 * line has been quiet for 100 ms (a second at most).
	 */
	settle_end = sink_now() + 1.0;
	while (!sink_stop && wait_and_drain(fd, &v, 100) && sink_now() < settle_end)
		;
	sink_read_counts(map, &xdp);
	getsockopt(fd, SOL_PACKET, PACKET_STATISTICS, &st, &st_len);
	status = report(&v, &xdp, st.tp_drops);
out_prog:
	hdp_xdp_prog_close(p);
	close(fd);
out_seqs:
	seqs_fini(&v.seqs);
	return status;
}
