// SPDX-License-Identifier: BSD-3-Clause
#include <hdp/log.h>
#include <hdp/xdp_prog.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/if_link.h>
#include <errno.h>
#include <net/if.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct hdp_xdp_prog {
	struct bpf_object *obj;
	struct bpf_program *prog;
	int link_fd;		/* the XDP link; -1: not attached */
};

/* libbpf talks a lot at debug level; keep its warnings, as ours. */
static int libbpf_to_hdp(enum libbpf_print_level level, const char *fmt,
			 va_list ap)
{
	char msg[512];
	size_t len;

	if (level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	len = strlen(msg);
	if (len && msg[len - 1] == '\n')
		msg[len - 1] = '\0';
	hdp_log(level == LIBBPF_WARN ? HDP_LOG_WARN : HDP_LOG_INFO, "libbpf: %s", msg);
	return 0;
}

struct hdp_xdp_prog *hdp_xdp_prog_load(const void *obj, size_t len,
				       const char *prog)
{
	struct hdp_xdp_prog *p = calloc(1, sizeof(*p));
	int err;

	if (!p)
		return NULL;
	libbpf_set_print(libbpf_to_hdp);
	p->link_fd = -1;
	p->obj = bpf_object__open_mem(obj, len, NULL);
	if (!p->obj) {
		err = -errno;
		hdp_log(HDP_LOG_ERR, "XDP program %s: cannot open: %s", prog, strerror(-err));
		goto err_free;
	}
	err = bpf_object__load(p->obj);
	if (err) {
		hdp_log(HDP_LOG_ERR, "XDP program %s: cannot load: %s (needs CAP_BPF and CAP_NET_ADMIN)",
			prog, strerror(-err));
		goto err_close;
	}
	p->prog = bpf_object__find_program_by_name(p->obj, prog);
	if (!p->prog) {
		err = -ENOENT;
		hdp_log(HDP_LOG_ERR, "XDP program %s: not in the object", prog);
		goto err_close;
	}
	return p;

err_close:
	bpf_object__close(p->obj);
err_free:
	free(p);
	errno = -err;
	return NULL;
}

int hdp_xdp_prog_attach_mode(struct hdp_xdp_prog *p, const char *ifname,
			     enum hdp_xdp_mode mode)
{
	static const char *const names[] = { "", " in native mode", " in generic mode" };
	LIBBPF_OPTS(bpf_link_create_opts, opts,
		    .flags = mode == HDP_XDP_NATIVE ? XDP_FLAGS_DRV_MODE
			     : mode == HDP_XDP_GENERIC ? XDP_FLAGS_SKB_MODE : 0);
	int ifindex = (int)if_nametoindex(ifname), err;

	if (!ifindex) {
		err = -errno;
		hdp_log(HDP_LOG_ERR, "interface %s: %s", ifname, strerror(-err));
		return err;
	}
	/* A link, not a netlink attach: it goes when its last fd does. */
	p->link_fd = bpf_link_create(bpf_program__fd(p->prog), ifindex, BPF_XDP, &opts);
	if (p->link_fd < 0) {
		err = -errno;
		hdp_log(HDP_LOG_ERR, "interface %s: cannot attach XDP program %s%s: %s%s",
			ifname, bpf_program__name(p->prog), names[mode], strerror(-err),
			err == -EBUSY || err == -EEXIST ? " (another XDP program is attached)"
			: err == -EOPNOTSUPP ? " (the driver has no native XDP: xdp_mode = generic)"
			: "");
		p->link_fd = -1;
		return err;
	}
	return 0;
}

int hdp_xdp_prog_attach(struct hdp_xdp_prog *p, const char *ifname)
{
	return hdp_xdp_prog_attach_mode(p, ifname, HDP_XDP_AUTO);
}

int hdp_xdp_prog_map_fd(struct hdp_xdp_prog *p, const char *map)
{
	int fd = bpf_object__find_map_fd_by_name(p->obj, map);

	return fd < 0 ? -ENOENT : fd;
}

void hdp_xdp_prog_close(struct hdp_xdp_prog *p)
{
	if (!p)
		return;
	if (p->link_fd >= 0)
		close(p->link_fd);
	bpf_object__close(p->obj);
	free(p);
}

const char *hdp_xdp_attach_mode(const char *ifname)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, q);
	int ifindex = (int)if_nametoindex(ifname);

	if (!ifindex || bpf_xdp_query(ifindex, 0, &q))
		return "none";
	switch (q.attach_mode) {
	case XDP_ATTACHED_DRV:
		return "native";
	case XDP_ATTACHED_SKB:
		return "generic";
	case XDP_ATTACHED_HW:
		return "offload";
	case XDP_ATTACHED_MULTI:
		return "multi";
	default:
		return "none";
	}
}
