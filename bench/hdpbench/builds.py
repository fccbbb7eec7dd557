"""hdp-bench builds: two builds of hdp, their hdp-bench micro run in turn,
round by round, and each figure of the second set against the first's
from the same round."""
import json
import math
import os
import re
import stat
import statistics
import subprocess
import sys

import bench_out

from . import procs
from .harness import Harness, prepare_out
from .options import UsageError, parse

USAGE = """\
usage: hdp-bench builds OLD NEW [--rounds N] [--aa] [--out DIR]
                        [--only LIST] [--size LIST] [--trials N] [--cpu N] [--quick]

Two builds of hdp (build trees, or their bench/hdp-bench) measured in
turn: each round runs OLD's hdp-bench micro and NEW's, in the other
order the next round, so that the machine's drift and its slow and fast
hours hit both alike. Per profile and size: each build's ns a packet
(the median over rounds), the paired ratio NEW/OLD (each round's NEW
over the same round's OLD, then the median, with min and max), the ns
NEW adds over OLD beyond off's own change, and in how many rounds NEW
was the faster, with the sign test's p corrected over every row (Holm):
"faster" or "slower" when p < 0.05, else no difference shown. A program that any user could replace
(it, or a directory above it, writable by all and not sticky) is refused:
run as root, builds would run whatever stood there.

  --rounds N         rounds, 2 to 99 (default 8). A verdict needs 2^N over
                     40 times the rows: 6 rounds for one row, 9 for the 9
                     of --only default,strict --size 60,1500,9000
  --aa               each round also OLD again: the A/A control, OLD
                     against itself by the same rule, which should show no
                     difference (a run that shows one is too noisy to read);
                     the three take turns at each place in a round
  --out DIR          results.json, results.md, and each round's micro
                     results in DIR/round01-old, DIR/round01-new, ...
  --only, --size, --trials, --cpu, --quick
                     passed to every micro run (hdp-bench --help)
"""

MICRO_OPTIONS = ("only", "size", "trials", "cpu")
ROUNDS_MAX = 99
P_VERDICT = 0.05
OUTPUTS = ("results.json", "results.md")
# With the A/A control, three runs a round. Each round mirrors the one
# before it, so that over any even number of rounds each of the three runs
# before each other as often as after; over six, each comes in each place
# twice.
ORDERS_AA = (("old", "new", "aa"), ("aa", "new", "old"), ("new", "aa", "old"),
             ("old", "aa", "new"), ("aa", "old", "new"), ("new", "old", "aa"))


class Settings:
    def __init__(self, argv):
        builds = []
        o = parse(argv, ("help", "aa", "quick"), ("rounds", "out") + MICRO_OPTIONS, builds)
        self.help = "help" in o
        if self.help:
            return
        if len(builds) != 2:
            raise UsageError(f"expected two builds, OLD and NEW; got {len(builds)}", True)
        self.old, self.new = (hdp_bench_of(b) for b in builds)
        rounds = o.get("rounds", "8")
        if not re.fullmatch(r"[0-9]{1,2}", rounds) or not 2 <= int(rounds) <= ROUNDS_MAX:
            raise UsageError(f"--rounds '{rounds}': expected 2 to {ROUNDS_MAX}")
        self.rounds = int(rounds)
        self.aa = "aa" in o
        self.out = o.get("out")
        self.micro = [f"--{k}={o[k]}" for k in MICRO_OPTIONS if k in o]
        if "quick" in o:
            self.micro.append("--quick")


def hdp_bench_of(build):
    """The hdp-bench program of @build (a build tree or the program
    itself), by its real path: run as root, it runs what that names."""
    prog = os.path.join(build, "bench", "hdp-bench") if os.path.isdir(build) else build
    if not (os.path.isfile(prog) and os.access(prog, os.X_OK)):
        raise UsageError(f"'{build}': no hdp-bench there (a build tree's bench/hdp-bench, "
                         "or the program itself)")
    prog = os.path.realpath(prog)
    why = others_can_replace(prog)
    if why:
        raise UsageError(f"'{build}': {why}: a user could put another program in its place; "
                         "build it where only its owner can write")
    return prog


def others_can_replace(path):
    """None, or which of @path and the directories above it every user may
    write to (a sticky directory lets nobody replace another's entry). A
    group's write is its owner's choice of whom to trust, and left be."""
    while True:
        st = os.stat(path)
        sticky = stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX
        if st.st_mode & stat.S_IWOTH and not sticky:
            return f"{path} is writable by all"
        if path == "/":
            return None
        path = os.path.dirname(path)


class MicroFailed(Exception):
    """A micro run that failed: its last words, and its status (2: it
    refused its options, as the whole mode then does)."""

    def __init__(self, message, status):
        super().__init__(message)
        self.status = status


def read_results(dirfd, name):
    """Round @name's micro results under the directory @dirfd: ({(profile,
    size): ns a packet}, its results.json). The directory may be another
    user's: no link is followed and nothing but a regular file is read
    (bench_out.read), and what is not micro's results is MicroFailed."""
    text = bench_out.read(dirfd, f"{name}/results.json")
    if text is None:
        raise MicroFailed(f"{name}/results.json: not a regular file micro wrote "
                          "(missing, a link, or not a file)", 1)
    try:
        res = json.loads(text)
        return {(x["profile"], x.get("size", 60)): x["ns_per_pkt"]["median"]
                for x in res["runs"]}, res
    except (ValueError, KeyError, TypeError) as e:
        raise MicroFailed(f"{name}/results.json: not micro's results ({e!r})", 1) from None


def run_micro(h, prog, args, where, dirfd, name):
    """One micro run into @where/@name (@dirfd: @where held open), as a
    process of harness @h (a signal ends it as the harness ends its
    own): its figures and results.json (read_results), or MicroFailed."""
    p = h.start([prog, "micro", *args, "--out", os.path.join(where, name)], name + ".log")
    status = procs.status(p)
    if status:
        said = h.read(name + ".log").strip().splitlines()
        raise MicroFailed(f"{prog} micro {' '.join(args)}: {said[-1] if said else f'status {status}'}",
                          2 if status == 2 else 1)
    return read_results(dirfd, name)


def sign_test(faster, slower):
    """Two-sided p of @faster against @slower rounds under no difference."""
    n, k = faster + slower, min(faster, slower)
    if n == 0:
        return 1.0
    return min(1.0, 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n)


def spread(values):
    return {"median": statistics.median(values), "min": min(values), "max": max(values)}


def holm(ps):
    """Holm's correction of @ps for testing them all at once: each p as
    large as it must be so that P_VERDICT bounds the chance of any false
    verdict among them, not of each."""
    order = sorted(range(len(ps)), key=ps.__getitem__)
    out, worst = [1.0] * len(ps), 0.0
    for k, i in enumerate(order):
        worst = max(worst, min(1.0, (len(ps) - k) * ps[i]))
        out[i] = worst
    return out


def judge(base, other):
    """@other's rounds against @base's, the same rounds: per (profile,
    size), the verdict from the sign test's p corrected over every row."""
    rows = []
    for key in base[0]:
        ratios = [o[key] / b[key] for b, o in zip(base, other)]
        off = ("off", key[1])
        added = [(o[key] - o[off]) - (b[key] - b[off]) for b, o in zip(base, other)
                 if off in b and off in o]
        faster = sum(r < 1 for r in ratios)
        slower = sum(r > 1 for r in ratios)
        rows.append({"profile": key[0], "size": key[1],
                     "base": spread([b[key] for b in base]),
                     "other": spread([o[key] for o in other]),
                     "paired": spread(ratios),
                     "added_ns": statistics.median(added) if added else None,
                     "faster_rounds": faster, "slower_rounds": slower,
                     "p": sign_test(faster, slower)})
    for r, p in zip(rows, holm([r["p"] for r in rows])):
        r["p_holm"] = p
        r["verdict"] = ("faster" if r["faster_rounds"] > r["slower_rounds"] else "slower") \
            if p < P_VERDICT else "no difference shown"
    return rows


def markdown(s, rows, aa, order):
    lines = [f"# hdp-bench builds: NEW against OLD, {s.rounds} rounds", "",
             f"- OLD: {s.old}", f"- NEW: {s.new}",
             f"- each round: hdp-bench micro {' '.join(s.micro) or '(its defaults)'}; "
             f"order by round: {', '.join('/'.join(o) for o in order)}", "",
             "| profile | size | OLD ns | NEW ns | NEW/OLD (min-max) | NEW adds, ns | "
             "NEW faster in | p | verdict |" + (" A/A (min-max) | A/A verdict |" if aa else ""),
             "|---|---:|---:|---:|---|---:|---|---:|---|" + ("---|---|" if aa else "")]
    for i, r in enumerate(rows):
        added = "" if r["added_ns"] is None else f"{r['added_ns']:+.1f}"
        line = (f"| {r['profile']} | {r['size']} | {r['base']['median']:.1f} | "
                f"{r['other']['median']:.1f} | {r['paired']['median']:.3f} "
                f"({r['paired']['min']:.3f}-{r['paired']['max']:.3f}) | {added} | "
                f"{r['faster_rounds']} of {s.rounds} | {r['p_holm']:.3f} | {r['verdict']} |")
        if aa:
            a = aa[i]
            line += (f" {a['paired']['median']:.3f} ({a['paired']['min']:.3f}-"
                     f"{a['paired']['max']:.3f}) | {a['verdict']} |")
        lines.append(line)
    lines += ["", "NEW adds: each round's (NEW's profile - NEW's off) - (OLD's profile - OLD's "
              "off), the median: what NEW changes in the profile's own cost. p: the sign "
              "test over the rounds (ties left out), corrected over the rows (Holm)."]
    if aa and any(a["verdict"] != "no difference shown" for a in aa):
        lines.append("The A/A control shows a difference: the machine was too noisy for "
                     "these rounds to be read.")
    return "\n".join(lines) + "\n"


def measure(s, h, rounds_dir, dirfd):
    """Every round: (OLD's figures, NEW's, OLD again's or None, the order,
    the first results.json); MicroFailed when a run or the two builds'
    figures do not match."""
    figures = {"old": [], "new": [], "aa": []}
    progs = {"old": s.old, "new": s.new, "aa": s.old}
    order, first = [], None
    for r in range(s.rounds):
        turn = list(ORDERS_AA[r % len(ORDERS_AA)]) if s.aa else \
            (["old", "new"] if r % 2 == 0 else ["new", "old"])
        order.append(turn)
        for who in turn:
            h.say(f"round {r + 1} of {s.rounds}: {who.upper() if who != 'aa' else 'OLD again'}")
            got = run_micro(h, progs[who], s.micro, rounds_dir, dirfd, f"round{r + 1:02d}-{who}")
            first = first or got
            if set(got[0]) != set(first[0]):
                raise MicroFailed("the two builds' micro measured different profiles or "
                                  "sizes: compare builds that know the same profiles", 1)
            figures[who].append(got[0])
    first = first[1]
    return figures["old"], figures["new"], figures["aa"] if s.aa else None, order, first


def main(argv):
    try:
        s = Settings(argv)
    except UsageError as e:
        sys.stderr.write(f"builds: {e}\n" + (USAGE if e.show_usage else ""))
        return 2
    if s.help:
        sys.stdout.write(USAGE)
        return 0
    outfd = None
    if s.out:
        outfd, status = prepare_out("builds", bench_out.prepare, s.out, OUTPUTS)
        if outfd is None:
            return status
    # Without --out the rounds go to the harness's scratch directory, which
    # goes with it, whatever ends the run. Each micro run makes its own.
    with Harness("builds", "hdpbuilds") as h:
        where = s.out or h.work
        dirfd = outfd if outfd is not None else bench_out.open_dir(h.work)
        try:
            old, new, again, order, first = measure(s, h, where, dirfd)
        except MicroFailed as e:
            h.say(str(e))
            return e.status
    rows = judge(old, new)
    aa = judge(old, again) if again else None
    md = markdown(s, rows, aa, order)
    sys.stdout.write(md)
    if outfd is not None:
        doc = {"mode": "builds", "old": s.old, "new": s.new, "rounds": s.rounds,
               "micro_args": s.micro, "order": order,
               "machine": first.get("machine"), "kernel": first.get("kernel"),
               "runs": [dict(r, aa=(aa[i] if aa else None)) for i, r in enumerate(rows)]}
        bench_out.write(outfd, "results.json", (json.dumps(doc, indent=1) + "\n").encode())
        bench_out.write(outfd, "results.md", md.encode())
        print(f"results in {s.out}: {', '.join(OUTPUTS)}, round*/", file=sys.stderr)
    return 0
