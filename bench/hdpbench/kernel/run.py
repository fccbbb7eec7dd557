"""One run of the lab: kernels built or found in the cache, the base
initramfs, the accelerator chosen by a trial boot, every boot of every
round, and the report. Whatever stops it, no QEMU is left running and
nothing is left outside the cache (the run's own directory in it goes).
"""
import atexit
import json
import os
import shutil
import sys
import tempfile
import time

from . import experiments as ex
from . import guest_arm64, initramfs, kernels, qemu, report
from .errors import LabError

EXPERIMENTS = ("seed000", "seed001", "mission", "seed002", "mte")


def _say(text):
    print(f"hdp-bench kernel: {text}", file=sys.stderr, flush=True)


def _settings(opts):
    s = ex.Settings()
    if opts.quick:
        s.trials, s.seconds, s.hackbench, s.hackbench_runs, s.quick = 1, 2, (4, 50), 3, True
    if opts.trials:
        s.trials = opts.trials
    if opts.seconds:
        s.seconds = opts.seconds
    return s


def _boot_specs(opts, s, kernels_wanted):
    if opts.ci:
        return ex.ci_boots(kernels_wanted)
    specs = []
    if "seed000" in opts.experiments or "mission" in opts.experiments:
        specs += ex.seed000_boots(s, kernels_wanted)
    if "seed001" in opts.experiments:
        specs += ex.seed001_boots(s, kernels_wanted)
    if "seed002" in opts.experiments:
        specs += ex.seed002_boots(s, kernels_wanted)
    if "mte" in opts.experiments:
        specs += ex.mte_boots(s, kernels_wanted)
    return specs


def lab(opts, paths):
    qemu.install_signal_handlers()
    atexit.register(qemu.stop_all)
    # --ci alone is the 6.1 lane; --ci --kernels names the lanes to run.
    wanted = opts.kernels or (("6.1",) if opts.ci else tuple(kernels.KERNELS))
    for arch in dict.fromkeys(kernels.KERNELS[k].arch for k in wanted):
        qemu.require_qemu(arch)
    out = report.prepare_out(opts.out) if opts.out else None
    kernels.secure_cache(opts.cache)
    built = {}
    for name in wanted:
        built[name] = kernels.build(kernels.KERNELS[name], paths.lab, opts.cache, opts.jobs, _say)
    if opts.build_only:
        return 0
    s = _settings(opts)
    specs = [b for b in _boot_specs(opts, s, wanted) if b.kernel in built]
    if not specs:
        raise LabError("nothing to run: seed001 and the knob need the 6.1 kernel (--kernels 6.1), "
                       "seed002 and mte the arm64 one (--kernels 6.12-arm64)")
    work = tempfile.mkdtemp(prefix="run-", dir=opts.cache)
    atexit.register(shutil.rmtree, work, True)
    bases = {}
    for arch in dict.fromkeys(kernels.KERNELS[b.kernel].arch for b in specs):
        bases[arch] = os.path.join(work, f"base-{arch}.cpio.gz")
        initramfs.build_base(bases[arch], paths, arch)
    accel, accel_why = "tcg", "tcg (an arm64 guest on this host)"
    x86 = [b for b in specs if kernels.KERNELS[b.kernel].arch == "x86_64"]
    if x86:
        trial_dir = os.path.join(work, "accel")
        os.makedirs(trial_dir)
        initramfs.write_boot_image(os.path.join(trial_dir, "initrd"), bases["x86_64"], ["probe"])
        accel, accel_why = qemu.choose_accel(built[x86[0].kernel].image,
                                             os.path.join(trial_dir, "initrd"), trial_dir,
                                             opts.accel)
    _say(f"accelerator: {accel_why}")
    rounds = 1 if opts.ci else s.trials
    boots = []
    started = time.monotonic()
    for rnd in range(1, rounds + 1):
        for i, spec in enumerate(specs):
            d = os.path.join(work, f"boot-{rnd}-{i}")
            os.makedirs(d)
            initrd = os.path.join(d, "initrd")
            arch = kernels.KERNELS[spec.kernel].arch
            boot_accel = accel if arch == "x86_64" else "tcg"
            initramfs.write_boot_image(initrd, bases[arch], spec.plan)
            b = qemu.Boot(built[spec.kernel].image, initrd, spec.append, boot_accel, d,
                          cpus=spec.cpus, timeout=_timeout(spec, s, boot_accel, arch),
                          arch=arch).run()
            record = {"experiment": spec.experiment, "kernel": spec.kernel, "label": spec.label,
                      "append": spec.append, "cpus": spec.cpus, "round": rnd,
                      "arch": arch, "accel": boot_accel,
                      "seconds": round(b.seconds, 1), "ended": b.ended(), "results": b.results}
            if not b.ended():
                record["why"] = b.why()
                _say(f"round {rnd}, {spec.kernel} '{spec.label}': did not end: {record['why']}")
            else:
                _say(f"round {rnd}/{rounds}, {spec.kernel} '{spec.label}' ({spec.cpus} vCPU): "
                     f"{len(b.results)} results in {b.seconds:.0f} s")
            boots.append(record)
            shutil.rmtree(d, ignore_errors=True)
    doc = {"accel": accel, "accel_why": accel_why,
           "arm64_guest": guest_arm64.versions() + qemu.qemu_versions("arm64")
           if "arm64" in bases else [],
           "kernels": {k: v.info for k, v in built.items()},
           "settings": s.__dict__ | {"sizes": list(s.sizes), "hackbench": list(s.hackbench)},
           "wall_seconds": round(time.monotonic() - started, 1),
           "boots": boots}
    doc["tables"] = report.tables(doc)
    if opts.ci:
        doc["checks"] = report.ci_checks(doc)
    text = report.markdown(doc)
    print(text)
    if out is not None:
        report.write(out, doc, text)
    if opts.ci:
        return 0 if all(c["ok"] for c in doc["checks"]) else 1
    return 0 if all(b["ended"] for b in boots) else 1


def _timeout(spec, s, accel, arch="x86_64"):
    """A boot that runs past what its plan can take is stopped: a hung guest
    must not hang the lab. Generous under TCG, where everything is slow,
    and more for a foreign arch with MTE emulated."""
    per = {"flow": s.seconds + 8, "verify": 60, "netlink": s.seconds + 5,
           "hackbench": 120, "knob": 2, "probe": 5, "kasan": 5, "loopback": s.seconds + 5,
           "tap": 120}
    total = 60 + sum(per.get(line.split()[0], 10) for line in spec.plan)
    return total * (1 if accel == "kvm" else 3 if arch == "x86_64" else 5)
