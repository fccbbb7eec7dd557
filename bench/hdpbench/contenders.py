"""The contenders hdp-bench measures, and hdp-fwd's profiles, named once.

A contender is a forwarder between f0 and f1 of the namespace topology
(gen: g0 == f0 [contender] f1 == s0 :sink). hdp-PROFILE runs hdp-fwd on
configs/default.ini with PROFILE's keys on top (and drop on violation, so
that no contender stops); hdp-default and hdp-strict are the shipped files
as they are.
"""

# The keys of each profile, on top of configs/default.ini.
PROFILES = {
    "off": "bounds=off,init_on_free=off,init_check=off,tag=off",
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
    "tag-1": "bounds=off,init_on_free=off,init_check=off,tag=soft,tag_sample=1",
    "tag-10": "bounds=off,init_on_free=off,init_check=off,tag=soft,tag_sample=10",
    "all": "bounds=on,init_on_free=used,init_check=off,tag=soft,tag_sample=10",
    "redzone": "bounds=off,init_on_free=used,init_check=off,tag=off,redzone=on",
    "quarantine": "bounds=off,init_on_free=used,init_check=off,tag=off,quarantine=on",
    "shuffle": "bounds=off,init_on_free=used,init_check=off,tag=off,shuffle=on",
}
SHIPPED = ("default", "strict")

# hdp-fwd's options on the topology: one worker, on CPU 1, no control socket.
FWD_BASE = ("--ports", "f0,f1", "--cores", "1", "--ctl", "none", "--stats-interval", "0")


def known(name):
    if name.startswith("hdp-"):
        p = name[len("hdp-"):]
        return p in PROFILES or p in SHIPPED
    return name in ("kernel-socket", "kernel-xdp")


def command(name, configs, bindir=""):
    """The argv that runs contender @name; @configs is where the shipped
    .ini files are (in the guest: /lab/configs)."""
    prog = (lambda p: bindir + "/" + p) if bindir else (lambda p: p)
    if name == "kernel-socket":
        return [prog("hdp-sockfwd"), "--a", "f0", "--b", "f1"]
    if name == "kernel-xdp":
        return [prog("hdp-xdp-redirect"), "--in", "f0", "--out", "f1"]
    p = name[len("hdp-"):]
    if p in SHIPPED:
        return [prog("hdp-fwd"), *FWD_BASE, "--config", f"{configs}/{p}.ini"]
    if p in PROFILES:
        return [prog("hdp-fwd"), *FWD_BASE, "--config", f"{configs}/default.ini",
                "--harden", PROFILES[p] + ",pool.umem.on_violation=drop"]
    raise ValueError(f"unknown contender '{name}'")
