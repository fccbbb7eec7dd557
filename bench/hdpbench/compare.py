"""hdp-bench compare: the same offered traffic through each contender in
turn, on the namespace topology (topology.py), with the receive work
placed as placement.py says, every contender in a session of its own."""
import json
import os
import re
import shutil
import subprocess
import sys
import time

from . import contenders, placement, procs, topology
from .harness import Harness, prepare_out, start
from .options import UsageError, decimal_seconds, parse, split_list
from .reports import compare as report
from .reports import stages

USAGE = """\
usage: hdp-bench compare [--quick] [--trials N] [--seconds S] [--placement P]
                         [--contenders LIST] [--size LIST] [--generator G]
                         [--profile] [--out DIR] [--no-micro]
                         [--only LIST] [--threads LIST] [--cpu N]

  gen: generator (CPU 0) -> g0 == f0 [contender, CPU 1] f1 == s0 -> XDP_DROP counter

hdp-fwd profiles, kernel XDP redirect, dpdk-testpmd and the kernel socket
path on the namespace topology (root). Contenders, sizes and trials are
interleaved, so that drift hits all alike; figures are medians with min
and max, and ratios to hdp-off at the same size from the same run.
hdp-off-again is hdp-off once more, under another name: the A/A control,
whose ratio to hdp-off is the run's noise.

  --quick            a short run that still produces every figure
  --trials N         rounds over every contender, 3 to 31 (default 5)
  --seconds S        measuring window per trial (default 4)
  --placement P      where f0's receive work runs: same (default: in f0's NAPI
                     thread on the contender's core, every contender's alike),
                     same-rps (the socket path's by RPS, in softirq) or split
                     (with the generator on CPU 0: it flatters all of them)
  --contenders LIST  e.g. hdp-off,hdp-default,hdp-default-busy,kernel-socket:
                     hdp-PROFILE (off, bounds, bounds-tree, init, init-used,
                     tag-N, mte-N (arm64), all, redzone, redzone-canary, quarantine, shuffle;
                     default and strict are configs/*.ini as shipped), -busy
                     adds --busy-poll, +KEY=VALUE+... more keys; ini:PATH
                     hdp-fwd on a configuration file of your own, as it is;
                     kernel-xdp, testpmd, kernel-socket, bridge
  --size LIST        frame lengths without FCS, e.g. 60,1500,9000,imix
                     (default 60): N (60..9000), MIN-MAX, or imix (7:4:1 of
                     64/594/1518 on the wire). Every veth gets the MTU the size
                     needs (1500, or 9000 above 1514 bytes). A contender that
                     cannot carry a size is reported as "cannot", with its
                     reason; with several sizes, throughput.png against size
  --generator G      auto (default: dpdk-testpmd txonly for one length up to
                     1514 bytes, hdp-gen (AF_PACKET) for the rest), testpmd
                     or hdp-gen
  --profile          after each window, perf on the contender's core for 2 s,
                     split by stage (reports/stages.py): CPU per packet per stage
  --out DIR          results.json, results.md, compare.png, trials.jsonl (the
                     raw trials); first hdp-bench micro into DIR/micro at the
                     fixed lengths of --size, so that the report can set each
                     protection's added cost against the whole cost per packet
  --no-micro         with --out: no micro run first
  --only LIST, --threads LIST
                     passed to that micro run (hdp-bench --help)
  --cpu N            the run, and micro's measuring thread, on CPU N
"""

DEFAULT = ("hdp-off,hdp-bounds,hdp-init,hdp-init-used,hdp-tag-10,hdp-all,hdp-default,hdp-strict,"
           "hdp-off-busy,hdp-default-busy,kernel-xdp,testpmd,kernel-socket,hdp-off-again")
QUICK = ("hdp-off,hdp-default,hdp-strict,hdp-off-busy,kernel-xdp,testpmd,kernel-socket,"
         "hdp-off-again")
TRIALS_MAX = 31
BYPASS = "/sys/kernel/debug/bypass_usercopy_vmalloc_check"
BYPASS_PREFIX = "kernel-socket-bypass-"
PROFILE_SECONDS = 2
# The longest a contender may take from its start to its first forwarded
# frames (a sanitizer build on a loaded machine takes seconds) before its
# window opens regardless and reports what it delivered.
READY_SECONDS = 20
FRAME_MAX_AT_1500 = 1514	# the longest frame (no FCS) an MTU of 1500 carries; imix's longest


class Settings:
    """What a run does: its options, read."""

    def __init__(self, argv):
        o = parse(argv, ("quick", "profile", "no-micro", "help"),
                  ("trials", "seconds", "placement", "contenders", "size", "generator", "out",
                   "only", "threads", "cpu"))
        self.help = "help" in o
        quick = "quick" in o
        self.quick = quick
        self.seconds = o.get("seconds", "0.8" if quick else "4")
        self.trials_given = "trials" in o
        self.trials = o.get("trials", "3" if quick else "5")
        self.settle, self.warm = (0.4, 0.4) if quick else (1.5, 2.0)
        self.placement = o.get("placement", "same")
        self.contenders = split_list(o.get("contenders", QUICK if quick else DEFAULT))
        self.size_given = "size" in o
        self.sizes_arg = o.get("size", "60")
        self.sizes = split_list(self.sizes_arg)
        self.generator = o.get("generator", "auto")
        self.out = o.get("out")
        self.profile = "profile" in o
        self.micro = "no-micro" not in o
        self.only, self.threads, self.cpu = o.get("only"), o.get("threads"), o.get("cpu")
        self._check()

    def _check(self):
        if not re.fullmatch(r"[0-9]+", self.trials) or not 3 <= int(self.trials) <= TRIALS_MAX:
            raise UsageError(f"--trials '{self.trials}': expected 3 to {TRIALS_MAX}")
        self.trials = str(int(self.trials))
        if not decimal_seconds(self.seconds):
            raise UsageError(f"--seconds '{self.seconds}': expected a positive number")
        if self.placement not in placement.PLACEMENTS:
            raise UsageError(f"--placement '{self.placement}': expected same, same-rps or split")
        if self.generator not in ("auto", "testpmd", "hdp-gen"):
            raise UsageError(f"--generator '{self.generator}': expected auto, testpmd or hdp-gen")
        if self.cpu is not None and not re.fullmatch(r"[0-9]+", self.cpu):
            raise UsageError(f"--cpu '{self.cpu}': expected a CPU number")
        for size in self.sizes:
            if largest(size) is None:
                raise UsageError(f"--size '{size}': expected N (60..9000), MIN-MAX or imix")
            if self.generator_of(size) == "testpmd" and not (is_len(size) and int(size) <= FRAME_MAX_AT_1500):
                raise UsageError(f"--size '{size}': testpmd's txonly makes one length up to 1514 "
                                 "bytes here (--generator hdp-gen)")
        for name in self.contenders:
            try:
                contenders.Contender(name)
            except ValueError as e:
                raise UsageError(str(e)) from None

    def generator_of(self, size):
        """testpmd or hdp-gen: testpmd's txonly makes one length per run, in
        one mbuf and one UMEM chunk; hdp-gen (AF_PACKET) makes any size."""
        if self.generator != "auto":
            return self.generator
        return "testpmd" if is_len(size) and int(size) <= FRAME_MAX_AT_1500 else "hdp-gen"

    def needs_testpmd(self):
        return "testpmd" in self.contenders or any(self.generator_of(s) == "testpmd"
                                                   for s in self.sizes)


# Sizes. A size is one length N, a range MIN-MAX (every length in between,
# at random) or imix: 7:4:1 of 64, 594 and 1518 bytes on the wire, 60, 590
# and 1514 here (frame lengths are without FCS throughout, as 60 is).
def is_len(text):
    return bool(re.fullmatch(r"[1-9][0-9]*", text)) and 60 <= int(text) <= 9000


def largest(size):
    """@size's largest frame, or None when @size is not a size."""
    if size == "imix":
        return FRAME_MAX_AT_1500
    lo, dash, hi = size.partition("-")
    if dash:
        return int(hi) if is_len(lo) and is_len(hi) and int(lo) <= int(hi) else None
    return int(size) if is_len(size) else None


def mtu_of(size):
    """The MTU every veth needs for @size."""
    return 1500 if largest(size) <= FRAME_MAX_AT_1500 else 9000


def explain(who, reason, mtu):
    """What the bench knows about a reason that the program does not say."""
    why = reason
    if "out of range" in reason or "MTU is too large" in reason:
        why += f" [MTU {mtu}: veth takes only an XDP program marked for fragments (xdp.frags)]"
    if who == "testpmd" and mtu > 1500:
        why += (" [net_af_xdp in DPDK 22.11 has no multi-buffer: a frame must fit one 4 KiB "
                "UMEM chunk, about 3.5 KiB]")
    return why


def set_bypass(value):
    """Seed 000's knob (only on its patched kernel): N or Y."""
    with open(BYPASS, "w") as f:
        f.write(value + "\n")


class Run:
    """One compare run on its harness @h."""

    def __init__(self, s, paths, h):
        self.s, self.paths, self.h = s, paths, h
        self.sink = self.gen = None
        self.runs = []

    # --- counters, read on both sides of a window ---------------------------
    def g0_tx(self):
        """(packets, bytes) g0 has sent."""
        tx = topology.link_stats(self.h.ns("gen"), "g0")["tx"]
        return float(tx["packets"]), float(tx["bytes"])

    def hop_drops(self):
        """f0's rx, f1's tx and s0's rx drops, from the kernel's counters."""
        f0 = topology.link_stats(self.h.ns("fwd"), "f0")
        f1 = topology.link_stats(self.h.ns("fwd"), "f1")
        s0 = topology.link_stats(self.h.ns("sink"), "s0")
        return [f0["rx"]["dropped"], f1["tx"]["dropped"], s0["rx"]["dropped"]]

    def sink_count(self):
        """(frames, bytes) the sink has counted; bytes -1 when it does not say."""
        return procs.sink_counts(self.h.read("sink"))

    # --- the sink and the generator, per size -------------------------------
    def generator_argv(self, size):
        if self.s.generator_of(size) == "testpmd":
            return topology.in_ns(self.h.ns("gen"), [
                "dpdk-testpmd", "--lcores", "0@0,1@0", "--in-memory", "--no-pci",
                "--vdev", "net_af_xdp0,iface=g0", "--", "--forward-mode=txonly",
                "--total-num-mbufs", "32768", "--stats-period", "100", "--txpkts", size,
                "--auto-start"])
        return topology.in_ns(self.h.ns("gen"), placement.on_cpu(placement.GENERATOR_CPU, [
            self.paths.program("hdp-gen"), "--iface", "g0", "--count", "0", "--size", size]))

    def size_up(self, size):
        """Every veth's MTU for @size, in every namespace, then the sink and
        the generator: None, or why the size cannot be measured."""
        mtu = mtu_of(size)
        for ns, dev in (("gen", "g0"), ("fwd", "f0"), ("fwd", "f1"), ("sink", "s0")):
            r = subprocess.run(["ip", "-n", self.h.ns(ns), "link", "set", dev, "mtu", str(mtu)],
                               stderr=subprocess.PIPE, text=True)
            if r.returncode:
                return f"topology: cannot set MTU {mtu}: {(r.stderr.splitlines() or [''])[0]}"
        self.sink = self.h.start(topology.in_ns(self.h.ns("sink"), [
            self.paths.program("hdp-sink"), "--iface", "s0", "--every", "0.02"]), "sink")
        self.gen = self.h.start(self.generator_argv(size), "gen")
        time.sleep(1)
        why = None
        if not procs.alive(self.sink):
            why = "sink: " + explain("sink", procs.reason_of(self.h.path("sink")), mtu)
        elif not procs.alive(self.gen):
            why = (f"generator {self.s.generator_of(size)}: "
                   + explain("gen", procs.reason_of(self.h.path("gen")), mtu))
        if why:
            self.size_down()
        return why

    def size_down(self):
        if self.gen or self.sink:
            procs.stop(self.gen, self.sink)
        self.gen = self.sink = None

    # --- one contender at one size ------------------------------------------
    def window(self):
        """The counters before and after one measuring window, and its times."""
        g0, s0, c0, h0, t0 = self.g0_tx(), self.sink_count(), procs.cpu_ticks(), self.hop_drops(), time.time()
        time.sleep(float(self.s.seconds))
        g1, s1, c1, h1, t1 = self.g0_tx(), self.sink_count(), procs.cpu_ticks(), self.hop_drops(), time.time()
        return (g0, g1), (s0, s1), (c0, c1), (h0, h1), (t0, t1)

    def stage_profile(self):
        """perf on the contender's core for a while, split by stage; None when
        perf or its reading fails."""
        data = self.h.path("perf.data")
        p0, tp0 = self.sink_count(), time.time()
        subprocess.run(["perf", "record", "-q", "-C", str(placement.CONTENDER_CPU), "-g", "-o", data,
                        "--", "sleep", str(PROFILE_SECONDS)],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        p1, tp1 = self.sink_count(), time.time()
        try:
            return stages.profile(data, tp0, tp1, p0[0], p1[0])
        except (OSError, subprocess.CalledProcessError, ValueError, KeyError):
            return None

    def until_delivering(self, cont):
        """Wait until frames reach the sink through contender @cont (its
        count grows twice in a row: a last frame of the contender before
        it has left) or it stopped, which the trial then reports: True;
        False when neither happened in READY_SECONDS."""
        end = time.monotonic() + READY_SECONDS
        last, grew = self.sink_count()[0], 0
        while procs.alive(cont) and time.monotonic() < end:
            time.sleep(0.05)
            now = self.sink_count()[0]
            grew = grew + 1 if now > last else 0
            last = now
            if grew == 2:
                return True
        return not procs.alive(cont)

    def trial(self, name, size):
        """One trial of contender @name at @size: its JSON object."""
        bypass = name[len(BYPASS_PREFIX):] if name.startswith(BYPASS_PREFIX) else None
        c = contenders.Contender("kernel-socket" if bypass else name)
        mtu = mtu_of(size)
        fwd = self.h.ns("fwd")
        if bypass:
            set_bypass(bypass)
        cont = self.h.start_contender(c, placement.contender_argv(
            c, c.command(self.paths.configs, self.paths.program)))
        time.sleep(self.s.settle)
        # A busy-polling hdp-fwd runs the receive work itself: NAPI not threaded.
        if self.s.placement != "split" and not c.busy:
            placement.napi_on_cpu1(fwd, "compare", name)
        if self.s.placement == "same-rps":
            placement.rps_to_cpu1(fwd)
        if not self.until_delivering(cont):
            self.h.say(f"{name} delivered nothing {READY_SECONDS} s after its start")
        time.sleep(self.s.warm)
        counters = self.window()
        # A contender that stopped on its own (hdp-fwd refusing busy polling
        # the kernel cannot do, or an XDP program a jumbo MTU refuses) is
        # reported with its reason, not as a figure.
        exited = prof = None
        if not procs.alive(cont):
            exited = {"status": procs.status(cont),
                      "reason": explain(name, procs.reason_of(self.h.path("contender")), mtu)}
        elif self.s.profile:
            prof = self.stage_profile()
        procs.stop(cont)
        placement.release(fwd, rps=True)
        subprocess.run(["ip", "-n", fwd, "link", "del", "br0"], stderr=subprocess.DEVNULL)
        return trial_result(name, size, mtu, self.s.generator_of(size), counters, exited, prof,
                            procs.reason_of(self.h.path("contender")))

    # --- the whole run ------------------------------------------------------
    def measure(self, names):
        cannot = set()		# (size, contender or "*") that cannot be measured
        trials = int(self.s.trials)
        several = len(self.s.sizes) > 1
        for t in range(1, trials + 1):
            for size in self.s.sizes:
                if (size, "*") in cannot:
                    continue
                if several or t == 1:
                    why = self.size_up(size)
                    if why:
                        self.h.say(f"size {size}: not measured: {why}")
                        cannot.add((size, "*"))
                        self.runs += [{"contender": c, "size": size,
                                       "cannot": "size not measured: " + why} for c in names]
                        continue
                for c in names:
                    if (size, c) in cannot:
                        continue
                    r = self.trial(c, size)
                    self.runs.append(r)
                    if r["cannot"]:
                        cannot.add((size, c))
                    said = ("cannot: " + r["cannot"] if r["cannot"] else
                            "%.0f pps (%.2f Gbit/s) delivered of %.0f offered"
                            % (r["delivered_pps"], r["delivered_gbps"], r["offered_pps"]))
                    self.h.say(f"trial {t}/{trials}, size {size}, {c}: {said}")
                if several:
                    self.size_down()
        self.size_down()


def trial_result(c, size, mtu, gen, counters, exited, prof, said):
    """One trial's figures from the counters around its window."""
    ((g0, g0b), (g1, g1b)), ((s0, s0b), (s1, s1b)), (c0, c1), (h0, h1), (t0, t1) = counters
    secs = t1 - t0
    hz = os.sysconf("SC_CLK_TCK")
    d = [(b - a) / hz / secs * 100 for a, b in zip(c0, c1)]
    cpu1 = sum(d[3:6]) / 100 * secs
    hops = dict(zip(("f0_rx_dropped", "f1_tx_dropped", "s0_rx_dropped"),
                    ((b - a) / secs for a, b in zip(h0, h1))))
    hops["unaccounted"] = ((g1 - g0) - (s1 - s0)) / secs - sum(hops.values())
    delivered, offered = (s1 - s0) / secs, (g1 - g0) / secs
    # Bytes delivered: the sink's count when it gives one; otherwise packets
    # times the offered frames' mean length. veth counts a frame's bytes
    # without its Ethernet header (after eth_type_trans): 14 more each.
    offered_bytes = (g1b - g0b) + 14 * (g1 - g0)
    mean = offered_bytes / (g1 - g0) if g1 > g0 else 0.0
    if s0b >= 0 and s1b >= 0:
        delivered_bytes, bytes_from = (s1b - s0b) / secs, "sink"
    else:
        delivered_bytes, bytes_from = delivered * mean, "offered mean"
    # A contender that runs and delivers (next to) nothing cannot carry the
    # size: say so, with where the frames went, rather than report a zero.
    cannot = None
    if exited:
        cannot = exited["reason"] or f"stopped with status {exited['status']}"
    elif offered <= 0:
        cannot = f"the generator ({gen}) offered nothing"
    elif delivered * 1e4 < offered:
        where = max(hops, key=hops.get)
        cannot = (f"delivered {delivered:.0f} of {offered:.0f} packets/s offered; most were lost at "
                  f"{where.replace('_', ' ')} ({hops[where]:.0f}/s)" + (f"; it said: {said}" if said else ""))
    return {"contender": c, "size": size, "mtu": mtu, "generator": gen,
            "delivered_pps": delivered, "offered_pps": offered,
            "frame_bytes": mean, "delivered_gbps": delivered_bytes * 8 / 1e9,
            "offered_gbps": offered_bytes / secs * 8 / 1e9, "bytes_from": bytes_from,
            "drops_pps": hops,
            "cpu": {"cpu0": {"user": d[0], "sys": d[1], "softirq": d[2]},
                    "cpu1": {"user": d[3], "sys": d[4], "softirq": d[5]}},
            "ns_per_pkt": cpu1 * 1e9 / max(s1 - s0, 1), "exited": exited, "cannot": cannot,
            "profile": prof}


def run_micro(s, paths):
    """hdp-bench micro into OUT/micro at the fixed lengths of --size: 0, or
    its failure's status."""
    fixed = [z for z in s.sizes if re.fullmatch(r"[0-9]+", z)]
    if s.size_given and not fixed:
        print(f"compare: micro: no fixed frame length in --size '{s.sizes_arg}': not run",
              file=sys.stderr)
        return 0
    argv = [paths.program("hdp-bench"), "micro", "--out", os.path.join(s.out, "micro")]
    argv += ["--quick"] if s.quick else []
    argv += ["--trials", s.trials] if s.trials_given else []
    argv += ["--size", ",".join(fixed)] if s.size_given else []
    for opt, value in (("--only", s.only), ("--threads", s.threads), ("--cpu", s.cpu)):
        argv += [opt, value] if value is not None else []
    sys.stdout.flush()
    return subprocess.run(argv).returncode


def _perf_works():
    try:
        return subprocess.run(["perf", "record", "-q", "-o", "/dev/null", "--", "true"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def main(argv, paths):
    s, status = start("compare", Settings, USAGE, argv)
    if s is None:
        return status
    if s.cpu is not None:
        try:
            os.sched_setaffinity(0, {int(s.cpu)})
        except OSError as e:
            print(f"compare: --cpu {s.cpu}: {e.strerror}", file=sys.stderr)
            return 2
    outfd = None
    if s.out:
        outfd, status = prepare_out("compare", report.prepare, s.out)
        if outfd is None:
            return status
    if s.profile and not _perf_works():
        print("compare: --profile needs perf (Debian package linux-perf): no stage table",
              file=sys.stderr)
        s.profile = False
    if s.needs_testpmd() and shutil.which("dpdk-testpmd") is None:
        print("compare: needs dpdk-testpmd (Debian package dpdk-dev)", file=sys.stderr)
        return 2
    if s.out and s.micro and run_micro(s, paths):
        return 1
    with Harness("compare", "hdpb") as h:
        if not h.up():
            return 1
        for name in s.contenders:
            c = contenders.Contender(name)
            why = c.check(paths.configs, paths.program, lambda a: topology.in_ns(h.ns("fwd"), a))
            if why:
                h.say(why)
                return 2
        if s.placement == "same":
            placement.tso_off(h.ns("gen"), "g0")
        names = list(s.contenders)
        if os.path.exists(BYPASS):
            names += [BYPASS_PREFIX + "N", BYPASS_PREFIX + "Y"]
        run = Run(s, paths, h)
        run.measure(names)
        trials_text = "".join(json.dumps(r) + "\n" for r in run.runs)
        return report.report(trials_text, s.placement, s.seconds, s.trials, outfd, s.out)
