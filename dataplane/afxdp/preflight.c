// SPDX-License-Identifier: BSD-3-Clause
/*
 * The AF_XDP engine's checks before start-up (and --check-config), after
 * the control loop's (control/preflight.c): the interfaces, their queues
 * and MTUs against max_frame and the longest chain the kernel sends, the
 * hugetlbfs directory, and the UMEM pool's profile against its frames.
 * Nothing is created that outlives a check.
 */
#include "afxdp.h"

#include <hdp/log.h>

#include <errno.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>

/* As mempool/mem_map.c judges it when the UMEM is mapped. */
static int check_huge_dir(const struct hdp_fwd_cfg *cfg)
{
	struct statfs fs;

	if (!cfg->huge_dir[0])
		return 0;
	if (statfs(cfg->huge_dir, &fs))
		return hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_HUGE_DIR, "%s", strerror(errno));
	if (fs.f_type != HUGETLBFS_MAGIC)
		return hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_HUGE_DIR, "not a hugetlbfs mount");
	return 0;
}

/* The protections judge the profile against the pool they attach to. */
static int check_umem(const struct hdp_fwd_cfg *cfg)
{
	int ret = hdp_fwd_umem_profile_check(cfg);

	if (ret == -EINVAL)
		hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_FRAMES, "the UMEM pool '%s' of this many "
				   "frames of %u bytes refuses its profile (above)",
				   HDP_FWD_UMEM_POOL, cfg->frame_size);
	return ret;
}

/*
 * Said once, with the ports every queue makes (after the expansion), and
 * not on a reload: frames and ports cannot change there.
 */
static void warn_frames(const struct hdp_fwd_cfg *cfg)
{
	uint32_t rings = cfg->nports * (cfg->fill_size + cfg->ring_size);

	/*
	 * Fewer frames than the rings can hold is allowed (hugepages are
	 * scarce), but the pool can then run dry while TX is stuck: the fill
	 * ring empties, and the kernel drops and counts what arrives.
	 */
	if (cfg->frames < rings)
		hdp_log(HDP_LOG_WARN, "%u frames cannot keep %u ports' fill and TX rings full "
			"(that takes %u): under load the fill rings can run dry (counted as "
			"fill_empty)", cfg->frames, cfg->nports, rings);
}

/* The interfaces of port @i and its peer, as a pair of ports [0, @i) had them. */
static bool seen_pair_before(const struct hdp_fwd_cfg *cfg, unsigned i)
{
	const struct hdp_port_cfg *p = &cfg->ports[i];

	for (unsigned j = 0; j < i; j++)
		if (strcmp(cfg->ports[j].ifname, p->ifname) == 0 &&
		    strcmp(cfg->ports[cfg->ports[j].peer].ifname, cfg->ports[p->peer].ifname) == 0)
			return true;
	return false;
}

/* An interface of ports [0, @i) already judged. */
static bool seen_before(const struct hdp_fwd_cfg *cfg, unsigned i)
{
	for (unsigned j = 0; j < i; j++)
		if (strcmp(cfg->ports[j].ifname, cfg->ports[i].ifname) == 0)
			return true;
	return false;
}

/*
 * What a port receives goes out on its peer's interface, whose kernel
 * drops (and only counts) a frame longer than its own MTU lets out.
 */
static int check_peer_mtus(const struct hdp_fwd_cfg *cfg)
{
	uint32_t in, out;
	int errors = 0;

	for (unsigned i = 0; i < cfg->nports; i++) {
		const struct hdp_port_cfg *p = &cfg->ports[i], *q = &cfg->ports[p->peer];

		if (seen_pair_before(cfg, i) || hdp_fwd_if_mtu(p->ifname, &in) ||
		    hdp_fwd_if_mtu(q->ifname, &out) || in <= out)
			continue;
		errors += hdp_fwd_port_refuse(p, "interface %s has MTU %u, and its peer %s MTU "
			"%u: frames of %u to %u bytes would come in and be dropped on the way out "
			"(the kernel counts them in %s's tx_dropped): give both the same MTU (ip "
			"link set dev %s mtu %u)", p->ifname, in, q->ifname, out,
			out + HDP_FWD_MTU_OVERHEAD + 1, in + HDP_FWD_MTU_OVERHEAD, q->ifname,
			q->ifname, in) != 0;
	}
	return errors;
}

/* "take chains of N frames of S bytes (R of a packet each), and the kernel sends at most 18". */
static const char *chain_text(const struct hdp_fwd_cfg *cfg, uint32_t bytes, char *buf,
			      size_t len)
{
	snprintf(buf, len, "take chains of %u frames of %u bytes (%u of a packet each), and the "
		 "kernel sends at most %u", hdp_fwd_frames_for(bytes, cfg->frame_size),
		 cfg->frame_size, hdp_fwd_frame_room(cfg->frame_size), HDP_FWD_CHAIN_MAX);
	return buf;
}

/* ", or set frame_size = 4096" where 4096-byte frames would carry @bytes, or "". */
static const char *or_larger_frames(const struct hdp_fwd_cfg *cfg, uint32_t bytes)
{
	return cfg->frame_size == 2048 && bytes <= hdp_fwd_chain_bytes(4096) ?
	       ", or set frame_size = 4096" : "";
}

/*
 * max_frame itself, before any interface: a frame that long must fit the
 * longest chain the kernel sends, or nothing a user does to an MTU helps.
 */
static int check_max_frame(const struct hdp_fwd_cfg *cfg)
{
	uint32_t most = hdp_fwd_chain_bytes(cfg->frame_size);
	char chains[128];

	if (!cfg->max_frame || cfg->max_frame <= most)
		return 0;
	return hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_MAX_FRAME, "frames of %u bytes %s: the "
		"largest frame hdp-fwd can carry is %u bytes: lower max_frame to %u%s",
		cfg->max_frame, chain_text(cfg, cfg->max_frame, chains, sizeof(chains)), most,
		most, or_larger_frames(cfg, cfg->max_frame));
}

/*
 * With max_frame, an interface that lets in more would hand hdp-fwd
 * frames it drops. The remedy raises max_frame only as far as a chain
 * carries (with 4096-byte frames if that is what it takes).
 */
static int check_intake(const struct hdp_fwd_cfg *cfg, const struct hdp_port_cfg *p,
			uint32_t mtu)
{
	uint32_t in = mtu + HDP_FWD_MTU_OVERHEAD, low = cfg->max_frame - HDP_FWD_MTU_OVERHEAD;
	char raise[96] = "";

	/* An MTU past 65535 (lo's 65536) lets in more than max_frame takes: no raise. */
	if (in <= HDP_FWD_MAX_FRAME_MAX && in <= hdp_fwd_chain_bytes(cfg->frame_size))
		snprintf(raise, sizeof(raise), " or raise max_frame to %u", in);
	else if (in <= HDP_FWD_MAX_FRAME_MAX && *or_larger_frames(cfg, in))
		snprintf(raise, sizeof(raise), " or raise max_frame to %u and set frame_size = "
			 "4096", in);
	return hdp_fwd_cfg_refuse(cfg, HDP_FWD_KEY_MAX_FRAME, "interface %s has MTU %u and lets "
		"in frames of up to %u bytes, which would be dropped: lower its MTU to %u (ip "
		"link set dev %s mtu %u)%s", p->ifname, mtu, in, low, p->ifname, low, raise);
}

/*
 * Every frame an interface lets in must be one hdp-fwd can carry: within
 * max_frame when it is set, and in a chain the kernel sends (at most
 * HDP_FWD_CHAIN_MAX frames). Otherwise the kernel drops such frames,
 * silently: start-up refuses instead, and says what would do.
 */
static int check_sizes(const struct hdp_fwd_cfg *cfg)
{
	uint32_t most = hdp_fwd_chain_bytes(cfg->frame_size), mtu, in;
	/* A max_frame refused on its own changes anyway: nothing more to say of it. */
	bool max_frame_ok = cfg->max_frame <= most;
	int errors = 0, ret;
	char chains[128];

	for (unsigned i = 0; i < cfg->nports; i++) {
		const struct hdp_port_cfg *p = &cfg->ports[i];

		if (seen_before(cfg, i))
			continue;
		ret = hdp_fwd_if_mtu(p->ifname, &mtu);
		if (ret) {
			errors += hdp_fwd_port_refuse(p, "cannot read the MTU of %s: %s",
						      p->ifname, strerror(-ret)) != 0;
			continue;
		}
		in = mtu + HDP_FWD_MTU_OVERHEAD;
		if (cfg->max_frame && in > cfg->max_frame) {
			errors += max_frame_ok && check_intake(cfg, p, mtu) != 0;
			continue;
		}
		/* With max_frame, check_max_frame judged the chain. */
		if (cfg->max_frame || in <= most)
			continue;
		errors += hdp_fwd_port_refuse(p, "interface %s has MTU %u: frames of up to %u "
			"bytes %s; the largest frame it can take is %u bytes: lower the MTU to "
			"%u%s", p->ifname, mtu, in, chain_text(cfg, in, chains, sizeof(chains)),
			most, most - HDP_FWD_MTU_OVERHEAD, or_larger_frames(cfg, in)) != 0;
	}
	errors += check_peer_mtus(cfg);
	return errors ? -EINVAL : 0;
}

int hdp_afxdp_preflight(struct hdp_fwd_cfg *cfg)
{
	int errors = 0, failed = 0, ret;

	/* Of no interface: said even when the interfaces cannot be judged. */
	errors += check_max_frame(cfg) != 0;
	if (hdp_fwd_cfg_expand_queues(cfg) == 0) {
		warn_frames(cfg);
		errors += check_sizes(cfg) != 0;
	} else {
		errors++;
	}
	errors += check_huge_dir(cfg) != 0;
	ret = check_umem(cfg);
	errors += ret == -EINVAL;
	failed = ret && ret != -EINVAL ? ret : failed;
	return errors ? -EINVAL : failed;
}
