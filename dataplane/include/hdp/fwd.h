/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hdp-fwd: forwarding between AF_XDP ports whose UMEM is one hardened pool.
 * Configuration, the forwarder's life cycle, its per-packet pieces
 * (descriptor check, header rewrite) and its counters.
 */
#ifndef HDP_FWD_H
#define HDP_FWD_H

#include <linux/if_xdp.h>
#include <net/if.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <hdp/pool.h>
#include <hdp/profile.h>
#include <hdp/tag.h>
#include <hdp/xdp_prog.h>

/* Multi-buffer AF_XDP (Linux 6.6), for headers older than the kernel. */
#ifndef XDP_USE_SG
#define XDP_USE_SG	(1 << 4)	/* bind: packets may be chains of frames */
#endif
#ifndef XDP_PKT_CONTD
#define XDP_PKT_CONTD	(1 << 0)	/* descriptor: the packet goes on in the next */
#endif

#define HDP_FWD_PORTS_MAX	16
#define HDP_FWD_CORES_MAX	16
#define HDP_FWD_BATCH_MAX	256
#define HDP_FWD_UMEM_POOL	"umem"
/* How long setting up waits for a queue another socket is letting go of. */
#define HDP_FWD_QUEUE_WAIT_MS	5000
#define HDP_FWD_METRICS_PATH_MAX 256
#define HDP_ETH_ZLEN		60	/* shortest Ethernet frame, FCS excluded */

/*
 * Sizes. The kernel puts a packet into a UMEM frame after a headroom of
 * its own (XDP_PACKET_HEADROOM): a frame holds 1792 bytes of 2048, 3840 of
 * 4096. A larger packet comes as a chain of frames (multi-buffer AF_XDP,
 * Linux 6.6+), and goes out as one: at most HDP_FWD_CHAIN_MAX frames, as
 * the kernel sends a packet of at most MAX_SKB_FRAGS (17) fragments after
 * its head. An interface's MTU lets in frames of MTU + 18 bytes (the
 * Ethernet header and a VLAN tag).
 */
#define HDP_FWD_RX_HEADROOM	256
#define HDP_FWD_CHAIN_MAX	18
#define HDP_FWD_MTU_OVERHEAD	18
#define HDP_FWD_MAX_FRAME_MAX	(65535 + HDP_FWD_MTU_OVERHEAD)
/* The least MTU an interface takes (IPv4's 68): max_frame below would ask for less. */
#define HDP_FWD_MAX_FRAME_MIN	(68 + HDP_FWD_MTU_OVERHEAD)

enum hdp_fwd_mode {
	HDP_FWD_IO = 0,		/* forward untouched */
	HDP_FWD_MACSWAP,	/* swap source and destination MAC */
	HDP_FWD_L2,		/* set both MACs from the output port's config */
};

/* AF_XDP zero copy: where the driver can, required, or never (copy mode). */
enum hdp_zero_copy {
	HDP_ZC_AUTO = 0,
	HDP_ZC_ON,
	HDP_ZC_OFF,
};

/* A port given as IF, without :QUEUE: every RX queue the interface has. */
#define HDP_PORT_ALL_QUEUES UINT32_MAX

/*
 * Where a setting came from, for errors found after parsing (the checks
 * against the machine): the file and its line, or the option (line 0).
 * @source points into the command line or at a literal: it lives as
 * long as the process. NULL: the built-in default.
 */
struct hdp_cfg_origin {
	const char *source;
	int line;
};

struct hdp_port_cfg {
	char ifname[IF_NAMESIZE];
	uint32_t queue;			/* or HDP_PORT_ALL_QUEUES until expanded */
	char peer_name[32];		/* "IF[:QUEUE]" of the output; "": by pairs */
	int peer;			/* its index, set by hdp_fwd_cfg_check() */
	uint8_t src_mac[6];		/* l2: default the output interface's MAC */
	uint8_t dst_mac[6];
	bool has_src_mac;
	bool has_dst_mac;
	struct hdp_cfg_origin origin;	/* where the port was named */
};

/*
 * hdp-fwd's own [global] keys, in the order --check-config prints them:
 * X(KEY, name). What each takes, its default, whether a reload applies it
 * and what it does are one table (dataplane/config/keys.c), with the
 * [port:IF] keys after them, which the parser, --check-config, a reload
 * and --list-keys all read.
 */
#define HDP_FWD_KEYS(X)                                                                \
	X(MODE, mode) X(PORTS, ports) X(CORES, cores) X(FRAMES, frames)                \
	X(FRAME_SIZE, frame_size) X(MAX_FRAME, max_frame) X(BATCH, batch)              \
	X(RING_SIZE, ring_size) X(FILL_SIZE, fill_size) X(MBUF_CACHE, mbuf_cache)      \
	X(STATS_INTERVAL, stats_interval) X(DURATION, duration)                        \
	X(BUSY_POLL, busy_poll) X(BUSY_BUDGET, busy_budget)                            \
	X(IDLE_SPIN_US, idle_spin_us) X(TAG_CHECK, tag_check)                          \
	X(CTL_SOCKET, ctl_socket) X(HUGE_DIR, huge_dir) X(USER, user)                  \
	X(XDP_MODE, xdp_mode) X(ZERO_COPY, zero_copy) X(METRICS_FILE, metrics_file)    \
	X(METRICS_MODE, metrics_mode)

enum hdp_fwd_key {
#define HDP_FWD_KEY_ENUM(key, name) HDP_FWD_KEY_##key,
	HDP_FWD_KEYS(HDP_FWD_KEY_ENUM)
#undef HDP_FWD_KEY_ENUM
	HDP_FWD_KEY__COUNT
};

struct hdp_fwd_cfg {
	enum hdp_fwd_mode mode;
	unsigned nports;
	struct hdp_port_cfg ports[HDP_FWD_PORTS_MAX];
	unsigned ncores;
	int cores[HDP_FWD_CORES_MAX];	/* one worker per entry; -1: not pinned */
	uint32_t frames;		/* UMEM frames */
	uint32_t frame_size;		/* 2048 or 4096 */
	uint32_t max_frame;		/* largest frame to carry, bytes; 0: auto (the MTUs') */
	uint32_t batch;
	uint32_t ring_size;		/* RX and TX rings */
	uint32_t fill_size;		/* fill and completion rings */
	uint32_t mbuf_cache;		/* DPDK ports: per-lcore mbuf cache; 0: none */
	unsigned stats_interval;	/* seconds between stats lines; 0: none */
	unsigned duration;		/* seconds to run; 0: until a signal */
	bool busy_poll;
	uint32_t busy_budget;
	/*
	 * Microseconds an idle worker keeps passing over its RX rings
	 * (sched_yield() between passes) after its last work, before it
	 * sleeps in poll(); 0: it sleeps at once. Nothing with busy_poll,
	 * which never sleeps. AF_XDP ports only.
	 */
	uint32_t idle_spin_us;
	/*
	 * MTE's tag check mode (hdp/tag.h), the process's: asked for before
	 * any pool is made; default HDP_TAG_CHECK's, else sync. No MTE, no
	 * effect. A reload cannot change it (the threads run in it).
	 */
	enum hdp_tag_check tag_check;
	char ctl_path[108];		/* control socket; "": none */
	char huge_dir[256];		/* hugetlbfs mount for the UMEM, or "" */
	char user[64];			/* run as this user once set up, or "" */
	char metrics_path[HDP_FWD_METRICS_PATH_MAX];	/* Prometheus text file, or "" */
	unsigned metrics_mode;		/* its mode, whatever the umask (0644) */
	enum hdp_xdp_mode xdp_mode;	/* how the XDP program is attached */
	enum hdp_zero_copy zero_copy;
	uint32_t uid, gid;		/* of user, resolved when it is set */
	struct hdp_cfg_origin origin[HDP_FWD_KEY__COUNT];	/* where each key was set */
	struct hdp_harden_config harden;
};

/*
 * Which worker receives port @i: workers take the ports in turn. The queue
 * expansion orders ports so that this spreads each interface's queues.
 */
static inline unsigned hdp_fwd_port_worker(unsigned i, unsigned nworkers)
{
	return nworkers ? i % nworkers : 0;
}

/* Built-in defaults (the key table's): io mode, one unpinned worker, 8192 frames of 2 KiB. */
void hdp_fwd_cfg_defaults(struct hdp_fwd_cfg *cfg);

/*
 * hdp-fwd's own keys for --list-keys, [global]'s then [port:IF]'s, each
 * as "[SECTION] KEY = VALUES (default: D; what a reload does)" and a line
 * of what it does. As snprintf.
 */
int hdp_fwd_keys_describe(char *buf, size_t len);

/*
 * The command-line options that set a [global] key (--ports, --mode,
 * --stats-interval...), for getopt_long: up to @max into @out, option i
 * returning @val + i; how many. hdp_fwd_cfg_set_option sets option i's
 * key from its argument (NULL for a switch): 0 or -EINVAL, logged as
 * "--OPTION 'V': why" (not logged: no option i, or no argument where one
 * is needed). hdp_fwd_key_options_describe: their --help lines,
 * as snprintf.
 */
struct option;
#define HDP_FWD_KEY_OPTIONS_MAX 32	/* the list's length at most (options.c asserts it) */
unsigned hdp_fwd_key_options(struct option *out, unsigned max, int val);
int hdp_fwd_cfg_set_option(struct hdp_fwd_cfg *cfg, unsigned i, const char *arg);
int hdp_fwd_key_options_describe(char *buf, size_t len);

/*
 * Read an INI file: [global], [port:IF] and [pool:…] sections. Errors name
 * the file, line, key and value; 0 or a negative errno.
 */
int hdp_fwd_cfg_load(struct hdp_fwd_cfg *cfg, const char *path);

/*
 * One [global] key: 0 or -EINVAL (logged with @source and @line). A value
 * --check-config could not print so that it reads back (hdp_ini_value_fits)
 * is refused here, saying why.
 */
int hdp_fwd_cfg_set_global(struct hdp_fwd_cfg *cfg, const char *key,
			   const char *value, const char *source, int line);

/*
 * An error about [global] @key found after parsing, logged as the parser
 * logs one ("FILE:LINE: [global] key 'K', value 'V': why", "--OPTION 'V':
 * why", or the default's), the reason from @fmt. Returns -EINVAL.
 */
int hdp_fwd_cfg_refuse(const struct hdp_fwd_cfg *cfg, enum hdp_fwd_key key,
		       const char *fmt, ...) HDP_PRINTF(3, 4);

/* The same about port @p ("FILE:LINE: port f0:1: why", "--ports: port f0: why"). */
int hdp_fwd_port_refuse(const struct hdp_port_cfg *p, const char *fmt, ...)
	HDP_PRINTF(2, 3);

/*
 * The longest line with a header or a key hdp's INI reader takes:
 * libinih's 200, less newline and NUL. A comment line may be longer.
 */
#define HDP_INI_LINE_MAX 198

/*
 * Can "@key = @value" be written as one line of an INI file that reads
 * back as @value? libinih, under hdp's reader, drops spaces around a
 * value, ends it at a ';' after a space, and hdp refuses control
 * characters and lines over HDP_INI_LINE_MAX; there is no quoting.
 * true, or false with the reason in @why.
 */
bool hdp_ini_value_fits(const char *key, const char *value, char *why, size_t len);

/* "IF[:QUEUE],IF[:QUEUE]…" replaces the port list: 0 or -EINVAL. */
int hdp_fwd_cfg_set_ports(struct hdp_fwd_cfg *cfg, const char *list,
			  const char *source);

/*
 * Ports given as IF (every queue): ask each interface how many RX queues it
 * has (ethtool's channels, else sysfs) and list IF:0..IF:N-1 in their
 * place, each paired with the same queue of its peer, and spread so that
 * each worker receives queues of every interface. Then every port's
 * interface must exist and have its queue (RX and TX: an AF_XDP socket
 * binds both). Call after hdp_fwd_cfg_check() and before
 * hdp_fwd_create(); needs the interfaces. 0 or -EINVAL (logged: no such
 * interface or queue, peers with different queue counts, too many ports).
 */
int hdp_fwd_cfg_expand_queues(struct hdp_fwd_cfg *cfg);

/* "IF:QUEUE", or "IF" for every queue, into @buf. */
const char *hdp_port_name(const struct hdp_port_cfg *p, char *buf, size_t len);

/* "1,3" or "0-1" (or "auto": every CPU this process may use): workers' CPUs. */
int hdp_fwd_cfg_set_cores(struct hdp_fwd_cfg *cfg, const char *list,
			  const char *source);

/* "aa:bb:cc:dd:ee:ff" to bytes: 0 or -EINVAL. */
int hdp_mac_parse(const char *s, uint8_t mac[6]);

/* The interface's own address (sysfs): 0 or a negative errno. */
int hdp_mac_of_interface(const char *ifname, uint8_t mac[6]);

int hdp_fwd_mode_parse(const char *name, enum hdp_fwd_mode *out);
const char *hdp_xdp_mode_name(enum hdp_xdp_mode m);	/* as the keys read them */
const char *hdp_zero_copy_name(enum hdp_zero_copy z);
const char *hdp_fwd_mode_name(enum hdp_fwd_mode mode);

/*
 * Check the configuration as such, before anything starts: ports and their
 * peers, l2 MACs, the hardening profile, and that --check-config can print
 * it so that it reads back. 0 or -EINVAL. Quiet when it passes: it runs
 * again on every SIGHUP. The checks against the machine come before
 * start-up: the control loop's and each engine's.
 */
int hdp_fwd_cfg_check(struct hdp_fwd_cfg *cfg);

/*
 * The EAL arguments (@argv[0] the program's name, then the words after
 * hdp-fwd's "--"), judged before DPDK is loaded: a second "--" is
 * refused (rte_eal_init() would end its arguments there and leave the
 * rest to hdp-fwd, which read its own already: they would be dropped),
 * and so are cores given both to hdp-fwd (pinned, --cores or cores =)
 * and to EAL. 0 or -EINVAL (logged).
 */
int hdp_fwd_eal_args_check(const struct hdp_fwd_cfg *cfg, int argc, char *const *argv);

/*
 * Do EAL's arguments give its cores: -c or -l, attached or not and in a
 * word of short options (-l 0, -l0, -c1, -vc1), or --lcores in any form
 * getopt_long takes (--lcores 0, --lcores=0, --lc=0)? Another option's
 * argument is not taken for one (-a -l...).
 */
bool hdp_fwd_eal_names_lcores(int argc, char *const *argv);

/*
 * The UMEM pool's profile against its geometry: a pool of the same name,
 * frames and frame size on plain pages, configured as start-up configures
 * the real one, then destroyed. 0, -EINVAL (refused, logged), or another
 * negative errno when the trial pool cannot be made.
 */
int hdp_fwd_umem_profile_check(const struct hdp_fwd_cfg *cfg);

/* The UMEM takes plain pages: MTE tags its frames, now or after a switch, and hugetlb pages cannot hold MTE tags. */
bool hdp_fwd_umem_on_plain_pages(const struct hdp_fwd_cfg *cfg);

/* The bytes of a packet one frame of @frame_size holds. */
static inline uint32_t hdp_fwd_frame_room(uint32_t frame_size)
{
	return frame_size - HDP_FWD_RX_HEADROOM;
}

/* The frames a packet of @bytes takes: more than 1 is a chain. */
static inline uint32_t hdp_fwd_frames_for(uint32_t bytes, uint32_t frame_size)
{
	uint32_t room = hdp_fwd_frame_room(frame_size);

	return bytes ? (bytes + room - 1) / room : 1;
}

/* The longest packet a chain of frames of @frame_size carries (the kernel's limit). */
static inline uint32_t hdp_fwd_chain_bytes(uint32_t frame_size)
{
	return HDP_FWD_CHAIN_MAX * hdp_fwd_frame_room(frame_size);
}

/* An interface's MTU, in this network namespace: 0 or a negative errno. */
int hdp_fwd_if_mtu(const char *ifname, uint32_t *mtu);

/*
 * The largest frame port @i must carry, in and out: max_frame, or with
 * auto what the MTUs let in of its interface (it receives there) and of
 * the interfaces of the ports whose peer it is (it sends what they
 * received). 0 when an MTU cannot be read.
 */
uint32_t hdp_fwd_port_max_frame(const struct hdp_fwd_cfg *cfg, unsigned i);

/*
 * Print a checked configuration as an INI file that reads back as the same
 * configuration: [global], every port with its peer and the worker that
 * receives it, every pool's profile after defaults, file and overrides.
 * Every line fits hdp's INI reader; comments are cut to fit, and the port
 * list, when longer than a line, is left to the [port:...] sections, which
 * name the same ports in the same order. @file names the file it came
 * from in the heading, or NULL. 0, or -EINVAL when a value cannot be
 * written (logged; the parser refuses those first).
 */
int hdp_fwd_cfg_show(const struct hdp_fwd_cfg *cfg, const char *file, FILE *out);

/*
 * The init_exclude line's value as hdp_fwd_cfg_show() prints it ("default",
 * "none,a,b"): the list in force, the command line's else the file's.
 */
void hdp_fwd_cfg_exclude_text(const struct hdp_fwd_cfg *cfg, char *buf, size_t len);

/*
 * A configuration read again while running (SIGHUP): the first setting in
 * which @next differs from @running that only a restart can change (its
 * key, for the message), or NULL.
 */
const char *hdp_fwd_cfg_restart_key(const struct hdp_fwd_cfg *running,
				    const struct hdp_fwd_cfg *next);

struct hdp_fwd;

/*
 * Apply what may change at run time from @next: every pool's profile
 * (between bursts, as hdp-ctl set does), idle_spin_us (from each worker's
 * next idle pass), stats_interval and metrics_mode, copied into @running.
 * 0, or a negative errno with nothing changed in @running.
 */
int hdp_fwd_reconfigure(struct hdp_fwd *f, struct hdp_fwd_cfg *running,
			const struct hdp_fwd_cfg *next);

/*
 * Why hdp-fwd dropped a packet, one line each: X(KIND, name, doc). The
 * names are stable: stats, JSON and metrics use them. A packet in a chain
 * of frames is dropped whole, and counted once.
 */
#define HDP_FWD_DROPS(X)                                                              \
	X(INVALID_DESC, invalid_desc, "a descriptor outside the UMEM or its chunk")   \
	X(NOT_LENT, not_lent,                                                         \
	  "an RX descriptor (or a chain's) naming a frame that was in no fill ring")  \
	X(RUNT, runt, "a frame too short for the mode")                               \
	X(TX_FULL, tx_full, "no room on the output's TX ring (for the whole chain)")  \
	X(CHAIN_LONG, chain_long, "a chain of more frames than the kernel sends")     \
	X(CHAIN_CUT, chain_cut, "a chain cut off by an invalid descriptor")           \
	X(CHAIN_REUSE, chain_reuse, "a chain that names one frame twice")             \
	X(TOO_BIG, too_big, "a chain for an output port not bound for multi-buffer")  \
	X(TX_MTU, tx_mtu, "a packet longer than the output interface's MTU lets out")

enum hdp_fwd_drop {
#define HDP_FWD_DROP_ENUM(kind, name, doc) HDP_FWD_DROP_##kind,
	HDP_FWD_DROPS(HDP_FWD_DROP_ENUM)
#undef HDP_FWD_DROP_ENUM
	HDP_FWD_DROP__COUNT
};

/* "invalid_desc", ..., as the stats name them. */
const char *hdp_fwd_drop_name(enum hdp_fwd_drop d);

/*
 * Per port (and queue) counters; each written by one worker. A packet is
 * one frame, or a chain of them (multi-buffer): packets count each once,
 * frags every frame (descriptor), so frags == packets without chains.
 */
struct hdp_port_stats {
	_Atomic uint64_t rx_packets;
	_Atomic uint64_t rx_frags;
	_Atomic uint64_t rx_bytes;
	_Atomic uint64_t tx_packets;
	_Atomic uint64_t tx_frags;
	_Atomic uint64_t tx_bytes;
	_Atomic uint64_t drops[HDP_FWD_DROP__COUNT];	/* packets, by cause */
	_Atomic uint64_t fill_empty;		/* pool had no frame for the fill ring */
	_Atomic uint64_t comp_refused;		/* completions of no frame on its TX ring */
	_Atomic uint64_t wakeups;		/* syscalls to kick the kernel */
	/* The worker receiving the port, with nothing to do: */
	_Atomic uint64_t idle_sleeps;		/* it slept in poll() */
	_Atomic uint64_t idle_spin_hits;	/* it spun, and a packet here ended the spin */
};

/* The kernel's view (XDP_STATISTICS), read on demand. */
struct hdp_xsk_kstats {
	uint64_t rx_dropped;
	uint64_t rx_invalid_descs;
	uint64_t tx_invalid_descs;
	uint64_t rx_ring_full;
	uint64_t rx_fill_ring_empty_descs;
	uint64_t tx_ring_empty_descs;
};

struct hdp_fwd;
struct hdp_ctl;

/*
 * Build the forwarder: UMEM pool, programs, sockets. NULL + errno (logged):
 * EINVAL, ENODEV or EOPNOTSUPP when the configuration asks for what cannot
 * be (a profile the pool refuses, no such interface or queue, a mode the
 * driver lacks): status 2; anything else is a runtime failure.
 */
struct hdp_fwd *hdp_fwd_create(struct hdp_fwd_cfg *cfg);

/*
 * Drop every capability of the calling thread (and all it creates later)
 * and set no_new_privs. Call after hdp_fwd_create() and before
 * hdp_fwd_start(): capabilities are per thread. 0 or a negative errno.
 */
int hdp_fwd_drop_privileges(const struct hdp_fwd_cfg *cfg);

/*
 * Hand the control socket @ctl (at cfg->ctl_path) to cfg->user before
 * privileges go, so that user may use it, and its directory too when that
 * is the service's own runtime directory ($RUNTIME_DIRECTORY, which
 * systemd makes root's, 0700, and removes at stop), so the user can reach
 * the socket and remove it at exit. 0 or a negative errno (logged).
 */
int hdp_fwd_ctl_hand_over(const struct hdp_fwd_cfg *cfg, struct hdp_ctl *ctl);

/* Is @dir the service's runtime directory, one of $RUNTIME_DIRECTORY's? */
bool hdp_fwd_is_runtime_dir(const char *dir);

/*
 * Could hdp-fwd, once it has dropped its privileges as
 * hdp_fwd_drop_privileges() drops them, access @path with @mode
 * (access(2)'s R_OK, W_OK, X_OK)? Tried in a child process that drops
 * them, so every rule the kernel applies is applied. 0, a negative errno
 * (what access said), or 1 when this process cannot take on that
 * identity to find out (it is not root).
 */
int hdp_fwd_access_as_runner(const struct hdp_fwd_cfg *cfg, const char *path, int mode);

/* Run the workers until hdp_fwd_stop(); 0 or a negative errno. */
int hdp_fwd_start(struct hdp_fwd *f);
void hdp_fwd_stop(struct hdp_fwd *f);	/* async-signal-safe */
bool hdp_fwd_stopping(const struct hdp_fwd *f);
void hdp_fwd_join(struct hdp_fwd *f);

/*
 * Drain TX, close sockets and programs, give every frame back to the pool.
 * Returns the number of frames that did not come back (0 when all is well).
 */
unsigned hdp_fwd_destroy(struct hdp_fwd *f);

/*
 * The same forwarder with its rings in plain memory and no kernel: for
 * measuring the forwarding pipeline alone (hdp-bench micro). Each step
 * plays the kernel (up to @burst packets of @pkt into every port's RX ring,
 * completes every TX) around one real forwarding pass per port; returns the
 * packets forwarded. Destroy returns the frames that did not come back.
 */
struct hdp_fwd *hdp_fwd_create_loopback(struct hdp_fwd_cfg *cfg);
unsigned hdp_fwd_loopback_step(struct hdp_fwd *f, const uint8_t *pkt, uint32_t len,
			       unsigned burst);
/*
 * One step over ports [@first, @first + @n) only, whose peers must lie in
 * the same range: threads stepping disjoint ranges of one forwarder are
 * workers sharing its pool, as hdp-fwd's are.
 */
unsigned hdp_fwd_loopback_step_ports(struct hdp_fwd *f, unsigned first, unsigned n,
				     const uint8_t *pkt, uint32_t len, unsigned burst);
/*
 * A kernel that writes what it likes, for tests: take up to @n frames from
 * port @port's fill ring into @frames (UMEM addresses; the kernel's now),
 * returning how many; then post RX descriptors made of them, or of
 * anything, as they are, and run the port's forwarding passes over them
 * and its peer's TX and completions. Returns the descriptors posted.
 */
unsigned hdp_fwd_loopback_take(struct hdp_fwd *f, unsigned port, uint64_t *frames, unsigned n);
unsigned hdp_fwd_loopback_post(struct hdp_fwd *f, unsigned port, const struct xdp_desc *d,
			       unsigned n);
/*
 * A kernel that completes what it likes: up to @n completions of UMEM
 * addresses @addrs on port @port, taken in at once. Returns those posted.
 */
unsigned hdp_fwd_loopback_complete(struct hdp_fwd *f, unsigned port, const uint64_t *addrs,
				   unsigned n);
/* Port @port's link busy (@stalled: its TX ring is not sent), or free again (sent now). */
void hdp_fwd_loopback_stall(struct hdp_fwd *f, unsigned port, bool stalled);
/*
 * Back to the state hdp_fwd_create_loopback() leaves: every frame back
 * from the rings (RX forwarded, TX completed, links free), the pool's
 * frames in a fresh pool's order, and every fill ring topped up to its
 * target, through the pool's profile. So that a measurement does not
 * depend on what ran before it (a chained size leaves fill rings short,
 * a shuffle its frame order). Call it with no quarantine on, or the
 * quarantine keeps an order of its own. 0, -EBUSY (a frame still in a
 * chain being gathered), or -ENOMEM.
 */
int hdp_fwd_loopback_reset(struct hdp_fwd *f);
unsigned hdp_fwd_loopback_destroy(struct hdp_fwd *f);

struct hdp_pool *hdp_fwd_pool(struct hdp_fwd *f);
unsigned hdp_fwd_nports(const struct hdp_fwd *f);
const struct hdp_port_cfg *hdp_fwd_port_cfg(const struct hdp_fwd *f, unsigned i);
void hdp_fwd_port_stats(struct hdp_fwd *f, unsigned i, struct hdp_port_stats *out);
int hdp_fwd_port_kstats(struct hdp_fwd *f, unsigned i, struct hdp_xsk_kstats *out);

/*
 * With busy polling: can the kernel let the forwarder's syscalls run each
 * port's receive work? Known once a port has received a few packets (its
 * socket learns which NAPI to poll). 0 (yes, or not known yet), or
 * -EOPNOTSUPP with the reason in @why: then stop, rather than run slower
 * than without busy polling.
 */
int hdp_fwd_busy_check(struct hdp_fwd *f, char *why, size_t len);

/*
 * Tell the service manager (systemd, Type=notify) about the forwarder's
 * state, e.g. "READY=1\nSTATUS=forwarding": once the ports forward, while
 * reloading, when stopping. 0 (also when there is no $NOTIFY_SOCKET) or a
 * negative errno.
 */
int hdp_sd_notify(const char *state);

/* How port @i runs: its XDP attach mode (hdp_xdp_attach_mode()), zero copy. */
void hdp_fwd_port_mode(struct hdp_fwd *f, unsigned i, const char **xdp_mode, bool *zero_copy);

/* The largest frame port @i carries; @multi_buffer: in chains of frames (XDP_USE_SG). */
void hdp_fwd_port_frames(struct hdp_fwd *f, unsigned i, uint32_t *max_frame, bool *multi_buffer);

/*
 * The control loop's watch over MTUs, once a tick: each port's interface's
 * MTU read again, and one that changed handed to hdp_fwd_mtu_changed().
 */
void hdp_fwd_watch_mtus(struct hdp_fwd *f);

/*
 * Interface @ifname's MTU is now @mtu: its ports send packets of up to
 * @mtu + HDP_FWD_MTU_OVERHEAD bytes from their next burst on, and drop
 * longer ones as tx_mtu. Said once, in one line: what goes out on it now,
 * and what it takes in that will not get through (longer than its ports
 * were bound for at start, or than a peer lets out); a warning when
 * anything will be lost.
 */
void hdp_fwd_mtu_changed(struct hdp_fwd *f, const char *ifname, uint32_t mtu);

/* Totals over all ports, for the one-line status. */
void hdp_fwd_totals(struct hdp_fwd *f, uint64_t *rx, uint64_t *tx, uint64_t *drops);

/* Stats as text or JSON (ports, kernel counters, pools). As snprintf. */
int hdp_fwd_stats_text(struct hdp_fwd *f, char *buf, size_t len);
int hdp_fwd_stats_json(struct hdp_fwd *f, char *buf, size_t len);
/* Stats in Prometheus' text format (docs/OPERATIONS.md lists them). */
int hdp_fwd_stats_prometheus(struct hdp_fwd *f, char *buf, size_t len);

/*
 * The per-packet pieces, exposed for tests.
 *
 * hdp_fwd_rx_desc: turn an RX descriptor into a pointer to its bytes, or
 * refuse it: the address must lie in the UMEM and offset + length inside
 * its chunk. Through the pool's bounds check when the profile has it (then
 * the pool's policy applies too), and a structural check regardless, so a
 * forged descriptor never reaches memory. 0 or -EFAULT.
 */
int hdp_fwd_rx_desc(struct hdp_pool *umem, uint64_t addr, uint32_t len,
		    void **data);

/*
 * hdp_fwd_chain_add: gather a packet's RX descriptors, one at a time in
 * ring order. A descriptor with XDP_PKT_CONTD says the packet goes on in
 * the next one; the packet is whole at the first without it. The chain
 * rules: every descriptor lies in its chunk (hdp_fwd_rx_desc's test), no
 * frame comes twice, every frame was lent to the kernel (@lent: the
 * caller's word, hdp-fwd's from its fill rings; a frame named again after
 * it was taken back is not lent, unless it was lent again since), and no
 * chain is longer than HDP_FWD_CHAIN_MAX. A packet that breaks one is dropped
 * whole (*why: chain_cut, chain_reuse, not_lent, chain_long), with a
 * violation of the pool (desc_chain_cut, desc_chain_reuse, desc_not_lent,
 * desc_chain_long) when its profile has bounds on, and the
 * rest of its descriptors are dropped as they come. A frame not lent is
 * never given back.
 * Start from a zeroed struct; it keeps its state from call to call.
 */
struct hdp_fwd_chain {
	/* The packet's descriptors gathered so far. */
	uint32_t n;
	bool discard;		/* dropped: its further descriptors go too */
	uint32_t nback;		/* after DROP or GONE: chunks to give back, in back[] */
	struct xdp_desc d[HDP_FWD_CHAIN_MAX];
	uint64_t back[HDP_FWD_CHAIN_MAX + 1];
};

enum hdp_fwd_chain_verdict {
	HDP_FWD_CHAIN_MORE,	/* taken: the packet goes on */
	HDP_FWD_CHAIN_WHOLE,	/* its last: d[0..n) is the packet; set n = 0 once sent */
	HDP_FWD_CHAIN_DROP,	/* the packet is dropped (counted once, as *why) */
	HDP_FWD_CHAIN_GONE,	/* a descriptor of a packet dropped before */
};

/*
 * After DROP and GONE, back[0..nback) are UMEM addresses of the chunks to
 * give back to the pool: each lent chunk the packet's descriptors named,
 * once (those outside the UMEM, or not lent, are not the caller's).
 */
enum hdp_fwd_chain_verdict hdp_fwd_chain_add(struct hdp_pool *umem, struct hdp_fwd_chain *c,
					     struct xdp_desc d, bool lent, enum hdp_fwd_drop *why);

/* Rewrite a frame for @mode: 0, or -EINVAL for a frame too short for it. */
int hdp_fwd_rewrite(enum hdp_fwd_mode mode, uint8_t *frame, uint32_t len,
		    const struct hdp_port_cfg *out);

#endif /* HDP_FWD_H */
