"""The namespace topology of every end-to-end run:

    NAME-gen: g0  <-veth->  f0 :NAME-fwd: f1  <-veth->  s0 :NAME-sink

IPv6 is off in all three namespaces, so the kernel sends nothing of its
own and every frame the sink counts came from the generator through the
forwarder. QUEUES: RX and TX queues of every veth, so that flows spread
over queues the way RSS spreads them on a NIC.
"""
import json
import subprocess
import sys

USAGE = "usage: topology up NAME [QUEUES] | down NAME\n"
QUEUES_MAX = 64

# Each end: (namespace, interface, MAC address); g0-f0 and f1-s0 are pairs.
_PAIRS = ((("gen", "g0", "02:00:00:00:00:01"), ("fwd", "f0", "02:00:00:00:01:00")),
          (("fwd", "f1", "02:00:00:00:01:01"), ("sink", "s0", "02:00:00:00:00:02")))


class TopologyError(Exception):
    """A step that failed; the command said why on stderr."""

    def __init__(self, status):
        super().__init__(f"a step failed with status {status}")
        self.status = status


def namespaces(name):
    return tuple(f"{name}-{role}" for role in ("gen", "fwd", "sink"))


def in_ns(ns, argv):
    """@argv run in namespace @ns (its own /sys mounted there)."""
    return ["ip", "netns", "exec", ns, *argv]


def _run(argv):
    status = subprocess.run(argv).returncode
    if status:
        raise TopologyError(status)


def down(name):
    """Every namespace of @name gone, as far as any was there."""
    for ns in namespaces(name):
        subprocess.run(["ip", "netns", "del", ns], stderr=subprocess.DEVNULL)


def up(name, queues=1):
    """The topology, anew; TopologyError when a step fails."""
    down(name)
    q = ["numtxqueues", str(queues), "numrxqueues", str(queues)]
    for ns in namespaces(name):
        _run(["ip", "netns", "add", ns])
        _run(in_ns(ns, ["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                        "net.ipv6.conf.default.disable_ipv6=1"]))
        _run(["ip", "-n", ns, "link", "set", "lo", "up"])
    for (ns_a, a, mac_a), (ns_b, b, mac_b) in _PAIRS:
        _run(["ip", "link", "add", a, "netns", f"{name}-{ns_a}", "address", mac_a, *q,
              "type", "veth", "peer", "name", b, "netns", f"{name}-{ns_b}", "address", mac_b, *q])
    for (ns_a, a, _), (ns_b, b, _) in _PAIRS:
        for ns, dev in ((ns_a, a), (ns_b, b)):
            _run(["ip", "-n", f"{name}-{ns}", "link", "set", dev, "up"])


def link_stats(ns, dev):
    """The kernel's counters of @dev in @ns (ip's stats64: rx and tx)."""
    out = subprocess.run(["ip", "-n", ns, "-s", "-j", "link", "show", dev],
                         capture_output=True, text=True).stdout
    return json.loads(out)[0]["stats64"]


def main(argv):
    """topology up NAME [QUEUES] | down NAME: the command line of scripts/topology."""
    cmd, name = (argv + ["", ""])[:2]
    if not cmd or not name:
        sys.stderr.write(USAGE)
        return 2
    queues = argv[2] if len(argv) > 2 else "1"
    if not queues.isdigit() or queues[0] == "0" or int(queues) > QUEUES_MAX:
        sys.stderr.write(f"topology: QUEUES '{queues}': expected 1 to {QUEUES_MAX}\n")
        return 2
    if cmd == "down":
        down(name)
        return 0
    if cmd != "up":
        sys.stderr.write(USAGE)
        return 2
    try:
        up(name, int(queues))
    except TopologyError as e:
        return e.status
    return 0
