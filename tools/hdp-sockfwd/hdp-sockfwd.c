// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-sockfwd: the kernel socket path as a contender: AF_PACKET sockets on
 * two interfaces, recvmmsg on one and sendmmsg on the other, both ways.
 * Every byte crosses the kernel's hardened usercopy twice. Runs until
 * SIGINT or SIGTERM.   hdp-sockfwd --a IF --b IF
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BATCH 64
/* Room for a jumbo frame (MTU 9000) and more: a frame is never cut short. */
#define SNAP 16384

static volatile sig_atomic_t stop;
static unsigned long truncated;	/* longer than SNAP: dropped, not sent cut */

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int open_if(const char *ifname)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_protocol = htons(ETH_P_ALL) };
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(ETH_P_ALL));
	int one = 1;

	sll.sll_ifindex = (int)if_nametoindex(ifname);
	if (fd < 0 || !sll.sll_ifindex || bind(fd, (struct sockaddr *)&sll, sizeof(sll))) {
		fprintf(stderr, "hdp-sockfwd: %s: %s\n", ifname, strerror(errno));
		return -1;
	}
	/* Only what arrives: do not see our own transmissions again. */
	setsockopt(fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));
	setsockopt(fd, SOL_PACKET, PACKET_QDISC_BYPASS, &one, sizeof(one));
	return fd;
}

static unsigned long move(int from, int to)
{
	static char bufs[BATCH][SNAP];
	struct mmsghdr msgs[BATCH];
	struct iovec iov[BATCH];
	int n, keep = 0, sent = 0;

	for (int i = 0; i < BATCH; i++) {
		iov[i] = (struct iovec){ bufs[i], SNAP };
		msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i], .msg_iovlen = 1 } };
	}
	n = recvmmsg(from, msgs, BATCH, MSG_DONTWAIT, NULL);
	if (n <= 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (msgs[i].msg_hdr.msg_flags & MSG_TRUNC) {
			truncated++;
			continue;
		}
		iov[keep].iov_base = iov[i].iov_base;
		iov[keep].iov_len = msgs[i].msg_len;
		msgs[keep].msg_hdr.msg_iov = &iov[keep];
		keep++;
	}
	while (sent < keep) {
		int r = sendmmsg(to, msgs + sent, (unsigned)(keep - sent), 0);

		if (r <= 0)
			break;	/* dropped: the socket path has no back pressure either */
		sent += r;
	}
	return (unsigned long)n;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "a", required_argument, NULL, 'a' },
		{ "b", required_argument, NULL, 'b' },
		{ 0 },
	};
	const char *a = NULL, *b = NULL;
	unsigned long total = 0;
	int opt, fa, fb;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt == 'a')
			a = optarg;
		else if (opt == 'b')
			b = optarg;
		else
			return 2;
	}
	if (!a || !b) {
		fprintf(stderr, "usage: hdp-sockfwd --a IF --b IF\n");
		return 2;
	}
	fa = open_if(a);
	fb = open_if(b);
	if (fa < 0 || fb < 0)
		return 1;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while (!stop) {
		unsigned long n = move(fa, fb) + move(fb, fa);

		total += n;
		if (!n) {
			struct pollfd p[2] = { { fa, POLLIN, 0 }, { fb, POLLIN, 0 } };

			poll(p, 2, 100);
		}
	}
	printf("forwarded %lu frames; %lu longer than %d bytes dropped\n", total, truncated,
	       SNAP);
	return 0;
}
