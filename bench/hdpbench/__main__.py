"""hdp-bench's Python modes: python3 -I .../hdpbench MODE [OPTIONS]
(hdp-bench runs it; `hdp-bench MODE --help` for a mode's options)."""
import os
import sys

# Run as a directory (python3 -I bench/hdpbench): the package's parent on the path.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from hdpbench.paths import Paths  # noqa: E402

MODES = ("kernel",)


def main(argv):
    if not argv or argv[0] not in MODES:
        sys.stderr.write(f"hdpbench: expected a mode: {', '.join(MODES)}\n")
        return 2
    from hdpbench.kernel import cli
    return cli.main(argv[1:], Paths())


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
