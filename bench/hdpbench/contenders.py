"""The contenders hdp-bench measures, and hdp-fwd's profiles, named once.

A contender is a forwarder between f0 and f1 of the namespace topology
(gen: g0 == f0 [contender] f1 == s0 :sink):

  hdp-PROFILE[-busy][-spin][+KEY=VALUE...]
                 hdp-fwd on configs/default.ini with PROFILE's keys on top
                 (and drop on violation, so that no contender stops);
                 hdp-default and hdp-strict are the shipped files as they
                 are. -busy adds --busy-poll, -spin --idle-spin US, and
                 +KEY=VALUE... more keys, for experiments (e.g.
                 hdp-default+tag_sample=1+init_check_sample=16)
  ini:PATH       hdp-fwd on a configuration file of your own, as it is
  kernel-xdp     kernel XDP redirect through a devmap (hdp-xdp-redirect)
  kernel-socket  the kernel socket path, AF_PACKET (hdp-sockfwd)
  testpmd        dpdk-testpmd io forwarding over net_af_xdp
  bridge         the kernel's bridge between f0 and f1
"""
import subprocess

# The keys of each profile, on top of configs/default.ini; tag-N is
# tag-1's with tag_sample=N. off-again is off under another name: the A/A
# control, whose ratio to off is a run's noise.
PROFILES = {
    "off": "bounds=off,init_on_free=off,init_check=off,tag=off",
    "off-again": "bounds=off,init_on_free=off,init_check=off,tag=off",
    "bounds": "bounds=on,init_on_free=off,init_check=off,tag=off",
    "bounds-tree": "bounds=on,bounds_lookup=tree,init_on_free=off,init_check=off,tag=off",
    "init": "bounds=off,init_on_alloc=on,init_on_free=on,init_check=off,tag=off,init_exclude=none",
    "init-alloc": "bounds=off,init_on_alloc=on,init_on_free=off,init_check=off,tag=off,"
                  "init_exclude=none",
    "init-alloc-excluded": "bounds=off,init_on_alloc=on,init_on_free=off,init_check=off,tag=off",
    "init-free": "bounds=off,init_on_alloc=off,init_on_free=on,init_check=off,tag=off,"
                 "init_exclude=none",
    "init-free-excluded": "bounds=off,init_on_alloc=off,init_on_free=on,init_check=off,tag=off,"
                          "init_exclude=umem",
    "init-used": "bounds=off,init_on_free=used,init_check=off,tag=off",
    "all": "bounds=on,init_on_free=used,init_check=off,tag=soft,tag_sample=10",
    "redzone": "bounds=off,init_on_free=used,init_check=off,tag=off,redzone=on",
    "redzone-canary": "bounds=off,init_on_free=off,init_check=off,tag=off,redzone=on",
    "quarantine": "bounds=off,init_on_free=used,init_check=off,tag=off,quarantine=on",
    "shuffle": "bounds=off,init_on_free=used,init_check=off,tag=off,shuffle=on",
}
TAG = "bounds=off,init_on_free=off,init_check=off,tag=soft,tag_sample="
# mte-N: tag-N with arm64's MTE instead of soft tags (the lab's arm64 guest).
MTE = "bounds=off,init_on_free=off,init_check=off,tag=mte,tag_sample="
SHIPPED = ("default", "strict")
KERNEL = ("kernel-xdp", "kernel-socket", "testpmd", "bridge")
DROP = "pool.umem.on_violation=drop"

# hdp-fwd's options on the topology: one worker, on CPU 1, no control socket.
FWD_BASE = ("--ports", "f0,f1", "--cores", "1", "--ctl", "none", "--stats-interval", "0")

SYNTAX = "hdp-PROFILE[+KEY=VALUE...], ini:PATH, kernel-xdp, testpmd, kernel-socket, bridge"


def profile_spec(profile):
    """The keys of @profile, or None when there is no such profile."""
    if profile in PROFILES:
        return PROFILES[profile]
    if profile.startswith("tag-"):
        return TAG + profile[len("tag-"):]
    if profile.startswith("mte-"):
        return MTE + profile[len("mte-"):]
    return None


class Contender:
    """A contender's name, read: kind (hdp, ini or one of KERNEL), and for
    hdp its profile, -busy, -spin and extra keys, for ini its file."""

    def __init__(self, name):
        self.name = name
        self.kind, self.profile, self.path = None, None, None
        self.busy = self.spin = False
        self.extra = ""
        if name in KERNEL:
            self.kind = name
        elif name.startswith("ini:"):
            self.kind, self.path = "ini", name[len("ini:"):]
        elif name.startswith("hdp-"):
            self.kind = "hdp"
            p, _, extra = name[len("hdp-"):].partition("+")
            self.extra = extra.replace("+", ",")
            if p.endswith("-busy"):
                p, self.busy = p[:-len("-busy")], True
            if p.endswith("-spin"):
                p, self.spin = p[:-len("-spin")], True
            self.profile = p
        else:
            raise ValueError(f"unknown contender '{name}' ({SYNTAX})")
        if self.kind == "hdp" and self.profile not in SHIPPED and profile_spec(self.profile) is None:
            raise ValueError(f"contender '{name}': unknown profile '{self.profile}'")

    def fwd_args(self, configs, spin_us=200):
        """hdp-fwd's options past FWD_BASE (hdp and ini kinds)."""
        if self.kind == "ini":
            return ["--config", self.path]
        args = ["--busy-poll"] if self.busy else []
        if self.spin:
            args += ["--idle-spin", str(spin_us)]
        if self.profile in SHIPPED:
            args += ["--config", f"{configs}/{self.profile}.ini"]
            return args + (["--harden", self.extra] if self.extra else [])
        keys = ",".join(k for k in (profile_spec(self.profile), DROP, self.extra) if k)
        return args + ["--config", f"{configs}/default.ini", "--harden", keys]

    def setup(self):
        """Commands that make the contender before its program runs (in the
        forwarder's namespace)."""
        if self.kind != "bridge":
            return []
        return [["ip", "link", "add", "br0", "type", "bridge"],
                ["ip", "link", "set", "f0", "master", "br0"],
                ["ip", "link", "set", "f1", "master", "br0"],
                ["ip", "link", "set", "br0", "up"]]

    def command(self, configs, program=None, spin_us=200):
        """The argv that runs the contender; @configs is where the shipped
        .ini files are, @program(NAME) where a program of ours is (default:
        NAME, found on PATH as in the lab's guests)."""
        prog = program or (lambda p: p)
        if self.kind in ("hdp", "ini"):
            return [prog("hdp-fwd"), *FWD_BASE, *self.fwd_args(configs, spin_us)]
        if self.kind == "kernel-socket":
            return [prog("hdp-sockfwd"), "--a", "f0", "--b", "f1"]
        if self.kind == "kernel-xdp":
            return [prog("hdp-xdp-redirect"), "--in", "f0", "--out", "f1"]
        if self.kind == "testpmd":
            return ["dpdk-testpmd", "--lcores", "0@1,1@1", "--in-memory", "--no-pci",
                    "--vdev", "net_af_xdp0,iface=f0", "--vdev", "net_af_xdp1,iface=f1", "--",
                    "--forward-mode=io", "--total-num-mbufs", "32768", "--stats-period", "100",
                    "--auto-start"]
        return ["sleep", "3600"]	# bridge: the kernel forwards; this holds its place

    def check(self, configs, program, in_ns, spin_us=200):
        """None, or why the contender cannot run, checked before anything
        runs: a typo or a bad configuration is refused with hdp-fwd's own
        reason, not measured as a contender that never forwarded. hdp-fwd
        --check-config runs start-up's checks, which ask the interfaces:
        @in_ns(ARGV) runs it in the forwarder's namespace."""
        if self.kind == "ini":
            try:
                with open(self.path, "rb"):
                    pass
            except OSError:
                return f"contender '{self.name}': cannot read {self.path}"
        if self.kind not in ("hdp", "ini"):
            return None
        argv = ["--check-config" if a == "--config" else a
                for a in self.command(configs, program, spin_us)]
        r = subprocess.run(in_ns(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, errors="replace")
        if r.returncode == 0:
            return None
        lines = r.stdout.splitlines()
        said = [line for line in lines if line.startswith(("hdp: ", "hdp-fwd: "))][:3]
        return f"contender '{self.name}': " + "\n".join(said or lines[-1:])


def known(name):
    try:
        Contender(name)
    except ValueError:
        return False
    return True


def command(name, configs, program=None):
    """The argv that runs contender @name (Contender.command)."""
    return Contender(name).command(configs, program)
