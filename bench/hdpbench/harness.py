"""One run on the namespace topology, as compare and latency make it: its
name (a prefix and our PID, so that whoever started the run can tell its
namespaces from another run's), a scratch directory for the programs'
output, the processes it starts, and the clean-up, whatever ends the run
(its end, an error, SIGINT or SIGTERM): every process stopped, the
namespaces and the scratch directory gone.
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import bench_out

from . import procs, topology
from .options import UsageError

INTERRUPTED = 130


def _interrupted(signum, frame):
    raise SystemExit(INTERRUPTED)


def catch_signals():
    """SIGINT and SIGTERM end the run with status 130 through the clean-up
    of whatever is running (a Harness, or subprocess.run, which kills its
    child). SIGINT only as the caller gave it: a background job of a script
    ignores it."""
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, _interrupted)
    signal.signal(signal.SIGTERM, _interrupted)


def start(me, settings, usage, argv):
    """A namespace mode's start, as compare and latency share it: its
    settings from @argv (an instance of @settings), or the status to exit
    with: 0 after --help, 2 after a bad command line (with the usage when
    an option itself is wrong) or without root. Signals end it from here
    on (catch_signals)."""
    try:
        s = settings(argv)
    except UsageError as e:
        sys.stderr.write(f"{me}: {e}\n" + (usage if e.show_usage else ""))
        return None, 2
    if s.help:
        sys.stdout.write(usage)
        return None, 0
    catch_signals()
    if os.geteuid() != 0:
        print(f"{me}: needs root (namespaces, XDP)", file=sys.stderr)
        return None, 2
    return s, None


def prepare_out(me, prepare, *args):
    """The --out directory made and judged before the run (@prepare, the
    report's): (its descriptor, None), or (None, 2) with the reason said."""
    try:
        return prepare(*args), None
    except bench_out.OutError as e:
        print(f"{me}: --out: {e}", file=sys.stderr)
        return None, 2


class Harness:
    def __init__(self, me, prefix):
        self.me = me
        self.name = f"{prefix}{os.getpid()}"
        self.work = None
        self.procs = []
        self.topology_up = False

    def __enter__(self):
        self.setup()
        return self

    def __exit__(self, *exc):
        self.cleanup()
        return False

    def setup(self):
        catch_signals()
        self.work = tempfile.mkdtemp()

    def cleanup(self):
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, signal.SIG_IGN)
        running = [p for p in self.procs if p.pid is not None and procs.alive(p)]
        if running:
            for p in running:
                p.send_signal(signal.SIGINT)
            time.sleep(0.5)
            for p in running:
                if procs.alive(p):
                    p.kill()
                p.wait()
        if self.topology_up:
            topology.down(self.name)
        if self.work:
            shutil.rmtree(self.work, ignore_errors=True)

    def ns(self, role):
        """The namespace of @role: gen, fwd or sink."""
        return f"{self.name}-{role}"

    def say(self, text):
        print(f"{self.me}: {text}", file=sys.stderr, flush=True)

    def up(self):
        """The topology, or False (said)."""
        self.topology_up = True
        try:
            topology.up(self.name)
        except topology.TopologyError:
            self.say("cannot build the topology")
            return False
        return True

    def path(self, name):
        return os.path.join(self.work, name)

    def log(self, name):
        """A new file @name in the scratch directory, open for a program's output."""
        return open(self.path(name), "w")

    def start(self, argv, log_name, session=False):
        """@argv in the background, its output into the scratch file @log_name."""
        with self.log(log_name) as log:
            p = procs.start(argv, log, session)
        self.procs.append(p)
        return p

    def start_contender(self, c, argv):
        """Contender @c (contenders.Contender) as @argv in the forwarder's
        namespace, in a session of its own, its output in the scratch file
        "contender", after the steps that make it (a bridge's): its
        process, or procs.Exited when such a step failed."""
        with self.log("contender") as log:
            for step in c.setup():
                status = subprocess.run(topology.in_ns(self.ns("fwd"), step), stdout=log,
                                        stderr=subprocess.STDOUT).returncode
                if status:
                    return procs.Exited(status)
        return self.start(topology.in_ns(self.ns("fwd"), argv), "contender", session=True)

    def read(self, name):
        try:
            with open(self.path(name), errors="replace") as f:
                return f.read()
        except OSError:
            return ""
