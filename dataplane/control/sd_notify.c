// SPDX-License-Identifier: BSD-3-Clause
/*
 * systemd's readiness protocol (sd_notify(3)), without libsystemd: one
 * datagram of "KEY=VALUE" lines to the AF_UNIX socket $NOTIFY_SOCKET names
 * (a path, or an abstract name when it starts with '@'). The protocol is
 * that small and stable, and hdp-fwd drops its privileges early, so a
 * library and its dependencies would bring nothing but more code in a
 * privileged process. Without $NOTIFY_SOCKET nothing happens.
 */
#include <hdp/fwd.h>

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

int hdp_sd_notify(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	size_t len;
	socklen_t salen;
	ssize_t sent;
	int fd;

	if (!path || !*path)
		return 0;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len >= sizeof(sa.sun_path))
		return -EINVAL;
	memcpy(sa.sun_path, path, len);
	if (path[0] == '@')
		sa.sun_path[0] = '\0';	/* abstract: no trailing NUL counted */
	salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
			    (path[0] == '/' ? 1 : 0));
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
	if (sent < 0) {
		sent = -errno;
		close(fd);
		return (int)sent;
	}
	close(fd);
	return (size_t)sent == strlen(state) ? 0 : -EIO;
}
