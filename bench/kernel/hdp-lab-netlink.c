// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-lab-netlink: copies to and from user space whose kernel side sits in
 * vmalloc'd memory, for the kernel lab (hdp-bench kernel). The kernel
 * builds a large netlink message on a vmalloc'd buffer
 * (netlink_alloc_large_skb: past NLMSG_GOODSIZE on 6.1; on 6.12 only when
 * kvmalloc's kmalloc fails, past 4 MiB), so copies into and out of it go
 * through hardened usercopy's vmalloc branch, the tree lookup seed 000's
 * knob bypasses. Each thread has a NETLINK_USERSOCK socket of its own and
 * runs, as fast as it can, for the given time:
 *
 *   copy   sends a message of --size to itself and reads it back: a copy
 *          into the buffer at sendmsg and one out of it at recvmsg
 *   peek   sends one message of --size, then reads its first --peek bytes
 *          again and again (MSG_PEEK): one small copy out of a vmalloc'd
 *          buffer a call, where the lookup is most of the work
 *
 *   hdp-lab-netlink [--mode copy|peek] [--size BYTES] [--peek BYTES]
 *                   [--seconds S] [--threads N]
 *
 * Prints one line: "messages M bytes B seconds S threads N" (a peek is a
 * message of --peek bytes).
 */
#include <errno.h>
#include <getopt.h>
#include <linux/netlink.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define THREADS_MAX 64
#define SIZE_MAX_BYTES (64u << 20)

struct worker {
	pthread_t thread;
	bool peek;
	unsigned size;
	unsigned peek_bytes;
	double seconds;
	unsigned long messages;
	int err;
};

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/*
 * A socket bound to a port of its own, with room for one message each way
 * (the FORCE options: past net.core's maxima, which root may).
 */
static int open_socket(unsigned size)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_USERSOCK);
	int buf = (int)size * 2 + 65536;

	if (fd < 0)
		return -errno;
	if ((setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) &&
	     setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf))) ||
	    (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) &&
	     setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf))) ||
	    bind(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct sockaddr_nl self = { .nl_family = AF_NETLINK };
	socklen_t len = sizeof(self);
	char *msg = calloc(1, w->size);
	int fd = open_socket(w->size);
	double end = now() + w->seconds;

	if (!msg || fd < 0) {
		w->err = fd < 0 ? -fd : ENOMEM;
		goto out;
	}
	if (getsockname(fd, (struct sockaddr *)&self, &len)) {
		w->err = errno;
		goto out;
	}
	((struct nlmsghdr *)msg)->nlmsg_len = w->size;
	if (w->peek) {
		if (sendto(fd, msg, w->size, 0, (struct sockaddr *)&self, sizeof(self)) !=
		    (ssize_t)w->size) {
			w->err = errno ? errno : EIO;
			goto out;
		}
		while (now() < end) {
			for (int i = 0; i < 64; i++) {
				if (recv(fd, msg, w->peek_bytes, MSG_PEEK | MSG_TRUNC) !=
				    (ssize_t)w->size) {
					w->err = errno ? errno : EIO;
					goto out;
				}
				w->messages++;
			}
		}
		goto out;
	}
	while (now() < end) {
		/* A batch between clock reads: the clock is no cheaper than a copy under TCG. */
		for (int i = 0; i < 16; i++) {
			if (sendto(fd, msg, w->size, 0, (struct sockaddr *)&self, sizeof(self)) !=
				    (ssize_t)w->size ||
			    recv(fd, msg, w->size, 0) != (ssize_t)w->size) {
				w->err = errno ? errno : EIO;
				goto out;
			}
			w->messages++;
		}
	}
out:
	if (fd >= 0)
		close(fd);
	free(msg);
	return NULL;
}

static int parse(const char *s, double lo, double hi, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return s[0] >= '0' && s[0] <= '9' && !*end && !errno && *v >= lo && *v <= hi ? 0 : -1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "size", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "threads", required_argument, NULL, 'n' },
		{ "peek", required_argument, NULL, 'p' },
		{ "mode", required_argument, NULL, 'm' },
		{ 0 },
	};
	static struct worker w[THREADS_MAX];
	double size = 16384, seconds = 3, threads = 1, peek = 64, start, took;
	bool peek_mode = false;
	unsigned long total = 0;
	int opt, status = 0;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		double *v = opt == 's' ? &size : opt == 't' ? &seconds : opt == 'p' ? &peek : &threads;
		double lo = opt == 's' ? 16 : opt == 't' ? 0.01 : 1;
		double hi = opt == 's' ? SIZE_MAX_BYTES : opt == 't' ? 3600 :
			    opt == 'p' ? SIZE_MAX_BYTES : THREADS_MAX;

		if (opt == 'm' && (!strcmp(optarg, "copy") || !strcmp(optarg, "peek"))) {
			peek_mode = !strcmp(optarg, "peek");
			continue;
		}
		if (opt == '?' || opt == 'm' || parse(optarg, lo, hi, v)) {
			fprintf(stderr, "usage: hdp-lab-netlink [--mode copy|peek] [--size 16..%u] "
				"[--peek BYTES] [--seconds S] [--threads 1..%d]\n", SIZE_MAX_BYTES,
				THREADS_MAX);
			return 2;
		}
	}
	if (peek > size) {
		fprintf(stderr, "hdp-lab-netlink: --peek %.0f is more than --size %.0f\n", peek, size);
		return 2;
	}
	if (threads < 1 || threads != (unsigned)threads) {
		fprintf(stderr, "hdp-lab-netlink: --threads: a whole number from 1\n");
		return 2;
	}
	start = now();
	for (unsigned i = 0; i < (unsigned)threads; i++) {
		w[i].size = (unsigned)size;
		w[i].peek = peek_mode;
		w[i].peek_bytes = (unsigned)peek;
		w[i].seconds = seconds;
		if (pthread_create(&w[i].thread, NULL, work, &w[i])) {
			fprintf(stderr, "hdp-lab-netlink: cannot start thread %u\n", i);
			return 1;
		}
	}
	for (unsigned i = 0; i < (unsigned)threads; i++) {
		pthread_join(w[i].thread, NULL);
		total += w[i].messages;
		if (w[i].err) {
			fprintf(stderr, "hdp-lab-netlink: thread %u: %s\n", i, strerror(w[i].err));
			status = 1;
		}
	}
	took = now() - start;
	printf("messages %lu bytes %lu seconds %.3f threads %u\n", total,
	       total * (unsigned long)(peek_mode ? peek : size), took, (unsigned)threads);
	return status;
}
