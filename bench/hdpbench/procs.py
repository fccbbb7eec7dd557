"""The processes a run starts, and what the kernel says about them and
the cores: each starts with its output in a file of the run's scratch
directory, is stopped with SIGINT and then SIGKILL, and when it stops on
its own its reason is read from that file; CPU time from /proc.
"""
import os
import re
import signal
import subprocess
import time

STOP_WAIT_S = 3


class Exited:
    """A contender that could not start: its status, read as a Popen's."""
    pid = None

    def __init__(self, status):
        self.returncode = status

    def poll(self):
        return self.returncode

    def wait(self, timeout=None):
        return self.returncode


def start(argv, log, session=False):
    """@argv in the background, its stdout and stderr into @log (an open
    file). @session: a session of its own (setsid), as a service manager
    or a login gives it: with autogroups a session is a scheduling group,
    and in the caller's (the generator's, busy on CPU 0) a contender's
    threads got a third of CPU 1 against the NAPI thread instead of half."""
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                            start_new_session=session)


def alive(p):
    return p.poll() is None


def status(p):
    """Its exit status as a shell gives it: 128 + the signal that ended it."""
    rc = p.wait()
    return 128 - rc if rc < 0 else rc


def stop(*procs):
    """SIGINT, up to 3 s to stop, then SIGKILL; every one waited for."""
    running = [p for p in procs if p is not None and p.pid is not None and alive(p)]
    for p in running:
        p.send_signal(signal.SIGINT)
    deadline = time.monotonic() + STOP_WAIT_S
    while any(alive(p) for p in running) and time.monotonic() < deadline:
        time.sleep(0.1)
    for p in running:
        if alive(p):
            p.kill()
        p.wait()


_HDP = re.compile(r"^(hdp-[a-z-]+: |hdp: error: )")


def reason_of(path):
    """Why a program stopped, in its own words: hdp's last error line, the
    kernel's message that libbpf passes on, DPDK's cause; else its last
    line that says error."""
    hdp = kernel = cause = err = ""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        lines = []
    for line in lines:
        line = line.lstrip()
        line = line[len("libbpf: "):] if line.startswith("libbpf: ") else line
        if _HDP.match(line):
            hdp = line
        if line.startswith("Kernel error message: ") and not kernel:
            kernel = line
        if line.startswith("Cause: "):
            cause = line
        if "error" in line or "Error" in line:
            err = line
    return "; ".join(p for p in (hdp, kernel, cause) if p) or err


def number(text):
    """A count as awk reads a field: its leading number, else 0."""
    m = re.match(r"[-+]?[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?", text)
    return float(m.group(0)) if m else 0.0


def sink_counts(text):
    """(frames, bytes) of hdp-sink's last "at T s: N frames [B bytes]" line
    in its output @text; bytes -1 when it does not say."""
    frames, nbytes = 0.0, -1.0
    for line in text.splitlines():
        w = line.split()
        if not w or not w[0].startswith("at"):
            continue
        frames, nbytes = number(w[3]) if len(w) > 3 else 0.0, -1.0
        for i in range(4, len(w) - 1):
            if w[i + 1].startswith("bytes"):
                nbytes = number(w[i])
    return frames, nbytes


def run_ns(pids):
    """Nanoseconds the processes @pids (all their threads) have run."""
    total = 0
    for pid in pids:
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                    total += int(f.read().split()[0])
            except (OSError, IndexError, ValueError):
                pass
    return total


def _cpu_fields():
    """/proc/stat's cpuN lines: {N: [user, nice, system, idle, iowait, irq, softirq]}."""
    fields = {}
    with open("/proc/stat") as f:
        for line in f:
            words = line.split()
            if words and words[0].startswith("cpu") and words[0][3:].isdigit():
                fields[int(words[0][3:])] = [int(w) for w in words[1:8]]
    return fields


def cpu_ticks():
    """CPU 0's and CPU 1's user (with nice), system and softirq ticks: 6 numbers."""
    fields = _cpu_fields()
    ticks = []
    for cpu in (0, 1):
        user, nice, system, _, _, _, softirq = fields[cpu]
        ticks += [user + nice, system, softirq]
    return ticks


def cpu1_busy():
    """CPU 1's busy and total ticks (busy: user, nice, system, irq, softirq)."""
    user, nice, system, idle, iowait, irq, softirq = _cpu_fields()[1]
    busy = user + nice + system + irq + softirq
    return busy, busy + idle + iowait
