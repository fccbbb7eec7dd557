"""What the lab measures in its guests: the boots of each experiment, the
plan each boot runs (bench/kernel/guest/init reads it), and the figures
made of what the guests said.

Every figure is a ratio to its own "off", measured in the same guest (a
knob switched within one boot) or the same round of boots (a boot
parameter), rounds alternating so that the machine's drift hits all alike.
"""
import shlex
import statistics
from dataclasses import dataclass, field

from .. import contenders

GUEST_CONFIGS = "/lab/configs"


@dataclass
class BootSpec:
    experiment: str
    kernel: str
    label: str            # what this boot is, in the report
    append: str           # kernel parameters
    cpus: int
    plan: list = field(default_factory=list)


@dataclass
class Settings:
    trials: int = 3        # rounds of boots; a knob alternates within each
    seconds: float = 4     # per flow window
    sizes: tuple = (60, 1500)
    netlink_size: int = 16384
    hackbench: tuple = (10, 100)   # groups, loops
    hackbench_runs: int = 5        # a boot, after one to warm up
    quick: bool = False


def _flow(label, size, seconds, contender):
    cmd = " ".join(shlex.quote(w) for w in contenders.command(contender, GUEST_CONFIGS))
    return f"flow {label} {size} {seconds} {cmd}"


def _verify(label, count, contender, sizes="60-1514"):
    cmd = " ".join(shlex.quote(w) for w in contenders.command(contender, GUEST_CONFIGS))
    return f"verify {label} {count} {sizes} {cmd}"


CTL_SOCKET = "/run/hdp-lab.sock"


def _switch(label, count, contender, pool, key, value):
    """verify's traffic through @contender with its control socket on,
    "hdp-ctl set POOL KEY VALUE" sent while it flows."""
    argv = contenders.command(contender, GUEST_CONFIGS)
    argv[argv.index("--ctl") + 1] = CTL_SOCKET
    cmd = " ".join(shlex.quote(w) for w in argv)
    return f"switch {label} {count} {pool} {key} {value} {cmd}"


def _under_mode(line, mode):
    """A flow, verify or switch plan line whose hdp-fwd runs in tag check
    @mode (the process's, HDP_TAG_CHECK; tag_check in [global] likewise)."""
    words = line.split(" ")
    cut = 6 if words[0] == "switch" else 4
    return " ".join(words[:cut] + ["env", f"HDP_TAG_CHECK={mode}"] + words[cut:])


# --- seed 000: the usercopy vmalloc check, on the socket path and beside it

SEED000_PATHS = ("kernel-socket", "kernel-xdp", "hdp-off")
# hdp's matching protection: bounds-checked copies with the O(1) and the tree lookup.
SEED000_HDP = ("hdp-off", "hdp-bounds", "hdp-bounds-tree")
# The mission's comparison: hdp's shipped files against the kernel's paths.
MISSION = ("hdp-off", "hdp-default", "hdp-strict", "kernel-xdp", "kernel-socket")


def _netlink(label, mode, s, threads, size=None):
    size = size or (s.netlink_size if mode == "copy" else PEEK_MESSAGE)
    return f"netlink {label} {mode} {size} {s.seconds} {threads}"


# A message past 4 MiB: vmalloc'd on 6.12 too (kvmalloc's kmalloc fails
# there), on 6.1 anything past NLMSG_GOODSIZE is. The control: a message
# of 2 KiB sits in a slab object on both, so its peeks take the slab
# check instead of the vmalloc lookup, in the same guest.
PEEK_MESSAGE = 8 << 20
PEEK_SLAB_MESSAGE = 2048


def seed000_boots(s, kernels):
    """On 6.1: the knob N and Y in one guest for every path, the mission's
    contenders beside them, and the netlink workloads at 1 and 2 vCPUs; on
    6.1 and 6.12, the same workloads with hardened usercopy on and off."""
    boots = []
    if "6.1" in kernels:
        plan = ["probe"]
        for order in (("N", "Y"), ("Y", "N")):
            for knob in order:
                plan.append(f"knob {knob}")
                for size in s.sizes:
                    plan.append(_flow(f"kernel-socket/knob-{knob}", size, s.seconds,
                                      "kernel-socket"))
                plan.append(_netlink(f"knob-{knob}", "copy", s, 2))
                plan.append(_netlink(f"knob-{knob}", "peek", s, 2))
            plan.append("knob N")
            for c in dict.fromkeys(MISSION + SEED000_HDP):
                if c == "kernel-socket":
                    continue
                for size in s.sizes:
                    plan.append(_flow(c, size, s.seconds, c))
        boots.append(BootSpec("seed000", "6.1", "usercopy on, 2 vCPU", "", 2, plan))
        plan1 = ["probe"]
        for knob in ("N", "Y", "Y", "N"):
            plan1 += [f"knob {knob}", _netlink(f"knob-{knob}", "peek", s, 1)]
        boots.append(BootSpec("seed000", "6.1", "usercopy on, 1 vCPU", "", 1, plan1))
    for k in [k for k in ("6.1", "6.12") if k in kernels]:
        for cpus in (2, 1):
            # In one guest: peeks of a vmalloc'd message against peeks of a
            # slab one, alternating; the lookup's cost without a knob.
            plan = ["probe"]
            for order in (("vmalloc", "slab"), ("slab", "vmalloc")):
                for where in order:
                    plan.append(_netlink(f"peek-{where}", "peek", s, cpus,
                                         PEEK_MESSAGE if where == "vmalloc" else PEEK_SLAB_MESSAGE))
            boots.append(BootSpec("seed000-netlink", k, f"vmalloc against slab, {cpus} vCPU", "",
                                  cpus, plan))
            for state in ("on", "off"):
                plan = ["probe", _netlink(f"usercopy-{state}", "peek", s, cpus),
                        _netlink(f"usercopy-{state}", "copy", s, cpus)]
                boots.append(BootSpec("seed000-netlink", k, f"usercopy {state}, {cpus} vCPU",
                                      f"hardened_usercopy={state}", cpus, plan))
    return boots


# --- seed 001: init_on_alloc / init_on_free and the exclusion list

SEED001_BOOTS = (
    ("off", ""),
    ("init_on_alloc", "init_on_alloc=1 init_exclude=none"),
    ("init_on_alloc, AF_UNIX excluded", "init_on_alloc=1 init_exclude=af_unix"),
    ("init_on_alloc, built-in list", "init_on_alloc=1 init_exclude=default"),
    ("init_on_free", "init_on_free=1 init_exclude=none"),
    ("init_on_free, built-in list", "init_on_free=1 init_exclude=default"),
)
SEED001_HDP = ("hdp-off", "hdp-init-alloc", "hdp-init-alloc-excluded", "hdp-init-free",
               "hdp-init-free-excluded")


def seed001_boots(s, kernels):
    if "6.1" not in kernels:
        return []
    boots = []
    groups, loops = s.hackbench
    for label, append in SEED001_BOOTS:
        plan = ["probe", f"hackbench warmup {groups} {loops}"]
        plan += [f"hackbench run {groups} {loops}"] * s.hackbench_runs
        for size in s.sizes:
            plan.append(_flow("kernel-socket", size, s.seconds, "kernel-socket"))
        if label == "off":
            for c in SEED001_HDP:
                for size in s.sizes:
                    plan.append(_flow(c, size, s.seconds, c))
        boots.append(BootSpec("seed001", "6.1", label, append, 2, plan))
    return boots


# --- seed 002: hardware tag-based KASAN on arm64 MTE, sampled; hdp's MTE

ARM64 = "6.12-arm64"
MTE_MODES = ("sync", "async", "asymm")
# What landed for seed 002 (6.3): sample 1 in N page_alloc allocations of
# order >= O; O = 3 is the skb frag page order the seed targets.
SEED002_BOOTS = (
    ("kasan off", "kasan=off"),
    ("sync, sample 1", "kasan=on kasan.mode=sync"),
    ("sync, sample 10", "kasan=on kasan.mode=sync kasan.page_alloc.sample=10 "
                        "kasan.page_alloc.sample.order=3"),
    ("async, sample 1", "kasan=on kasan.mode=async"),
    ("async, sample 10", "kasan=on kasan.mode=async kasan.page_alloc.sample=10 "
                         "kasan.page_alloc.sample.order=3"),
    ("asymm, sample 1", "kasan=on kasan.mode=asymm"),
    ("asymm, sample 10", "kasan=on kasan.mode=asymm kasan.page_alloc.sample=10 "
                         "kasan.page_alloc.sample.order=3"),
)
# Seed 002's loopback test: messages that take order-3 pages (a TCP write
# of 32 KiB fills the socket's page frags; a UDP datagram past a page
# takes alloc_skb_with_frags' pages).
LOOPBACK = (("tcp", 32768), ("udp", 16384))


def mte_contender(sample, backend="mte"):
    """hdp-fwd with its UMEM tagged 1 in @sample allocations by @backend."""
    return f"hdp-{'mte' if backend == 'mte' else 'tag'}-{sample}"


def seed002_boots(s, kernels):
    """Each KASAN setting in a boot of its own: the loopback test over TCP
    and UDP and the kernel socket path between veths, each a ratio to the
    kasan=off boot of the same round."""
    if ARM64 not in kernels:
        return []
    boots = []
    for label, append in SEED002_BOOTS:
        plan = ["probe", "kasan", "mteprobe"]
        for proto, size in LOOPBACK:
            plan.append(f"loopback {proto} {proto} {size} {s.seconds}")
        for size in s.sizes:
            plan.append(_flow("kernel-socket", size, s.seconds, "kernel-socket"))
        boots.append(BootSpec("seed002", ARM64, label, append, 2, plan))
    return boots


def mte_boots(s, kernels):
    """hdp-fwd under MTE in the arm64 guest, KASAN off: the MTE tests of
    the arm64 lane under a real kernel, hdp-fwd's AF_XDP path verified
    byte for byte with its UMEM tagged in each mode, and its cost as
    ratios to hdp-off, beside soft tags."""
    if ARM64 not in kernels:
        return []
    plan = ["probe", "kasan", "mteprobe"]
    for prog in ("test_mte", "test_mte_switch", "test_fwd_mte"):
        plan += [f"tap {prog} {mode} /usr/bin/{prog}" for mode in MTE_MODES]
    plan += [f"provoke {mode}" for mode in MTE_MODES]
    for mode in MTE_MODES:
        plan.append(_under_mode(_verify(f"mte-1-{mode}", 2000, mte_contender(1)), mode))
    # Jumbo frames, chains of up to 5 frames, at MTU 9000; then back to 1500.
    plan.append("mtu 9000")
    for mode in MTE_MODES:
        plan.append(_under_mode(_verify(f"mte-1-{mode}-jumbo", 2000, mte_contender(1),
                                        "60-9014"), mode))
    plan.append("mtu 1500")
    # Soft tags switched to MTE at run time, frames held across the switch;
    # and tags off (the UMEM on hugepages) to MTE: refused, saying why.
    for mode in MTE_MODES:
        plan.append(_under_mode(_switch(f"soft-to-mte-{mode}", 2000, "hdp-tag-1", "umem", "tag",
                                        "mte"), mode))
    plan.append(_switch("off-to-mte-refused", 1000, "hdp-off", "umem", "tag", "mte"))
    for size in s.sizes:
        plan.append(_flow("hdp-off", size, s.seconds, "hdp-off"))
        for sample in (1, 10):
            plan.append(_flow(f"soft-{sample}", size, s.seconds, mte_contender(sample, "soft")))
            for mode in MTE_MODES:
                plan.append(_under_mode(_flow(f"mte-{sample}-{mode}", size, s.seconds,
                                              mte_contender(sample)), mode))
    return [BootSpec("mte", ARM64, "kasan off, hdp-fwd under MTE", "kasan=off", 2, plan)]


# --- the CI lane's short points


def ci_boots(kernels):
    """On 6.1, one boot with both seeds' patches: the knob exists and
    switches, the exclusion list reaches the caches' attribute, the
    counters move where the check is, and hdp-fwd forwards, verified. On
    the arm64 guest, one boot with KASAN's tags sampled as seed 002 asks:
    the kernel says so, the loopback test runs, the forwarder's check of
    foreign descriptors holds under MTE, and hdp-fwd forwards with its
    UMEM tagged, verified."""
    boots = []
    if "6.1" in kernels:
        plan = ["probe", "knob Y", "netlink knob-Y peek 65536 1 1", "knob N",
                "netlink knob-N peek 65536 1 1",
                _flow("kernel-socket/knob-N", 60, 1, "kernel-socket"),
                "hackbench ci 2 20",
                _verify("hdp-default", 2000, "hdp-default")]
        boots.append(BootSpec("ci", "6.1", "CI", "init_on_alloc=1 init_exclude=default,af_unix",
                              2, plan))
    if ARM64 in kernels:
        plan = ["probe", "kasan", "mteprobe", "loopback tcp tcp 32768 1",
                "tap test_fwd_mte sync /usr/bin/test_fwd_mte", "provoke sync",
                _under_mode(_switch("soft-to-mte-sync", 2000, "hdp-tag-1", "umem", "tag", "mte"),
                            "sync"),
                _switch("off-to-mte-refused", 1000, "hdp-off", "umem", "tag", "mte"),
                _under_mode(_verify("mte-1-sync", 2000, mte_contender(1)), "sync"),
                "mtu 9000",
                _under_mode(_verify("mte-1-sync-jumbo", 1000, mte_contender(1), "60-9014"),
                            "sync"),
                "kasan"]
        boots.append(BootSpec("ci", ARM64, "CI, arm64",
                              dict(SEED002_BOOTS)["sync, sample 10"], 2, plan))
    return boots


# --- figures from results


def delta(r, key):
    a, b = r.get("before", {}).get(key), r.get("after", {}).get(key)
    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or a < 0 or b < 0:
        return None
    return b - a


def flow_figures(r):
    """pps, Gbit/s, and the usercopy checks per delivered packet on CPU 1,
    where the contender and its receive work run (the generator's own
    copies, on CPU 0, are not the path's)."""
    dt = r["sink_t1"] - r["sink_t0"]
    n = r["sink_n1"] - r["sink_n0"]
    if dt <= 0:
        return None
    pps = n / dt
    out = {"pps": pps, "gbps": pps * r["size"] * 8 / 1e9, "packets": n}
    for key, name in (("uc_checks", "checks"), ("uc_vmalloc", "vmalloc_checks"),
                      ("uc_bypassed", "vmalloc_bypassed")):
        d = delta(r, key + "_cpu1")
        out[name + "_per_packet"] = d / n if d is not None and n else None
    return out


def netlink_figures(r):
    msgs = r.get("messages")
    if not isinstance(msgs, int) or not r.get("seconds"):
        return None
    out = {"messages_per_s": msgs / r["seconds"],
           "gbps": r["bytes"] * 8 / r["seconds"] / 1e9}
    for key, name in (("uc_vmalloc", "vmalloc_checks"), ("uc_bypassed", "vmalloc_bypassed")):
        d = delta(r, key)
        out[name + "_per_message"] = d / msgs if d is not None and msgs else None
    return out


def loopback_figures(r):
    """Messages a second, and KASAN's page_allocs of the sampled orders
    tagged and skipped a message (the arm64 lab patch's counters)."""
    if not isinstance(r.get("messages"), int) or not r.get("seconds"):
        return None
    msgs = r["messages"]
    out = {"messages_per_s": msgs / r["seconds"], "gbps": r["bytes"] * 8 / r["seconds"] / 1e9}
    for key in ("tagged", "skipped"):
        d = delta(r, "kl_" + key)
        out[key + "_per_message"] = d / msgs if d is not None and msgs else None
    return out


def hackbench_figures(r):
    if not isinstance(r.get("time"), (int, float)):
        return None
    sys_ticks = delta(r, "cpu_sys")
    out = {"seconds": r["time"], "sys_ticks": sys_ticks}
    for key in ("alloc_wiped", "alloc_wiped_bytes", "alloc_skipped", "free_wiped",
                "free_wiped_bytes", "free_skipped"):
        out[key] = delta(r, "ie_" + key)
    return out


def summary(values):
    values = [v for v in values if v is not None]
    if not values:
        return None
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}
