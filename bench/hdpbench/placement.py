"""Where the work of a run is done. The generator and the sink are on
CPU 0; the contender on CPU 1 (hdp-fwd by --cores 1, dpdk-testpmd by its
lcores, the kernel's contenders' programs by taskset). Where f0's receive
work runs is the placement:

  same      f0's NAPI is a kernel thread on CPU 1 with the contender, and g0
            sends without TSO, so that veth hands every frame to that NAPI
            (the socket path's too: veth gives an skb to NAPI only when GRO
            could take it); each contender pays for its own receive work in
            the same kernel thread. A busy-polling hdp-fwd runs the receive
            work itself: its NAPI is not threaded.
  same-rps  the socket path's frames go to CPU 1's backlog by RPS instead,
            in softirq (it livelocks the socket forwarder).
  split     the receive work stays with the generator on CPU 0 (it flatters
            every contender).
"""
import os
import subprocess
import sys

from .topology import in_ns

PLACEMENTS = ("same", "same-rps", "split")
CONTENDER_CPU = 1
GENERATOR_CPU = 0

_F0 = "/sys/class/net/f0"
_THREADED = f"{_F0}/threaded"
_RPS_CPUS = f"{_F0}/queues/rx-0/rps_cpus"

# The kernel's contenders are programs of ours that do not pin themselves.
_PINNED_BY_TASKSET = ("kernel-xdp", "kernel-socket")


def on_cpu(cpu, argv):
    return ["taskset", "-c", str(cpu), *argv]


def contender_argv(contender, argv):
    """@argv of @contender (contenders.Contender) on the contender's CPU."""
    return on_cpu(CONTENDER_CPU, argv) if contender.kind in _PINNED_BY_TASKSET else argv


def _sysfs_write(ns, value, *paths):
    """@value into each of @paths under @ns's own /sys; quietly, as a step
    that a device without NAPI (yet) refuses is not an error."""
    subprocess.run(in_ns(ns, ["tee", *paths]), input=f"{value}\n", text=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def tso_off(ns, dev):
    """@dev sends without TSO, so that veth finds every frame fit for GRO
    and hands it to the peer's NAPI, the socket path's like the rest (an
    XDP program on the peer turns TSO off by itself; the socket path has
    none)."""
    subprocess.run(in_ns(ns, ["ethtool", "-K", dev, "tso", "off"]), stdout=subprocess.DEVNULL)


def _napi_threads():
    """PIDs of the kernel threads of any f0's NAPI (napi/f0-ID)."""
    pids = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().startswith("napi/f0-"):
                    pids.add(int(pid))
        except OSError:
            pass
    return pids


def napi_on_cpu1(ns, me, contender):
    """f0's NAPI as a kernel thread on CPU 1; its PIDs (their CPU time is
    the contender's). Only the threads that appear when f0's NAPI is made
    threaded are ours: other namespaces may have an f0 too."""
    before = _napi_threads()
    # NAPI exists only with XDP or GRO: GRO on, so that it exists for all.
    subprocess.run(in_ns(ns, ["ethtool", "-K", "f0", "gro", "on"]),
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _sysfs_write(ns, 1, _THREADED)
    ours = sorted(_napi_threads() - before)
    pinned = False
    for pid in ours:
        try:
            os.sched_setaffinity(pid, {CONTENDER_CPU})
            pinned = True
        except OSError:
            pass
    if not pinned:
        print(f"{me}: {contender}: no NAPI thread of f0 to pin: its receive work is not on CPU 1",
              file=sys.stderr, flush=True)
    return ours


def rps_to_cpu1(ns):
    """same-rps: frames veth hands to the stack without NAPI (g0 with TSO:
    the socket path) go to CPU 1's backlog, in softirq."""
    _sysfs_write(ns, 2, _RPS_CPUS)


def release(ns, rps=False):
    """f0's NAPI no longer threaded (and no RPS), for the next contender."""
    _sysfs_write(ns, 0, _THREADED, *((_RPS_CPUS,) if rps else ()))
