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
re-ranker's candidate features with their gold labels and each candidate's path, name, kind,
lines and its file's heuristic score, from which a re-fit (and features that read the
symbol's text from the clone) is measured without re-indexing.

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

import numpy as np

from swevis.index import build_index, open_index
from swevis.localize.coverage import gold_files, gold_hunks, gold_symbols
from swevis.localize.dloc import bm25_baseline, by_kind, issue_evidence, localize_issue
from swevis.localize.hints import extract_hints
from swevis.localize.rerank import FEATURES, FLAGS, default_model, fit, vector
from swevis.localize.symtext import TEXT_FEATURES, file_context, quoted_strings, text_features

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
import build_devset  # noqa: E402

TOP = 10
KS = (1, 3, 5, 10)


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
    sc, feats = issue_evidence(index, text)
    gsyms = gold_symbols(index, patch)
    gold = {(p, q) for p, names in gsyms for q in names}
    sids = sorted(feats)
    top_file = max(sc.file.values(), default=0.0) or 1.0
    cands = [[sc.syms[i].path, sc.syms[i].qualname, sc.syms[i].kind, sc.syms[i].start_line, sc.syms[i].end_line,
              round(sc.file.get(sc.syms[i].path, 0.0) / top_file, 6)] for i in sids]
    return {
        "case_id": case["case_id"], "repo": case["repo"], "text_kind": case["text_kind"],
        "gold_files": gold_files(patch), "gold_hunks": gold_hunks(patch), "gold_symbols": gsyms,
        "dloc": {k: ranked(dloc, k) for k in ("file", "symbol", "span")},
        "bm25": {k: ranked(base, k) for k in ("file", "symbol", "span")},
        "features": list(FEATURES), "x": [[round(v, 6) for v in vector(feats[i])] for i in sids],
        "y": [1.0 if (c[0], c[1]) in gold else 0.0 for c in cands], "candidates": cands,
        "gold_missed": len(gold - {(c[0], c[1]) for c in cands}),
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


def load_results(out: Path) -> list[dict]:
    res = [json.loads(p.read_text()) for p in sorted((out / "results").glob("*.json"))]
    if not res:
        raise build_devset.MineError(f"no results under {out / 'results'} (run `run` first)")
    return res


def symbol_hits(gold_symbols: list, symbols: list[tuple[str, str]], files: list[str], k: int) -> tuple[float, float]:
    """(share of gold hunks hit, any hunk hit) by the top-k symbols; a module-level hunk (no
    enclosing definition) is hit by its file in the top k (swevis.localize.coverage.hit_rates)."""
    top, top_files = set(symbols[:k]), set(files[:k])
    hits = [(p in top_files) if not names else any((p, n) in top for n in names) for p, names in gold_symbols]
    return (sum(hits) / len(hits), float(any(hits))) if hits else (float("nan"), float("nan"))


def release_rows(r: dict) -> list[dict]:
    """Hit rates (share of gold and any gold hit) of the stored D_loc and BM25 rankings."""
    out = []
    for method in ("dloc", "bm25"):
        files = [c[0] for c in r[method]["file"]]
        syms = [(c[0], c[1]) for c in r[method]["symbol"]]
        spans = r[method]["span"]
        for k in KS:
            f_hit = [g in files[:k] for g in r["gold_files"]]
            s_share, s_any = symbol_hits(r["gold_symbols"], syms, files, k)
            sp = [any(c[0] == p and c[2] is not None and c[2] <= e and (c[3] or c[2]) >= s for c in spans[:k])
                  for p, s, e in r["gold_hunks"]]
            for level, share, anyhit in (("file", sum(f_hit) / len(f_hit), any(f_hit)), ("symbol", s_share, s_any),
                                         ("span", sum(sp) / len(sp) if sp else float("nan"), any(sp))):
                out.append({"case": r["case_id"], "repo": r["repo"], "method": method, "k": k, "level": level,
                            "share": share, "any": float(anyhit)})
    return out


def mean(vals: list[float]) -> float:
    vals = [v for v in vals if v == v]
    return sum(vals) / len(vals) if vals else float("nan")


def print_release(rows: list[dict], measure: str) -> None:
    """Pooled and per-repository hit@k of D_loc (shipped) and BM25."""
    print(f"\n{measure} of gold hit at k = {'/'.join(map(str, KS))}, D_loc (release) | BM25")
    print(f"{'repository':<28}{'n':>5}  {'file':^23}  {'symbol':^23}  {'span':^23}")
    repos = sorted({r["repo"] for r in rows})
    for repo in [*repos, "all"]:
        sel = [r for r in rows if repo in ("all", r["repo"])]
        n = len({r["case"] for r in sel})
        cells = []
        for level in ("file", "symbol", "span"):
            d = "/".join(f"{100 * mean([r[measure] for r in sel if r['method'] == 'dloc' and r['level'] == level and r['k'] == k]):.0f}" for k in KS)
            b = mean([r[measure] for r in sel if r["method"] == "bm25" and r["level"] == level and r["k"] == 5])
            cells.append(f"{d:>15} |{100 * b:>3.0f}@5")
        print(f"{repo:<28}{n:>5}  " + "  ".join(cells))


def blobs(git_dir: Path, commit: str, paths: list[str]) -> dict[str, list[str]]:
    """The lines of `paths` at `commit`, read from the clone in one `git cat-file --batch`."""
    req = "".join(f"{commit}:{p}\n" for p in paths).encode()
    out = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch"], input=req, capture_output=True).stdout
    res, pos = {}, 0
    for p in paths:
        nl = out.index(b"\n", pos)
        header = out[pos:nl].split()
        pos = nl + 1
        if header[-1] == b"missing":
            res[p] = []
            continue
        size = int(header[2])
        res[p] = out[pos:pos + size].decode("utf-8", "replace").splitlines()
        pos += size + 1
    return res


EXTRA = (*TEXT_FEATURES, "file_score", "in_file_rank")
ALL_NAMES = (*FEATURES, *EXTRA)


def extra_features(r: dict, case: dict, text: str, mirrors: Path) -> np.ndarray:
    """The symbol-text and file-context features of a case's candidates (swevis.localize.symtext),
    from the clone at the case's base commit, as D_loc computes them from the checkout."""
    hints = extract_hints(text)
    quoted = quoted_strings(text)
    cands = r["candidates"]
    files = blobs(mirrors / case["mirror"] / "repo", case["base_commit"], sorted({c[0] for c in cands}))
    heur = [x[r["features"].index("heuristic")] for x in r["x"]]
    in_file = file_context([c[0] for c in cands], heur)
    rows = []
    for c, rank in zip(cands, in_file):
        body = "\n".join(files[c[0]][c[3] - 1:c[4]])
        f = text_features(hints, quoted, c[1], c[2], body)
        rows.append([*(f[n] for n in TEXT_FEATURES), c[5], rank])
    return np.array(rows, dtype=float).reshape(len(cands), len(EXTRA))


def ranked_symbols(r: dict, scores: np.ndarray) -> list[tuple[str, str]]:
    """Candidates by score, ties as D_loc breaks them (path, first line)."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], r["candidates"][i][0], r["candidates"][i][3]))
    return [(r["candidates"][i][0], r["candidates"][i][1]) for i in order]


def symbol_rows(r: dict, scores: np.ndarray, method: str) -> list[dict]:
    syms = ranked_symbols(r, scores)
    files = [c[0] for c in r["dloc"]["file"]]
    out = []
    for k in KS:
        share, anyhit = symbol_hits(r["gold_symbols"], syms, files, k)
        out.append({"case": r["case_id"], "repo": r["repo"], "method": method, "k": k, "level": "symbol",
                    "share": share, "any": anyhit})
    return out


def cross_validate(results: list[dict], mats: list[np.ndarray], columns: list[int], l2: float) -> list[dict]:
    """Leave-one-repository-out: fit on the other repositories' cases, rank the held-out ones."""
    rows = []
    for held in sorted({r["repo"] for r in results}):
        train = [(m[:, columns], np.array(r["y"])) for r, m in zip(results, mats) if r["repo"] != held and len(r["y"])]
        mono = tuple(ALL_NAMES[j] not in FLAGS for j in columns)
        w, b = fit(train, l2=l2, nonnegative=mono)
        for r, m in zip(results, mats):
            if r["repo"] == held:
                rows += symbol_rows(r, m[:, columns] @ w + b if len(r["y"]) else np.zeros(0), "cv")
    return rows


def run_cv(results: list[dict], cases: dict, out: Path, mirrors: Path, l2: float) -> None:
    """The shipped re-ranker against re-fits with and without the new features, by symbol hit."""
    mats = []
    for r in results:
        text = (out / "cases" / r["case_id"] / "problem_statement.md").read_text()
        x = np.array(r["x"], dtype=float).reshape(len(r["y"]), len(r["features"]))
        x = x[:, [r["features"].index(n) for n in FEATURES]]
        mats.append(np.hstack([x, extra_features(r, cases[r["case_id"]], text, mirrors)]) if len(r["y"]) else
                    np.zeros((0, len(ALL_NAMES))))
    shipped = default_model()
    w0 = np.array(vector(dict(zip(shipped["features"], shipped["weights"]))))
    base = list(range(len(FEATURES)))
    variants = {"shipped weights": None, "re-fit, same features": base,
                "+ symbol text": base + [ALL_NAMES.index(n) for n in TEXT_FEATURES],
                "+ file context": base + [ALL_NAMES.index(n) for n in ("file_score", "in_file_rank")],
                "+ both": list(range(len(ALL_NAMES)))}
    same = sum(ranked_symbols(r, m[:, base] @ w0)[:TOP] == [(c[0], c[1]) for c in r["dloc"]["symbol"]]
               for r, m in zip(results, mats))
    print(f"the shipped weights over the stored features rank {same} of {len(results)} cases' top {TOP} symbols"
          " exactly as D_loc did")
    table = {}
    for name, cols in variants.items():
        if cols is None:
            table[name] = [row for r, m in zip(results, mats)
                           for row in symbol_rows(r, m[:, base] @ w0 + shipped["bias"] if len(r["y"]) else np.zeros(0), name)]
        else:
            table[name] = cross_validate(results, mats, cols, l2)
    print(f"\nsymbol hit at k = {'/'.join(map(str, KS))} (any gold hunk | share of gold hunks), "
          f"{len(results)} cases, leave-one-repository-out for every re-fit")
    for name, rows in table.items():
        a = "/".join(f"{100 * mean([x['any'] for x in rows if x['k'] == k]):.1f}" for k in KS)
        s = "/".join(f"{100 * mean([x['share'] for x in rows if x['k'] == k]):.1f}" for k in KS)
        print(f"  {name:<24} {a:>24} | {s}")
    for name in ("shipped weights", "+ both"):
        print(f"\n  {name}, symbol hit@5 (any) per held-out repository:")
        for repo in sorted({r["repo"] for r in results}):
            v = [x["any"] for x in table[name] if x["repo"] == repo and x["k"] == 5]
            print(f"    {repo:<28} {len(v):>4} {100 * mean(v):6.1f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="index along history and keep each case's rankings and features")
    r.add_argument("--mirrors", type=Path, required=True)
    r.add_argument("--out", type=Path, required=True, help="the folder `build_devset.py prepare` wrote")
    r.add_argument("--limit", type=int, help="at most this many cases per repository")
    p = sub.add_parser("report", help="hit@k of the shipped D_loc and of BM25, pooled and per repository")
    p.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("cv", help="re-fit the re-ranker (with the symbol-text and file features) by leave-one-repository-out")
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--mirrors", type=Path, required=True)
    c.add_argument("--l2", type=float, default=1.0)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "run":
            run(build_devset.read_cases(), args.mirrors, args.out, args.limit)
        elif args.cmd == "cv":
            cases = {c["case_id"]: c for c in build_devset.read_cases()}
            run_cv(load_results(args.out), cases, args.out, args.mirrors, args.l2)
        else:
            rows = [row for r in load_results(args.out) for row in release_rows(r)]
            print_release(rows, "any")
            print_release(rows, "share")
    except build_devset.MineError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
