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

`history` counts, for every case, what the last commits before its base changed (files and
definitions: swevis.localize.history) into OUT/history/, from which `cv` adds the history
features; without it they are 0.

    nice -n 15 .venv/bin/python benchmarks/eval_devset.py run --mirrors /work/.mirror --out DIR [--limit N]
    .venv/bin/python benchmarks/eval_devset.py report --out DIR
    .venv/bin/python benchmarks/eval_devset.py history --mirrors /work/.mirror --out DIR [--depth 3000]
    .venv/bin/python benchmarks/eval_devset.py cv --mirrors /work/.mirror --out DIR [--synthetic] [--only VARIANT]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# one BLAS thread: the re-fits are many small products; on this project's shared 2-core machines
# a second BLAS thread spinning against the other job made a listwise fit 4x slower in CPU
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from swevis.index import build_index, open_index
from swevis.localize.coverage import gold_files, gold_hunks, gold_symbols
from swevis.localize.dloc import bm25_baseline, by_kind, issue_evidence, localize_issue
from swevis.localize.hints import extract_hints
from swevis.localize.history import HISTORY_FEATURES, History, git_log, history_features, read_history
from swevis.localize.rerank import FEATURES, FLAGS, default_model, fit, fit_listwise, vector, weights_path
from swevis.localize.symtext import (
    NAME_FEATURES, SET_FEATURES, TEXT_FEATURES, IssueWords, file_context, found_terms, name_features, quoted_strings,
    frame_features, set_features, text_features,
)

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
    if out.returncode != 0 and b"unable to read sha1 file" in out.stderr:
        lay_out_without_missing_blobs(git_dir, work, commit, env)
    elif out.returncode != 0:
        raise build_devset.MineError(f"{git_dir}: cannot lay out {commit}: {out.stderr.decode(errors='replace').strip()[:300]}")


def lay_out_without_missing_blobs(git_dir: Path, work: Path, commit: str, env: dict) -> None:
    """Lay out `commit` afresh without the files whose blobs the clone lacks (a snapshot may
    leave out its largest files, data files in practice), so the rest is indexed as it is."""
    listing = build_devset.git(git_dir, "ls-tree", "-r", "-z", commit).split("\0")
    blobs = {e.split("\t", 1)[0].split()[2]: e.split("\t", 1)[1] for e in listing if e and " blob " in e}
    check = subprocess.run(["git", "--git-dir", str(git_dir), "cat-file", "--batch-check"], capture_output=True,
                           input="\n".join(blobs).encode(), check=True).stdout.decode().splitlines()
    missing = [blobs[line.split()[0]] for line in check if line.endswith(" missing")]
    shutil.rmtree(work)
    work.mkdir()
    base = ["git", "--git-dir", str(git_dir), "--work-tree", str(work)]
    subprocess.run([*base, "read-tree", "--reset", commit], env=env, check=True, capture_output=True)
    subprocess.run([*base, "update-index", "--force-remove", "-z", "--stdin"], env=env, check=True,
                   input="\0".join(missing).encode(), capture_output=True)
    subprocess.run([*base, "checkout-index", "-a", "-f"], env=env, check=True, capture_output=True)
    print(f"{commit[:10]}: laid out without {len(missing)} files the clone lacks: {', '.join(missing[:3])}",
          file=sys.stderr)


def ranked(cands, kind: str) -> list[list]:
    return [[c.path, c.qualified_name, c.start_line, c.end_line] for c in by_kind(cands, kind)[:TOP]]


EXPAND = 5  # candidate_files of the run: every subset 0..EXPAND is measured from its results


def evaluate(index, work: Path, case: dict, text: str, patch: str) -> dict:
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
                out.append({"case": r["case_id"], "repo": r["repo"], "kind": r["text_kind"], "method": method, "k": k,
                            "level": level, "share": share, "any": float(anyhit)})
    return out


def mean(vals: list[float]) -> float:
    vals = [v for v in vals if v == v]
    return sum(vals) / len(vals) if vals else float("nan")


def print_release(rows: list[dict], measure: str) -> None:
    """Pooled and per-repository hit@k of D_loc (shipped) and BM25."""
    print(f"\n{measure} of gold hit at k = {'/'.join(map(str, KS))}, D_loc (release) | BM25")
    print(f"{'repository':<28}{'n':>5}  {'file':^23}  {'symbol':^23}  {'span':^23}")
    repos = sorted({r["repo"] for r in rows})
    kinds = sorted({r["kind"] for r in rows})
    for repo in [*repos, *(f"all: {k}" for k in kinds if len(kinds) > 1), "all"]:
        sel = [r for r in rows if repo in ("all", r["repo"], f"all: {r['kind']}")]
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


EXTRA = (*TEXT_FEATURES, "file_score", "in_file_rank", *NAME_FEATURES, *SET_FEATURES, "in_frame")
BASE = tuple(f for f in FEATURES if f not in EXTRA and f not in HISTORY_FEATURES)  # stored with each case
ALL_NAMES = (*BASE, *EXTRA, *HISTORY_FEATURES)
HISTORY_DEPTH = 1000  # past commits the history features count (cv --history-depth measures others)


def extra_features(r: dict, case: dict, text: str, mirrors: Path) -> tuple[np.ndarray, list[frozenset[str]]]:
    """The symbol-text, name and file features of a case's candidates (swevis.localize.symtext)
    from the clone at the case's base commit, as D_loc computes them from the checkout, and the
    issue's words each candidate's lines hold; for results stored before D_loc computed them
    (in_file_rank and the candidate-set features are set per candidate set: View)."""
    hints = extract_hints(text)
    quoted = quoted_strings(text)
    words = IssueWords(text)
    cands = r["candidates"]
    files = blobs(mirrors / case["mirror"] / "repo", case["base_commit"], sorted({c[0] for c in cands}))
    rows, found = [], []
    in_frame = frame_features(hints, [c[0] for c in cands], [(c[3], c[4]) for c in cands])
    for c, framed in zip(cands, in_frame):
        body = "\n".join(files[c[0]][c[3] - 1:c[4]])
        f = {**text_features(hints, quoted, c[1], c[2], body), **name_features(words, c[0], c[1], c[2]),
             "in_frame": framed}
        rows.append([f.get(n, c[5] if n == "file_score" else 0.0) for n in EXTRA])
        found.append(found_terms(words, body))
    return np.array(rows, dtype=float).reshape(len(cands), len(EXTRA)), found


def ranked_order(cands: list[list], scores: np.ndarray) -> list[int]:
    """The candidates' indices by score, ties as D_loc breaks them (path, first line)."""
    return sorted(range(len(scores)), key=lambda i: (-scores[i], cands[i][0], cands[i][3]))


def ranked_symbols(cands: list[list], scores: np.ndarray) -> list[tuple[str, str]]:
    return [(cands[i][0], cands[i][1]) for i in ranked_order(cands, scores)]


def symbol_rows(r: dict, cands: list[list], scores: np.ndarray, method: str) -> list[dict]:
    """Symbol hit rows of one case's ranking (files for module-level hunks: the release's)."""
    syms = ranked_symbols(cands, scores)
    files = [c[0] for c in r["dloc"]["file"]]
    out = []
    for k in KS:
        share, anyhit = symbol_hits(r["gold_symbols"], syms, files, k)
        out.append({"case": r["case_id"], "repo": r["repo"], "kind": r["text_kind"], "method": method, "k": k,
                    "level": "symbol", "share": share, "any": anyhit, "lost": lost_where(r, syms, files, k) if anyhit == 0.0 else ""})
    return out


LOST = {
    "file": "gold a candidate, its file not in the top 5 files",
    "neighbours": "gold file in the top 5, its other symbols chosen",
    "other files": "gold file in the top 5, none of its symbols chosen",
    "added only": "gold only among the best files' added definitions",
    "no candidate": "gold symbol not a candidate",
    "module level": "module-level hunks only, file not in the top 5",
}


def lost_where(r: dict, syms: list[tuple[str, str]], files: list[str], k: int) -> str:
    """Why a case's top-k symbols miss every gold hunk (a key of LOST); files: the release's."""
    named = [(p, n) for p, names in r["gold_symbols"] for n in names]
    if not named:
        return "module level"
    ranked = set(syms)
    gold_files = {p for p, n in named if (p, n) in ranked}
    if not gold_files:
        added = {(c[0], c[1]) for c in r["candidates"]}
        return "added only" if any(g in added for g in named) else "no candidate"
    if not gold_files & set(files[:k]):
        return "file"
    return "neighbours" if any(p in gold_files for p, _ in syms[:k]) else "other files"


def print_lost(table: dict, names: list[str], k: int = 5) -> None:
    """Where symbol hit@k is lost, per method: shares of the cases, pooled and per repository."""
    print(f"\nwhere symbol hit@{k} is lost (% of cases; files: the release's top {k})")
    keys = list(LOST)
    print(f"{'method / held-out repository':<34}{'n':>5}{'hit':>6}" + "".join(f"{c[:11]:>12}" for c in keys))
    for name in names:
        rows = [x for x in table[name] if x["k"] == k and x["any"] == x["any"]]
        for repo in ["all", *sorted({x["repo"] for x in rows})]:
            sel = [x for x in rows if repo in ("all", x["repo"])]
            cells = "".join(f"{100 * sum(x['lost'] == c for x in sel) / len(sel):>12.1f}" for c in keys)
            label = name if repo == "all" else f"  {repo}"
            print(f"{label[:34]:<34}{len(sel):>5}{100 * mean([x['any'] for x in sel]):>6.1f}{cells}")
    print("  " + "; ".join(f"{c}: {v}" for c, v in LOST.items()))


def case_matrix(r: dict, case: dict, out: Path, mirrors: Path,
                depth: int = HISTORY_DEPTH) -> tuple[np.ndarray, list | None]:
    """One case's candidates by ALL_NAMES (stored where the run computed them: then body_terms
    keeps its value over the run's candidates, their found words being unknown), and the
    issue's words in each candidate's lines (None when stored)."""
    x = np.array(r["x"], dtype=float).reshape(len(r["y"]), len(r["features"]))
    hist = history_columns(r, case_history(out, r, depth), depth)
    stored = (*BASE, *EXTRA)
    if all(n in r["features"] for n in stored):
        return np.hstack([x[:, [r["features"].index(n) for n in stored]], hist]), None
    text = (out / "cases" / r["case_id"] / "problem_statement.md").read_text()
    extra, found = extra_features(r, case, text, mirrors)
    return np.hstack([x[:, [r["features"].index(n) for n in BASE]], extra, hist]), found


def history_run(cases: list[dict], mirrors: Path, out: Path, depth: int) -> None:
    """Per repository, the last `depth` commits before each case's base (git rev-list, the walk
    swevis.localize.history.read_history makes) and, parsed once for all its cases, what each
    of them changed: OUT/history/<owner+name>.json. Prints the query-time cost: one
    read_history at the newest case's base per repository."""
    per: dict[str, list[dict]] = {}
    for c in cases:
        per.setdefault(c["repo"], []).append(c)
    (out / "history").mkdir(parents=True, exist_ok=True)
    for repo, cs in sorted(per.items()):
        git_dir = mirrors / cs[0]["mirror"] / "repo"
        lists = {c["case_id"]: build_devset.git(git_dir, "rev-list", "--no-merges", f"-n{depth}", c["base_commit"],
                                                "--", "*.py").split() for c in cs}
        union = sorted({h for v in lists.values() for h in v})
        h = git_log(["--git-dir", str(git_dir)], ["--no-walk=unsorted", "--stdin"], "\n".join(union) + "\n")
        commits = {k: [sorted(f), sorted(map(list, d))] for k, (f, d) in zip(h.hashes, h.commits)}
        if set(commits) != set(union):
            raise build_devset.MineError(f"{repo}: git log read {len(commits)} of {len(union)} commits")
        (out / "history" / f"{repo.replace('/', '+')}.json").write_text(
            json.dumps({"depth": depth, "lists": lists, "commits": commits}))
        newest = max(cs, key=lambda c: int(c["committed"]))
        t = time.process_time()
        t_wall = time.time()
        read_history(["--git-dir", str(git_dir)], newest["base_commit"], depth)
        print(f"{repo}: {len(cs)} cases, {len(union)} commits; read_history at depth {depth}: "
              f"{time.process_time() - t:.2f} CPU s in python, {time.time() - t_wall:.2f} s wall", file=sys.stderr)


_REPO_HISTORY: dict[Path, dict] = {}


def case_history(out: Path, r: dict, depth: int = HISTORY_DEPTH) -> History | None:
    """The History before a case's base commit, from OUT/history (None before `history` ran)."""
    path = out / "history" / f"{r['repo'].replace('/', '+')}.json"
    if path not in _REPO_HISTORY:
        _REPO_HISTORY[path] = json.loads(path.read_text()) if path.exists() else {}
    h = _REPO_HISTORY[path]
    if r["case_id"] not in h.get("lists", {}):
        return None
    if h["depth"] < depth:
        raise build_devset.MineError(f"{path} counts {h['depth']} commits, fewer than {depth}: rerun history")
    hashes = h["lists"][r["case_id"]]
    commits = [(frozenset(h["commits"][k][0]), frozenset(map(tuple, h["commits"][k][1]))) for k in hashes]
    return History(commits, hashes)


def history_columns(r: dict, history: History | None, depth: int = HISTORY_DEPTH) -> np.ndarray:
    """The history features (HISTORY_FEATURES) of a case's candidates; 0 without a history."""
    cols = np.zeros((len(r["y"]), len(HISTORY_FEATURES)))
    if history is not None:
        for i, c in enumerate(r["candidates"]):
            f = history_features(history, depth, c[0], c[1])
            cols[i] = [f[n] for n in HISTORY_FEATURES]
    return cols


class View:
    """A case's candidates when the symbols of the `n_files` best files are added (0: only those
    with evidence), with in_file_rank and the candidate-set features over that set."""

    def __init__(self, r: dict, m: tuple[np.ndarray, list | None], n_files: int):
        m, found = m
        keep = [i for i, c in enumerate(r["candidates"]) if (c[6] if len(c) > 6 else 0) <= n_files]
        self.cands = [r["candidates"][i] for i in keep]
        self.y = np.array([r["y"][i] for i in keep], dtype=float)
        self.m = m[keep].copy() if keep else np.zeros((0, len(ALL_NAMES)))
        if not keep:
            return
        paths = [c[0] for c in self.cands]
        heuristic = list(self.m[:, ALL_NAMES.index("heuristic")])
        self.m[:, ALL_NAMES.index("in_file_rank")] = file_context(paths, heuristic)
        kept_found = [found[i] for i in keep] if found is not None else [frozenset()] * len(keep)
        for name, values in set_features(paths, heuristic, list(self.m[:, ALL_NAMES.index("file_score")]),
                                         kept_found).items():
            if name != "body_terms" or found is not None:
                self.m[:, ALL_NAMES.index(name)] = values


# the re-ranker of the release before this development set (ranker_weights.json at ee96923),
# kept to measure against after the shipped weights are re-fitted
RELEASE = {"features": ["heuristic", "heuristic_rank", "symptom", "walk", "chain", "is_class", "is_exception", "is_private"],
           "weights": [1.885348, 0.697592, 2.479314, 1.216429, 0.198491, -0.579476, -0.213497, 0.813624],
           "bias": -2.388234}
NO_FRAMES = tuple(n for n in (*BASE, *EXTRA) if n != "in_frame")
FEATURE_SETS = {
    "release features": BASE,
    "+ symbol text, file context": (*BASE, *TEXT_FEATURES, "file_score", "in_file_rank"),  # the fit of 2026-12-02 a.m.
    "+ names, candidate set": NO_FRAMES,
    "+ names, candidate set, frames": (*BASE, *EXTRA),
    "+ names, candidate set, history": (*NO_FRAMES, *HISTORY_FEATURES),
    "+ names, candidate set, frames, history": (*BASE, *EXTRA, *HISTORY_FEATURES),
}
LOSSES = {"pointwise": fit, "listwise": fit_listwise}  # swevis.localize.rerank


def variants(n_files: int) -> dict[str, tuple[tuple, int, str]]:
    """Every (feature set, loss) pair measured, with the candidates of the `n_files` best files
    added (0: none; with the earlier features on 633 cases, 5 files scored 0.3 points below 0)."""
    return {f"{name}, {loss}": (names, n_files, loss) for name, names in FEATURE_SETS.items() for loss in LOSSES}


def synthetic_groups() -> list[tuple[np.ndarray, np.ndarray]]:
    """The project's 42 small cases (bundled sample and held-out sets, benchmarks/fit_ranker.py)
    as (features by ALL_NAMES, gold labels): added to every fit with --synthetic."""
    import fit_ranker
    from bench_localize import case_index

    out = []
    with tempfile.TemporaryDirectory(prefix="eval-devset-synthetic-") as tmp:
        opened: dict = {}
        try:
            for row in fit_ranker.training_rows():
                index = case_index(row, Path(tmp), opened)
                sc, feats = issue_evidence(index, row["problem_statement"])
                gold = {(p, q) for p, names in gold_symbols(index, row["patch"]) for q in names}
                sids = sorted(feats)
                out.append((np.array([vector(feats[i], ALL_NAMES) for i in sids]).reshape(len(sids), len(ALL_NAMES)),
                            np.array([1.0 if (sc.syms[i].path, sc.syms[i].qualname) in gold else 0.0 for i in sids])))
        finally:
            for idx in opened.values():
                idx.close()
    return out


def cross_validate(results: list[dict], mats: list, names: tuple, n_files: int, l2: float,
                   extra: list | None = None, loss: str = "pointwise") -> list[dict]:
    """Leave-one-repository-out: fit on the other repositories' cases (and `extra` groups, by
    ALL_NAMES), rank the held-out ones."""
    cols = [ALL_NAMES.index(n) for n in names]
    views = [View(r, m, n_files) for r, m in zip(results, mats)]
    rows = []
    for held in sorted({r["repo"] for r in results}):
        train = [(v.m[:, cols], v.y) for r, v in zip(results, views) if r["repo"] != held and len(v.y)]
        train += [(m[:, cols], y) for m, y in extra or []]
        w, b = LOSSES[loss](train, l2=l2, nonnegative=tuple(n not in FLAGS for n in names))
        for r, v in zip(results, views):
            if r["repo"] == held:
                rows += symbol_rows(r, v.cands, v.m[:, cols] @ w + b if len(v.y) else np.zeros(0), "cv")
    return rows


def hit_line(rows: list[dict]) -> str:
    a = "/".join(f"{100 * mean([x['any'] for x in rows if x['k'] == k]):.1f}" for k in KS)
    s = "/".join(f"{100 * mean([x['share'] for x in rows if x['k'] == k]):.1f}" for k in KS)
    return f"{a:>24} | {s}"


def release_symbol_rows(results: list[dict], mats: list) -> list[dict]:
    """The release's symbol ranking, replayed from the stored features; checked against the
    ranking the run's D_loc produced (a mismatch is printed, never hidden)."""
    w0 = np.array(vector(dict(zip(RELEASE["features"], RELEASE["weights"])), BASE))
    base = [ALL_NAMES.index(n) for n in BASE]
    rows, same = [], 0
    for r, m in zip(results, mats):
        v = View(r, m, 0)
        scores = v.m[:, base] @ w0 if len(v.y) else np.zeros(0)
        same += ranked_symbols(v.cands, scores)[:TOP] == [(c[0], c[1]) for c in r["dloc"]["symbol"]]
        rows += symbol_rows(r, v.cands, scores, "release")
    print(f"the release weights over the stored features rank {same} of {len(results)} cases' top {TOP} symbols"
          " exactly as the run's release D_loc did")
    return rows


def run_cv(results: list[dict], mats: list, l2: float, max_files: int, extra: list | None = None,
           only: list[str] | None = None) -> tuple[dict, str]:
    """The release re-ranker against leave-one-repository-out re-fits with and without the new
    features and candidates, by symbol hit; returns the table and the variant with the best
    held-out symbol hit@5 (any gold hunk)."""
    table = {"release": release_symbol_rows(results, mats)}
    for name, (names, n, loss) in variants(max_files).items():
        if only and name not in only:
            continue
        table[name] = cross_validate(results, mats, names, n, l2, extra, loss)
        print(f"  {name}: done", file=sys.stderr, flush=True)
    print(f"\nsymbol hit at k = {'/'.join(map(str, KS))} (any gold hunk | share of gold hunks), "
          f"{len(results)} cases, leave-one-repository-out for every re-fit")
    kinds = sorted({x["kind"] for x in table["release"]})
    for name, rows in table.items():
        print(f"  {name:<34} {hit_line(rows)}")
        for kind in kinds if len(kinds) > 1 else ():
            sel = [x for x in rows if x["kind"] == kind]
            print(f"    {kind} ({len(sel) // len(KS)}){'':<{max(0, 27 - len(kind))}}{hit_line(sel)}")
    vs = [v for v in variants(max_files) if v in table]
    best = max(vs, key=lambda n: (round(mean([x["any"] for x in table[n] if x["k"] == 5]), 9), -vs.index(n)))
    print(f"\nchosen by held-out symbol hit@5: {best}")
    print_lost(table, ["release", best])
    print(f"\n{'held-out repository':<28}{'n':>5}  {'release':>24}   {best} (CV)")
    for repo in sorted({r["repo"] for r in results}):
        rel = [x for x in table["release"] if x["repo"] == repo]
        cv = [x for x in table[best] if x["repo"] == repo]
        print(f"{repo:<28}{len(rel) // len(KS):>5}  {hit_line(rel).split(' | ')[0]:>24}   {hit_line(cv).split(' | ')[0]}")
    return table, best


def write_weights(results: list[dict], mats: list, l2: float, table: dict, best: str,
                  max_files: int, extra: list | None = None, depth: int = HISTORY_DEPTH) -> None:
    """Fit the chosen variant on every case and ship its weights (with the candidate_files they
    were fitted for), their provenance and CV estimate."""
    names, n_files, loss = variants(max_files)[best]
    cols = [ALL_NAMES.index(n) for n in names]
    views = [View(r, m, n_files) for r, m in zip(results, mats)]
    groups = [(v.m[:, cols], v.y) for v in views if len(v.y)] + [(m[:, cols], y) for m, y in extra or []]
    w, b = LOSSES[loss](groups, l2=l2, nonnegative=tuple(n not in FLAGS for n in names))
    est = {f"symbol@{k}": round(mean([x["any"] for x in table[best] if x["k"] == k]), 4) for k in KS}
    rel = {f"symbol@{k}": round(mean([x["any"] for x in table["release"] if x["k"] == k]), 4) for k in KS}
    model = {"features": list(names), "weights": [round(float(v), 6) for v in w], "bias": round(b, 6),
             "candidate_files": n_files, "loss": loss,
             **({"history_depth": depth} if set(HISTORY_FEATURES) & set(names) else {}), "fitted_on": sorted(r["case_id"] for r in results), "l2": l2,
             "fitted": dt.date.today().isoformat(), "leave_one_repository_out": est, "release_on_same_cases": rel,
             "measure": "any gold hunk's symbol in the top k (module-level hunks: the file)",
             "synthetic_cases": len(extra or []),
             "how": "benchmarks/eval_devset.py cv --write (cases: benchmarks/devset/cases.csv, issues.csv)",
             "args": ["--l2", str(l2), "--files", str(max_files), "--only", best, "--history-depth", str(depth),
                      *(["--synthetic"] if extra else [])]}
    target = Path(os.environ.get("SWEVIS_RANKER_WEIGHTS_OUT") or str(weights_path()))  # a test writes elsewhere
    target.write_text(json.dumps(model, indent=1) + "\n")
    print(f"wrote {target}: {best}, fitted on {len(groups)} cases")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("run", help="index along history and keep each case's rankings and features")
    r.add_argument("--mirrors", type=Path, required=True)
    r.add_argument("--out", type=Path, required=True, help="the folder `build_devset.py prepare` wrote")
    r.add_argument("--limit", type=int, help="at most this many cases per repository")
    r.add_argument("--repos", nargs="+", help="only these repositories (owner/name): runs on disjoint sets share nothing")
    p = sub.add_parser("report", help="hit@k of the shipped D_loc and of BM25, pooled and per repository")
    p.add_argument("--out", type=Path, required=True)
    h = sub.add_parser("history", help="count each case's past changes per file and definition (git log)")
    h.add_argument("--out", type=Path, required=True)
    h.add_argument("--mirrors", type=Path, required=True)
    h.add_argument("--depth", type=int, default=HISTORY_DEPTH)
    c = sub.add_parser("cv", help="re-fit the re-ranker (with the symbol-text and file features) by leave-one-repository-out")
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--mirrors", type=Path, required=True)
    c.add_argument("--l2", type=float, default=1.0)
    c.add_argument("--files", type=int, default=0, choices=range(EXPAND + 1), metavar=f"0..{EXPAND}",
                   help="add the definitions of this many best files as candidates (the run stored them)")
    c.add_argument("--only", nargs="+", choices=list(variants(0)), metavar="VARIANT",
                   help=f"measure (and choose among) only these variants: {'; '.join(variants(0))}")
    c.add_argument("--history-depth", type=int, default=HISTORY_DEPTH,
                   help="past commits the history features count (at most the depth `history` stored)")
    c.add_argument("--write", action="store_true", help="fit the chosen features on every case and ship the weights")
    c.add_argument("--synthetic", action="store_true",
                   help="add the project's 42 small cases (bundled sample, held-out sets) to every fit")
    c.add_argument("--shipped-cases", action="store_true",
                   help="only the cases the shipped weights were fitted on (to reproduce them while a run goes on)")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "run":
            cases = [c for c in build_devset.read_cases() if not args.repos or c["repo"] in args.repos]
            run(cases, args.mirrors, args.out, args.limit)
        elif args.cmd == "history":
            history_run(build_devset.read_cases(), args.mirrors, args.out, args.depth)
        elif args.cmd == "cv":
            cases = {c["case_id"]: c for c in build_devset.read_cases()}
            results = load_results(args.out)
            if args.shipped_cases:
                shipped = set(default_model()["fitted_on"])
                results = [r for r in results if r["case_id"] in shipped]
            mats = [case_matrix(r, cases[r["case_id"]], args.out, args.mirrors, args.history_depth) for r in results]
            extra = synthetic_groups() if args.synthetic else None
            table, best = run_cv(results, mats, args.l2, args.files, extra, args.only)
            if args.write:
                write_weights(results, mats, args.l2, table, best, args.files, extra, args.history_depth)
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
