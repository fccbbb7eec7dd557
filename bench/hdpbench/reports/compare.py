"""compare's report: from the raw trials (one JSON object a line),
results.json (the hdp-bench schema), results.md and PNG plots. Medians
with min and max; ratios against hdp-off at the same size from the same
run. Per size: packets/s and Gbit/s for every contender, or "cannot" with
the reason; with several sizes, a plot of throughput against size. Every
file goes into OUT as bench_out.py writes; trials.jsonl is the raw trials
again, which this report reads again from the command line:

usage: compare-report TRIALS.JSONL PLACEMENT SECONDS TRIALS [OUT]
       compare-report --prepare OUT   before a run: make OUT, refuse what is in the way
"""
import json
import os
import platform
import statistics
import subprocess
import sys
import time

import bench_out

# Everything it writes into OUT.
OUTPUTS = ["trials.jsonl", "results.json", "results.md", "compare.dat", "compare.png",
           "throughput.dat", "throughput.png"]

PLACEMENTS = {
    "same": "CPU 1 runs the contender and f0's NAPI thread, which does every contender's "
            "receive work alike (g0 sends without TSO, so veth gives the socket path's frames "
            "to NAPI too); CPU 0 the generator.",
    "same-rps": "CPU 1 runs the contender and f0's NAPI thread; the socket path's frames "
                "(not GRO-eligible: g0 sends with TSO) reach CPU 1 by RPS, in softirq.",
    "split": "CPU 1 runs the contender; the receive work stays with the generator on CPU 0 "
             "(it flatters every contender).",
}

STAGE_NAMES = [("rx_skb", "ingress skb (NAPI)"), ("xdp", "XDP prog + redirect"),
               ("rx_copy", "receive into socket/UMEM"), ("tx_build", "TX skb build + xmit"),
               ("tx_completion", "TX completion"), ("next_hop_rx", "next hop's receive"),
               ("user", "contender user space"), ("sched", "scheduling, poll"),
               ("other_kernel", "other kernel"), ("idle", "idle")]

# What micro's added cost per packet may be, as a share of hdp-fwd's whole cost (%).
SHARE_TARGETS = {"bounds": 0.5, "init-used": 1.0, "tag-10": 1.0, "all": 2.0}


def stat(vals):
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals)}


def kernel_state():
    def cfg(opt):
        path = "/boot/config-" + platform.release()
        try:
            text = open(path).read()
        except OSError:
            try:
                text = subprocess.run(["zcat", "/proc/config.gz"], capture_output=True, text=True).stdout
            except OSError:
                return "unknown"
        for line in text.splitlines():
            if line.startswith(opt + "="):
                return line.split("=", 1)[1]
        return "n" if text else "unknown"
    return {"release": platform.release(), "cmdline": open("/proc/cmdline").read().strip(),
            "hardened_usercopy": cfg("CONFIG_HARDENED_USERCOPY"),
            "init_on_alloc_default": cfg("CONFIG_INIT_ON_ALLOC_DEFAULT_ON"),
            "init_on_free_default": cfg("CONFIG_INIT_ON_FREE_DEFAULT_ON"),
            "kasan": cfg("CONFIG_KASAN"),
            "bypass_usercopy_vmalloc_check": os.path.exists("/sys/kernel/debug/bypass_usercopy_vmalloc_check")}


def size_key(size):
    """Where a size sits on the plot's axis: its frames' mean length."""
    if size == "imix":
        return (7 * 60 + 4 * 590 + 1514) / 12
    lo, _, hi = size.partition("-")
    return (int(lo) + int(hi)) / 2 if hi else int(lo)


def rows_of(raw, names, size):
    """One row per contender at @size: medians, or why it cannot."""
    rows = []
    for n in names:
        mine = [r for r in raw if r["contender"] == n and r["size"] == size]
        measured = [r for r in mine if not r.get("cannot")]
        cannot = next((r for r in mine if r.get("cannot")), None)
        row = {"name": n, "trials": len(measured), "cannot": cannot["cannot"] if cannot else None,
               "cannot_trial": mine.index(cannot) + 1 if cannot else None,
               "stopped": cannot.get("exited") if cannot else None}
        if cannot or not measured:
            rows.append(row)
            continue
        rs = measured
        row.update({"pps": stat([r["delivered_pps"] for r in rs]),
                    "gbps": stat([r["delivered_gbps"] for r in rs]),
                    "offered": stat([r["offered_pps"] for r in rs]),
                    "offered_gbps": stat([r["offered_gbps"] for r in rs]),
                    "frame_bytes": statistics.median(r["frame_bytes"] for r in rs),
                    "bytes_from": rs[0]["bytes_from"],
                    "mtu": rs[0]["mtu"], "generator": rs[0]["generator"],
                    "ns": stat([r["ns_per_pkt"] for r in rs]),
                    "drops": {k: statistics.median(r["drops_pps"][k] for r in rs) for k in rs[0]["drops_pps"]},
                    "cpu1": {k: statistics.median(r["cpu"]["cpu1"][k] for r in rs) for k in ("user", "sys", "softirq")},
                    "cpu0": {k: statistics.median(r["cpu"]["cpu0"][k] for r in rs) for k in ("user", "sys", "softirq")},
                    "deliv": [r["delivered_pps"] for r in rs]})
        # Delivering (nearly) all it was offered, a contender shows the
        # generator's rate, not its own: its figure is a lower bound.
        row["at_offered"] = row["pps"]["median"] >= 0.95 * row["offered"]["median"]
        profs = [r["profile"] for r in rs if r.get("profile")]
        row["profile"] = ({k: statistics.median(p["stages"][k]["ns_per_pkt"] for p in profs)
                           for k in profs[0]["stages"]} if profs else None)
        rows.append(row)
    off = next((r for r in rows if r["name"] == "hdp-off" and "pps" in r), None)
    # Paired ratios: trial t of a contender against trial t of hdp-off, which
    # ran seconds apart in the same round. This VM drifts between a slow and a
    # fast mode over minutes; a ratio within a round cancels what a ratio of
    # medians over the whole run does not.
    for r in rows:
        if "pps" not in r or not off:
            r["ratio"], r["paired"] = None, None
            continue
        r["ratio"] = r["pps"]["median"] / off["pps"]["median"]
        pairs = [a / b for a, b in zip(r["deliv"], off["deliv"]) if b > 0]
        r["paired"] = stat(pairs) if pairs else None
    return rows


def cell_cannot(r):
    trial = f" (trial {r['cannot_trial']})" if r["cannot_trial"] and r["cannot_trial"] > 1 else ""
    return f"cannot{trial}: {r['cannot'][:240]}"


def _run_entry(r, size):
    """A row as results.json's "runs" have it."""
    contender, profile = r["name"], None
    if contender.startswith("hdp-"):
        contender, profile = "hdp-fwd", r["name"][4:]
    m = "pps" in r
    return {
        "contender": contender, "profile": profile, "size": size,
        "frame_bytes": r.get("frame_bytes"), "mtu": r.get("mtu"), "generator": r.get("generator"),
        "pps": r.get("pps"), "gbps": r.get("gbps"),
        "offered_pps": r.get("offered"), "offered_gbps": r.get("offered_gbps"),
        "bytes_from": r.get("bytes_from"), "ns_per_pkt": r.get("ns"),
        "drops_pps": r.get("drops"),
        "cpu_percent": {"cpu0": r["cpu0"], "cpu1": r["cpu1"]} if m else None,
        "ratio_to_off": r["ratio"] if m else None,
        "ratio_to_off_paired": r["paired"] if m else None,
        "generator_limited": r["at_offered"] if m else None,
        "cannot": r["cannot"], "stopped": r["stopped"],
        "stopped_trials": 1 if r["stopped"] else 0, "trials": r["trials"],
        "ns_per_pkt_by_stage": r.get("profile")}


def _size_table(md, info, rows, first):
    md += [f"MTU {info['mtu']} on every veth; generator {info['generator']}; frames of "
           f"{info['frame_bytes']:.0f} bytes on average (g0's counters); Gbit/s from "
           f"{first['bytes_from']}. Limit \"generator\": the contender delivered 95 % or more "
           f"of what was offered, so its figure is the generator's, a lower bound of its own.", "",
           "| contender | delivered pps | Gbit/s | min-max pps | offered pps | offered Gbit/s "
           "| limit | CPU 1 user/sys/softirq % | CPU 0 softirq % | CPU 1 ns/pkt | ratio to hdp-off "
           "| paired ratio (min-max) |",
           "|---|---:|---:|---:|---:|---:|---|---|---:|---:|---:|---:|"]
    for r in rows:
        if "pps" not in r:
            md.append(f"| {r['name']} | {cell_cannot(r)} | | | | | | | | | | |")
            continue
        c = r["cpu1"]
        ratio = f"{r['ratio']:.2f}" if r["ratio"] is not None else "-"
        paired = (f"{r['paired']['median']:.2f} ({r['paired']['min']:.2f}-{r['paired']['max']:.2f})"
                  if r["paired"] else "-")
        md.append(f"| {r['name']} | {r['pps']['median']:.0f} | {r['gbps']['median']:.2f} | "
                  f"{r['pps']['min']:.0f}-{r['pps']['max']:.0f} | {r['offered']['median']:.0f} | "
                  f"{r['offered_gbps']['median']:.2f} | {'generator' if r['at_offered'] else 'contender'} | "
                  f"{c['user']:.0f}/{c['sys']:.0f}/{c['softirq']:.0f} | "
                  f"{r['cpu0']['softirq']:.0f} | {r['ns']['median']:.0f} | {ratio} | {paired} |")


def _noise_and_kernel(md, info, rows, off):
    # The A/A control: hdp-off again, under another name. Its ratio is what
    # this run's noise alone does to a ratio.
    again = next((r for r in rows if r["name"] == "hdp-off-again" and "pps" in r), None)
    if again and off and again["paired"]:
        info["noise"] = {"ratio_to_off": again["ratio"], "paired": again["paired"],
                         "ns_per_pkt_ratio": again["ns"]["median"] / off["ns"]["median"]}
        md += ["", f"**Noise.** hdp-off-again is hdp-off under another name: it read "
               f"{again['ratio']:.2f}× hdp-off (paired {again['paired']['median']:.2f}, "
               f"trials {again['paired']['min']:.2f}-{again['paired']['max']:.2f}), and "
               f"{info['noise']['ns_per_pkt_ratio']:.2f}× its CPU per packet. A ratio "
               f"that far from another is noise in this run, not a difference."]
    xdp = next((r for r in rows if r["name"] == "kernel-xdp"), None)
    if off and xdp:
        if "gbps" in xdp:
            info["off_to_kernel_xdp_gbps"] = off["gbps"]["median"] / xdp["gbps"]["median"]
            bound = {(False, True): " kernel XDP ran at the generator's rate, so this is an upper bound.",
                     (True, False): " hdp-off ran at the generator's rate, so this is a lower bound.",
                     (True, True): " Both ran at the generator's rate: the generator, not they, set it."
                     }.get((off["at_offered"], xdp["at_offered"]), "")
            md += ["", f"hdp-off carries {info['off_to_kernel_xdp_gbps']:.2f}× kernel XDP's Gbit/s "
                   f"({off['gbps']['median']:.2f} against {xdp['gbps']['median']:.2f}).{bound}"]
        else:
            md += ["", "hdp-off against kernel XDP: kernel XDP cannot carry this size here."]


def _stages_table(md, rows):
    """Where each contender's core spends its time, per delivered packet."""
    if not any(r.get("profile") for r in rows):
        return
    md += ["", "CPU 1 time per delivered packet by stage (ns, medians; perf, "
           "bench/hdpbench/reports/stages.py says what each stage holds):", "",
           "| contender | " + " | ".join(n for _, n in STAGE_NAMES) + " | total |",
           "|---|" + "---:|" * (len(STAGE_NAMES) + 1)]
    for r in rows:
        if not r.get("profile"):
            continue
        p = r["profile"]
        md.append(f"| {r['name']} | " + " | ".join(f"{p[k]:.0f}" for k, _ in STAGE_NAMES) +
                  f" | {sum(p.values()):.0f} |")


def _shares_table(md, info, size, off, micro_runs):
    """micro's added costs against the whole cost per packet, when there are both."""
    mine = [m for m in micro_runs if str(m.get("size", 60)) == size and "ns_per_pkt" in m]
    if not (mine and off):
        return
    whole = off["ns"]["median"]
    micro = {m["profile"]: m["ns_per_pkt"]["median"] for m in mine}
    md += ["", f"Added cost per packet (hdp-bench micro) as a share of hdp-fwd's whole cost "
           f"per packet here ({whole:.0f} ns of CPU 1, hdp-off):", "",
           "| profile | added ns/pkt | share | target |", "|---|---:|---:|---|"]
    for p, ns in micro.items():
        if p == "off" or "off" not in micro:
            continue
        add = ns - micro["off"]
        share = 100 * add / whole
        t = SHARE_TARGETS.get(p)
        verdict = "" if t is None else (f"<= {t} %: " + ("met" if share <= t else "missed"))
        md.append(f"| {p} | {add:.1f} | {share:.2f} % | {verdict} |")
        info.setdefault("shares", {})[p] = {"added_ns": add, "share_percent": share}


def _drops_table(md, rows):
    md += ["", "Where the rest went (packets/s, medians): the kernel's drop counters at each hop; "
           "'lost inside' is what no counter saw (dropped in the contender, or in a ring).", "",
           "| contender | f0 rx dropped | f1 tx dropped | s0 rx dropped | lost inside |",
           "|---|---:|---:|---:|---:|"]
    for r in rows:
        if "drops" not in r:
            continue
        d = r["drops"]
        md.append(f"| {r['name']} | {d['f0_rx_dropped']:.0f} | {d['f1_tx_dropped']:.0f} | "
                  f"{d['s0_rx_dropped']:.0f} | {d['unaccounted']:.0f} |")


def _size_section(md, result, raw, names, size, micro_runs):
    """results.json's entries and results.md's section for one size; its rows."""
    rows = rows_of(raw, names, size)
    first = next((r for r in rows if "pps" in r), None)
    not_measured = all(r["cannot"] and r["cannot"].startswith("size not measured") for r in rows)
    info = {"size": size, "mtu": first["mtu"] if first else None,
            "generator": first["generator"] if first else None,
            "frame_bytes": first["frame_bytes"] if first else size_key(size),
            "cannot": rows[0]["cannot"] if not_measured else None}
    result["sizes"].append(info)
    result["runs"] += [_run_entry(r, size) for r in rows]
    md += ["", f"### {size} bytes" if size[0].isdigit() else f"### {size}", ""]
    if not_measured:
        md += [f"Not measured: {rows[0]['cannot'][len('size not measured: '):]}", ""]
        return rows
    _size_table(md, info, rows, first)
    off = next((r for r in rows if r["name"] == "hdp-off" and "pps" in r), None)
    _noise_and_kernel(md, info, rows, off)
    _stages_table(md, rows)
    _shares_table(md, info, size, off, micro_runs)
    _drops_table(md, rows)
    return rows


def _every_size(md, result, names, sizes, by_size):
    """With several sizes: one table of them all, and where the bytes go."""
    md += ["", "### Every size", "",
           "Delivered Gbit/s (Mpps), medians; \"cannot\" where a contender cannot carry the size "
           "(its reason in the size's table).", "",
           "| contender | " + " | ".join(sizes) + " |", "|---|" + "---:|" * len(sizes)]
    for n in names:
        cells = []
        for size in sizes:
            r = next(x for x in by_size[size] if x["name"] == n)
            cells.append(f"{r['gbps']['median']:.2f} ({r['pps']['median'] / 1e6:.3f})" if "pps" in r
                         else "not measured" if (r["cannot"] or "").startswith("size not measured")
                         else "cannot")
        md.append(f"| {n} | " + " | ".join(cells) + " |")
    # Where the bytes go: each stage's growth per KiB of frame, smallest
    # measured size to largest, for contenders profiled at both.
    rows_kib = []
    for n in names:
        def get(s):
            return next(x for x in by_size[s] if x["name"] == n)
        ps = [s for s in sizes if get(s).get("profile")]
        if len(ps) < 2:
            continue
        lo, hi = min(ps, key=lambda s: get(s)["frame_bytes"]), max(ps, key=lambda s: get(s)["frame_bytes"])
        db = get(hi)["frame_bytes"] - get(lo)["frame_bytes"]
        if db <= 0:
            continue
        per = {k: (get(hi)["profile"][k] - get(lo)["profile"][k]) / db * 1024 for k, _ in STAGE_NAMES}
        rows_kib.append((n, lo, hi, per))
        result.setdefault("ns_per_kib_by_stage", {})[n] = {"from": lo, "to": hi, "stages": per}
    if rows_kib:
        md += ["", "Where the bytes go: CPU 1 ns per packet added per KiB of frame, by stage "
               "(from the smallest profiled size to the largest):", "",
               "| contender | sizes | " + " | ".join(n for _, n in STAGE_NAMES[:-1]) + " | total |",
               "|---|---|" + "---:|" * len(STAGE_NAMES)]
        for n, lo, hi, per in rows_kib:
            busy = [per[k] for k, _ in STAGE_NAMES[:-1]]
            md.append(f"| {n} | {lo} → {hi} | " + " | ".join(f"{v:.0f}" for v in busy) +
                      f" | {sum(busy):.0f} |")


class _Out:
    """The outputs into OUT; a failure is said and the others still go."""

    def __init__(self, fd):
        self.fd, self.failed = fd, []

    def put(self, name, data):
        try:
            bench_out.write(self.fd, name, data)
        except (OSError, bench_out.OutError) as e:
            self.failed.append(f"{name}: {getattr(e, 'strerror', None) or e}")

    def plot(self, name, script):
        try:
            return bench_out.gnuplot(self.fd, name, script)
        except (OSError, bench_out.OutError) as e:
            self.failed.append(f"{name}: {getattr(e, 'strerror', None) or e}")
            return False


def _bars(out, rows, size):
    """The first size's bars, as a run of one size draws them; the Markdown for them."""
    bars = [r for r in rows if "pps" in r]
    dat = "".join(f"{i} \"{r['name']}\" {r['pps']['median']:.0f} {r['pps']['min']:.0f} "
                  f"{r['pps']['max']:.0f}\n" for i, r in enumerate(bars))
    out.put("compare.dat", dat)
    gp = ("set terminal pngcairo size 900,500 noenhanced\n" + bench_out.datablock("compare", [dat]) +
          "set style fill solid 0.6; set boxwidth 0.6; set grid y; set yrange [0:*]; "
          f"set title '{size} bytes'; "
          "set ylabel 'delivered packets/s (median, min-max)'; set xtics rotate by -30; "
          "plot $compare using 1:3:xtic(2) with boxes notitle, "
          "'' using 1:3:4:5 with yerrorbars notitle\n")
    if bars and out.plot("compare.png", gp):
        return "\n![contenders](compare.png)\n"
    return ""


def _throughput(out, result, names, sizes, by_size):
    """Throughput against size: one line per contender, in Gbit/s and in
    Mpps; a size a contender cannot carry is left out of its line."""
    order = sorted(sizes, key=lambda s: next((i["frame_bytes"] for i in result["sizes"]
                                              if i["size"] == s), size_key(s)) or size_key(s))
    plotted, blocks = [], []
    for n in names:
        pts = []
        for s in order:
            r = next(x for x in by_size[s] if x["name"] == n)
            if "pps" in r:
                pts.append((r["frame_bytes"], r["gbps"], r["pps"], s))
        if not pts:
            continue
        blocks.append(f"# {n}\n" + "".join(
            f"{fb:.1f} {g['median']:.4f} {g['min']:.4f} {g['max']:.4f} "
            f"{p['median'] / 1e6:.5f} {p['min'] / 1e6:.5f} {p['max'] / 1e6:.5f} \"{s}\"\n"
            for fb, g, p, s in pts))
        plotted.append(n)
    out.put("throughput.dat", "".join(b + "\n\n" for b in blocks))

    def plots(col, lo, hi):
        return ", ".join(f"$throughput index {i} using 1:{col}:{lo}:{hi} with yerrorlines lw 2 title '{n}'"
                         for i, n in enumerate(plotted))
    gp = ("set terminal pngcairo size 1300,520 noenhanced\n" +
          bench_out.datablock("throughput", blocks) +
          "set multiplot layout 1,2 title 'throughput against frame size (median, min-max)'; "
          "set grid; set logscale x; set xlabel 'frame bytes (mean; imix at its mean)'; "
          "set key top left; set yrange [0:*]; set ylabel 'delivered Gbit/s'; "
          f"plot {plots(2, 3, 4)}; set key top right; set ylabel 'delivered Mpps'; "
          f"plot {plots(5, 6, 7)}; unset multiplot\n")
    if plotted and out.plot("throughput.png", gp):
        return "\n![throughput against size](throughput.png)\n"
    return ""


def report(trials_text, placement, seconds, trials, outfd=None, out=None):
    """The report of one run: printed, and written into @outfd (the
    descriptor of OUT, named @out in messages) when there is one. 0, or 1
    when an output could not be written (said)."""
    raw = [json.loads(line) for line in trials_text.splitlines() if line.strip()]
    names = list(dict.fromkeys(r["contender"] for r in raw))
    sizes = list(dict.fromkeys(r["size"] for r in raw))
    kernel = kernel_state()
    result = {"mode": "compare", "placement": placement, "seconds": float(seconds), "trials": int(trials),
              "machine": {"arch": platform.machine(), "cpus": os.cpu_count(), "date": int(time.time())},
              "kernel": kernel, "sizes": [], "runs": []}
    md = [f"## compare: placement {placement}, {seconds} s windows, {trials} trials (interleaved)\n",
          f"Kernel {kernel['release']}: hardened_usercopy={kernel['hardened_usercopy']}, "
          f"init_on_alloc default={kernel['init_on_alloc_default']}, "
          f"init_on_free default={kernel['init_on_free_default']}, KASAN={kernel['kasan']}.\n",
          PLACEMENTS.get(placement, "") + " CPU 0's softirq share shows receive work that leaked "
          "to the generator's core. Frame lengths are without FCS; Gbit/s counts frame bytes.\n"]
    micro_text = bench_out.read(outfd, "micro/results.json") if outfd is not None else None
    micro_runs = json.loads(micro_text)["runs"] if micro_text else []
    by_size = {size: _size_section(md, result, raw, names, size, micro_runs) for size in sizes}
    # The first size keeps the keys a run of one size has.
    first_info = result["sizes"][0] if result["sizes"] else {}
    for k in ("noise", "shares"):
        if k in first_info:
            result[k] = first_info[k]
    if len(sizes) > 1:
        _every_size(md, result, names, sizes, by_size)
    text = "\n".join(md) + "\n"
    print(text)
    if outfd is None:
        return 0
    o = _Out(outfd)
    o.put("trials.jsonl", trials_text)
    o.put("results.json", json.dumps(result, indent=1))
    text += _bars(o, by_size[sizes[0]] if sizes else [], sizes[0] if sizes else "")
    if len(sizes) > 1:
        text += _throughput(o, result, names, sizes, by_size)
    o.put("results.md", "# hdp-bench compare\n\n" + text)
    if o.failed:
        print(f"compare: in {out}, not written: " + "; ".join(o.failed), file=sys.stderr)
        return 1
    print(f"results in {out}: results.json, results.md, compare.png"
          + (", throughput.png" if len(sizes) > 1 else ""))
    return 0


def prepare(out):
    """OUT made and judged before a run (bench_out.prepare): its descriptor."""
    return bench_out.prepare(out, OUTPUTS)


def main(argv):
    if len(argv) == 2 and argv[0] == "--prepare":
        try:
            os.close(prepare(argv[1]))
        except bench_out.OutError as e:
            print(f"compare: --out: {e}", file=sys.stderr)
            return 2
        return 0
    if len(argv) not in (4, 5):
        sys.stderr.write(__doc__[__doc__.index("usage:"):])
        return 2
    trials_path, placement, seconds, trials = argv[:4]
    out = argv[4] if len(argv) == 5 else ""
    try:
        outfd = bench_out.open_dir(out) if out else None
    except bench_out.OutError as e:
        print(f"compare: --out: {e}", file=sys.stderr)
        return 1
    with open(trials_path) as f:
        return report(f.read(), placement, seconds, trials, outfd, out)
