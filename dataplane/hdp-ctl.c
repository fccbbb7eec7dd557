// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-ctl: talk to a running hdp-fwd.
 *   hdp-ctl [--socket PATH] [--pid PID] [--quiet]
 *           stats [--json | --format text|json|prometheus]
 *           | pools [--json] | set POOL KEY VALUE | reload
 * Exit status: 0 ok, 1 the forwarder said no or cannot be reached, 2 usage.
 */
#include <hdp/ctl.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: hdp-ctl [--socket PATH] [--pid PID] [--quiet] COMMAND\n"
		"  stats [--json]        ports, queues and pools\n"
		"  stats --format F      F: text, json or prometheus (the text exposition\n"
		"                        format, for scrapers and node_exporter)\n"
		"  pools [--json]        pools and their hardening\n"
		"  set POOL KEY VALUE    change one hardening key at run time,\n"
		"                        e.g. set umem tag off\n"
		"  reload                read the configuration file again and apply it,\n"
		"                        as SIGHUP does; exit 1 if it is refused\n"
		"The socket defaults to %s. --pid: send nothing unless process PID\n"
		"listens on it (the service's ExecReload passes $MAINPID). --quiet: print\n"
		"no reply, only the exit status says how it went (under ExecReload the\n"
		"forwarder's own log already holds what a reload said).\n", HDP_CTL_DEFAULT_PATH);
}

/*
 * --pid: the socket's listener must be that process (systemd's $MAINPID),
 * checked before a byte is sent: root's hdp-ctl under ExecReload=+ talks
 * to a path in a directory that `user =` owns, and must not send its
 * request to whatever socket that user put there.
 */
static bool listener_is(int fd, const char *path, pid_t want)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len)) {
		fprintf(stderr, "hdp-ctl: %s: %s\n", path, strerror(errno));
		return false;
	}
	if (cred.pid != want) {
		fprintf(stderr, "hdp-ctl: %s: process %ld listens there, not %ld (--pid): "
			"nothing sent\n", path, (long)cred.pid, (long)want);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = HDP_CTL_DEFAULT_PATH;
	char req[HDP_CTL_REQUEST_MAX + 2] = "", buf[4096], head[8] = "";
	size_t head_len = 0;
	long want_pid = 0;
	bool quiet = false;
	int i = 1, fd;
	ssize_t n;

	for (; i < argc && strncmp(argv[i], "--", 2) == 0; i++) {
		if (strcmp(argv[i], "--quiet") == 0) {
			quiet = true;
		} else if (strcmp(argv[i], "--socket") == 0 && i + 1 < argc) {
			path = argv[++i];
		} else if (strcmp(argv[i], "--pid") == 0 && i + 1 < argc) {
			char *end;

			want_pid = strtol(argv[++i], &end, 10);
			/* Digits only: strtol would take a sign and leading spaces too. */
			if (argv[i][0] < '0' || argv[i][0] > '9' || *end || want_pid <= 0) {
				fprintf(stderr, "hdp-ctl: --pid '%s': expected a process ID\n", argv[i]);
				return 2;
			}
		} else {
			break;
		}
	}
	if (i >= argc || strcmp(argv[i], "--help") == 0) {
		usage(i >= argc ? stderr : stdout);
		return i >= argc ? 2 : 0;
	}
	if ((strcmp(argv[i], "stats") == 0 || strcmp(argv[i], "pools") == 0) &&
	    (argc == i + 1 || (argc == i + 2 && strcmp(argv[i + 1], "--json") == 0))) {
		snprintf(req, sizeof(req), "%s%s\n", argv[i], argc == i + 2 ? " json" : "");
	} else if (strcmp(argv[i], "stats") == 0 && argc == i + 3 &&
		   strcmp(argv[i + 1], "--format") == 0) {
		const char *fmt = argv[i + 2];

		if (strcmp(fmt, "text") && strcmp(fmt, "json") && strcmp(fmt, "prometheus")) {
			fprintf(stderr, "hdp-ctl: --format '%s': expected text, json or prometheus\n",
				fmt);
			return 2;
		}
		snprintf(req, sizeof(req), "stats%s%s\n", strcmp(fmt, "text") ? " " : "",
			 strcmp(fmt, "text") ? fmt : "");
	} else if (strcmp(argv[i], "reload") == 0 && argc == i + 1) {
		snprintf(req, sizeof(req), "reload\n");
	} else if (strcmp(argv[i], "set") == 0 && argc == i + 4) {
		if ((size_t)snprintf(req, sizeof(req), "set %s %s %s\n", argv[i + 1],
				     argv[i + 2], argv[i + 3]) >= sizeof(req)) {
			fprintf(stderr, "hdp-ctl: request too long\n");
			return 2;
		}
	} else {
		usage(stderr);
		return 2;
	}
	if (strlen(path) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "hdp-ctl: socket path too long\n");
		return 2;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "hdp-ctl: %s: %s%s\n", path, strerror(errno),
			errno == EACCES ? " (the socket is its owner's only)" : "");
		return 1;
	}
	if (want_pid && !listener_is(fd, path, (pid_t)want_pid)) {
		close(fd);
		return 1;
	}
	/* A forwarder too busy to serve answers before reading: read that too. */
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0 && errno != EPIPE) {
		fprintf(stderr, "hdp-ctl: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (!quiet && fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return 1;
		/* The reply's first word is its verdict; later lines may quote errors. */
		for (ssize_t j = 0; j < n && head_len < sizeof(head) - 1; j++)
			head[head_len++] = buf[j];
	}
	if (n < 0) {
		fprintf(stderr, "hdp-ctl: %s: %s\n", path, strerror(errno));
		return 1;
	}
	close(fd);
	if (!head_len) {
		fprintf(stderr, "hdp-ctl: %s: no answer (the forwarder went away?)\n", path);
		return 1;
	}
	/* A reload succeeded only if it says so: anything else is a refusal. */
	if (strcmp(req, "reload\n") == 0)
		return strncmp(head, "ok:", 3) == 0 ? 0 : 1;
	return strncmp(head, "error:", 6) == 0 ? 1 : 0;
}
