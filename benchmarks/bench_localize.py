"""Localization quality, D_loc (heuristic and re-ranked) against BM25 alone, on every case set:
the bundled sample and the held-out sets under benchmarks/heldout_localization*/.

This uses the shipped re-ranker weights (src/swevis/data/ranker_weights.json), so a set they
were fitted on (its "fitted_on" list) is measured in-sample here; the tables say which. For an
estimate on a set the weights have not seen, use `benchmarks/fit_ranker.py --blind SET`, which
fits without it. Held-out cases over installed libraries (source.json: bugs injected into
click, jinja2, rich, packaging) rebuild their buggy tree by reverse-applying the gold fix.

A quality benchmark, not a timing one: hit@k of D_loc and of the BM25-only baseline at the
file, symbol and span level (swevis.analysis.localization), one table per set. A change to the
ranking that helps the tuning set but not the held-out set is fitting these nine instances.

    .venv/bin/python benchmarks/bench_localize.py [--heldout DIR] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
from importlib import metadata
from pathlib import Path

from swevis.index import build_index, open_index
from swevis.analysis.localization import evaluate_instance, load_sample_instances, summarize
from swevis.localize.rerank import default_model

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "src" / "swevis" / "data" / "sample"
HELDOUT = Path(__file__).resolve().parent / "heldout_localization"
HELDOUT_2 = Path(__file__).resolve().parent / "heldout_localization_2"
HELDOUT_3 = Path(__file__).resolve().parent / "heldout_localization_3"


def heldout_sets() -> list[Path]:
    """Every held-out set folder, in order."""
    return sorted(p for p in Path(__file__).resolve().parent.glob("heldout_localization*") if p.is_dir())
KS = (1, 3, 5, 10)


def heldout_rows(folder: Path) -> list[dict]:
    """Cases `<set>__<repo>-hN/` with problem_statement.md and patch.diff.

    A case over a bundled sample repository gets its `repo_dir`; a case over an installed
    library has a source.json ({"package", "version", "root_contains"}) instead, see case_index.
    """
    rows = []
    for case in sorted(p for p in folder.iterdir() if p.is_dir()):
        repo = case.name.split("__", 1)[-1].rsplit("-", 1)[0]
        row = {
            "instance_id": case.name,
            "repo": repo,
            "problem_statement": (case / "problem_statement.md").read_text(),
            "patch": (case / "patch.diff").read_text(),
        }
        if (case / "source.json").exists():
            row["source"] = json.loads((case / "source.json").read_text())
        else:
            row["repo_dir"] = str(SAMPLE / "repos" / repo)
        rows.append(row)
    return rows


def injected_root(row: dict, dest: Path) -> Path:
    """The buggy tree of an injected-bug case: the installed package, gold fix reverse-applied."""
    src = row["source"]
    installed = metadata.version(src["package"])
    if installed != src["version"]:
        raise RuntimeError(f"{row['instance_id']} was written against {src['package']} {src['version']}, "
                           f"but {installed} is installed (requirements.lock pins the version)")
    dist = metadata.distribution(src["package"])
    root = dest / row["instance_id"]
    shutil.rmtree(root, ignore_errors=True)
    for name in src["root_contains"]:
        shutil.copytree(Path(dist.locate_file(name)), root / name, ignore=shutil.ignore_patterns("__pycache__"))
    diff = dest / f"{row['instance_id']}.diff"
    diff.write_text(row["patch"])
    # its own repository: inside another git work tree, `git apply` would skip the paths
    # outside the current directory and still succeed, leaving the fixed tree
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    proc = subprocess.run(["git", "apply", "-R", str(diff)], cwd=root, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{row['instance_id']}: the gold fix does not reverse-apply: {proc.stderr.strip()}")
    check = subprocess.run(["git", "apply", "--check", str(diff)], cwd=root, capture_output=True, text=True)
    if check.returncode != 0:
        raise RuntimeError(f"{row['instance_id']}: the buggy tree does not take the gold fix: {check.stderr.strip()}")
    return root


def case_index(row: dict, dbs: Path, opened: dict):
    """The opened index of a case's repository (built once per repository, or per injected case)."""
    if "source" in row:
        key, repo_dir = row["instance_id"], None
    else:
        key, repo_dir = Path(row["repo_dir"]).name, row["repo_dir"]
    if key not in opened:
        if repo_dir is None:
            repo_dir = injected_root(row, dbs / "roots")
        db = dbs / (key + ".sqlite")
        build_index(repo_dir, db)
        opened[key] = open_index(db)
    return opened[key]


def measure(rows: list[dict], dbs: Path, options: dict | None = None,
            model: dict | None = None) -> tuple[list[dict], list[dict]]:
    opened: dict = {}
    try:
        per = [r for row in rows
               for r in evaluate_instance(case_index(row, dbs, opened), row, ks=KS, options=options, model=model)]
    finally:
        for idx in opened.values():
            idx.close()
    return summarize(per), per


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
    ap.add_argument("--heldout", type=Path, action="append", help="folder of held-out cases (repeatable; "
                    "default: every benchmarks/heldout_localization*/)")
    ap.add_argument("--ranker", choices=("heuristic", "learned"), action="append",
                    help="D_loc's symbol ranking to measure (repeatable; default: both)")
    ap.add_argument("--json", type=Path, help="also write the tables as JSON")
    args = ap.parse_args(argv)
    sets = {"bundled sample": load_sample_instances(SAMPLE)}
    for folder in args.heldout or heldout_sets():
        if folder.is_dir():
            sets[folder.name] = heldout_rows(folder)
        else:
            print(f"no held-out set at {folder}", file=sys.stderr)
    fitted_on = set(default_model().get("fitted_on", []))
    out = {}
    with tempfile.TemporaryDirectory(prefix="bench-localize-") as tmp:
        for title, rows in sets.items():
            for ranker in args.ranker or ["heuristic", "learned"]:
                summary, per = measure(rows, Path(tmp), {"ranker": ranker})
                seen = sum(r["instance_id"] in fitted_on for r in rows)
                note = f", in-sample: the weights were fitted on {seen} of these" if ranker == "learned" and seen else ""
                print_table(f"{title}, {ranker} ranker{note}", summary, per)
                out[f"{title}, {ranker}"] = {"summary": summary, "instances": per}
    if args.json:
        args.json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
