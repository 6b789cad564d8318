"""What else could lift D_loc's symbol ranking on the development set,
each probe against the shipped re-ranker's features re-fitted the same way, every repository
ranked by a fit without it.

The reference is the shipped features, re-fitted listwise and held out by repository
(swevis.localize.devset.crossval, without the small cases). Each probe changes one thing and
reports symbol hit at k = 1/3/5/10 (any gold hunk) on the same cases:

- files:    the definitions of the 5 best files as candidates too;
- recency:  the history's counts decayed by age (exp(-i/30) for the i-th past commit), a
            feature beside hist_file / hist_sym;
- trees:    gradient-boosted trees (LightGBM's lambdarank) over the same features instead of
            the linear model (needs `pip install lightgbm`; not a dependency of swevis);
- dense:    a second stage over the reference's top 20: the all-MiniLM-L6-v2 cosine between
            the issue (its first 1,000 characters) and each symbol's name and the 21 lines from
            its first (128 tokens at most), fitted with the reference's score (the embedding
            of swevis.agents.mechanisms.embedding, about 0.5 CPU s a case, so on 1 case in
            `--dense-every`; the training repositories' reference scores come from fits that
            saw the held-out one, a small leak for two weights);
- literals: not a ranking, a recall count: the issue's quoted strings and error messages
            searched (`git grep -F -i`) in the case's base commit, and how often a hit that few
            files share lies in a gold symbol that the shipped model does not see as a candidate.

It reads what `swevis devset measure` and `history` stored and the clones' objects; nothing
is fitted on a SWE-bench Verified instance (the case lists refuse them).
"""

from __future__ import annotations

import ast
import math
import re
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from swevis.localize.devset.gitio import blobs, clone_path
from swevis.localize.devset.pasthistory import case_history
from swevis.localize.devset.scoring import KS, mean, ranked_order, symbol_rows
from swevis.localize.dloc import is_test_module
from swevis.localize.rerank import fit_listwise
from swevis.localize.symtext import quoted_strings

TAU = 30  # past commits over which the recency weight falls by e
DENSE_TOP = 20


def trees(train):
    """LightGBM lambdarank, a plain setting (100 trees of 15 leaves, learning rate 0.05)."""
    import lightgbm

    used = [(x, y) for x, y in train if 0 < y.sum() < len(y)]
    data = lightgbm.Dataset(np.vstack([x for x, _ in used]), np.concatenate([y for _, y in used]),
                            group=[len(y) for _, y in used])
    params = {"objective": "lambdarank", "learning_rate": 0.05, "num_leaves": 15, "min_data_in_leaf": 50,
              "num_threads": 1, "verbose": -1, "seed": 1}
    booster = lightgbm.train(params, data, num_boost_round=100)
    return booster.predict


def recency_column(out: Path, r: dict, cands: list[list], depth: int) -> np.ndarray:
    """log(1 + the changes of each candidate's definition, the i-th past commit weighing exp(-i/TAU))."""
    history = case_history(out, r, depth)
    weight: dict[tuple[str, str], float] = {}
    for i, (_files, defs) in enumerate(history.commits[:depth] if history else ()):
        for d in defs:
            weight[d] = weight.get(d, 0.0) + math.exp(-i / TAU)
    return np.array([[math.log1p(weight.get((c[0], c[1].rsplit(".", 1)[-1]), 0.0))] for c in cands]).reshape(-1, 1)


def dense_features(sample, reference: dict, cases: dict, out: Path, mirrors: Path, embedder) -> dict:
    """Per sampled case, (its reference top DENSE_TOP, [reference score, MiniLM cosine] of each)."""
    stage: dict[str, tuple[list[int], np.ndarray]] = {}
    for n, (r, v) in enumerate(sample, 1):
        s = reference[r["case_id"]]
        top = ranked_order(v.cands, s)[:DENSE_TOP]
        case = cases[r["case_id"]]
        files = blobs(clone_path(mirrors, case["mirror"]), case["base_commit"], sorted({v.cands[i][0] for i in top}))
        texts = [v.cands[i][1].replace(".", " ") + "\n" + "\n".join(
            line.strip() for line in files[v.cands[i][0]][v.cands[i][3] - 1:v.cands[i][3] + 20]) for i in top]
        text = (out / "cases" / r["case_id"] / "problem_statement.md").read_text()[:1000]
        vecs = embedder.encode([text, *texts])
        stage[r["case_id"]] = (top, np.column_stack([s[top] - s[top].max(), vecs[1:] @ vecs[0]]))
        if n % 100 == 0:
            print(f"  dense: {n} of {len(sample)} cases embedded", file=sys.stderr, flush=True)
    return stage


def dense_stage(results, views, reference: dict, cases: dict, out: Path, mirrors: Path, every: int) -> tuple[list, list]:
    """(reference rows, second-stage rows) on every `every`-th case: the top DENSE_TOP by the
    reference re-ordered by a listwise fit of [reference score, MiniLM cosine], held out by repository."""
    from swevis.agents.mechanisms.embedding import default_model_dir, load_embedder

    if default_model_dir() is None:
        raise RuntimeError("the MiniLM weights are not installed (swevis.agents.mechanisms.embedding says how)")
    embedder = load_embedder("minilm")
    embedder.tokenizer.enable_truncation(128)
    sample = [(r, v) for i, (r, v) in enumerate(zip(results, views)) if i % every == 0 and len(v.y)]
    cpu = time.process_time()
    stage = dense_features(sample, reference, cases, out, mirrors, embedder)
    print(f"  dense: {(time.process_time() - cpu) / max(1, len(sample)):.2f} CPU s a case to read and embed its top {DENSE_TOP}")
    ref_rows, rows = [], []
    for held in sorted({r["repo"] for r, _ in sample}):
        train = [(stage[r["case_id"]][1], v.y[stage[r["case_id"]][0]]) for r, v in sample if r["repo"] != held]
        w, _b = fit_listwise(train, l2=1.0, nonnegative=(True, False))
        for r, v in sample:
            if r["repo"] == held:
                top, x = stage[r["case_id"]]
                s = reference[r["case_id"]].copy()
                ref_rows += symbol_rows(r, v.cands, s, "reference")
                s[top] = s.max() + 1.0 + (x @ w - (x @ w).min())  # the re-ordered top stays on top
                rows += symbol_rows(r, v.cands, s, "dense")
    return ref_rows, rows


MESSAGE = re.compile(r"^\s*(?:[\w.]*(?:Error|Exception|Warning)|error|warning|ERROR|WARNING)\s*:\s*(.+)$", re.M)
MESSAGE_SPLIT = re.compile(r"""['"`{}%()\[\]<>:=]|\b0x[0-9a-f]+\b|\d+""")


def literal_phrases(text: str) -> list[str]:
    """The issue's quoted strings that are more than a word, and the runs of 3+ words of its error
    messages between quotes, numbers and brackets (where a message's template has placeholders)."""
    out = [q for q in quoted_strings(text) if " " in q.strip() or not q.replace("_", "").isalnum()]
    for m in MESSAGE.finditer(text):
        out += [p.strip(" .,;").lower() for p in MESSAGE_SPLIT.split(m.group(1))
                if len(p.strip(" .,;")) >= 12 and len(p.split()) >= 3]
    return list(dict.fromkeys(out))[:20]


def enclosing(source: list[str], line: int) -> str | None:
    """The qualified name of the innermost def/class around a line, as gold_symbols counts it
    (swevis.localize.coverage): a function local to a function counts as that function."""
    try:
        tree = ast.parse("\n".join(source))
    except (SyntaxError, ValueError):
        return None
    best, todo = None, [(tree, "", False)]
    while todo:
        node, prefix, in_function = todo.pop()
        for ch in ast.iter_child_nodes(node):
            is_def = isinstance(ch, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
            if is_def and not in_function and ch.lineno <= line <= (ch.end_lineno or ch.lineno):
                best = prefix + ch.name
            if is_def and not in_function:
                todo.append((ch, prefix + ch.name + ".", not isinstance(ch, ast.ClassDef)))
            else:
                todo.append((ch, prefix, in_function))  # defs under if/try/with, and a function's body
    return best


def literal_hits(git_dir: Path, commit: str, phrases: list[str], case_id: str) -> dict[str, set[tuple[str, int]]]:
    """(path, line) of every non-test Python line at `commit` holding each phrase (any case)."""
    cmd = ["git", "--git-dir", str(git_dir), "grep", "-F", "-i", "-n", "--no-color",
           *[a for p in phrases for a in ("-e", p)], commit, "--", "*.py"]
    grep = subprocess.run(cmd, capture_output=True, text=True, errors="replace")
    if grep.returncode > 1:  # 1: nothing found
        raise RuntimeError(f"{case_id}: git grep failed: {grep.stderr.strip()[:200]}")
    found: dict[str, set[tuple[str, int]]] = {}
    for line in grep.stdout.splitlines():
        parts = line.split(":", 3)  # COMMIT:path:line:text
        if len(parts) == 4 and parts[2].isdigit() and not is_test_module(parts[1]):
            for p in phrases:
                if p in parts[3].lower():
                    found.setdefault(p, set()).add((parts[1], int(parts[2])))
    return found


def literal_recall(results: list[dict], cases: dict, out: Path, mirrors: Path, max_files: int = 5) -> dict[str, int]:
    """How often the issue's literal phrases, found in at most `max_files` non-test files of the base
    commit, land in a gold symbol, and how often that symbol is no candidate (D_loc would gain it)."""
    count = dict.fromkeys(("cases", "with phrases", "selective hit", "in a gold symbol", "gold not a candidate"), 0)
    for r in results:
        case = cases[r["case_id"]]
        phrases = literal_phrases((out / "cases" / r["case_id"] / "problem_statement.md").read_text())
        count["cases"] += 1
        if not phrases:
            continue
        count["with phrases"] += 1
        git_dir = clone_path(mirrors, case["mirror"])
        found = literal_hits(git_dir, case["base_commit"], phrases, r["case_id"])
        selective = {h for hs in found.values() if len({f for f, _ in hs}) <= max_files for h in hs}
        if not selective:
            continue
        count["selective hit"] += 1
        gold = {(p, n) for p, names in r["gold_symbols"] for n in names}
        sources = blobs(git_dir, case["base_commit"], sorted({p for p, _ in selective} & {g for g, _ in gold}))
        in_gold = {(p, enclosing(sources[p], ln)) for p, ln in selective if p in sources} & gold
        seen = {(c[0], c[1]) for c in r["candidates"] if (c[6] if len(c) > 6 else 0) == 0}  # not the added ones
        if in_gold:
            count["in a gold symbol"] += 1
            count["gold not a candidate"] += not in_gold & seen
    return count


def hits(rows: list[dict]) -> str:
    return "/".join(f"{100 * mean([x['any'] for x in rows if x['k'] == k]):.1f}" for k in KS)
