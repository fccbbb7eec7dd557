"""latency's report: from the points one run measured (one JSON object a
line), the figures per contender, size and load as medians over the
trials, the latency each contender adds to the baseline path at the same
rate in the same trial, the targets, and two plots per size (the CDF at
one load, p99 against load). Every file goes into OUT as bench_out.py
writes; points.jsonl is the points again, which this report reads again
from the command line:

usage: latency-report POINTS.JSONL SECONDS TRIALS SPIN_US [OUT]
       latency-report --prepare OUT SIZES   before a run: make OUT, refuse what
                                            is in the way (SIZES: 60,1500)
"""
import json
import os
import statistics
import sys
from collections import defaultdict

import bench_out

PCTS = ("p50", "p90", "p99", "p999")


def load_points(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def us(ns):
    return "-" if ns is None else f"{ns / 1e3:.1f}"


def num(x, fmt):
    return "-" if x is None else format(x, fmt)


def load_key(load):
    """Fixed rates first, in order, then shares of saturation."""
    return (1, int(load[:-1])) if load.endswith("%") else (0, int(load))


def measured(p):
    """A point with figures: frames came (a run that got none has no latency)."""
    return p.get("p50_ns") is not None and p.get("stamped", 0) > 0


def baseline_at(points, size, trial, rate):
    for p in points:
        if p["who"] == "baseline" and p["size"] == size and p["trial"] == trial \
                and p["rate"] == rate and measured(p):
            return p
    return None


def aggregate(points):
    """(who, size, load) -> the medians over trials, with added latency."""
    groups = defaultdict(list)
    for p in points:
        if measured(p) and p["who"] != "baseline":
            groups[(p["who"], p["size"], p["load"])].append(p)
    out = {}
    for key, ps in groups.items():
        who, size, load = key
        row = {"who": who, "size": size, "load": load, "trials": len(ps)}
        for f in ("rate", "achieved_pps", "min_ns", "mean_ns", "max_ns", "cpu_pct",
                  "run_ns_per_pkt", "cpu1_busy_pct") + tuple(q + "_ns" for q in PCTS):
            row[f] = median([p.get(f) for p in ps])
        row["lost"] = sum(p["lost"] for p in ps)
        row["k_dropped"] = sum(p.get("k_dropped", 0) for p in ps)
        row["reordered"] = sum(p.get("reordered", 0) for p in ps)
        row["sent"] = sum(p["sent"] for p in ps)
        for q in ("p50", "p99", "p999"):
            added = []
            for p in ps:
                b = baseline_at(points, size, p["trial"], p["rate"])
                if b:
                    added.append(p[q + "_ns"] - b[q + "_ns"])
            row["added_" + q + "_ns"] = median(added)
        hist = defaultdict(int)
        for p in ps:
            for low, width, n in p.get("hist", []):
                hist[(low, width)] += n
        row["hist"] = sorted([k[0], k[1], n] for k, n in hist.items())
        out[key] = row
    return out


def baselines(points):
    groups = defaultdict(list)
    for p in points:
        if p["who"] == "baseline" and measured(p):
            groups[(p["size"], p["rate"])].append(p)
    return {k: {q: median([p[q + "_ns"] for p in ps]) for q in PCTS + ("max",)} |
            {"lost": sum(p["lost"] for p in ps), "k_dropped": sum(p.get("k_dropped", 0) for p in ps)}
            for k, ps in groups.items()}


def lost_cell(lost, k_dropped):
    """Lost frames, and how many of them the kernel says its veth dropped."""
    return f"{lost} ({min(lost, k_dropped)} dropped by a veth)" if lost and k_dropped else str(lost)


def per_contender(points, field):
    groups = defaultdict(list)
    for p in points:
        if field in p:
            groups[(p["who"], p["size"])].append(p[field])
    return {k: median(v) for k, v in groups.items()}


def targets(rows, idle, spin_us):
    """The targets latency is held to, each: (what, figures, met or not)."""
    out = []

    def get(who, size, load):
        return rows.get((who, size, load))

    sizes = sorted({k[1] for k in rows})
    for size in sizes:
        off, sock = get("hdp-off", size, "10000"), get("kernel-socket", size, "10000")
        if off and sock and off["added_p99_ns"] is not None and sock["added_p99_ns"] is not None:
            out.append((f"{size} B: hdp-off's added p99 at 10 k/s at most the kernel socket path's",
                        f"{us(off['added_p99_ns'])} us against {us(sock['added_p99_ns'])} us",
                        off["added_p99_ns"] <= sock["added_p99_ns"]))
        for (who, s, load), d in sorted(rows.items(), key=lambda kv: (kv[0][1], load_key(kv[0][2]))):
            if who != "hdp-default" or s != size:
                continue
            o = get("hdp-off", size, load)
            if not o:
                continue
            for q in ("p50", "p99"):
                allowed = max(0.05 * o[q + "_ns"], 2000)
                out.append((f"{size} B at {load}: default.ini's {q} within 5 % or 2 us of hdp-off's",
                            f"{us(d[q + '_ns'])} us against {us(o[q + '_ns'])} us",
                            d[q + "_ns"] - o[q + "_ns"] <= allowed))
        spin, xdp = get("hdp-off-spin", size, "10000"), get("kernel-xdp", size, "10000")
        if spin and xdp:
            out.append((f"{size} B: with --idle-spin {spin_us}, hdp-fwd's p99 at 10 k/s at most kernel XDP's",
                        f"{us(spin['p99_ns'])} us against {us(xdp['p99_ns'])} us, at "
                        f"{num(spin['cpu_pct'], '.0f')} % of a core (spin off: "
                        f"{num((get('hdp-off', size, '10000') or {}).get('cpu_pct'), '.0f')} %)",
                        spin["p99_ns"] <= xdp["p99_ns"]))
        for (who, s, load), again in sorted(rows.items(), key=lambda kv: load_key(kv[0][2])):
            o = get("hdp-off", size, load)
            if who == "hdp-off-again" and s == size and o:
                out.append((f"{size} B at {load}: A/A noise, hdp-off-again against hdp-off (not a target)",
                            f"p50 {us(again['p50_ns'])} against {us(o['p50_ns'])} us, "
                            f"p99 {us(again['p99_ns'])} against {us(o['p99_ns'])} us", True))
        for who in ("hdp-off", "hdp-default"):
            i = idle.get((who, size))
            if i is not None:
                out.append((f"{size} B: idle {who} under 1 % of a core", f"{i:.2f} %", i < 1.0))
        # What the kernel says the sink's veth dropped is not hdp-fwd's loss.
        bad = [(k, r["lost"] - min(r["lost"], r["k_dropped"]), r["reordered"])
               for k, r in rows.items() if k[1] == size and k[0].startswith("hdp-")]
        bad = [b for b in bad if b[1] or b[2]]
        out.append((f"{size} B: no frame lost or reordered by hdp-fwd below saturation",
                    "; ".join(f"{k[0]} at {k[2]}: {lost} lost, {ro} reordered" for k, lost, ro in bad)
                    or "none", not bad))
    return out


def outputs(sizes):
    """Every file the report writes into OUTDIR, for frames of SIZES."""
    plots_of = [f"latency-{kind}-{size}.{ext}" for size in sizes for kind in ("cdf", "p99")
                for ext in ("dat", "png")]
    return ["points.jsonl", "results.md", "results.json"] + plots_of


def gnuplot(outdir, name, blocks, script):
    """Data blocks [(title, [(x, y)...])] into NAME.dat, drawn by gnuplot into NAME.png
    (OUTDIR a bench_out descriptor)."""
    blocks = [(t, pts) for t, pts in blocks if pts]
    if not blocks:
        return None
    data = [f"# {title}\n" + "".join(f"{x} {y}\n" for x, y in pts) for title, pts in blocks]
    bench_out.write(outdir, name + ".dat", "".join(d + "\n\n" for d in data))
    plot = ", ".join(f"$data index {i} using 1:2 {script['style']} lw 2 title '{t}'"
                     for i, (t, _) in enumerate(blocks))
    gp = ("set terminal pngcairo size 900,520 noenhanced\n" + bench_out.datablock("data", data) +
          f"set grid; {script['setup']}; plot {plot}\n")
    return name + ".png" if bench_out.gnuplot(outdir, name + ".png", gp) else None


def plots(rows, outdir):
    """Per size: the CDF at 10 k packets/s (or the first load), p99 against load."""
    made = []
    for size in sorted({k[1] for k in rows}):
        loads = sorted({k[2] for k in rows if k[1] == size}, key=load_key)
        at = "10000" if "10000" in loads else loads[0]
        blocks = []
        for (who, s, load), r in sorted(rows.items()):
            if s == size and load == at and r["hist"]:
                total, seen, pts = sum(n for _, _, n in r["hist"]), 0, []
                for low, width, n in r["hist"]:
                    seen += n
                    pts.append(((low + width) / 1e3, seen / total))
                blocks.append((who, pts))
        what = f"{at} packets/s" if not at.endswith("%") else f"{at} of saturation"
        made.append(gnuplot(outdir, f"latency-cdf-{size}", blocks, {
            "style": "with steps",
            "setup": f"set title 'latency CDF, {size}-byte frames at {what}'; set logscale x; "
                     "set xlabel 'latency (us)'; set ylabel 'fraction of frames'; "
                     "set yrange [0:1]; set key bottom right"}))
        blocks = [(who, sorted((r["achieved_pps"], r["p99_ns"] / 1e3) for k, r in rows.items()
                               if k[0] == who and k[1] == size))
                  for who in sorted({k[0] for k in rows if k[1] == size})]
        made.append(gnuplot(outdir, f"latency-p99-{size}", blocks, {
            "style": "with linespoints",
            "setup": f"set title 'p99 against load, {size}-byte frames'; set logscale xy; "
                     "set xlabel 'load (packets/s)'; set ylabel 'p99 latency (us)'; "
                     "set key top left"}))
    return [m for m in made if m]


def report(points, seconds, trials, spin_us, outdir):
    rows = aggregate(points)
    base = baselines(points)
    idle = per_contender(points, "idle_cpu_pct")
    sat = per_contender(points, "saturation_pps")
    lines = [f"# hdp-bench latency: {trials} trial(s), {seconds} s a load, placement same",
             "",
             "Latency from hdp-gen's stamp just before the send to hdp-sink's XDP program on the sink's",
             "veth (CLOCK_MONOTONIC both); *added* is the contender's figure less the baseline path's",
             "(a direct veth pair) at the same rate in the same trial. Medians over trials; lost and",
             "reordered are sums, and of the lost, those the kernel counted as dropped at the sink's",
             "veth (its NAPI ring full, or its peer's send refused) are said. CPU: the contender's",
             "threads and f0's NAPI threads, per packet sent and as a share of a core.", ""]
    for size in sorted({k[1] for k in rows} | {k[1] for k in sat}):
        lines += [f"## {size}-byte frames", "",
                  "| contender | load | packets/s | p50 | p90 | p99 | p99.9 | max | added p50 | added p99 "
                  "| lost | reordered | CPU % | CPU ns/packet |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for (who, s, load), r in sorted(rows.items(), key=lambda kv: (kv[0][0], load_key(kv[0][2]))):
            if s != size:
                continue
            lines.append(f"| {who} | {load} | {r['achieved_pps']:.0f} | {us(r['p50_ns'])} | {us(r['p90_ns'])} "
                         f"| {us(r['p99_ns'])} | {us(r['p999_ns'])} | {us(r['max_ns'])} "
                         f"| {us(r['added_p50_ns'])} | {us(r['added_p99_ns'])} | {lost_cell(r['lost'], r['k_dropped'])} "
                         f"| {r['reordered']} | {num(r['cpu_pct'], '.1f')} | {num(r['run_ns_per_pkt'], '.0f')} |")
        empty = sorted({(p["who"], p["load"]) for p in points if p["who"] != "baseline"
                        and p.get("size") == size and "load" in p and "sent" in p and not measured(p)})
        if empty:
            lines += ["", "Measured but no frame came (left out of the figures): " +
                      ", ".join(f"{w} at {l}" for w, l in empty) + "."]
        above = sorted({(p["who"], p["load"]) for p in points
                        if p.get("above_saturation") and p["size"] == size})
        if above:
            lines += ["", "At or above saturation, not measured: " +
                      ", ".join(f"{w} at {l}" for w, l in above) + "."]
        cannot = sorted({(p["who"], p["cannot"]) for p in points if p.get("cannot") and p["size"] == size})
        for who, why in cannot:
            lines += ["", f"{who} cannot run: {why}"]
        lines += ["", "| contender | idle CPU % | saturation packets/s |", "|---|---|---|"]
        for (who, s), v in sorted(sat.items()):
            if s == size:
                lines.append(f"| {who} | {idle.get((who, s), 0):.2f} | {v:.0f} |")
        fixed = {int(r["rate"]) for k, r in rows.items() if k[1] == size and not k[2].endswith("%")}
        lines += ["", "Baseline (direct veth pair), at the fixed loads and, in one row, at the rates"
                  " the shares of saturation came to:", "",
                  "| packets/s | p50 | p99 | p99.9 | max | lost |", "|---|---|---|---|---|---|"]
        shares = []
        for (s, rate), b in sorted(base.items()):
            if s != size:
                continue
            if rate in fixed:
                lines.append(f"| {rate} | {us(b['p50'])} | {us(b['p99'])} | {us(b['p999'])} "
                             f"| {us(b['max'])} | {lost_cell(b['lost'], b['k_dropped'])} |")
            else:
                shares.append((rate, b))
        if shares:
            lo, hi = shares[0][0], shares[-1][0]
            bs = [b for _, b in shares]
            lines.append(f"| {len(shares)} rates, {lo}-{hi} | {us(median([b['p50'] for b in bs]))} (median) "
                         f"| {us(median([b['p99'] for b in bs]))} (median) "
                         f"| {us(max(b['p999'] for b in bs))} (worst) | {us(max(b['max'] for b in bs))} (worst) "
                         f"| {lost_cell(sum(b['lost'] for b in bs), sum(b['k_dropped'] for b in bs))} |")
        lines.append("")
    lines += ["## Targets", "", "| target | figures | met |", "|---|---|---|"]
    for what, figs, met in targets(rows, idle, spin_us):
        lines.append(f"| {what} | {figs} | {'yes' if met else 'no'} |")
    text = "\n".join(lines) + "\n"
    print(text)
    if outdir is not None:
        made = plots(rows, outdir)
        bench_out.write(outdir, "results.md", text + "".join(f"\n![{name}]({name})\n"
                                                             for name in made))
        bench_out.write(outdir, "results.json", json.dumps(
            {"seconds": seconds, "trials": trials, "spin_us": spin_us,
             "rows": [dict(r, hist=None) | {"hist": r["hist"]} for r in rows.values()],
             "baseline": [{"size": k[0], "rate": k[1]} | v for k, v in base.items()],
             "idle_cpu_pct": [{"who": k[0], "size": k[1], "pct": v} for k, v in idle.items()],
             "saturation_pps": [{"who": k[0], "size": k[1], "pps": v} for k, v in sat.items()],
             "targets": [{"target": t, "figures": f_, "met": m}
                         for t, f_, m in targets(rows, idle, spin_us)]}, indent=1))


def write(points_text, seconds, trials, spin_us, outdir=None):
    """The report of one run's points: printed, and written into @outdir
    (a bench_out descriptor) when there is one, points.jsonl first."""
    if outdir is not None:
        bench_out.write(outdir, "points.jsonl", points_text)
    report(load_points(points_text), seconds, trials, spin_us, outdir)


def prepare(out, sizes):
    """OUT made and judged before a run of @sizes (bench_out.prepare): its descriptor."""
    return bench_out.prepare(out, outputs(sizes))


def status_of(fn, *args):
    """@fn(*args), its failure said as latency says it: 0, 2 for --out's
    (bench_out), 1 for another (the results could not be read or written)."""
    try:
        fn(*args)
    except bench_out.OutError as e:
        print(f"latency: --out: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"latency: results: {e}", file=sys.stderr)
        return 1
    return 0


def _from_file(points_path, seconds, trials, spin_us, out=None):
    outdir = bench_out.open_dir(out) if out else None
    with open(points_path) as f:
        write(f.read(), seconds, trials, spin_us, outdir)


def main(argv):
    if len(argv) == 3 and argv[0] == "--prepare":
        return status_of(lambda: os.close(prepare(argv[1], argv[2].split(","))))
    if len(argv) not in (4, 5):
        sys.stderr.write(__doc__[__doc__.index("usage:"):])
        return 2
    return status_of(_from_file, *argv)
