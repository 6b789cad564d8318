"""Per-rule time of one workflow run, from Snakemake's `benchmark:` files.

Every rule writes results/logs/benchmarks/<rule>.tsv (or <rule>/<wildcards>.tsv, one file a
job; rules/common.smk `bench`). This script reads them and prints, per rule, the jobs, the
summed and the longest wall seconds and the summed CPU seconds (Snakemake's `cpu_time`: user +
system of the job's processes), sorted by CPU seconds, with a total row. Snakemake samples a
job's processes every 0.5 s for its first 30 s and every 30 s after, so a long job's last
interval is missing from its CPU seconds (a job of 8 CPU s showed 6.8 here); on a shared
machine compare CPU seconds, not wall seconds. The run span is
estimated from the files' modification times (each written when its job ended) minus the
job's wall time: a benchmark file is only rewritten when its job reruns, so read a results
folder that one run built from clean (or pass --since).

    .venv/bin/python benchmarks/bench_rules.py [results] [--since 2026-12-02T01:00] [--json OUT]
"""

from swevis_dev.rule_times import main

if __name__ == "__main__":
    raise SystemExit(main())
