"""The arm64 guest's part of the lab's report: seed 002's table (the seed's
figure | the kernel in the guest | hdp in the guest), hdp-fwd under MTE
in each tag check mode, and the CI lane's checks of that guest.
"""
import statistics

from . import experiments as ex

SEED002_FIGURE = ("a network loopback test on an MTE device with hardware tag-based KASAN: "
                  "50 % slower with every allocation tagged, 20 % with 1 in about 10 "
                  "skb frag pages tagged")


def _median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def _per_round(doc, experiment, step, figure, key):
    """{round: {boot label or result label: [value]}} for @step's results."""
    out = {}
    for boot in doc["boots"]:
        if boot["experiment"] != experiment:
            continue
        for r in boot["results"]:
            if r.get("step") != step:
                continue
            f = figure(r)
            if f:
                name = boot["label"] if experiment == "seed002" else r["label"]
                out.setdefault(boot["round"], {}).setdefault((name, r.get(key)), []).append(
                    f["messages_per_s" if step == "loopback" else "pps"])
    return out


def _ratios(per_round, name, base, what):
    """The median over rounds of (@name's / @base's) for workload @what."""
    rs = []
    for labels in per_round.values():
        a, b = _median(labels.get((name, what), [])), _median(labels.get((base, what), []))
        rs.append(a / b if a is not None and b else None)
    return _median(rs)


def _kasan_lines(doc, experiment):
    """{boot label: the kasan step's result} (the first round's)."""
    out = {}
    for boot in doc["boots"]:
        if boot["experiment"] == experiment:
            for r in boot["results"]:
                if r.get("step") == "kasan":
                    out.setdefault(boot["label"], r)
    return out


def _counts(doc, label):
    """KASAN's sampled page_allocs tagged and skipped a message, over the
    loopback test of boot @label (medians over rounds and protocols)."""
    fs = [ex.loopback_figures(r) for b in doc["boots"] if b["experiment"] == "seed002"
          and b["label"] == label for r in b["results"] if r.get("step") == "loopback"]
    fs = [f for f in fs if f]
    return (_median([f["tagged_per_message"] for f in fs]),
            _median([f["skipped_per_message"] for f in fs]))


def _hdp_beside(label):
    """The mte experiment's contender matching seed002 boot @label
    ("sync, sample 10" -> mte-10-sync); hdp-off for "kasan off"."""
    if label == "kasan off":
        return "hdp-off"
    mode, _, sample = label.partition(", sample ")
    return f"mte-{sample}-{mode}"


def seed002_table(doc):
    loop = _per_round(doc, "seed002", "loopback", ex.loopback_figures, "proto")
    flow = _per_round(doc, "seed002", "flow", ex.flow_figures, "size")
    hdp = _per_round(doc, "mte", "flow", ex.flow_figures, "size")
    said = _kasan_lines(doc, "seed002")
    rows = []
    for label, append in ex.SEED002_BOOTS:
        row = {"boot": label, "append": append,
               "kasan_said": said.get(label, {}).get("said"),
               "mte_said": said.get(label, {}).get("mte")}
        for proto, _ in ex.LOOPBACK:
            row[f"{proto}_over_off"] = _ratios(loop, label, "kasan off", proto)
        for size in doc["settings"]["sizes"]:
            row[f"socket_{size}_over_off"] = _ratios(flow, label, "kasan off", size)
        row["tagged_per_message"], row["skipped_per_message"] = _counts(doc, label)
        row["hdp"] = _hdp_beside(label)
        for size in doc["settings"]["sizes"]:
            row[f"hdp_{size}_over_off"] = _ratios(hdp, row["hdp"], "hdp-off", size)
        rows.append(row)
    return rows if any(r["tcp_over_off"] for r in rows) else []


def mte_table(doc):
    flow = _per_round(doc, "mte", "flow", ex.flow_figures, "size")
    names = ["hdp-off", "soft-1", "soft-10"] + [f"mte-{n}-{m}" for n in (1, 10)
                                               for m in ex.MTE_MODES]
    rows = []
    for size in doc["settings"]["sizes"]:
        for name in names:
            pps = _median([v for labels in flow.values() for v in labels.get((name, size), [])])
            if pps is None:
                continue
            rows.append({"contender": name, "size": size, "pps": pps,
                         "ratio_to_off": _ratios(flow, name, "hdp-off", size)})
    return rows


def _back(r):
    return ("every frame back in the pool at the stop" if r.get("back") == 1 else
            "hdp-fwd did not say every frame came back to the pool")


def mte_checks(doc):
    """What the arm64 guest showed of MTE: each TAP program and each verify."""
    rows = []
    for boot in doc["boots"]:
        if boot.get("arch") != "arm64":
            continue
        for r in boot["results"]:
            if r.get("step") == "tap":
                rows.append({"what": f"{r['label']} ({r['mode']})",
                             "ok": r.get("status") == 0 and not r.get("not_ok") and r.get("ok", 0) > 0,
                             "detail": f"{r.get('ok')} ok, {r.get('not_ok')} not ok"
                                       + (f": {r['said']}" if r.get("not_ok") else "")})
            elif r.get("step") == "provoke":
                rows.append({"what": f"the hdp-provoke catalogue, tags by MTE ({r['mode']})",
                             "ok": r.get("cases", 0) > 0 and r.get("caught") == r.get("cases"),
                             "detail": f"{r.get('caught')} of {r.get('cases')} caught"
                                       + (f"; missed: {r['missed']}" if r.get("missed") else "")})
            elif r.get("step") == "switch":
                # A UMEM with tags off is on hugepages: the switch is refused, saying why.
                # Either way the mode in force is probed, not assumed, though the
                # UMEM is pinned by then.
                refused = str(r.get("label", "")).endswith("-refused")
                answer = str(r.get("answer"))
                switched = (r.get("set") != 0 and "hugepages" in answer
                            if refused else
                            r.get("set") == 0 and "tags mte" in str(r.get("tags")))
                switched = switched and "probe of the mode in force" not in answer
                rows.append({"what": f"hdp-fwd {r['label']}: hdp-ctl set umem tag mte under "
                                     "traffic, hdp-sink verifying",
                             "ok": r.get("status") == 0 and r.get("alive") == 1 and switched
                             and r.get("back") == 1,
                             "detail": f"set: {r.get('set')} ({r.get('answer')}); after: "
                                       f"{r.get('tags')}; still running: {r.get('alive')}; "
                                       f"{_back(r)}; {r.get('said', r.get('error'))}"})
            elif r.get("step") == "verify":
                rows.append({"what": f"hdp-fwd {r['label']}: AF_XDP, hdp-sink verifying",
                             "ok": r.get("status") == 0 and r.get("back") == 1,
                             "detail": f"{r.get('count')} frames; {_back(r)}; "
                                       f"{r.get('said', r.get('error'))}"})
    return rows


def _lab_counts(line):
    """(tagged, skipped) from a kasan_lab line; (0, 0) without one."""
    words = str(line or "").split()
    pairs = dict(zip(words[::2], words[1::2]))
    try:
        return int(pairs.get("tagged", 0)), int(pairs.get("skipped", 0))
    except ValueError:
        return 0, 0


def ci_checks(doc, check):
    """The arm64 guest's CI boot, each check through @check(name, ok, detail)."""
    boots = [b for b in doc["boots"] if b.get("arch") == "arm64"]
    rs = [r for b in boots for r in b["results"]]
    by = lambda step: [r for r in rs if r.get("step") == step]
    check("arm64: the guest booted and ran its plan to the end", by("end"),
          f"{len(rs)} results" + ("" if by("end") else "; " + "; ".join(
              b.get("why", "") for b in boots)))
    k = (by("kasan") or [{}])[0]
    last = (by("kasan") or [{}])[-1]
    check("arm64: hardware tag-based KASAN on, in sync mode, sampling 1 in 10 of order 3",
          "hw-tags" in str(k.get("said")) and "mode=sync" in str(k.get("said"))
          and "sample 10 sample_order 3" in str(k.get("lab")) and "MTE" in str(k.get("mte")),
          f"{k.get('said')}; {k.get('mte')}; kasan_lab: {k.get('lab')}")
    probe = (by("mteprobe") or [{}])[0]
    check("arm64: the emulated MTE keeps a tag per 16-byte granule (hdp-lab-mteprobe)",
          probe.get("granules", 0) > 0 and probe.get("wrong") == 0,
          f"{probe.get('granules')} granules, {probe.get('wrong')} read back wrong"
          + (f": {probe.get('error')}" if probe.get("error") else ""))
    lo = [ex.loopback_figures(r) for r in by("loopback")]
    lo = lo[0] if lo else None
    check("arm64: the loopback test runs under sampled KASAN", lo and lo["messages_per_s"] > 0,
          f"{lo or 'no result'}")
    tagged, skipped = _lab_counts(last.get("lab"))
    share = tagged / (tagged + skipped) if tagged + skipped else None
    check("arm64: KASAN tags about 1 in 10 of the page_allocs it samples (the lab's counts, "
          "the whole boot)", share is not None and 0.05 <= share <= 0.2,
          f"{tagged} tagged, {skipped} skipped: {share if share is None else round(share, 3)}")
    check("arm64: no KASAN report in the whole boot", last.get("reports") == 0,
          f"{last.get('reports')} 'BUG: KASAN' lines by the last kasan step")
    for row in mte_checks(doc):
        check("arm64: " + row["what"], row["ok"], row["detail"])


def _over_rounds(rows):
    """One row a check, however many rounds ran it: ok when every round was,
    with a failing round's detail where one failed."""
    merged = {}
    for row in rows:
        merged.setdefault(row["what"], []).append(row)
    out = []
    for what, runs in merged.items():
        failed = [r for r in runs if not r["ok"]]
        shown = (failed or runs)[0]["detail"]
        count = f"{len(runs) - len(failed)} of {len(runs)} rounds ok; " if len(runs) > 1 else ""
        out.append({"what": what, "ok": not failed, "detail": count + shown})
    return out


def markdown(doc):
    t = doc["tables"]
    out = []
    if t.get("seed002"):
        sizes = doc["settings"]["sizes"]
        out += ["## Seed 002: sampled hardware tag-based KASAN on arm64 MTE", "",
                f"Seed's figure: {SEED002_FIGURE}. Here: QEMU's virt board with MTE under TCG, "
                "the kernel's sampling as it landed in 6.3 (kasan.page_alloc.sample, of "
                "order 3 and up: every such page_alloc, not only skb frags). Ratios to the "
                "kasan=off boot of the same round; TCG emulates each tag check in a helper, so "
                "these say what the guest did, not what an MTE CPU costs.", "",
                "The seed's figure is a slowdown of the loopback test: 1 / 0.5 and 1 / 0.8 "
                "as ratios like these. Beside each KASAN boot, hdp-fwd in the kasan=off guest "
                "with its UMEM tagged by MTE at the same sampling and in the same mode "
                "(mte-N-MODE: tag_sample N), against hdp-off.", "",
                "| boot | loopback TCP / off | loopback UDP / off | " +
                " | ".join(f"socket path {s} / off" for s in sizes) +
                " | sampled page_allocs tagged a message | skipped | hdp-fwd beside it | " +
                " | ".join(f"hdp {s} / hdp-off" for s in sizes) + " |",
                "|---|---:|---:|" + "---:|" * len(sizes) + "---:|---:|---|" +
                "---:|" * len(sizes)]
        for r in t["seed002"]:
            out.append(f"| {r['boot']} | {_fmt(r['tcp_over_off'])} | {_fmt(r['udp_over_off'])} | "
                       + " | ".join(_fmt(r[f'socket_{s}_over_off']) for s in sizes)
                       + f" | {_fmt(r['tagged_per_message'])} | {_fmt(r['skipped_per_message'])}"
                       + f" | {r['hdp']} | "
                       + " | ".join(_fmt(r[f'hdp_{s}_over_off']) for s in sizes) + " |")
        out.append("")
        out += ["What each boot's kernel said: " + "; ".join(
            f"{r['boot']}: {r['kasan_said'] or 'no KASAN'}" for r in t["seed002"]) + "."]
        out.append("")
    if t.get("mte"):
        out += ["## hdp-fwd under MTE in the arm64 guest (kasan=off)", "",
                "hdp-fwd's UMEM tagged by MTE (mte-N: tag_sample N) in each tag check mode, "
                "and by soft tags, as ratios to hdp-off in the same guest (TCG).", "",
                "| contender | size | packets/s | / hdp-off |", "|---|---|---:|---:|"]
        for r in t["mte"]:
            out.append(f"| {r['contender']} | {r['size']} | {_fmt(r['pps'])} | "
                       f"{_fmt(r['ratio_to_off'])} |")
        out.append("")
    checks = _over_rounds(mte_checks(doc))
    if checks and not doc.get("checks"):
        out += ["## MTE in the arm64 guest: tests and verified forwarding", "",
                "| what | | detail |", "|---|---|---|"]
        out += [f"| {c['what']} | {'ok' if c['ok'] else 'FAILED'} | {c['detail']} |"
                for c in checks]
        out.append("")
    if doc.get("arm64_guest"):
        out += ["The arm64 guest's own programs: " + ", ".join(doc["arm64_guest"]) + ".", ""]
    return out


def _fmt(v):
    return "-" if v is None else f"{v:.3f}" if isinstance(v, float) else str(v)
