"""Index benchmark on a large real repository (default: the installed matplotlib source).

Measures, each step in a fresh subprocess (wall time and peak RSS of that process):
cold build, warm no-change rebuild, warm load (open + BM25 ready), and re-index after
editing 1 and 10 files. Prints a table; `--json FILE` also writes it.

    .venv/bin/python benchmarks/bench_index.py [--repo DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

STEP = r"""
import json, resource, sys, time
from swevis.index import build_index, open_index
mode, repo, db = sys.argv[1:4]
t = time.perf_counter(); c = time.process_time()
if mode == "load":
    idx = open_index(db).warm(); idx.bm25_search("contour set paths", 10); extra = {}
else:
    s = build_index(repo, db, force=(mode == "cold")); extra = {"mode": s.mode, "parsed": s.files_parsed,
        "files": s.n_files, "symbols": s.n_symbols, "edges": s.n_edges, "timings": s.timings,
        "call_targets": s.call_targets}
dt = time.perf_counter() - t
print(json.dumps({"seconds": dt, "cpu_seconds": time.process_time() - c, "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **extra}))
"""


def step(mode: str, repo: Path, db: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", STEP, mode, str(repo), str(db)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def touch(repo: Path, n: int, tag: str) -> None:
    files = sorted(p for p in repo.rglob("*.py") if "tests" not in p.parts)[:n]
    for p in files:
        with p.open("a") as fh:
            fh.write(f"\n\ndef _bench_{tag}_{p.stem.replace('-', '_')}():\n    return None\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repo", help="source tree to index (default: installed matplotlib)")
    ap.add_argument("--json", help="also write the results here")
    args = ap.parse_args()
    if args.repo:
        src = Path(args.repo)
    else:
        import matplotlib

        src = Path(matplotlib.__file__).parent
    with tempfile.TemporaryDirectory() as d:
        repo = Path(d) / src.name
        shutil.copytree(src, repo, ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.png", "*.ttf", "*.afm", "*.svg", "*.pdf"))
        db = Path(d) / "index.sqlite"
        rows = {}
        rows["cold build"] = step("cold", repo, db)
        rows["warm rebuild (no change)"] = step("incr", repo, db)
        rows["warm load (open + BM25)"] = step("load", repo, db)
        touch(repo, 1, "a")
        rows["re-index, 1 file edited"] = step("incr", repo, db)
        touch(repo, 10, "b")
        rows["re-index, 10 files edited"] = step("incr", repo, db)
    cold = rows["cold build"]["seconds"]
    print(f"index benchmark on {src} ({rows['cold build']['files']} files, {rows['cold build']['symbols']} symbols,"
          f" {rows['cold build']['edges']} edges); database {db.name}")
    print(f"{'step':32s} {'seconds':>8s} {'cpu s':>7s} {'x cold':>7s} {'peak RSS MB':>12s}  detail")
    for name, r in rows.items():
        detail = f"parsed {r['parsed']}, {r.get('timings', {})}" if "parsed" in r else ""
        print(f"{name:32s} {r['seconds']:8.3f} {r['cpu_seconds']:7.3f} {r['seconds'] / cold:7.3f} {r['peak_rss_mb']:12.1f}  {detail}")
    if args.json:
        Path(args.json).write_text(json.dumps({"repo": str(src), "steps": rows}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
