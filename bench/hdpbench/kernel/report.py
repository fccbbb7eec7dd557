"""The lab's report: one table per seed (the seed's figure | the lab's |
hdp's, each a ratio to its own off), the mission's comparison, the counts
that say whether a mechanism is on a path at all, results.json,
results.md and a plot.
"""
import json
import statistics
import sys

import bench_out

from . import experiments as ex
from . import report_arm64
from .errors import LabError

SEED_FIGURES = {
    "seed000": "XDP throughput 25 -> 8 Gbit/s with the vmalloc check; the bypass restores "
               "25 (check on = 0.32 of bypassed)",
    "seed001": "hackbench sys time: init_on_alloc +6.84 %, +3.45 % with AF_UNIX skbs "
               "excluded (__GFP_NO_AUTOINIT); init_on_free +7.71 %",
}
TCG_NOTE = ("TCG, not comparable with the seed's hardware figure: emulation changes the "
            "relative cost of memset, atomics and syscalls; what is called reproduced rests "
            "on the counts")


BOOT_FIELDS = ("experiment", "kernel", "cpus", "round")


def _results(doc, step, **match):
    """(boot, result) for every result of @step whose fields match: the
    boot's for experiment, kernel, cpus and round, the result's for the rest."""
    for boot in doc["boots"]:
        if any(boot.get(k) != v for k, v in match.items() if k in BOOT_FIELDS):
            continue
        for r in boot["results"]:
            if r.get("step") == step and all(r.get(k) == v for k, v in match.items()
                                             if k not in BOOT_FIELDS):
                yield boot, r


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _ratio(a, b):
    return a / b if a is not None and b else None


# --- seed 000

def seed000_table(doc):
    rows = []
    for size in doc["settings"]["sizes"]:
        flows = {}
        for boot, r in _results(doc, "flow", experiment="seed000", size=size):
            f = ex.flow_figures(r)
            if f:
                flows.setdefault(r["label"], []).append(f)
        n = flows.get("kernel-socket/knob-N", [])
        y = flows.get("kernel-socket/knob-Y", [])
        pps_n = _median([f["pps"] for f in n])
        pps_y = _median([f["pps"] for f in y])
        rows.append({"path": "kernel socket path (hdp-sockfwd)", "size": size,
                     "pps_knob_N": pps_n, "pps_knob_Y": pps_y,
                     "gbps_knob_N": _median([f["gbps"] for f in n]),
                     "gbps_knob_Y": _median([f["gbps"] for f in y]),
                     "on_over_bypassed": _ratio(pps_n, pps_y),
                     "checks_per_packet": _median([f["checks_per_packet"] for f in n]),
                     "vmalloc_checks_per_packet": _median(
                         [f["vmalloc_checks_per_packet"] for f in n])})
        for path, label in (("kernel XDP redirect", "kernel-xdp"),
                            ("hdp-fwd, protections off (AF_XDP copy mode)", "hdp-off")):
            fs = flows.get(label, [])
            rows.append({"path": path, "size": size, "pps_knob_N": _median([f["pps"] for f in fs]),
                         "pps_knob_Y": None, "on_over_bypassed": None,
                         "gbps_knob_N": _median([f["gbps"] for f in fs]), "gbps_knob_Y": None,
                         "checks_per_packet": _median([f["checks_per_packet"] for f in fs]),
                         "vmalloc_checks_per_packet": _median(
                             [f["vmalloc_checks_per_packet"] for f in fs])})
    netlink = []
    for boot, r in _results(doc, "netlink", experiment="seed000"):
        f = ex.netlink_figures(r)
        if f:
            netlink.append({"cpus": boot["cpus"], "mode": r["mode"], "knob": r["label"][-1], **f})
    for mode, cpus in (("copy", 2), ("peek", 2), ("peek", 1)):
        n = [x for x in netlink if (x["cpus"], x["mode"], x["knob"]) == (cpus, mode, "N")]
        y = [x for x in netlink if (x["cpus"], x["mode"], x["knob"]) == (cpus, mode, "Y")]
        if not n and not y:
            continue
        mn, my = _median([x["messages_per_s"] for x in n]), _median([x["messages_per_s"] for x in y])
        rows.append({"path": NETLINK_WORDS[mode] + f", {cpus} vCPU", "size": NETLINK_SIZE[mode],
                     "pps_knob_N": mn, "pps_knob_Y": my, "on_over_bypassed": _ratio(mn, my),
                     "gbps_knob_N": _median([x["gbps"] for x in n]),
                     "gbps_knob_Y": _median([x["gbps"] for x in y]),
                     "checks_per_packet": None,
                     "vmalloc_checks_per_packet": _median(
                         [x["vmalloc_checks_per_message"] for x in n])})
    return rows


NETLINK_WORDS = {"copy": "netlink messages sent and read back (vmalloc'd past NLMSG_GOODSIZE)",
                 "peek": "64-byte reads (MSG_PEEK) of an 8 MiB netlink message (vmalloc'd)"}
NETLINK_SIZE = {"copy": "16 KiB", "peek": "64 B"}


def usercopy_onoff_table(doc):
    """Hardened usercopy on against off (a boot parameter), on 6.1 and 6.12."""
    rows = []
    for kernel in ("6.1", "6.12"):
        for mode in ("peek", "copy"):
            for cpus in (1, 2):
                per_round, vm = {}, []
                for boot, r in _results(doc, "netlink", experiment="seed000-netlink",
                                        kernel=kernel, cpus=cpus, mode=mode):
                    f = ex.netlink_figures(r)
                    if f:
                        per_round.setdefault(boot["round"], {})[r["label"]] = f["messages_per_s"]
                        if r["label"] == "usercopy-on":
                            vm.append(f["vmalloc_checks_per_message"])
                if not per_round:
                    continue
                rows.append({"kernel": kernel, "workload": NETLINK_WORDS[mode], "cpus": cpus,
                             "on": _median([v.get("usercopy-on") for v in per_round.values()]),
                             "off": _median([v.get("usercopy-off") for v in per_round.values()]),
                             "on_over_off": _median([_ratio(v.get("usercopy-on"),
                                                            v.get("usercopy-off"))
                                                     for v in per_round.values()]),
                             "vmalloc_checks_per_message": _median(vm)})
    return rows


def vmalloc_slab_table(doc):
    """Peeks of a vmalloc'd message against peeks of a slab one, in one guest."""
    rows = []
    for kernel in ("6.1", "6.12"):
        for cpus in (1, 2):
            per = {}
            vm = {}
            for boot, r in _results(doc, "netlink", experiment="seed000-netlink", kernel=kernel,
                                    cpus=cpus, mode="peek"):
                f = ex.netlink_figures(r)
                if f and r["label"] in ("peek-vmalloc", "peek-slab"):
                    per.setdefault((boot["round"], r["label"]), []).append(f["messages_per_s"])
                    vm.setdefault(r["label"], []).append(f["vmalloc_checks_per_message"])
            if not per:
                continue
            rounds = sorted({rnd for rnd, _ in per})
            ratios = [_ratio(_median(per.get((rnd, "peek-vmalloc"), [])),
                             _median(per.get((rnd, "peek-slab"), []))) for rnd in rounds]
            rows.append({"kernel": kernel, "cpus": cpus,
                         "vmalloc": _median([v for (rnd, l), vs in per.items()
                                             if l == "peek-vmalloc" for v in vs]),
                         "slab": _median([v for (rnd, l), vs in per.items()
                                          if l == "peek-slab" for v in vs]),
                         "vmalloc_over_slab": _median(ratios),
                         "spread": [min(r for r in ratios if r), max(r for r in ratios if r)]
                         if any(ratios) else None,
                         "lookups_vmalloc": _median(vm.get("peek-vmalloc", [])),
                         "lookups_slab": _median(vm.get("peek-slab", []))})
    return rows


def hdp_table(doc, experiment, labels, base="hdp-off"):
    rows = []
    for size in doc["settings"]["sizes"]:
        per = {}
        for boot, r in _results(doc, "flow", experiment=experiment, size=size):
            f = ex.flow_figures(r)
            if f and r["label"] in labels:
                per.setdefault(r["label"], []).append(f["pps"])
        off = _median(per.get(base, []))
        for label in labels:
            pps = _median(per.get(label, []))
            rows.append({"contender": label, "size": size, "pps": pps,
                         "ratio_to_off": _ratio(pps, off)})
    return rows


def mission_table(doc):
    rows = []
    for size in doc["settings"]["sizes"]:
        per = {}
        for boot, r in _results(doc, "flow", experiment="seed000", size=size):
            f = ex.flow_figures(r)
            if f:
                per.setdefault(r["label"], []).append(f["pps"])
        med = {k: _median(v) for k, v in per.items()}
        sock_n = med.get("kernel-socket/knob-N")
        for label in ("hdp-off", "hdp-default", "hdp-strict", "kernel-xdp",
                      "kernel-socket/knob-N", "kernel-socket/knob-Y"):
            rows.append({"contender": label, "size": size, "pps": med.get(label),
                         "ratio_to_hdp_off": _ratio(med.get(label), med.get("hdp-off")),
                         "ratio_to_socket_path": _ratio(med.get(label), sock_n)})
    return rows


# --- seed 001

def seed001_table(doc):
    per = {}
    for boot, r in _results(doc, "hackbench", experiment="seed001", label="run"):
        f = ex.hackbench_figures(r)
        if f:
            per.setdefault(boot["round"], {}).setdefault(boot["label"], []).append(f)
    sock = {}
    for size in doc["settings"]["sizes"]:
        for boot, r in _results(doc, "flow", experiment="seed001", size=size, label="kernel-socket"):
            f = ex.flow_figures(r)
            if f:
                sock.setdefault((boot["round"], size), {})[boot["label"]] = f["pps"]
    rows = []
    for label, _ in ex.SEED001_BOOTS:
        sys_ratio, time_ratio, counts = [], [], []
        for rnd, labels in per.items():
            mine, off = labels.get(label, []), labels.get("off", [])
            if not mine or not off:
                continue
            sys_ratio.append(_ratio(_median([f["sys_ticks"] for f in mine]),
                                    _median([f["sys_ticks"] for f in off])))
            time_ratio.append(_ratio(_median([f["seconds"] for f in mine]),
                                     _median([f["seconds"] for f in off])))
            counts += mine
        row = {"boot": label, "sys_over_off": _median(sys_ratio),
               "time_over_off": _median(time_ratio)}
        for key in ("alloc_wiped", "alloc_skipped", "free_wiped", "free_skipped",
                    "alloc_wiped_bytes", "free_wiped_bytes"):
            row[key + "_per_run"] = _median([f[key] for f in counts])
        row["wiped_bytes_per_run"] = _median([(f["alloc_wiped_bytes"] or 0) +
                                              (f["free_wiped_bytes"] or 0) for f in counts])
        for size in doc["settings"]["sizes"]:
            row[f"socket_{size}_over_off"] = _median(
                [_ratio(v.get(label), v.get("off")) for (rnd, sz), v in sock.items() if sz == size])
        rows.append(row)
    return rows


def tables(doc):
    return {"seed000": seed000_table(doc), "usercopy_on_off": usercopy_onoff_table(doc),
            "vmalloc_slab": vmalloc_slab_table(doc),
            "seed000_hdp": hdp_table(doc, "seed000", ex.SEED000_HDP),
            "mission": mission_table(doc), "seed001": seed001_table(doc),
            "seed001_hdp": hdp_table(doc, "seed001", ex.SEED001_HDP),
            "seed002": report_arm64.seed002_table(doc), "mte": report_arm64.mte_table(doc)}


# --- the CI lane's checks

def ci_checks(doc):
    """The checks of each lane that ran: the 6.1 guest's, the arm64 guest's."""
    checks = []

    def check(name, ok, detail):
        checks.append({"name": name, "ok": bool(ok), "detail": detail})

    if any(b["kernel"] == "6.1" for b in doc["boots"]):
        _ci_checks_61(doc, check)
    if any(b.get("arch") == "arm64" for b in doc["boots"]):
        report_arm64.ci_checks(doc, check)
    return checks


def _ci_checks_61(doc, check):
    rs = [r for b in doc["boots"] if b["kernel"] == "6.1" for r in b["results"]]
    by = lambda step, **kw: [r for r in rs if r.get("step") == step and
                             all(r.get(k) == v for k, v in kw.items())]

    probe = by("probe")
    check("the guest booted and ran its plan to the end", by("end"),
          f"{len(rs)} results" + ("" if by("end") else "; " + "; ".join(
              b.get("why", "") for b in doc["boots"])))
    check("the knob exists", probe and probe[0].get("knob") in ("N", "Y"),
          f"bypass_usercopy_vmalloc_check: {probe[0].get('knob') if probe else 'no probe'}")
    knobs = by("knob")
    check("the knob switches (Y, then N, read back)",
          [k.get("now") for k in knobs] == ["Y", "N"], f"{[k.get('now') for k in knobs]}")
    excluded = str(probe[0].get("excluded", "")).split(",") if probe else []
    check("the exclusion list reaches the caches (init_excluded)",
          probe and probe[0].get("attr") == "yes" and "skbuff_head_cache" in excluded
          and "task_struct" not in excluded and probe[0].get("af_unix") == "Y",
          f"excluded: {','.join(excluded) or 'none'}; af_unix: "
          f"{probe[0].get('af_unix') if probe else '?'}")
    nl = {r["label"]: ex.netlink_figures(r) for r in by("netlink")}
    n, y = nl.get("knob-N") or {}, nl.get("knob-Y") or {}
    # A peek is one copy out of the vmalloc'd message: one lookup, or one bypass.
    check("with the knob N the vmalloc branch looks up every peek of a vmalloc'd message",
          (n.get("vmalloc_checks_per_message") or 0) >= 0.9,
          f"{n.get('vmalloc_checks_per_message')} lookups a peek")
    check("with the knob Y it bypasses them",
          (y.get("vmalloc_checks_per_message") or 0) < 0.1 and
          (y.get("vmalloc_bypassed_per_message") or 0) >= 0.9,
          f"{y.get('vmalloc_checks_per_message')} lookups, "
          f"{y.get('vmalloc_bypassed_per_message')} bypassed a peek")
    hb = [ex.hackbench_figures(r) for r in by("hackbench")]
    hb = [h for h in hb if h]
    check("init_on_alloc wipes and the exclusion list skips (hackbench)",
          hb and (hb[0]["alloc_wiped"] or 0) > 0 and (hb[0]["alloc_skipped"] or 0) > 0,
          f"{hb[0] if hb else 'no hackbench result'}")
    flows = [ex.flow_figures(r) for r in by("flow")]
    check("the socket path forwards in the guest", flows and flows[0] and flows[0]["packets"] > 0,
          f"{flows[0] if flows else 'no result'}")
    v = by("verify")
    check("hdp-fwd forwards in the guest, every frame verified by hdp-sink",
          v and v[0].get("status") == 0, f"{v[0] if v else 'no result'}")


# --- output

def _fmt(v, digits=2):
    if v is None:
        return "-"
    if isinstance(v, float):
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.{digits}f}"
    return str(v)


def markdown(doc):
    accel = doc["accel"].upper()
    note = TCG_NOTE if doc["accel"] == "tcg" else "KVM"
    out = [f"# hdp-bench kernel ({accel})", "",
           f"Accelerator: {doc['accel_why']}. Every timing below: {note}.", ""]
    for name, info in doc["kernels"].items():
        out.append(f"- kernel {name} ({info['release']}, Debian {info['package']} "
                   f"{info['package_version']}): {info['about']}; built in "
                   f"{info['build_seconds']:.0f} s{' (cached)' if info.get('from_cache') else ''}")
    out.append("")
    if "checks" in doc:
        out += ["## CI checks", "", "| check | | detail |", "|---|---|---|"]
        for c in doc["checks"]:
            out.append(f"| {c['name']} | {'ok' if c['ok'] else 'FAILED'} | {c['detail']} |")
        out.append("")
    t = doc["tables"]
    if any(r["pps_knob_N"] for r in t["seed000"]):
        out += ["## Seed 000: hardened usercopy's vmalloc lookup", "",
                f"Seed's figure: {SEED_FIGURES['seed000']}.", "",
                "Per packet (or call): hardened usercopy's checks and the vmalloc branch's "
                "lookups, counted on the contender's CPU. Where the lookup is not on a path, "
                "the knob cannot change it, and N / Y is the run's noise.", "",
                "| path | size | knob N (/s) | knob Y (/s) | N / Y | knob N, Y (Gbit/s) | "
                "checks a packet | vmalloc lookups a packet | the lookup on the path? |",
                "|---|---|---:|---:|---:|---|---:|---:|---|"]
        for r in t["seed000"]:
            vm = r["vmalloc_checks_per_packet"]
            on_path = "-" if vm is None else "yes" if vm > 0.01 else "no"
            out.append(f"| {r['path']} | {r['size']} | {_fmt(r['pps_knob_N'])} | "
                       f"{_fmt(r['pps_knob_Y'])} | {_fmt(r['on_over_bypassed'])} | "
                       f"{_fmt(r['gbps_knob_N'], 3)}, {_fmt(r['gbps_knob_Y'], 3)} | "
                       f"{_fmt(r['checks_per_packet'])} | {_fmt(vm, 3)} | {on_path} |")
        out.append("")
    if t.get("vmalloc_slab"):
        out += ["64-byte peeks of a vmalloc'd message (8 MiB: the vmalloc lookup) against a "
                "slab one (2 KiB: the slab check), alternating in one guest; 6.12 has no knob, "
                "so this is its measure of the lookup:", "",
                "| kernel | vCPUs | vmalloc'd (/s) | slab (/s) | vmalloc / slab | spread | "
                "lookups a peek (vmalloc'd, slab) |",
                "|---|---:|---:|---:|---:|---|---|"]
        for r in t["vmalloc_slab"]:
            spread = f"{r['spread'][0]:.2f}-{r['spread'][1]:.2f}" if r["spread"] else "-"
            out.append(f"| {r['kernel']} | {r['cpus']} | {_fmt(r['vmalloc'])} | {_fmt(r['slab'])} | "
                       f"{_fmt(r['vmalloc_over_slab'])} | {spread} | "
                       f"{_fmt(r['lookups_vmalloc'], 3)}, {_fmt(r['lookups_slab'], 3)} |")
        out.append("")
    if t["usercopy_on_off"]:
        out += ["Hardened usercopy on against off (the boot parameter), on 6.1 and on 6.12 "
                "(vmap nodes), a ratio within each round of boots:", "",
                "| kernel | workload | vCPUs | on (/s) | off (/s) | on / off | vmalloc lookups a call |",
                "|---|---|---:|---:|---:|---:|---:|"]
        for r in t["usercopy_on_off"]:
            out.append(f"| {r['kernel']} | {r['workload']} | {r['cpus']} | {_fmt(r['on'])} | "
                       f"{_fmt(r['off'])} | {_fmt(r['on_over_off'])} | "
                       f"{_fmt(r['vmalloc_checks_per_message'], 3)} |")
        out.append("")
    for key, title in (("seed000_hdp", "hdp's bounds checks (the matching protection)"),
                       ("mission", "The mission: hdp against the kernel's paths, one guest"),
                       ("seed001_hdp", "hdp's init on alloc and on free")):
        rows = [r for r in t[key] if r["pps"]]
        if not rows:
            continue
        cols = [c for c in rows[0] if c not in ("contender", "size")]
        out += [f"## {title}", "", "| contender | size | " + " | ".join(cols) + " |",
                "|---|---|" + "---:|" * len(cols)]
        for r in rows:
            out.append(f"| {r['contender']} | {r['size']} | " +
                       " | ".join(_fmt(r[c]) for c in cols) + " |")
        out.append("")
    if any(r["sys_over_off"] for r in t["seed001"]):
        out += ["## Seed 001: init_on_alloc / init_on_free and the exclusion list", "",
                f"Seed's figures: {SEED_FIGURES['seed001']}.", "",
                "hackbench: sockets, processes, 100-byte messages; system time from /proc/stat; "
                "objects and bytes a run, from the lab's init_exclude counters.", "",
                "| boot | hackbench sys / off | time / off | wiped at alloc | skipped at alloc | "
                "wiped at free | skipped at free | bytes wiped | " +
                " | ".join(f"socket path {s} / off" for s in doc["settings"]["sizes"]) + " |",
                "|---|---:|---:|---:|---:|---:|---:|---:|" + "---:|" * len(doc["settings"]["sizes"])]
        for r in t["seed001"]:
            out.append(f"| {r['boot']} | {_fmt(r['sys_over_off'], 3)} | {_fmt(r['time_over_off'], 3)} | "
                       f"{_fmt(r['alloc_wiped_per_run'])} | {_fmt(r['alloc_skipped_per_run'])} | "
                       f"{_fmt(r['free_wiped_per_run'])} | {_fmt(r['free_skipped_per_run'])} | "
                       f"{_fmt(r['wiped_bytes_per_run'])} | " +
                       " | ".join(_fmt(r[f'socket_{s}_over_off'], 3) for s in doc["settings"]["sizes"])
                       + " |")
        out.append("")
    out += report_arm64.markdown(doc)
    failed = [b for b in doc["boots"] if not b["ended"]]
    if failed:
        out += ["## Boots that did not end", ""]
        out += [f"- {b['kernel']} '{b['label']}', round {b['round']}: {b.get('why')}" for b in failed]
        out.append("")
    return "\n".join(out)


OUTPUTS = ("results.json", "results.md", "lab.png")


def prepare_out(out):
    """--out made, reached without following another user's link, and its
    outputs refused now, not after an hour's run, if anything but a regular
    file stands at their names (bench_out.py's rules): its descriptor."""
    try:
        return bench_out.prepare(out, OUTPUTS)
    except (bench_out.OutError, OSError) as e:
        raise LabError(f"--out: {e}") from None


def write(dirfd, doc, text):
    bench_out.write(dirfd, "results.json", json.dumps(doc, indent=1))
    bench_out.write(dirfd, "results.md", text)
    _plot(dirfd, doc)


def _plot(dirfd, doc):
    """One bar a contender and size in the mission's guest, as a ratio to
    hdp-off; said and skipped without gnuplot."""
    rows = [r for r in doc["tables"]["mission"] if r["ratio_to_hdp_off"]]
    if not rows:
        return
    data = "".join(f"\"{r['contender']} {r['size']}\" {r['ratio_to_hdp_off']:.4f}\n" for r in rows)
    script = (bench_out.datablock("bars", [data]) +
              "set terminal png size 1000,460\nset style fill solid\n"
              "set yrange [0:*]\nset bmargin 8\nset rmargin 18\n"
              f"set ylabel 'packets/s, ratio to hdp-off ({doc['accel'].upper()})'\n"
              "set xtics rotate by -30\nset boxwidth 0.7\nunset key\n"
              "plot $bars using 2:xtic(1) with boxes\n")
    if not bench_out.gnuplot(dirfd, "lab.png", script):
        print("hdp-bench kernel: no plot (gnuplot missing or failed: Debian's gnuplot-nox)",
              file=sys.stderr)
