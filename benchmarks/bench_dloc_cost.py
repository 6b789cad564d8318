"""CPU per D_loc query on the mined development set: this checkout against an earlier revision,
in one run (the same cases, indexes and work trees, one after the other).

A timing benchmark for the re-ranker's features: every query runs the whole of
`localize_issue` (evidence, walk, features over every candidate, the re-ranker, spans) on an
index already built, so index building is not counted. The cases are the first `--per-repo`
cases of each repository in the development set's case lists that `swevis devset measure` has
a result for; each runs against its repository's index and work tree under OUT/work/ as that
run left them (the latest case's commit: the issue text is what is timed, not its checkout).
The earlier revision's src/ is laid out by `git archive` into a temporary folder and run in a
subprocess with it first on the path; it gets the chosen cases from this process, so it needs
only the index and D_loc of that revision.

    nice -n 10 .venv/bin/python benchmarks/bench_dloc_cost.py --out DIR [--baseline REV] [--per-repo 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pick(out: Path, per_repo: int) -> dict[str, list[str]]:
    """The first `per_repo` measured case ids of each repository of the case lists."""
    from swevis.config import load_user_config
    from swevis.localize.devset.caselists import read_cases
    from swevis.localize.devset.settings import DevsetSettings

    picked: dict[str, list[str]] = {}
    for c in read_cases(DevsetSettings.of(load_user_config(None)[0]).files):
        if (out / "results" / f"{c['case_id']}.json").exists() and len(picked.setdefault(c["repo"], [])) < per_repo:
            picked[c["repo"]].append(c["case_id"])
    return picked


def measure(out: Path, picked: dict[str, list[str]], repeats: int) -> dict[str, list[float]]:
    """CPU seconds per case of the first localize_issue call (the process's caches cold for its
    text) and the best of `repeats` more (an agent's later calls), with whichever swevis is
    first on the path."""
    from swevis.index import open_index
    from swevis.localize.dloc import localize_issue

    cpu = {}
    for repo, cases in sorted(picked.items()):
        name = repo.replace("/", "+")
        with open_index(out / "work" / f"{name}.sqlite") as index:
            for case_id in cases:
                text = (out / "cases" / case_id / "problem_statement.md").read_text()
                t = time.process_time()
                localize_issue(index, text, repo_dir=out / "work" / name)
                first = time.process_time() - t
                best = float("inf")
                for _ in range(repeats):
                    t = time.process_time()
                    localize_issue(index, text, repo_dir=out / "work" / name)
                    best = min(best, time.process_time() - t)
                cpu[case_id] = [first, best]
    return cpu


def baseline(rev: str, args, picked: dict[str, list[str]]) -> dict[str, list[float]]:
    with tempfile.TemporaryDirectory(prefix="bench-dloc-cost-") as tmp:
        archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "src"], capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", tmp], input=archive, check=True)
        (Path(tmp) / "cases.json").write_text(json.dumps(picked))
        env = {**os.environ, "PYTHONPATH": str(Path(tmp) / "src")}
        cmd = [sys.executable, __file__, "--out", str(args.out), "--cases", str(Path(tmp) / "cases.json"),
               "--repeats", str(args.repeats), "--json-only"]
        return json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, required=True, help="the folder `swevis devset measure` wrote")
    ap.add_argument("--baseline", default="HEAD~1", help="the revision to compare with (git)")
    ap.add_argument("--per-repo", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--json-only", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--cases", type=Path, help=argparse.SUPPRESS)  # the baseline's: the cases this process chose
    args = ap.parse_args(argv)
    if not (args.out / "work").is_dir():
        print(f"error: {args.out / 'work'} is not there (run swevis devset measure first)", file=sys.stderr)
        return 2
    if args.json_only:
        print(json.dumps(measure(args.out, json.loads(args.cases.read_text()), args.repeats)))
        return 0
    picked = pick(args.out, args.per_repo)
    before = baseline(args.baseline, args, picked)
    after = measure(args.out, picked, args.repeats)
    print(f"CPU s per D_loc query: the first call | the best of {args.repeats} more; {args.baseline} -> this checkout")
    print(f"{'case':<30}{'before':>8}{'after':>8}{'ratio':>7} |{'before':>8}{'after':>8}{'ratio':>7}")
    cols = [([before[c][i] for c in sorted(after)], [after[c][i] for c in sorted(after)]) for i in (0, 1)]
    for j, case in enumerate(sorted(after)):
        print(f"{case:<30}" + " |".join(f"{b[j]:>8.3f}{a[j]:>8.3f}{a[j] / b[j]:>7.2f}" for b, a in cols))
    for label, agg in (("median", statistics.median), (f"total ({len(after)} queries)", sum)):
        print(f"{label:<30}" + " |".join(f"{agg(b):>8.3f}{agg(a):>8.3f}{agg(a) / agg(b):>7.2f}" for b, a in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main())
