"""Booting a lab kernel under QEMU: the accelerator, the command, the
results the guest writes to its second serial port, and a QEMU that is
never left running, whatever stops the lab.
"""
import os
import re
import shlex
import signal
import subprocess
import time

from .errors import LabError

# Per guest arch: QEMU's program and where it comes from, and the kernel
# parameters that say where the console and the results go. An arm64
# guest is QEMU's virt board with MTE under TCG (no KVM for a foreign
# arch), pauth-impdef for a faster TCG, plain pages for its UMEM (6.12
# refuses PROT_MTE on hugetlb mappings), and its results on a virtio
# console: virt has one UART, the console's. Its QEMU is Debian 13's,
# unpacked with its libraries by scripts/install-deps into a root run
# through its own loader: Debian 12's QEMU 7.2 keeps MTE tags per page
# half, not per 16-byte granule, in system emulation.
ARCHES = {
    "x86_64": {"qemu": "qemu-system-x86_64", "package": "qemu-system-x86", "root": None,
               "append": "console=ttyS0"},
    "arm64": {"qemu": "qemu-system-aarch64", "package": "qemu-system-arm",
              "root": "/usr/local/lib/hdp/qemu-arm64",
              "append": "console=ttyAMA0 lab_results=/dev/hvc0 LAB_HUGEPAGES=0"},
}

# Every QEMU this process started and has not reaped: stopped at exit.
_running = set()


def stop_all():
    for p in list(_running):
        _kill(p)


def _kill(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    _running.discard(proc)


def _on_signal(signum, _frame):
    stop_all()
    raise SystemExit(128 + signum)


def install_signal_handlers():
    for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, _on_signal)


def _root(arch):
    return ARCHES[arch]["root"]


def qemu_command(arch):
    """argv[0...] that runs @arch's QEMU: the one on PATH, or one unpacked
    into a root of its own, through that root's loader and libraries."""
    root = _root(arch)
    if not root:
        return [ARCHES[arch]["qemu"]]
    return [os.path.join(root, "root/usr/lib64/ld-linux-x86-64.so.2"), "--library-path",
            os.path.join(root, "root/usr/lib/x86_64-linux-gnu"),
            os.path.join(root, "root/usr/bin", ARCHES[arch]["qemu"])]


def qemu_versions(arch):
    """What @arch's QEMU root holds, 'package:arch version' per line ([] on PATH)."""
    root = _root(arch)
    try:
        with open(os.path.join(root, "VERSIONS")) as f:
            return [line.strip() for line in f if line.strip().startswith("qemu-system")]
    except (OSError, TypeError):
        return []


def require_qemu(arch="x86_64"):
    qemu = ARCHES[arch]["qemu"]
    root = _root(arch)
    if root:
        if not os.access(qemu_command(arch)[-1], os.X_OK):
            raise LabError(f"{qemu_command(arch)[-1]} is not there: run scripts/install-deps as "
                           "root, which unpacks Debian 13's qemu-system-arm there (Debian 12's "
                           "QEMU 7.2 keeps MTE tags wrongly in system emulation)", status=2)
        return
    for d in os.environ.get("PATH", "/usr/bin").split(":"):
        if os.access(os.path.join(d, qemu), os.X_OK):
            return
    raise LabError(f"{qemu} is not installed: install Debian's {ARCHES[arch]['package']}")


_RESULT = re.compile(r'(\w+)=("([^"]*)"|\S*)')


def parse_result(line):
    """'R step=flow ... before: k=v ... after: k=v ...' -> dict; the counters
    sampled before and after a measurement go under 'before' and 'after'."""
    out = {}
    where = out
    for token in re.split(r"\s+(?=(?:before|after):)", line[2:].strip()):
        for part in ("before", "after"):
            if token.startswith(part + ":"):
                where = out.setdefault(part, {})
                token = token[len(part) + 1:]
        for m in _RESULT.finditer(token):
            value = m.group(3) if m.group(3) is not None else m.group(2)
            where[m.group(1)] = _number(value)
    return out


def _number(text):
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


class Boot:
    """One boot of @kernel with @initrd: its results, console and timing."""

    def __init__(self, kernel, initrd, append, accel, workdir, cpus=2, memory=2048,
                 timeout=900, silence=None, arch="x86_64"):
        results = os.path.join(workdir, "results.log")
        if arch == "arm64":
            machine = ["-M", "virt,mte=on", "-accel", "tcg", "-cpu", "max,pauth-impdef=on"]
            results_port = ["-device", "virtio-serial-device",
                            "-chardev", f"file,id=results,path={results}",
                            "-device", "virtconsole,chardev=results"]
        else:
            machine = ["-accel", accel, "-cpu", "max" if accel == "tcg" else "host"]
            results_port = ["-serial", "file:" + results]
        self.cmd = [*qemu_command(arch), *machine,
                    "-smp", str(cpus), "-m", str(memory), "-display", "none",
                    "-monitor", "none", "-no-reboot", "-nodefaults",
                    "-kernel", kernel, "-initrd", initrd,
                    "-serial", "file:" + os.path.join(workdir, "console.log"), *results_port,
                    "-append", f"{ARCHES[arch]['append']} panic=-1 oops=panic {append}"]
        self.workdir = workdir
        self.timeout = timeout
        self.silence = silence    # stop if the console says nothing for this long
        self.results = []
        self.seconds = 0.0
        self.status = None

    def run(self):
        start = time.monotonic()
        log_path = os.path.join(self.workdir, "qemu.log")
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(self.cmd, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, start_new_session=True)
            _running.add(proc)
            try:
                self.status = self._wait(proc, log_path, start)
            finally:
                _kill(proc)
        self.seconds = time.monotonic() - start
        path = os.path.join(self.workdir, "results.log")
        if os.path.exists(path):
            with open(path, errors="replace") as f:
                self.results = [parse_result(l) for l in f if l.startswith("R ")]
        return self

    def _wait(self, proc, log_path, start):
        """QEMU's exit status, or why it was stopped: past the timeout, or
        stuck after a KVM internal error (QEMU pauses the guest and waits)."""
        while True:
            try:
                return proc.wait(timeout=0.5)
            except subprocess.TimeoutExpired:
                pass
            took = time.monotonic() - start
            if took > self.timeout:
                return "timeout"
            with open(log_path, "rb") as f:
                if b"KVM internal error" in f.read():
                    return "KVM internal error"
            console = os.path.join(self.workdir, "console.log")
            if self.silence and took > self.silence and (
                    not os.path.exists(console) or os.path.getsize(console) == 0):
                return f"no word from the guest's console in {self.silence:.0f} s"

    def ended(self):
        return any(r.get("step") == "end" for r in self.results)

    def why(self):
        """Why a boot did not end as planned, from what QEMU and the console said."""
        if isinstance(self.status, str) and self.status.startswith("no word"):
            return self.status
        said = []
        for name in ("qemu.log", "console.log"):
            p = os.path.join(self.workdir, name)
            if os.path.exists(p):
                with open(p, errors="replace") as f:
                    lines = [l.strip() for l in f if l.strip()]
                said += lines[-4:]
        what = ("timed out" if self.status == "timeout" else self.status
                if isinstance(self.status, str) else f"QEMU exited with {self.status}")
        return f"{what}; last words: " + " | ".join(said[-6:])

    def command(self):
        return " ".join(shlex.quote(c) for c in self.cmd)


def choose_accel(kernel, initrd, workdir, wanted="auto"):
    """'kvm' if a trial boot under KVM reaches the guest's init and ends,
    else 'tcg'. /dev/kvm existing is not enough: on nested machines a guest
    can stop with "KVM internal error" at its first instructions."""
    if wanted in ("tcg", "kvm"):
        return wanted, f"{wanted} (asked for)"
    if not os.access("/dev/kvm", os.R_OK | os.W_OK):
        return "tcg", "tcg (no /dev/kvm)"
    # Natively the kernel prints within a second; a guest that KVM cannot
    # run here says nothing at all (it stops in the firmware).
    trial = Boot(kernel, initrd, "", "kvm", workdir, cpus=1, memory=512, timeout=60,
                 silence=10).run()
    if trial.ended():
        return "kvm", f"kvm (a trial boot ended in {trial.seconds:.1f} s)"
    return "tcg", f"tcg (KVM did not boot the guest: {trial.why()})"
