"""hdp-bench latency: how long a packet waits in each contender, at the
loads a forwarder actually has, and the CPU it burns there."""
import decimal
import json
import os
import re
import shutil
import subprocess
import sys
import time

from . import contenders, placement, procs, topology
from .harness import Harness, prepare_out, start
from .options import UsageError, parse, split_list
from .reports import latency as report

USAGE = """\
hdp-bench latency: how long a packet waits in each contender, at the
loads a forwarder actually has, and the CPU it burns there. On compare's
namespace topology and placement (same: f0's receive work in its NAPI
thread on CPU 1 with the contender), plus a direct veth pair for the
baseline:

  gen: g0 == f0 [contender, CPU 1] f1 == s0 :sink      (each contender)
  gen: gb ============================== sb :sink      (baseline)

hdp-gen --stamp (CPU 0) sends one frame at a time, paced frame by frame,
with CLOCK_MONOTONIC written into it just before the send; hdp-sink
--latency takes the time since the stamp in its XDP program on s0 (sb),
the first code that runs for the frame there, into a histogram. The
baseline path is measured at every rate any contender was measured at,
in the same trial, so every contender's figure can be given as the
latency it adds.

Loads: fixed rates (packets/s) and PCT% of the contender's own
saturation rate, measured just before in the same trial (hdp-gen
flooding, hdp-sink counting). A fixed rate at or above a contender's
saturation is not a latency figure: it is reported as such, not run.
CPU: the run time (ns, /proc/PID/schedstat) of the contender's threads
and of f0's NAPI threads over the load, per packet sent; and CPU 1's
busy share (/proc/stat). Idle: the contender's own CPU share over 1 s
without traffic, before anything is sent.

usage: hdp-bench latency [--quick] [--trials N] [--seconds S] [--loads LIST] [--size LIST]
                         [--contenders a,b,...] [--spin US] [--out DIR]
--loads: e.g. 1000,10000,100000,50%,90% (the default)
--size: frame lengths without FCS, 60..9000 (default 60,1500)
--contenders: as compare's (hdp-PROFILE[-busy|-spin][+KEY=VALUE...],
  ini:PATH, kernel-xdp, testpmd, kernel-socket, bridge); -spin adds
  --idle-spin US (--spin, default 200); hdp-off-again is hdp-off once
  more, the A/A control: how far two runs of one thing differ here
--seconds: per load (default 2; at least 2000 frames a point); --trials:
  rounds over every contender (default 3), figures their medians
--quick: one round, 60-byte frames, loads 1000 and 25%, contenders
  hdp-off, hdp-default and kernel-xdp
"""

DEFAULT = ("kernel-xdp,kernel-socket,testpmd,hdp-off,hdp-default,hdp-strict,hdp-bounds,"
           "hdp-init,hdp-init-used,hdp-tag-10,hdp-redzone,hdp-quarantine,hdp-shuffle,"
           "hdp-off-spin,hdp-default-spin,hdp-off-again")
QUICK = "hdp-off,hdp-default,kernel-xdp"
POINT_FRAMES_MIN = 2000
SINK_READY_WAITS = 200		# of 50 ms: however slow the machine is, up to 10 s
SINK_DURATION_SLACK_S = 15
NEAR_SATURATION_PCT = 98


class Settings:
    def __init__(self, argv):
        o = parse(argv, ("quick", "help"),
                  ("seconds", "trials", "loads", "size", "contenders", "spin", "out"))
        self.help = "help" in o
        quick = "quick" in o
        self.seconds = o.get("seconds", "0.6" if quick else "2")
        self.trials = o.get("trials", "1" if quick else "3")
        self.settle, self.warm, self.sat_seconds = (0.6, 0.4, 0.8) if quick else (1.5, 1.0, 1.5)
        self.loads = split_list(o.get("loads", "1000,25%" if quick else "1000,10000,100000,50%,90%"))
        self.sizes_arg = o.get("size", "60" if quick else "60,1500")
        self.sizes = split_list(self.sizes_arg)
        self.contenders = split_list(o.get("contenders", QUICK if quick else DEFAULT))
        self.spin_us = o.get("spin", "200")
        self.out = o.get("out")
        self._check()

    def _check(self):
        if not re.fullmatch(r"[1-9][0-9]?", self.trials):
            raise UsageError(f"--trials '{self.trials}': expected 1 to 99")
        if not re.fullmatch(r"[0-9]+(\.[0-9]+)?", self.seconds) or decimal.Decimal(self.seconds) <= 0:
            raise UsageError(f"--seconds '{self.seconds}': expected a number of seconds above 0")
        if not re.fullmatch(r"[0-9]+", self.spin_us):
            raise UsageError(f"--spin '{self.spin_us}': expected microseconds")
        for load in self.loads:
            if not re.fullmatch(r"[1-9][0-9]*|([1-9]|[1-9][0-9])%", load):
                raise UsageError(f"--loads '{load}': expected packets/s (e.g. 10000) or a share "
                                 "of saturation (1% to 99%)")
        for size in self.sizes:
            if not re.fullmatch(r"[1-9][0-9]*", size) or not 60 <= int(size) <= 9000:
                raise UsageError(f"--size '{size}': expected a frame length from 60 to 9000 "
                                 "(a stamp needs 60)")
        for name in self.contenders:
            try:
                contenders.Contender(name)
            except ValueError as e:
                raise UsageError(str(e)) from None


class Run:
    """One latency run on its harness @h."""

    def __init__(self, s, paths, h):
        self.s, self.paths, self.h = s, paths, h
        self.points = []

    def ns(self, role):
        return self.h.ns(role)

    def on_cpu0(self, role, argv):
        return topology.in_ns(self.ns(role), placement.on_cpu(placement.GENERATOR_CPU, argv))

    def baseline_pair(self):
        """A veth pair from the generator's namespace to the sink's: gb == sb."""
        gen, sink = self.ns("gen"), self.ns("sink")
        for argv in (["ip", "link", "add", "gb", "netns", gen, "type", "veth",
                      "peer", "name", "sb", "netns", sink],
                     ["ip", "-n", gen, "link", "set", "gb", "up"],
                     ["ip", "-n", sink, "link", "set", "sb", "up"]):
            if subprocess.run(argv).returncode:
                return False
        return True

    def set_mtu(self, size):
        """Every veth's MTU for frames of @size."""
        mtu = "9000" if int(size) > 1514 else "1500"
        for role, dev in (("gen", "g0"), ("gen", "gb"), ("fwd", "f0"), ("fwd", "f1"),
                          ("sink", "s0"), ("sink", "sb")):
            if subprocess.run(["ip", "-n", self.ns(role), "link", "set", dev, "mtu", mtu]).returncode:
                return False
        return True

    def _sink_frames(self, name):
        return procs.sink_counts(self.h.read(name))[0]

    def saturation(self, size):
        """The contender's saturation: hdp-gen floods g0, hdp-sink counts at
        s0; delivered packets/s."""
        sink = self.h.start(self.on_cpu0("sink", [self.paths.program("hdp-sink"), "--iface", "s0",
                                                  "--every", "0.05"]), "satsink")
        time.sleep(0.4)
        gen = procs.start(self.on_cpu0("gen", [self.paths.program("hdp-gen"), "--iface", "g0",
                                               "--count", "0", "--size", size]), subprocess.DEVNULL)
        self.h.procs.append(gen)
        time.sleep(0.4)
        a, ta = self._sink_frames("satsink"), time.time()
        time.sleep(self.s.sat_seconds)
        b, tb = self._sink_frames("satsink"), time.time()
        procs.stop(gen, sink)
        time.sleep(0.3)		# the queues drain before the first stamped frame
        return int((b - a) / (tb - ta))

    def veth_counts(self, sif, peer_ns, peer_if):
        """The kernel's own view of the sink's veth: frames its XDP program
        ran on, and frames dropped before it could (the NAPI ring full, or
        the receive side refusing), at the sink's end and at its peer's
        send. A frame the sink did not count is then one the kernel says it
        dropped, or one it never had. (veth's rx_dropped is
        rx_queue_0_drops plus what its peer's tx_dropped already holds, so
        the two are added without it.)"""
        out = subprocess.run(topology.in_ns(self.ns("sink"), ["ethtool", "-S", sif]),
                             capture_output=True, text=True).stdout
        xdp = drops = 0
        for line in out.splitlines():
            w = line.split()
            if len(w) > 1 and w[0] == "rx_queue_0_xdp_packets:":
                xdp = int(procs.number(w[1]))
            elif len(w) > 1 and w[0] == "rx_queue_0_drops:":
                drops = int(procs.number(w[1]))
        peer = subprocess.run(topology.in_ns(peer_ns, ["cat", f"/sys/class/net/{peer_if}/statistics/tx_dropped"]),
                              capture_output=True, text=True).stdout.strip()
        return xdp, drops + (int(peer) if peer.isdigit() else 0)

    def point(self, trial, who, size, load, rate, gen_if, sink_if, pids, peer_ns, peer_if):
        """One load: hdp-gen --stamp at @rate for the window, hdp-sink
        --latency on the sink's interface; its JSON object."""
        count = max(int(decimal.Decimal(rate) * decimal.Decimal(self.s.seconds)), POINT_FRAMES_MIN)
        sink = self.h.start(self.on_cpu0("sink", [
            self.paths.program("hdp-sink"), "--iface", sink_if, "--latency", "--expect", str(count),
            "--idle", "1", "--duration", str(count // rate + SINK_DURATION_SLACK_S)]), "lat")
        # A frame sent before the sink's program is in place is not counted:
        # the sender waits for its cue however slow the machine is, and a
        # point whose sink never got ready says so.
        ready = False
        for _ in range(SINK_READY_WAITS):
            if any(line.startswith("measuring") for line in self.h.read("lat").splitlines()):
                ready = True
                break
            if not procs.alive(sink):
                break
            time.sleep(0.05)
        k0 = self.veth_counts(sink_if, peer_ns, peer_if)
        r0, c0 = procs.run_ns(pids), procs.cpu1_busy()
        with self.h.log("gen") as log:
            subprocess.run(self.on_cpu0("gen", [
                self.paths.program("hdp-gen"), "--iface", gen_if, "--size", str(size), "--rate",
                str(rate), "--count", str(count), "--stamp"]), stdout=log, stderr=subprocess.STDOUT)
        r1, c1 = procs.run_ns(pids), procs.cpu1_busy()
        sink.wait()
        k1 = self.veth_counts(sink_if, peer_ns, peer_if)
        lat = (self.h.read("lat").splitlines() or [""])[-1]
        return point_result(who, size, load, rate, trial, self.h.read("gen"), lat, ready,
                            (r0, r1), (c0, c1), (k0, k1))

    def idle_cpu(self, pid):
        """The contender's CPU share (%) over 1 s with no traffic."""
        a = procs.run_ns([pid])
        time.sleep(1)
        return (procs.run_ns([pid]) - a) / 10000000

    def cannot(self, who, size, trial, why):
        self.points.append({"who": who, "size": int(size), "trial": trial, "cannot": why})

    def contender(self, trial, size, name, rates):
        """Every load through contender @name; the rates it ran at into @rates."""
        c = contenders.Contender(name)
        fwd = self.ns("fwd")
        cont = self.h.start_contender(c, placement.contender_argv(
            c, c.command(self.paths.configs, self.paths.program, self.s.spin_us)))
        time.sleep(self.s.settle)
        napi = [] if c.busy else placement.napi_on_cpu1(fwd, "latency", name)
        time.sleep(self.s.warm)
        if not procs.alive(cont):
            why = procs.reason_of(self.h.path("contender"))
            self.h.say(f"{name} stopped: {why}")
            self.cannot(name, size, trial, why)
            return
        idle = self.idle_cpu(cont.pid)
        sat = self.saturation(size)
        # A contender that died or forwards nothing has no saturation, and no latency.
        if not procs.alive(cont) or sat <= 0:
            why = "it delivered nothing under a flood"
            if not procs.alive(cont):
                why = "it stopped: " + procs.reason_of(self.h.path("contender"))
            self.h.say(f"{name}: {why}")
            self.cannot(name, size, trial, why)
            procs.stop(cont)
            return
        self.h.say(f"trial {trial}, {size} bytes, {name}: idle CPU {idle:.2f} %, "
                   f"saturation {sat} packets/s")
        self.points.append({"who": name, "size": int(size), "trial": trial,
                            "idle_cpu_pct": idle, "saturation_pps": sat})
        for load in self.s.loads:
            # A fixed rate at or near saturation is no latency figure; a
            # share of it always is one.
            if load.endswith("%"):
                rate, near = sat * int(load[:-1]) // 100, False
            else:
                rate = int(load)
                near = rate * 100 >= sat * NEAR_SATURATION_PCT
            if rate < 1 or near:
                self.points.append({"who": name, "size": int(size), "load": load, "rate": rate,
                                    "trial": trial, "above_saturation": True})
                continue
            r = self.point(trial, name, size, load, rate, "g0", "s0", [cont.pid, *napi], fwd, "f1")
            self.points.append(r)
            rates.add(rate)
            self.h.say("  %s at %s (%d/s): p50 %.1f us, p99 %.1f us, max %.1f us, lost %d, "
                       "%.0f ns CPU a packet"
                       % (r["who"], r["load"], r["rate"], r.get("p50_ns", 0) / 1e3,
                          r.get("p99_ns", 0) / 1e3, r.get("max_ns", 0) / 1e3, r["lost"],
                          r["run_ns_per_pkt"] or 0))
        procs.stop(cont)
        placement.release(fwd)
        subprocess.run(["ip", "-n", fwd, "link", "del", "br0"], stderr=subprocess.DEVNULL)

    def measure(self):
        for trial in range(1, int(self.s.trials) + 1):
            for size in self.s.sizes:
                if not self.set_mtu(size):
                    self.h.say(f"size {size}: cannot set the veths' MTU")
                    return False
                rates = set()
                for name in self.s.contenders:
                    self.contender(trial, size, name, rates)
                # The baseline at every rate a contender ran at, in this trial.
                for rate in sorted(rates):
                    self.points.append(self.point(trial, "baseline", size, str(rate), rate, "gb", "sb",
                                                  [], self.ns("gen"), "gb"))
        return True


def point_result(who, size, load, rate, trial, gen, lat, ready, runs, cpu1, veth):
    """One point's JSON object: hdp-sink's line with what the run knows of it."""
    (r0, r1), ((b0, t0), (b1, t1)), ((x0, d0), (x1, d1)) = runs, cpu1, veth
    # hdp-gen's summary line ("sent N frames of ... in S s ..."), whatever it said before.
    sent, secs = 0, 0.0
    for line in gen.splitlines():
        if line.startswith("sent "):
            try:
                sent, secs = int(line.split()[1]), float(line.split(" in ")[1].split()[0])
            except (IndexError, ValueError):
                pass
    try:
        r = json.loads(lat)
    except ValueError:
        r = {"error": "hdp-sink: " + lat}
    r.update({"who": who, "size": int(size), "load": load, "rate": rate, "trial": trial,
              "sent": sent, "achieved_pps": sent / secs if secs else 0.0,
              "lost": sent - r.get("stamped", 0), "sink_ready": ready,
              "k_xdp_frames": x1 - x0, "k_dropped": d1 - d0,
              "run_ns_per_pkt": (r1 - r0) / sent if sent else None,
              "cpu_pct": 100.0 * (r1 - r0) / 1e9 / secs if secs else None,
              "cpu1_busy_pct": 100.0 * (b1 - b0) / (t1 - t0) if t1 > t0 else None})
    r.pop("iface", None)
    return r


def main(argv, paths):
    s, status = start("latency", Settings, USAGE, argv)
    if s is None:
        return status
    outfd = None
    if s.out:
        outfd, status = prepare_out("latency", report.prepare, s.out, s.sizes)
        if outfd is None:
            return status
    if "testpmd" in s.contenders and shutil.which("dpdk-testpmd") is None:
        print("latency: contender testpmd needs dpdk-testpmd (Debian package dpdk-dev)",
              file=sys.stderr)
        return 2
    with Harness("latency", "hdpl") as h:
        if not h.up():
            return 1
        run = Run(s, paths, h)
        if not run.baseline_pair():
            h.say("cannot make the baseline's veth pair")
            return 1
        for name in s.contenders:
            why = contenders.Contender(name).check(paths.configs, paths.program,
                                                   lambda a: topology.in_ns(h.ns("fwd"), a),
                                                   int(s.spin_us))
            if why:
                h.say(why)
                return 2
        placement.tso_off(h.ns("gen"), "g0")
        placement.tso_off(h.ns("gen"), "gb")
        if not run.measure():
            return 1
        points = "".join(json.dumps(p) + "\n" for p in run.points)
        return report.status_of(report.write, points, s.seconds, s.trials, s.spin_us, outfd)
