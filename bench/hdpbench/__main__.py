"""hdp-bench's modes that are Python: python3 -I .../hdpbench MODE [ARGS]
(hdp-bench runs it, after setting where the programs are; `hdp-bench
MODE --help` for a mode's options). compare-report and latency-report
write a report again from a run's trials.jsonl or points.jsonl; topology
is scripts/topology's."""
import os
import sys

# Run as a directory (python3 -I bench/hdpbench): the package's parent on
# the path, for the package and bench_out beside it.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hdpbench.paths import Paths  # noqa: E402


def _compare(argv):
    from hdpbench import compare
    return compare.main(argv, Paths())


def _latency(argv):
    from hdpbench import latency
    return latency.main(argv, Paths())


def _builds(argv):
    from hdpbench import builds
    return builds.main(argv)


def _dpdk(argv):
    from hdpbench import dpdk_pools
    return dpdk_pools.main(argv)


def _kernel(argv):
    from hdpbench.kernel import cli
    return cli.main(argv, Paths())


def _topology(argv):
    from hdpbench import topology
    return topology.main(argv)


def _compare_report(argv):
    from hdpbench.reports import compare
    return compare.main(argv)


def _latency_report(argv):
    from hdpbench.reports import latency
    return latency.main(argv)


MODES = {"compare": _compare, "latency": _latency, "builds": _builds, "dpdk": _dpdk,
         "kernel": _kernel, "topology": _topology, "compare-report": _compare_report,
         "latency-report": _latency_report}


def main(argv):
    if not argv or argv[0] not in MODES:
        sys.stderr.write(f"hdpbench: expected a mode: {', '.join(MODES)}\n")
        return 2
    return MODES[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
