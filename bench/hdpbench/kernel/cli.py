"""hdp-bench kernel: the seeds' kernels built from Debian's sources and
booted under QEMU, the seeds' own benchmarks run in them with each
mechanism off, on and bypassed, and hdp-fwd with the matching protection
in the same guest.
"""
import argparse
import os
import sys

from . import run
from .errors import LabError
from .kernels import KERNELS, default_cache

USAGE = """\
usage: hdp-bench kernel [--quick | --ci] [--experiments LIST] [--kernels LIST]
                        [--trials N] [--seconds S] [--accel auto|kvm|tcg]
                        [--cache DIR] [--out DIR] [--jobs N] [--build-only]

Builds the lab's kernels (Debian's linux-source with the patches in
bench/kernel/patches, tinyconfig plus bench/kernel/config), caches them in
--cache (default ~/.cache/hdp/kernel-lab; a second run builds nothing),
boots each under QEMU with an initramfs of this tree's programs, and runs:

  seed000   seed 000's knob (bypass_usercopy_vmalloc_check) N and Y in one
            6.1 guest: the kernel socket path (hdp-sockfwd), kernel XDP
            redirect and hdp-fwd at 60 and 1500 bytes, with hardened
            usercopy's checks counted per packet (is the vmalloc lookup on
            the path at all?), and a path where it is (netlink messages
            past NLMSG_GOODSIZE live in vmalloc'd memory) at 1 and 2 vCPUs,
            on 6.1 and on 6.12 (vmap nodes); hdp's bounds checks beside it
  seed001   hackbench and the socket path under init_on_alloc and
            init_on_free, without and with the exclusion list (the lab's
            init_exclude=, and AF_UNIX skbs with __GFP_NO_AUTOINIT); hdp's
            init on alloc and on free, with and without its own list
  mission   hdp-off, default.ini and strict.ini against the socket path
            (knob N and Y) and kernel XDP, in the seed000 guest
  seed002   in the arm64 guest (QEMU virt with MTE, TCG): seed 002's
            loopback test (TCP and UDP) and the socket path with
            hardware tag-based KASAN off, and on in sync, async and asymm
            mode, every page_alloc tagged and 1 in 10 of order 3 and up
            (kasan.page_alloc.sample), each against kasan=off
  mte       in the arm64 guest, KASAN off: the MTE tests of the arm64 lane
            under a real kernel, hdp-fwd's AF_XDP path verified byte for
            byte with its UMEM tagged (tag=mte) in each tag check mode,
            and its cost at tag_sample 1 and 10 against hdp-off and soft
            tags

Every figure is a ratio to its own "off" in the same guest or round of
boots, labelled with the accelerator (TCG timings are not comparable with
the seeds' hardware figures; what the lab calls reproduced rests on counts).

  --quick          short windows, one round (a first look)
  --ci             the CI lane: the 6.1 kernel only, one boot with short
                   points of each experiment and checks that the knob
                   switches, the exclusion list reaches the caches'
                   init_excluded attribute, the counters move where the
                   check is, and hdp-fwd forwards with hdp-sink verifying;
                   with --kernels 6.12-arm64, the arm64 guest's: KASAN's
                   tags on and sampled, the loopback test, the forwarder's
                   foreign-descriptor check and hdp-fwd verified under MTE;
                   exit 1 if a check fails
  --experiments    seed000,seed001,mission,seed002,mte (default: all)
  --kernels        6.1,6.12,6.12-arm64 (default: all; with --ci: 6.1); seed001
                   and the knob need 6.1, seed002 and mte the arm64 guest
  --trials N       rounds (default 3)
  --seconds S      per measurement window (default 4)
  --accel          auto (a trial boot decides; /dev/kvm alone is not enough)
  --out DIR        results.json, results.md and a plot (default: print only)
  --jobs N         make -jN for the kernels (default: the CPUs)
  --build-only     build (or find cached) kernels and stop
Missing sources or QEMU: status 2, naming the Debian package.
"""


def _positive(kind):
    def parse(text):
        try:
            v = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"'{text}' is not a number") from None
        if v <= 0:
            raise argparse.ArgumentTypeError(f"'{text}': must be above 0")
        return v
    return parse


def _list(allowed, what):
    def parse(text):
        items = [t for t in text.split(",") if t]
        bad = [t for t in items if t not in allowed]
        if bad or not items:
            raise argparse.ArgumentTypeError(
                f"{what} '{','.join(bad) or text}': expected some of {','.join(allowed)}")
        return tuple(items)
    return parse


class _Parser(argparse.ArgumentParser):
    def error(self, message):
        sys.stderr.write(f"hdp-bench kernel: {message}\n")
        sys.exit(2)

    def print_help(self, file=None):
        (file or sys.stdout).write(USAGE)


def parse(argv):
    p = _Parser(prog="hdp-bench kernel", add_help=True)
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--quick", action="store_true")
    mode.add_argument("--ci", action="store_true")
    p.add_argument("--experiments", type=_list(run.EXPERIMENTS, "--experiments"),
                   default=run.EXPERIMENTS)
    p.add_argument("--kernels", type=_list(tuple(KERNELS), "--kernels"), default=None)
    p.add_argument("--trials", type=_positive(int), default=None)
    p.add_argument("--seconds", type=_positive(float), default=None)
    p.add_argument("--accel", choices=("auto", "kvm", "tcg"), default="auto")
    p.add_argument("--cache", default=os.environ.get("HDP_LAB_CACHE") or default_cache())
    p.add_argument("--out")
    p.add_argument("--jobs", type=_positive(int), default=os.cpu_count() or 1)
    p.add_argument("--build-only", action="store_true")
    return p.parse_args(argv)


def main(argv, paths):
    opts = parse(argv)
    try:
        return run.lab(opts, paths)
    except LabError as e:
        sys.stderr.write(f"hdp-bench kernel: {e}\n")
        return e.status
