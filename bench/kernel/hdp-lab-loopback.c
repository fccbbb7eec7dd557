// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-lab-loopback: seed 002's workload, a network loopback test, for the
 * kernel lab's arm64 guest (hdp-bench kernel). A sender on CPU 0 writes
 * messages of a fixed size to a receiver on CPU 1 over 127.0.0.1 for the
 * given time:
 *
 *   tcp  one stream; writes of --size (32 KiB and more take the socket's
 *        page fragments, order-3 pages where the allocator has them:
 *        what kasan.page_alloc.sample.order=3 samples)
 *   udp  datagrams of --size (past a page, the skb's data comes from
 *        alloc_skb_with_frags' high-order pages)
 *
 *   hdp-lab-loopback --proto tcp|udp [--size BYTES] [--seconds S]
 *
 * Prints one line: "messages M bytes B seconds S" (what the receiver got;
 * a UDP datagram lost on the way is not counted).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define SIZE_MAX_BYTES (1u << 20)
#define UDP_SIZE_MAX 65507u

struct run {
	bool udp;
	unsigned size;
	double seconds;
	int tx, rx;
	atomic_bool stop;
	unsigned long long bytes, messages;
	int err;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* On @cpu if the guest has it; a one-CPU guest runs both ends on CPU 0. */
static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		CPU_ZERO(&set);
		CPU_SET(0, &set);
		sched_setaffinity(0, sizeof(set), &set);
	}
}

static void *receiver(void *arg)
{
	struct run *r = arg;
	char *buf = malloc(r->size);
	struct timeval tv = { .tv_sec = 0, .tv_usec = 200000 };

	if (!buf) {
		r->err = ENOMEM;
		return NULL;
	}
	pin(1);
	/* Wake up now and then to see whether time is up (a lost datagram). */
	setsockopt(r->rx, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	while (!atomic_load(&r->stop)) {
		ssize_t n = recv(r->rx, buf, r->size, 0);

		if (n > 0) {
			r->bytes += (unsigned long long)n;
			r->messages += r->udp ? 1 : 0;
		} else if (n == 0) {
			break;
		} else if (errno != EAGAIN && errno != EINTR) {
			r->err = errno;
			break;
		}
	}
	if (!r->udp)
		r->messages = r->bytes / r->size;
	free(buf);
	return NULL;
}

static int sockets(struct run *r)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(a);
	int type = r->udp ? SOCK_DGRAM : SOCK_STREAM, l, one = 1;

	l = socket(AF_INET, type, 0);
	if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
	    getsockname(l, (struct sockaddr *)&a, &len))
		return -errno;
	if (r->udp) {
		int room = 4 << 20;

		setsockopt(l, SOL_SOCKET, SO_RCVBUFFORCE, &room, sizeof(room));
		r->rx = l;
		r->tx = socket(AF_INET, SOCK_DGRAM, 0);
		if (r->tx < 0 || connect(r->tx, (struct sockaddr *)&a, sizeof(a)))
			return -errno;
		return 0;
	}
	if (listen(l, 1))
		return -errno;
	r->tx = socket(AF_INET, SOCK_STREAM, 0);
	if (r->tx < 0 || connect(r->tx, (struct sockaddr *)&a, sizeof(a)))
		return -errno;
	setsockopt(r->tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	r->rx = accept(l, NULL, NULL);
	close(l);
	return r->rx < 0 ? -errno : 0;
}

static void usage(FILE *to)
{
	fprintf(to, "usage: hdp-lab-loopback --proto tcp|udp [--size BYTES] [--seconds S]\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "proto", required_argument, NULL, 'p' },
		{ "size", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct run r = { .size = 32768, .seconds = 4, .tx = -1, .rx = -1 };
	const char *proto = NULL;
	pthread_t rx;
	double start, took;
	char *buf, *end;
	int c, err;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'p':
			proto = optarg;
			break;
		case 's':
			errno = 0;
			r.size = (unsigned)strtoul(optarg, &end, 10);
			if (errno || *end || !r.size || r.size > SIZE_MAX_BYTES) {
				fprintf(stderr, "hdp-lab-loopback: --size '%s': 1 to %u bytes\n", optarg,
					SIZE_MAX_BYTES);
				return 2;
			}
			break;
		case 't':
			r.seconds = strtod(optarg, &end);
			if (*end || !(r.seconds > 0)) {
				fprintf(stderr, "hdp-lab-loopback: --seconds '%s': a number above 0\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!proto || (strcmp(proto, "tcp") && strcmp(proto, "udp"))) {
		fprintf(stderr, "hdp-lab-loopback: --proto '%s': tcp or udp\n", proto ? proto : "");
		return 2;
	}
	r.udp = proto[0] == 'u';
	if (r.udp && r.size > UDP_SIZE_MAX) {
		fprintf(stderr, "hdp-lab-loopback: --size %u: a UDP datagram holds at most %u\n",
			r.size, UDP_SIZE_MAX);
		return 2;
	}
	buf = calloc(1, r.size);
	err = buf ? sockets(&r) : -ENOMEM;
	if (err) {
		fprintf(stderr, "hdp-lab-loopback: %s sockets on 127.0.0.1: %s\n", proto,
			strerror(-err));
		return 1;
	}
	err = pthread_create(&rx, NULL, receiver, &r);
	if (err) {
		fprintf(stderr, "hdp-lab-loopback: receiver thread: %s\n", strerror(err));
		return 1;
	}
	pin(0);
	start = now();
	while (now() - start < r.seconds) {
		/* A full UDP receive queue drops: counted by what arrives. */
		if (send(r.tx, buf, r.size, 0) < 0 && errno != ENOBUFS && errno != EINTR &&
		    errno != ECONNREFUSED) {
			r.err = errno;
			break;
		}
	}
	took = now() - start;
	atomic_store(&r.stop, true);
	shutdown(r.tx, SHUT_WR);
	pthread_join(rx, NULL);
	if (r.err) {
		fprintf(stderr, "hdp-lab-loopback: %s: %s\n", proto, strerror(r.err));
		return 1;
	}
	printf("messages %llu bytes %llu seconds %.3f\n", r.messages, r.bytes, took);
	free(buf);
	close(r.tx);
	close(r.rx);
	return 0;
}
