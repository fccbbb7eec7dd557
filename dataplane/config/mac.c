// SPDX-License-Identifier: BSD-3-Clause
/* MAC addresses: from text, and an interface's own. */
#include <hdp/fwd.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

int hdp_mac_parse(const char *s, uint8_t mac[6])
{
	unsigned v[6];
	char tail;

	if (sscanf(s, "%x:%x:%x:%x:%x:%x%c", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5],
		   &tail) != 6)
		return -EINVAL;
	for (int i = 0; i < 6; i++) {
		if (v[i] > 0xff)
			return -EINVAL;
		mac[i] = (uint8_t)v[i];
	}
	return 0;
}

int hdp_mac_of_interface(const char *ifname, uint8_t mac[6])
{
	char path[128], line[64] = "";
	FILE *f;
	int ret;

	snprintf(path, sizeof(path), "/sys/class/net/%s/address", ifname);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ret = fgets(line, sizeof(line), f) ? 0 : -EIO;
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	return ret ? ret : hdp_mac_parse(line, mac);
}
