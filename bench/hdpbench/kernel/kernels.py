"""The lab's kernels: Debian's linux-source, the patches kept in this tree
(bench/kernel/patches), small config fragments of the lab's own
(bench/kernel/config), built once and cached outside the clone, keyed by
everything that goes into the image.
"""
import fcntl
import hashlib
import json
import os
import shutil
import stat
import subprocess
import time
from dataclasses import dataclass, field

from .errors import LabError

# Bumped when the way a kernel is built changes without its inputs changing.
RECIPE = 1


# What every lab kernel must keep after olddefconfig, whatever its arch.
COMMON_OPTIONS = ("SMP", "SLUB", "HARDENED_USERCOPY", "DEBUG_FS", "XDP_SOCKETS", "VETH", "NET_NS",
                  "BPF_SYSCALL", "BPF_JIT", "UNIX", "PACKET", "BLK_DEV_INITRD", "HUGETLBFS")

# Per guest arch: make's arguments, the image target and where make leaves it,
# the compiler (its version goes into the cache key) and its Debian package.
ARCHES = {
    "x86_64": {"make": [], "target": "bzImage", "image": "arch/x86/boot/bzImage",
               "gcc": "gcc", "gcc_package": "gcc"},
    "arm64": {"make": ["ARCH=arm64", "CROSS_COMPILE=aarch64-linux-gnu-"], "target": "Image",
              "image": "arch/arm64/boot/Image", "gcc": "aarch64-linux-gnu-gcc",
              "gcc_package": "gcc-aarch64-linux-gnu"},
}


@dataclass(frozen=True)
class Kernel:
    name: str
    package: str          # Debian's source package
    tarball: str
    patches: tuple        # under bench/kernel/patches, applied in order
    fragments: tuple      # under bench/kernel/config, merged onto tinyconfig
    about: str
    has_knob: bool = False        # seed 000's bypass_usercopy_vmalloc_check
    has_init_exclude: bool = False  # the lab's init_exclude= (seed 001)
    arch: str = "x86_64"          # the guest's; arm64 is cross-built and booted under TCG
    required: tuple = field(default=COMMON_OPTIONS + (
        "SERIAL_8250_CONSOLE", "X86_MPPARSE"))

    @property
    def cross(self):
        """make's ARCH= and CROSS_COMPILE= for this kernel; none for the host's."""
        return ARCHES[self.arch]["make"]

    @property
    def image_target(self):
        return ARCHES[self.arch]["target"]


KERNELS = {
    "6.1": Kernel(
        name="6.1", package="linux-source-6.1", tarball="/usr/src/linux-source-6.1.tar.xz",
        patches=("6.1/0001-seed-000-usercopy-bypass-vmalloc-check.patch",
                 "6.1/0002-lab-usercopy-counters.patch",
                 "6.1/0003-lab-init-exclude.patch"),
        fragments=("base.config",),
        about="Debian's 6.1 with seed 000's patch as published (the knob), the lab's "
              "usercopy counters and the lab's init_exclude= (seed 001)",
        has_knob=True, has_init_exclude=True),
    "6.12": Kernel(
        name="6.12", package="linux-source-6.12", tarball="/usr/src/linux-source-6.12.tar.xz",
        patches=("6.12/0001-lab-usercopy-counters.patch",),
        fragments=("base.config",),
        about="Debian's 6.12, upstream's answer to seed 000 (vmap nodes, 6.9), with the "
              "lab's usercopy counters only"),
    "6.12-arm64": Kernel(
        name="6.12-arm64", package="linux-source-6.12", tarball="/usr/src/linux-source-6.12.tar.xz",
        patches=("6.12/0001-lab-usercopy-counters.patch",
                 "6.12-arm64/0001-lab-kasan-sample-counts.patch"),
        fragments=("base.config", "arm64.config"),
        about="Debian's 6.12 for an arm64 guest with MTE (QEMU virt,mte=on under TCG) and "
              "hardware tag-based KASAN, whose page_alloc sampling (6.3) is what seed 002 "
              "became; the lab's usercopy counters and counts of the page_allocs the "
              "sampling tags and skips",
        arch="arm64",
        required=COMMON_OPTIONS + (
            "ARM64_MTE", "KASAN", "KASAN_HW_TAGS", "ARM64_TAGGED_ADDR_ABI",
            "SERIAL_AMBA_PL011_CONSOLE", "VIRTIO_MMIO", "VIRTIO_CONSOLE")),
}

BUILD_TOOLS = (("make", "make"), ("gcc", "gcc"), ("flex", "flex"), ("bison", "bison"),
               ("bc", "bc"), ("patch", "patch"), ("tar", "tar"), ("xz", "xz-utils"))
BUILD_HEADERS = (("/usr/include/gelf.h", "libelf-dev"), ("/usr/include/openssl/ssl.h", "libssl-dev"))


def default_cache():
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "hdp", "kernel-lab")


def secure_cache(path):
    """Make the cache (0700) and refuse one that anyone but root (or this
    user) could change, or any directory above it that they could: kernels
    are unpacked and built there as root, and what make runs comes from
    it, so a directory another user may write is a way to run code as root.
    Sticky directories (/tmp) pass: an entry of ours there is ours alone."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    real = os.path.realpath(path)
    here = "/"
    for part in [p for p in real.split("/") if p] + [None]:
        st = os.lstat(here)
        others_write = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
        last = part is None
        if st.st_uid not in (0, os.geteuid()) or (
                others_write and (last or not st.st_mode & stat.S_ISVTX)):
            who = (f"uid {st.st_uid}" if st.st_uid not in (0, os.geteuid())
                   else f"others (mode {stat.S_IMODE(st.st_mode):04o})")
            raise LabError(f"--cache {path}: {here} may be changed by {who}; kernels are built "
                           "there as root: give a directory only root can write")
        if not last:
            here = os.path.join(here, part)


def _which(prog):
    return shutil.which(prog) is not None


def check_build_tools(kernel):
    arch = ARCHES[kernel.arch]
    tools = BUILD_TOOLS + ((arch["gcc"], arch["gcc_package"]),)
    missing = [pkg for prog, pkg in tools if not _which(prog)]
    missing += [pkg for path, pkg in BUILD_HEADERS if not os.path.exists(path)]
    if not os.path.exists(kernel.tarball):
        missing.insert(0, kernel.package)
    if missing:
        raise LabError(f"kernel {kernel.name}: install Debian's {', '.join(dict.fromkeys(missing))} "
                       f"(apt-get install {' '.join(dict.fromkeys(missing))})")


def source_version(kernel):
    """The Debian package's version: 6.12's moves with security updates."""
    try:
        out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", kernel.package],
                             capture_output=True, text=True, check=False)
    except OSError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def _gcc_version(kernel):
    out = subprocess.run([ARCHES[kernel.arch]["gcc"], "--version"], capture_output=True,
                         text=True, check=False)
    return out.stdout.splitlines()[0] if out.stdout else "unknown"


def cache_key(kernel, lab_dir):
    h = hashlib.sha256()
    h.update(f"recipe {RECIPE}\n{kernel.package} {source_version(kernel)}\n{_gcc_version(kernel)}\n".encode())
    if kernel.arch != "x86_64":  # the x86 kernels' keys as they were, their caches valid
        h.update(f"arch {kernel.arch}\n".encode())
    for rel in kernel.patches:
        with open(os.path.join(lab_dir, "patches", rel), "rb") as f:
            h.update(rel.encode() + b"\0" + f.read())
    for rel in kernel.fragments:
        with open(os.path.join(lab_dir, "config", rel), "rb") as f:
            h.update(rel.encode() + b"\0" + f.read())
    return h.hexdigest()[:16]


def _run(cmd, log, cwd=None, what=""):
    with open(log, "ab") as out:
        out.write(("\n$ " + " ".join(cmd) + "\n").encode())
        out.flush()
        r = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.STDOUT,
                           stdin=subprocess.DEVNULL, check=False)
    if r.returncode:
        with open(log, errors="replace") as f:
            tail = [l.rstrip() for l in f.readlines()[-8:]]
        raise LabError(f"{what or cmd[0]} failed (status {r.returncode}); the end of {log}:\n  "
                       + "\n  ".join(tail), status=1)


def _missing_options(config_path, required):
    have = set()
    with open(config_path) as f:
        for line in f:
            if line.endswith("=y\n"):
                have.add(line[len("CONFIG_"):-len("=y\n")])
    return [o for o in required if o not in have]


class Built:
    """A cached kernel: its image, config and what went into it."""

    def __init__(self, kernel, directory):
        self.kernel = kernel
        self.dir = directory
        self.image = os.path.join(directory, os.path.basename(ARCHES[kernel.arch]["image"]))
        with open(os.path.join(directory, "build.json")) as f:
            self.info = json.load(f)


def build(kernel, lab_dir, cache_dir, jobs, say):
    """The cached kernel for @kernel, built first if the cache has none."""
    key = cache_key(kernel, lab_dir)
    final = os.path.join(cache_dir, f"{kernel.name}-{key}")
    if os.path.exists(os.path.join(final, "build.json")):
        built = Built(kernel, final)
        say(f"kernel {kernel.name}: cached ({final}; built in {built.info['build_seconds']:.0f} s)")
        built.info["from_cache"] = True
        return built
    check_build_tools(kernel)
    os.makedirs(cache_dir, exist_ok=True)
    with open(os.path.join(cache_dir, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(os.path.join(final, "build.json")):  # another run built it meanwhile
            return Built(kernel, final)
        work = final + ".building"
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        try:
            return _build_in(kernel, lab_dir, work, final, key, jobs, say)
        finally:
            shutil.rmtree(work, ignore_errors=True)


def _build_in(kernel, lab_dir, work, final, key, jobs, say):
    log = os.path.join(work, "build.log")
    start = time.monotonic()
    say(f"kernel {kernel.name}: building from {kernel.tarball} ({source_version(kernel)}) "
        f"with {len(kernel.patches)} patches, make -j{jobs}; log in {log}")
    _run(["tar", "-xf", kernel.tarball, "-C", work], log, what="unpacking " + kernel.tarball)
    src = os.path.join(work, os.path.basename(kernel.tarball).split(".tar")[0])
    obj = os.path.join(work, "obj")
    for rel in kernel.patches:
        _run(["patch", "-p1", "--forward", "--batch", "-i", os.path.join(lab_dir, "patches", rel)],
             log, cwd=src, what="patch " + rel)
    make = ["make", "-C", src, "O=" + obj] + kernel.cross
    _run(make + ["tinyconfig"], log, what="make tinyconfig")
    fragments = [os.path.join(lab_dir, "config", f) for f in kernel.fragments]
    _run([os.path.join(src, "scripts/kconfig/merge_config.sh"), "-m", "-O", obj,
          os.path.join(obj, ".config")] + fragments, log, cwd=src, what="merge_config.sh")
    _run(make + ["olddefconfig"], log, what="make olddefconfig")
    missing = _missing_options(os.path.join(obj, ".config"), kernel.required)
    if missing:
        raise LabError(f"kernel {kernel.name}: the config lost {', '.join(missing)} in "
                       "olddefconfig (a dependency the fragment does not give)", status=1)
    _run(make + [f"-j{jobs}", kernel.image_target], log, what="make " + kernel.image_target)
    seconds = time.monotonic() - start
    os.makedirs(final + ".new", exist_ok=True)
    image = ARCHES[kernel.arch]["image"]
    shutil.copy(os.path.join(obj, image), os.path.join(final + ".new", os.path.basename(image)))
    shutil.copy(os.path.join(obj, ".config"), final + ".new/config")
    shutil.copy(log, final + ".new/build.log")
    with open(os.path.join(src, "Makefile")) as f:
        head = dict(l.split(" = ", 1) for l in f.read().splitlines()[:6] if " = " in l)
    info = {"kernel": kernel.name, "about": kernel.about, "package": kernel.package,
            "package_version": source_version(kernel),
            "release": f"{head.get('VERSION')}.{head.get('PATCHLEVEL')}.{head.get('SUBLEVEL')}",
            "patches": list(kernel.patches), "fragments": list(kernel.fragments),
            "arch": kernel.arch, "key": key, "build_seconds": round(seconds, 1), "jobs": jobs,
            "gcc": _gcc_version(kernel),
            "built_at": time.strftime("%Y-%m-%d %H:%M:%S")}
    with open(final + ".new/build.json", "w") as f:
        json.dump(info, f, indent=1)
    os.rename(final + ".new", final)
    say(f"kernel {kernel.name}: built in {seconds:.0f} s ({final})")
    built = Built(kernel, final)
    built.info["from_cache"] = False
    return built
