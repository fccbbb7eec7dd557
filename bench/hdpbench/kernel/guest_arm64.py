"""Where the arm64 guest's programs come from: the tree's, cross-built in
the arm64 build (scripts/build-arm64); busybox, ip and ethtool unpacked
from Debian's arm64 packages by scripts/install-deps; and every library
they load, found by reading their ELF headers, since the host's ldd
cannot run an arm64 program (it says "not a dynamic executable" and
names nothing).
"""
import os
import subprocess

from .errors import LabError

# What scripts/install-deps unpacks: a root of arm64 packages and their versions.
GUEST_ROOT = "/usr/local/lib/hdp/arm64-guest"

# The tree's programs in the arm64 build: the x86 guest's, and hdp-provoke
# for the catalogue's forwarder cases under tags.
TREE_PROGRAMS = {
    "hdp-fwd": "dataplane/hdp-fwd",
    "hdp-ctl": "dataplane/hdp-ctl",
    "hdp-gen": "tools/hdp-gen/hdp-gen",
    "hdp-sink": "tools/hdp-sink/hdp-sink",
    "hdp-sockfwd": "tools/hdp-sockfwd/hdp-sockfwd",
    "hdp-xdp-redirect": "tools/hdp-xdp-redirect/hdp-xdp-redirect",
    "hdp-provoke": "tools/hdp-provoke/hdp-provoke",
    "hdp-lab-netlink": "bench/hdp-lab-netlink",
    "hdp-lab-loopback": "bench/hdp-lab-loopback",
    "hdp-lab-mteprobe": "bench/hdp-lab-mteprobe",
    # The MTE tests of the arm64 lane, here under a real arm64 kernel's MTE
    # rather than qemu-user's: the backend, switches, hdp-fwd's frame path.
    "test_mte": "tests/mte/test_mte",
    "test_mte_switch": "tests/mte/test_mte_switch",
    "test_fwd_mte": "tests/mte/test_fwd_mte",
}

# Debian's programs, by their place in GUEST_ROOT and in the image.
PACKAGED_PROGRAMS = (("bin/busybox", "bin/busybox"), ("bin/ip", "usr/bin/ip"),
                     ("sbin/ethtool", "usr/bin/ethtool"))

LOADER = "/lib/ld-linux-aarch64.so.1"
# Where the loader looks, and so where libraries go in the image; the
# guest root's own first (libraries only its programs need).
LIB_DIRS = ("lib/aarch64-linux-gnu", "usr/lib/aarch64-linux-gnu")


def build_dir(source):
    return os.environ.get("ARM64_BUILD_DIR") or os.path.join(source, "build-arm64")


def programs(source):
    """(place in the image, file) for every program the arm64 guest runs."""
    build = build_dir(source)
    out = []
    for name, rel in TREE_PROGRAMS.items():
        path = os.path.join(build, rel)
        if not os.access(path, os.X_OK):
            raise LabError(f"the arm64 guest needs {path}: build the tree for arm64 first "
                           "(./scripts/build-arm64)", status=2)
        out.append(("usr/bin/" + name, path))
    for rel, target in PACKAGED_PROGRAMS:
        path = os.path.join(GUEST_ROOT, "root", rel)
        if not os.access(path, os.X_OK):
            raise LabError(f"the arm64 guest needs {path}: run scripts/install-deps as root, "
                           "which unpacks Debian's arm64 busybox-static, iproute2 and ethtool "
                           "there", status=2)
        out.append((target, path))
    return out


def versions():
    """What the guest root holds, 'package:arch version' per line."""
    try:
        with open(os.path.join(GUEST_ROOT, "VERSIONS")) as f:
            return [line.strip() for line in f if line.strip()]
    except OSError:
        return []


def _needed(path):
    r = subprocess.run(["readelf", "-d", "-W", path], capture_output=True, text=True, check=False)
    if r.returncode:
        raise LabError(f"readelf -d {path}: {r.stderr.strip()} (Debian package binutils)")
    return [line.split("[", 1)[1].rstrip("]") for line in r.stdout.splitlines()
            if "(NEEDED)" in line]


def _find(lib, asked_by):
    """The library @lib names, in a root-owned library directory: the lab
    runs as root and packs what it finds into the image, so a name from a
    program's headers is a file name, never a path, and what it resolves
    to must be root's."""
    if "/" in lib or lib in ("", ".", ".."):
        raise LabError(f"{asked_by} names {lib!r} as a library it needs: not a file name")
    for top in (os.path.join(GUEST_ROOT, "root"), "/"):
        for d in LIB_DIRS:
            p = os.path.join(top, d, lib)
            if os.path.exists(p):
                if os.stat(p).st_uid != 0:
                    raise LabError(f"{asked_by} needs {lib}: {os.path.realpath(p)} is not "
                                   "root's, and the lab, run as root, packs only root's files")
                return p
    raise LabError(f"{asked_by} needs {lib}, found in no arm64 library directory "
                   "(scripts/install-deps installs them)")


def libraries(files):
    """(place in the image, file) for every library @files load, those
    libraries' own included, and the loader."""
    out = {LOADER.lstrip("/"): os.path.realpath(LOADER)}
    todo = list(files)
    seen = set()
    while todo:
        f = todo.pop()
        for lib in _needed(f):
            if lib in seen or lib == os.path.basename(LOADER):
                continue
            seen.add(lib)
            path = _find(lib, f)
            out[f"lib/aarch64-linux-gnu/{lib}"] = os.path.realpath(path)
            todo.append(path)
    return sorted(out.items())
