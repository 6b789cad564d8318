"""Cold index build cost per language: CPU seconds per MB of source, one checkout at a time.

Each checkout is indexed cold in a fresh subprocess (on one core when `taskset` is there), and
the table gives its code files' megabytes by language, the CPU seconds of the whole build and
of its parse phase, and both per MB of code, so that a language's extractor compares with
Python's on repositories of similar size. CPU seconds are what to compare on a loaded machine.

    .venv/bin/python benchmarks/bench_index_languages.py CHECKOUT [CHECKOUT ...] [--repeat 3]

A checkout is any folder (a `git archive` of a repository, say); nothing here reaches the network.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

STEP = r"""
import json, sqlite3, sys, time
from swevis.index import build_index
repo, db = sys.argv[1], sys.argv[2]
c = time.process_time()
s = build_index(repo, db, force=True)
cpu = time.process_time() - c
con = sqlite3.connect(db)
sizes = dict(con.execute("SELECT language, sum(size) FROM files WHERE kind = 'code' GROUP BY language"))
status = dict(con.execute("SELECT status, count(*) FROM files GROUP BY status"))
print(json.dumps({"cpu": cpu, "parse_cpu": s.timings.get("parse_cpu", 0.0), "sizes": sizes, "status": status,
                  "symbols": s.n_symbols, "edges": s.n_edges}))
"""


def measure(repo: Path, repeat: int) -> dict:
    runs = []
    pin = ["taskset", "-c", "0"] if shutil.which("taskset") else []
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(repeat):
            db = Path(tmp) / f"run{k}.sqlite"
            out = subprocess.run([*pin, sys.executable, "-c", STEP, str(repo), str(db)], capture_output=True,
                                 text=True, check=True, env=env)
            runs.append(json.loads(out.stdout.strip().splitlines()[-1]))
    best = runs[0]
    best["cpu"] = statistics.median(r["cpu"] for r in runs)
    best["parse_cpu"] = statistics.median(r["parse_cpu"] for r in runs)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkouts", nargs="+", type=Path)
    ap.add_argument("--repeat", type=int, default=3, help="builds per checkout (the median is reported)")
    args = ap.parse_args()
    print(f"{'checkout':<28} {'code MB by language':<34} {'CPU s':>7} {'parse':>7} {'s/MB':>6} {'parse s/MB':>10}")
    for repo in args.checkouts:
        if not repo.is_dir():
            print(f"{repo}: no such folder", file=sys.stderr)
            return 2
        r = measure(repo, args.repeat)
        mb = sum(r["sizes"].values()) / 1e6
        langs = ", ".join(f"{k} {v / 1e6:.2f}" for k, v in sorted(r["sizes"].items(), key=lambda kv: -kv[1]))
        print(f"{repo.name:<28} {langs:<34} {r['cpu']:7.2f} {r['parse_cpu']:7.2f} {r['cpu'] / mb:6.2f} "
              f"{r['parse_cpu'] / mb:10.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
