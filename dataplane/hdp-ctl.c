// SPDX-License-Identifier: BSD-3-Clause
/*
 * hdp-ctl: talk to a running hdp-fwd.
 *   hdp-ctl [--socket PATH] stats [--json | --format text|json|prometheus]
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
		"usage: hdp-ctl [--socket PATH] COMMAND\n"
		"  stats [--json]        ports, queues and pools\n"
		"  stats --format F      F: text, json or prometheus (the text exposition\n"
		"                        format, for scrapers and node_exporter)\n"
		"  pools [--json]        pools and their hardening\n"
		"  set POOL KEY VALUE    change one hardening key at run time,\n"
		"                        e.g. set umem tag off\n"
		"  reload                read the configuration file again and apply it,\n"
		"                        as SIGHUP does; exit 1 if it is refused\n"
		"The socket defaults to %s.\n", HDP_CTL_DEFAULT_PATH);
}

int main(int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = HDP_CTL_DEFAULT_PATH;
	char req[HDP_CTL_REQUEST_MAX + 2] = "", buf[4096];
	int i = 1, fd, status = 0;
	bool first = true;
	ssize_t n;

	if (i + 1 < argc && strcmp(argv[i], "--socket") == 0) {
		path = argv[i + 1];
		i += 2;
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
	/* A forwarder too busy to serve answers before reading: read that too. */
	if (send(fd, req, strlen(req), MSG_NOSIGNAL) < 0 && errno != EPIPE) {
		fprintf(stderr, "hdp-ctl: %s: %s\n", path, strerror(errno));
		return 1;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		if (fwrite(buf, 1, (size_t)n, stdout) != (size_t)n)
			return 1;
		/* The reply's first word is its verdict; later lines may quote errors. */
		if (first && strncmp(buf, "error:", 6) == 0)
			status = 1;
		first = false;
	}
	close(fd);
	return status;
}
