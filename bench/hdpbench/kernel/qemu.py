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

QEMU = "qemu-system-x86_64"

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


def require_qemu():
    for d in os.environ.get("PATH", "/usr/bin").split(":"):
        if os.access(os.path.join(d, QEMU), os.X_OK):
            return
    raise LabError(f"{QEMU} is not installed: install Debian's qemu-system-x86")


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
                 timeout=900, silence=None):
        self.cmd = [QEMU, "-accel", accel, "-cpu", "max" if accel == "tcg" else "host",
                    "-smp", str(cpus), "-m", str(memory), "-display", "none",
                    "-monitor", "none", "-no-reboot", "-nodefaults",
                    "-kernel", kernel, "-initrd", initrd,
                    "-serial", "file:" + os.path.join(workdir, "console.log"),
                    "-serial", "file:" + os.path.join(workdir, "results.log"),
                    "-append", "console=ttyS0 panic=-1 oops=panic " + append]
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
