"""The guest's initramfs: busybox, this tree's programs and the seeds'
benchmarks, each with the shared libraries it links, and the lab's init
(bench/kernel/guest/init). A boot's plan goes into a second, small archive
appended to the first: the kernel unpacks both, so one base image serves
every boot of a run.
"""
import os
import re
import shutil
import subprocess

from . import guest_arm64
from .cpio import Archive
from .errors import LabError

# The tree's programs the guest runs.
TREE_PROGRAMS = ("hdp-fwd", "hdp-ctl", "hdp-gen", "hdp-sink", "hdp-sockfwd", "hdp-xdp-redirect",
                 "hdp-lab-netlink")

# Programs of the host the guest runs, and the Debian package of each.
HOST_PROGRAMS = (
    ("busybox", "busybox-static", ("/bin/busybox",)),
    ("hackbench", "rt-tests", ("/usr/bin/hackbench",)),
    ("ip", "iproute2", ("/usr/bin/ip", "/sbin/ip", "/bin/ip")),
    ("ethtool", "ethtool", ("/usr/sbin/ethtool", "/sbin/ethtool")),
)

_LDD_LINE = re.compile(r"(?:\S+ => )?(/\S+) \(0x[0-9a-f]+\)")


def shared_libraries(program):
    """Every library @program loads, the loader included, as absolute paths."""
    try:
        out = subprocess.run(["ldd", program], capture_output=True, text=True, check=False).stdout
    except OSError as e:
        raise LabError(f"ldd {program}: {e.strerror} (Debian package libc-bin)") from e
    if "not a dynamic executable" in out or "statically linked" in out:
        return []
    libs = []
    for line in out.splitlines():
        m = _LDD_LINE.search(line)
        if m:
            libs.append(m.group(1))
        elif "not found" in line:
            raise LabError(f"{program} needs {line.split()[0]}, which is not installed")
    return libs


def host_program(name, package, candidates):
    for path in candidates:
        if os.access(path, os.X_OK):
            return path
    raise LabError(f"the guest needs {name}: install Debian's {package}")


def _host_guest(paths):
    """The x86_64 guest's programs, the tree's and the host's, and their libraries."""
    programs = []
    for name in TREE_PROGRAMS:
        p = paths.program(name)
        if not os.access(p, os.X_OK):
            raise LabError(f"{p} is not there: build the tree first (./scripts/build)"
                           if not paths.installed else f"{p} is not installed")
        programs.append(("usr/bin/" + name, p))
    for name, package, candidates in HOST_PROGRAMS:
        target = "bin/busybox" if name == "busybox" else "usr/bin/" + name
        programs.append((target, host_program(name, package, candidates)))
    libs = set()
    for _, p in programs:
        libs.update(shared_libraries(p))
    return programs, [(lib.lstrip("/"), os.path.realpath(lib)) for lib in sorted(libs)]


def _arm64_guest(paths):
    if paths.installed:
        raise LabError("the arm64 guest runs from a source tree with its arm64 build "
                       "(scripts/build-arm64), not from an installed hdp", status=2)
    programs = guest_arm64.programs(os.path.dirname(os.path.dirname(paths.lab)))
    return programs, guest_arm64.libraries([p for _, p in programs])


def build_base(path, paths, arch="x86_64"):
    """The image every boot of an @arch guest shares, written gzipped to @path."""
    image = Archive()
    for d in ("proc", "sys", "dev", "tmp", "run", "etc", "lab"):
        image.directory(d)
    programs, libs = (_arm64_guest if arch == "arm64" else _host_guest)(paths)
    for target, p in programs + libs:
        image.copy(target, p, 0o755)
    image.copy("init", os.path.join(paths.lab, "guest", "init"), 0o755)
    for name in ("default.ini", "strict.ini"):
        image.copy("lab/configs/" + name, os.path.join(paths.configs, name), 0o644)
    image.file("etc/passwd", b"root:x:0:0:root:/:/bin/sh\n")
    image.file("etc/group", b"root:x:0:\n")
    image.write(path)


def write_boot_image(path, base, plan_lines):
    """@base with a plan appended: the initramfs of one boot."""
    plan = Archive()
    plan.file("lab/plan", ("\n".join(plan_lines) + "\n").encode())
    plan_path = path + ".plan"
    plan.write(plan_path)
    with open(path, "wb") as out:
        for part in (base, plan_path):
            with open(part, "rb") as f:
                shutil.copyfileobj(f, out)
    os.unlink(plan_path)
