"""Localization quality on the bundled sample (the set D_loc's constants were tuned on) and on
a held-out set written without looking at the localizer (benchmarks/heldout_localization/).

A quality benchmark, not a timing one: hit@k of D_loc and of the BM25-only baseline at the
file, symbol and span level (swevis.localize.evaluate), one table per set. A change to the
ranking that helps the tuning set but not the held-out set is fitting these nine instances.

    .venv/bin/python benchmarks/bench_localize.py [--heldout DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from swevis.localize.evaluate import load_sample_instances, localization_table

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "src" / "swevis" / "data" / "sample"
HELDOUT = Path(__file__).resolve().parent / "heldout_localization"
KS = (1, 3, 5, 10)


def heldout_rows(folder: Path) -> list[dict]:
    """Cases `heldout__<repo>-hN/` with problem_statement.md and patch.diff, over the bundled repos."""
    rows = []
    for case in sorted(p for p in folder.iterdir() if p.is_dir()):
        repo = case.name.split("__", 1)[-1].rsplit("-", 1)[0]
        rows.append({
            "instance_id": case.name,
            "repo": repo,
            "problem_statement": (case / "problem_statement.md").read_text(),
            "patch": (case / "patch.diff").read_text(),
            "repo_dir": str(SAMPLE / "repos" / repo),
        })
    return rows


def measure(rows: list[dict], dbs: Path) -> tuple[list[dict], list[dict]]:
    from swevis.index import build_index

    def db_for(row: dict) -> Path:
        db = dbs / (Path(row["repo_dir"]).name + ".sqlite")
        if not db.exists():
            build_index(row["repo_dir"], db)
        return db

    return localization_table(rows, db_for, ks=KS)


def print_table(title: str, summary: list[dict], per: list[dict]) -> None:
    n = summary[0]["n_instances"] if summary else 0
    print(f"\n{title} ({n} instances): hit@k, D_loc / BM25 only")
    print(f"{'k':>3} | {'file':>13} | {'symbol':>13} | {'span':>13}")
    by = {(r["k"], r["level"]): r for r in summary}
    for k in KS:
        cells = [f"{by[(k, lv)]['dloc']:.3f} / {by[(k, lv)]['bm25']:.3f}" for lv in ("file", "symbol", "span")]
        print(f"{k:>3} | " + " | ".join(f"{c:>13}" for c in cells))
    misses = [r["instance_id"] for r in per if r["k"] == 5 and r["level"] == "symbol" and r["dloc"] < 1.0]
    print(f"symbol misses at k=5: {', '.join(misses) if misses else 'none'}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--heldout", type=Path, default=HELDOUT, help="folder of held-out cases")
    ap.add_argument("--json", type=Path, help="also write the tables as JSON")
    args = ap.parse_args(argv)
    sets = {"bundled sample (tuning set)": load_sample_instances(SAMPLE)}
    if args.heldout.is_dir():
        sets["held-out"] = heldout_rows(args.heldout)
    else:
        print(f"no held-out set at {args.heldout}", file=sys.stderr)
    out = {}
    with tempfile.TemporaryDirectory(prefix="bench-localize-") as tmp:
        for title, rows in sets.items():
            summary, per = measure(rows, Path(tmp))
            print_table(title, summary, per)
            out[title] = {"summary": summary, "instances": per}
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
