"""What hdp's DPDK mempool driver costs (hdp-bench dpdk): dpdk-testpmd io
forwarding between two net_null ports (one forwarding lcore), the mbuf
pool on DPDK's ring driver or on hdp's under each profile, per-lcore
cache on (250) and off. Configurations interleaved per trial; the figure
is the median over trials of testpmd's own Tx-pps (both ports,
steady-state periods). EAL picks its IOVA mode as it would for any user
(PA here: the pool comes in many chunks). Whole-data-room wipes
(init_on_free=on, init_on_alloc) write 2048 bytes a packet without cache:
their wiping rate is shown as a share of memset's over the same layout,
which hdp-bench measures and passes in HDP_MEMSET_GBPS. hdp's rows run
with the pool's quarantine on (1024 deep); the -noqueue rows with it off,
to show the trade. The table goes to stdout, and to OUT/dpdk-pools.md.

usage: dpdk DRIVER_SO [TRIALS] [SECONDS] [OUT]   (root, hugepages; hdp-bench dpdk runs it)
"""
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

import bench_out

OUTPUT = "dpdk-pools.md"
CACHES = (250, 0)
QUARANTINE_DEPTH = 1024
WARM_LINES = 2		# testpmd's first period, one line a port: warm-up
DATA_ROOM = 2048

# (name, mempool ops, profile, quarantine depth: None for QUARANTINE_DEPTH, 0 for off)
CONFIGS = (
    ("ring", "ring_mp_mc", "", None),
    ("hdp-off", "hdp", "init_on_free=off,init_check=off,bounds=off", None),
    ("hdp-init-free", "hdp", "init_on_free=on,init_check=off", None),
    ("hdp-init-used", "hdp", "init_on_free=used,init_check=off", None),
    ("hdp-init-used-check", "hdp", "init_on_free=used,init_check=on", None),
    ("hdp-init-check", "hdp", "init_on_free=on,init_check=on", None),
    ("hdp-init-alloc", "hdp", "init_on_alloc=on,init_on_free=off,init_check=off", None),
    # Without quarantine: every object through the ring, FIFO over the whole pool.
    ("hdp-off-noqueue", "hdp", "init_on_free=off,init_check=off,bounds=off", 0),
    ("hdp-init-used-noqueue", "hdp", "init_on_free=used,init_check=off", 0),
    ("hdp-init-free-noqueue", "hdp", "init_on_free=on,init_check=off", 0),
)
# Configurations that wipe the whole data room of every packet.
WHOLE_WIPES = ("hdp-init-free", "hdp-init-check", "hdp-init-alloc", "hdp-init-free-noqueue")


def quarantine(depth):
    if depth == 0:
        return "quarantine=off"
    return f"quarantine=on,quarantine_depth={depth or QUARANTINE_DEPTH}"


def tx_pps(output):
    """testpmd's Tx-pps past the warm-up, both ports: the mean of its lines times 2."""
    lines, total, n = 0, 0.0, 0
    value = 0.0
    for line in output.splitlines():
        words = line.split()
        if "Tx-pps:" not in words:
            continue
        for i, w in enumerate(words[:-1]):
            if w == "Tx-pps:":
                value = float(words[i + 1])
        lines += 1
        if lines > WARM_LINES:
            total += value
            n += 1
    return round(total / n * 2) if n else 0


def run(driver, seconds, ops, profile, cache, depth):
    """One testpmd run for @seconds: its Tx-pps."""
    env = dict(os.environ, HDP_HARDEN=(profile + "," if profile else "") + quarantine(depth))
    r = subprocess.run(["timeout", "-s", "INT", seconds, "dpdk-testpmd", "-l", "0-1", "--in-memory",
                        "--no-pci", "--file-prefix", f"hdpbench{os.getpid()}", "-d", driver,
                        "--mbuf-pool-ops-name", ops, "--vdev", "net_null0", "--vdev", "net_null1",
                        "--", "--total-num-mbufs", "32768", "--stats-period", "1",
                        "--forward-mode=io", f"--mbcache={cache}"],
                       env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True, errors="replace")
    return tx_pps(r.stdout)


def table(results, trials, memset):
    rows = [f"| pool | cache | Mpps (median of {trials}) | vs ring, same cache | vs hdp-off, same "
            f"cache | whole wipes: GB/s, share of memset{f' ({memset} GB/s)' if memset else ''} |",
            "|---|---|---|---|---|---|"]
    ms = float(memset) if memset else 0.0
    for cache in CACHES:
        ring = statistics.median_low(results[("ring", cache)])
        off = statistics.median_low(results[("hdp-off", cache)])
        for name, _, _, _ in CONFIGS:
            m = statistics.median_low(results[(name, cache)])
            share = ""
            if cache == 0 and name in WHOLE_WIPES and memset:
                w = m * DATA_ROOM / 1e9
                share = f"{w:.1f}, {w / ms if ms > 0 else 0:.2f}"
            rows.append(f"| {name} | {cache} | {m / 1e6:.2f} | {m / ring if ring else 0:.2f}x | "
                        f"{m / off if off else 0:.2f}x | {share} |")
    return "\n".join(rows) + "\n"


def driver_copy(so):
    """A copy of the driver in a directory of its own in root's /run, made
    0755: EAL refuses a plugin under a world-writable directory such as
    /tmp. The copy's path; its directory goes with remove_copy()."""
    d = tempfile.mkdtemp(prefix="hdp-bench-dpdk.", dir="/run")
    os.chmod(d, 0o755)
    shutil.copy(so, d)
    return os.path.join(d, os.path.basename(so))


def remove_copy(driver):
    shutil.rmtree(os.path.dirname(driver), ignore_errors=True)


def measure(driver, trials, seconds):
    """{(configuration, cache): [Tx-pps of each trial]}, interleaved."""
    results = {}
    for _ in range(trials):
        for cache in CACHES:
            for name, ops, profile, depth in CONFIGS:
                results.setdefault((name, cache), []).append(
                    run(driver, seconds, ops, profile, cache, depth))
    return results


def main(argv):
    if not argv or len(argv) > 4:
        sys.stderr.write(__doc__[__doc__.index("usage:"):])
        return 2
    so = argv[0]
    trials = int(argv[1]) if len(argv) > 1 else 3
    seconds = argv[2] if len(argv) > 2 else "4"
    out = argv[3] if len(argv) > 3 else ""
    if not os.path.isfile(so) or shutil.which("dpdk-testpmd") is None:
        print(f"dpdk-pools: needs dpdk-testpmd and {so} (hdp built with DPDK)", file=sys.stderr)
        return 1
    outfd = None
    if out:
        # Made, tried and judged now, not after the run.
        try:
            outfd = bench_out.prepare(out, [OUTPUT])
        except bench_out.OutError as e:
            print(f"hdp-bench: --out: {e}", file=sys.stderr)
            return 2
    driver = driver_copy(so)
    try:
        results = measure(driver, trials, seconds)
    finally:
        remove_copy(driver)
    text = table(results, trials, os.environ.get("HDP_MEMSET_GBPS", ""))
    sys.stdout.write(text)
    if outfd is not None:
        try:
            bench_out.write(outfd, OUTPUT, text)
        except (OSError, bench_out.OutError) as e:
            print(f"hdp-bench: --out {out}: {getattr(e, 'strerror', None) or e}", file=sys.stderr)
            return 1
    return 0
