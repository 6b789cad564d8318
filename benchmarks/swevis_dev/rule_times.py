"""Per-rule time of one workflow run, from Snakemake's `benchmark:` files
(benchmarks/bench_rules.py prints it).

Every rule writes results/logs/benchmarks/<rule>.tsv (or <rule>/<wildcards>.tsv, one file a
job; rules/common.smk `bench`). `read_jobs` reads them and `per_rule` sums, per rule, the jobs,
the summed and the longest wall seconds and the summed CPU seconds (Snakemake's `cpu_time`:
user + system of the job's processes), sorted by CPU seconds, with a total row. Snakemake
samples a job's processes every 0.5 s for its first 30 s and every 30 s after, so a long job's
last interval is missing from its CPU seconds (a job of 8 CPU s showed 6.8 here); on a shared
machine compare CPU seconds, not wall seconds. The run span is estimated from the files'
modification times (each written when its job ended) minus the job's wall time: a benchmark
file is only rewritten when its job reruns, so read a results folder that one run built from
clean (or pass --since).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from datetime import datetime
from pathlib import Path


def read_jobs(results: Path, since: float | None = None) -> list[dict]:
    """One dict per benchmark file: rule, wall_s, cpu_s, max_rss_mb, ended (mtime)."""
    root = results / "logs" / "benchmarks"
    jobs = []
    for path in sorted(root.rglob("*.tsv")):
        rel = path.relative_to(root)
        rule = rel.parts[0].removesuffix(".tsv")
        ended = path.stat().st_mtime
        if since is not None and ended < since:
            continue
        with path.open(newline="") as fh:
            rows = list(csv.DictReader(fh, delimiter="\t"))
        if not rows:
            continue
        row = rows[-1]  # --repeat-benchmark writes one row a repeat; the last is this run's
        jobs.append(
            {
                "rule": rule,
                "job": str(rel),
                "wall_s": _number(row.get("s")),
                "cpu_s": _number(row.get("cpu_time")),
                "max_rss_mb": _number(row.get("max_rss")),
                "ended": ended,
            }
        )
    return jobs


def _number(value: str | None) -> float:
    """A benchmark cell as a float; Snakemake writes '-' (or nothing) where it measured nothing."""
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def per_rule(jobs: list[dict]) -> list[dict]:
    """Jobs summed per rule, sorted by CPU seconds (then wall seconds), largest first."""
    rules: dict[str, dict] = {}
    for j in jobs:
        r = rules.setdefault(j["rule"], {"rule": j["rule"], "jobs": 0, "wall_s": 0.0, "wall_max_s": 0.0, "cpu_s": 0.0})
        r["jobs"] += 1
        r["wall_s"] += j["wall_s"]
        r["wall_max_s"] = max(r["wall_max_s"], j["wall_s"])
        r["cpu_s"] += j["cpu_s"]
    return sorted(rules.values(), key=lambda r: (-r["cpu_s"], -r["wall_s"], r["rule"]))


def run_span(jobs: list[dict]) -> float:
    """Seconds from the first job's start to the last job's end (mtime - wall time)."""
    if not jobs:
        return 0.0
    return max(j["ended"] for j in jobs) - min(j["ended"] - j["wall_s"] for j in jobs)


def render_table(rows: list[dict], span: float) -> str:
    total = {
        "rule": "total",
        "jobs": sum(r["jobs"] for r in rows),
        "wall_s": sum(r["wall_s"] for r in rows),
        "wall_max_s": max((r["wall_max_s"] for r in rows), default=0.0),
        "cpu_s": sum(r["cpu_s"] for r in rows),
    }
    width = max([len(r["rule"]) for r in rows] + [len("rule")])
    lines = [
        f"| {'rule':<{width}} | jobs | CPU s | wall s (sum) | wall s (longest job) |",
        f"|{'-' * (width + 2)}|-----:|------:|-------------:|---------------------:|",
    ]
    for r in rows + [total]:
        lines.append(
            f"| {r['rule']:<{width}} | {r['jobs']:>4} | {r['cpu_s']:>5.0f} | {r['wall_s']:>12.0f} | {r['wall_max_s']:>20.0f} |"
        )
    lines.append(f"\nrun span (first job start to last job end, from file times): {span:.0f} s")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results", nargs="?", default="results", help="the workflow's results folder (results_dir)")
    ap.add_argument("--since", default=None, help="only jobs that ended at or after this ISO time (local)")
    ap.add_argument("--json", default=None, help="also write the per-rule rows as JSON here")
    args = ap.parse_args(argv)
    results = Path(args.results)
    if not (results / "logs" / "benchmarks").is_dir():
        print(f"bench_rules: no benchmark files under {results}/logs/benchmarks (run the workflow first)", file=sys.stderr)
        return 2
    try:
        since = datetime.fromisoformat(args.since).timestamp() if args.since else None
    except ValueError:
        print(f"bench_rules: --since {args.since!r} is not an ISO date/time", file=sys.stderr)
        return 2
    jobs = read_jobs(results, since)
    rows = per_rule(jobs)
    span = run_span(jobs)
    print(render_table(rows, span))
    if args.json:
        Path(args.json).write_text(json.dumps({"rules": rows, "run_span_s": span}, indent=2) + "\n")
    return 0

