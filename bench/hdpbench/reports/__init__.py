"""The reports of hdp-bench's runs: results.json, results.md and the plots
from what a run measured, written into --out as bench_out.py writes."""
