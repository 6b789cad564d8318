"""Run D_loc over the development set with one index per repository, updated from case to case
along history, and keep what each case needs for measuring and fitting without the index again.

Indexing a thousand checkouts cold would cost hours of CPU on a 2-core machine, so each
repository has one work tree and one index under OUT/work/: for every case (oldest first)
git moves the work tree to the case's base commit (only changed files are written) and
`build_index` updates the index in place (only changed files are parsed). The cases are
visited round-robin over the repositories, so a run stopped early is still balanced; a case
whose result exists is skipped (a rerun resumes).

Per case, OUT/results/<id>.json holds: gold files, hunks and symbols; D_loc's top-10 files,
symbols and spans with the release's re-ranker (variants.RELEASE), BM25's top 10, and the
re-ranker's candidate features with their gold labels and each candidate's path, name, kind,
lines, its file's heuristic score and, for a definition added from one of the EXPAND best
files, that file's rank (0 for a candidate with evidence).
"""

from __future__ import annotations

import json
import logging
import time
from pathlib import Path

from swevis.errors import SwevisError
from swevis.fsutil import write_atomic
from swevis.index import build_index, open_index
from swevis.localize.coverage import gold_files, gold_hunks, gold_symbols
from swevis.localize.devset.gitio import clone_path, move_work_tree
from swevis.localize.devset.scoring import TOP
from swevis.localize.devset.variants import EXPAND, RELEASE
from swevis.localize.dloc import bm25_baseline, by_kind, issue_evidence, localize_issue
from swevis.localize.rerank import FEATURES, vector

log = logging.getLogger(__name__)
FILES_KEPT = 50  # the best files whose heuristic scores a result keeps


def ranked(cands, kind: str) -> list[list]:
    return [[c.path, c.qualified_name, c.start_line, c.end_line] for c in by_kind(cands, kind)[:TOP]]


def evaluate_case(index, work: Path, case: dict, text: str, patch: str) -> dict:
    """Everything the report and a re-fit need from one case: the release's rankings (its
    weights, no expanded candidates), BM25's, and every candidate of D_loc with the symbols of
    the EXPAND best files added (c[6]: that file's rank, 0 for a candidate with evidence)."""
    dloc = localize_issue(index, text, top_k=TOP, options={"ranker": "learned"}, model=RELEASE, repo_dir=work)
    base = bm25_baseline(index, text, top_k=TOP, repo_dir=work)
    sc, feats = issue_evidence(index, text, repo_dir=work, candidate_files=EXPAND)
    gsyms = gold_symbols(index, patch)
    gold = {(p, q) for p, names in gsyms for q in names}
    sids = sorted(feats)
    top_file = max(sc.file.values(), default=0.0) or 1.0
    file_rank = {p: i for i, (p, _v) in enumerate(sorted(sc.file.items(), key=lambda kv: (-kv[1], kv[0])), 1)}
    cands = [[sc.syms[i].path, sc.syms[i].qualname, sc.syms[i].kind, sc.syms[i].start_line, sc.syms[i].end_line,
              round(sc.file.get(sc.syms[i].path, 0.0) / top_file, 6),
              file_rank[sc.syms[i].path] if i in sc.expanded else 0] for i in sids]
    return {
        "case_id": case["case_id"], "repo": case["repo"], "text_kind": case["text_kind"],
        "languages": list(index.languages()),
        "gold_files": gold_files(patch), "gold_hunks": gold_hunks(patch), "gold_symbols": gsyms,
        "dloc": {k: ranked(dloc, k) for k in ("file", "symbol", "span")},
        "bm25": {k: ranked(base, k) for k in ("file", "symbol", "span")},
        "features": list(FEATURES), "x": [[round(v, 6) for v in vector(feats[i])] for i in sids],
        "y": [1.0 if (c[0], c[1]) in gold else 0.0 for c in cands], "candidates": cands,
        "gold_missed": len(gold - {(c[0], c[1]) for c in cands}),
        # the heuristic file scores (relative to the best), best first: a refit's file ranking
        # is replayed from them and its symbol probabilities (dloc._file_scores)
        "file_scores": [[p, round(v / top_file, 6)]
                        for p, v in sorted(sc.file.items(), key=lambda kv: (-kv[1], kv[0]))[:FILES_KEPT]],
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


def measure_cases(cases: list[dict], mirrors: Path, out: Path, limit: int | None = None) -> None:
    """Every case's result under OUT/results/ (`limit`: at most this many cases a repository)."""
    order = round_robin(cases)
    if limit:
        order = [c for c in order if sum(1 for d in order[:order.index(c)] if d["repo"] == c["repo"]) < limit]
    for n, case in enumerate(order, 1):
        res = out / "results" / f"{case['case_id']}.json"
        if res.exists():
            continue
        cdir = out / "cases" / case["case_id"]
        if not (cdir / "meta.json").exists():
            raise SwevisError(f"{case['case_id']}: not prepared under {out / 'cases'} (swevis devset prepare first)")
        name = case["repo"].replace("/", "+")
        work = out / "work" / name
        t = time.process_time()
        move_work_tree(clone_path(mirrors, case["mirror"]), work, case["base_commit"])
        stats = build_index(work, out / "work" / f"{name}.sqlite", repo=case["repo"], commit=case["base_commit"])
        t_index = time.process_time() - t
        with open_index(out / "work" / f"{name}.sqlite") as index:
            r = evaluate_case(index, work, case, (cdir / "problem_statement.md").read_text(), (cdir / "patch.diff").read_text())
        r["cpu"] = {"index": round(t_index, 3), "parsed": stats.files_parsed, "total": round(time.process_time() - t, 3)}
        write_atomic(res, json.dumps(r))
        log.info("[%d/%d] %s: %d files parsed, index %.1f s, case %.1f CPU s", n, len(order), case["case_id"],
                 stats.files_parsed, t_index, r["cpu"]["total"])


def load_results(out: Path, case_ids: set[str] | None = None) -> list[dict]:
    """The stored results (of `case_ids` only, when given), in case-id order."""
    res = [json.loads(p.read_text()) for p in sorted((out / "results").glob("*.json"))]
    res = [r for r in res if case_ids is None or r["case_id"] in case_ids]
    if not res:
        raise SwevisError(f"no case results under {out / 'results'} (swevis devset measure first)")
    return res
