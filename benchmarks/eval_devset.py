"""Run D_loc over the mined development set (benchmarks/build_devset.py) with one index per
repository, updated from case to case along history, and keep what each case needs for
measuring and fitting without the index again.

Indexing a thousand checkouts cold would cost hours of CPU on this project's 2-core machines,
so each repository has one work tree and one index under OUT/work/: for every case (oldest
first) git moves the work tree to the case's base commit (only changed files are written) and
`build_index` updates the index in place (only changed files are parsed). The cases are
visited round-robin over the repositories, so a run stopped early is still balanced; a case
whose result exists is skipped (a rerun resumes).

Per case, OUT/results/<id>.json holds: gold files, hunks and symbols; D_loc's top-10 files,
symbols and spans with the shipped re-ranker (the current release), BM25's top 10, and the
re-ranker's candidate features with their gold labels (benchmarks/fit_ranker.py's
case_matrix), from which a re-fit is measured without re-indexing.

    nice -n 15 .venv/bin/python benchmarks/eval_devset.py run --mirrors /work/.mirror --out DIR [--limit N]
    .venv/bin/python benchmarks/eval_devset.py report --out DIR
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from swevis.index import build_index, open_index
from swevis.localize.coverage import gold_files, gold_hunks, gold_symbols
from swevis.localize.dloc import bm25_baseline, by_kind, localize_issue
from swevis.localize.rerank import FEATURES

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import build_devset  # noqa: E402
import fit_ranker  # noqa: E402

TOP = 10


def move_work_tree(git_dir: Path, work: Path, commit: str) -> None:
    """Make `work` the tree of `commit`: git writes only the files that differ from the last
    commit it laid there and removes those gone (its own index file beside the tree)."""
    work.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_INDEX_FILE": str(work) + ".gitindex"}
    cmd = ["git", "--git-dir", str(git_dir), "--work-tree", str(work), "read-tree", "-u", "--reset", commit]
    out = subprocess.run(cmd, capture_output=True, env=env)
    if out.returncode != 0:
        raise build_devset.MineError(f"{git_dir}: cannot lay out {commit}: {out.stderr.decode(errors='replace').strip()[:300]}")


def ranked(cands, kind: str) -> list[list]:
    return [[c.path, c.qualified_name, c.start_line, c.end_line] for c in by_kind(cands, kind)[:TOP]]


def evaluate(index, work: Path, case: dict, text: str, patch: str) -> dict:
    """Everything the report and a re-fit need from one case."""
    dloc = localize_issue(index, text, top_k=TOP, options={"ranker": "learned"}, repo_dir=work)
    base = bm25_baseline(index, text, top_k=TOP, repo_dir=work)
    x, y, missed = fit_ranker.case_matrix(index, {"problem_statement": text, "patch": patch})
    return {
        "case_id": case["case_id"], "repo": case["repo"], "text_kind": case["text_kind"],
        "gold_files": gold_files(patch), "gold_hunks": gold_hunks(patch), "gold_symbols": gold_symbols(index, patch),
        "dloc": {k: ranked(dloc, k) for k in ("file", "symbol", "span")},
        "bm25": {k: ranked(base, k) for k in ("file", "symbol", "span")},
        "features": list(FEATURES), "x": x.round(6).tolist(), "y": y.tolist(), "gold_missed": missed,
    }


def round_robin(cases: list[dict]) -> list[dict]:
    """Oldest first within a repository, one case of each repository in turn."""
    per: dict[str, list[dict]] = {}
    for c in sorted(cases, key=lambda c: int(c["committed"])):
        per.setdefault(c["repo"], []).append(c)
    out, i = [], 0
    while any(i < len(v) for v in per.values()):
        out += [v[i] for _, v in sorted(per.items()) if i < len(v)]
        i += 1
    return out


def run(cases: list[dict], mirrors: Path, out: Path, limit: int | None) -> None:
    order = round_robin(cases)
    if limit:
        order = [c for c in order if sum(1 for d in order[:order.index(c)] if d["repo"] == c["repo"]) < limit]
    (out / "results").mkdir(parents=True, exist_ok=True)
    for n, case in enumerate(order, 1):
        res = out / "results" / f"{case['case_id']}.json"
        if res.exists():
            continue
        cdir = out / "cases" / case["case_id"]
        name = case["repo"].replace("/", "+")
        work = out / "work" / name
        t = time.process_time()
        move_work_tree(mirrors / case["mirror"] / "repo", work, case["base_commit"])
        stats = build_index(work, out / "work" / f"{name}.sqlite", repo=case["repo"], commit=case["base_commit"])
        t_index = time.process_time() - t
        with open_index(out / "work" / f"{name}.sqlite") as index:
            r = evaluate(index, work, case, (cdir / "problem_statement.md").read_text(), (cdir / "patch.diff").read_text())
        r["cpu"] = {"index": round(t_index, 3), "parsed": stats.files_parsed, "total": round(time.process_time() - t, 3)}
        res.write_text(json.dumps(r))
        print(f"[{n}/{len(order)}] {case['case_id']}: {stats.files_parsed} files parsed, index {t_index:.1f} s, "
              f"case {r['cpu']['total']:.1f} CPU s", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="index along history and keep each case's rankings and features")
    r.add_argument("--mirrors", type=Path, required=True)
    r.add_argument("--out", type=Path, required=True, help="the folder `build_devset.py prepare` wrote")
    r.add_argument("--limit", type=int, help="at most this many cases per repository")
    args = ap.parse_args(argv)
    try:
        cases = build_devset.read_cases()
        run(cases, args.mirrors, args.out, args.limit)
    except build_devset.MineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
