"""The re-ranker per code language: held-out symbol and file hit@k of a fit on Python's cases
only (the ranker as it was fitted) against a fit with every language's cases in its data.

Every repository is ranked by a fit without it, as crossval.held_out does, over one of two
pools: `python`, the other Python repositories' cases (a repository of another language is
then ranked by a fit on every Python case), or `all`, every other repository's cases, Python's
and the other languages' mined fixes alike. Files are ranked as D_loc ranks them under the
re-ranker (swevis.localize.dloc._file_scores): a file's heuristic score (stored by `measure`,
relative to the best) plus `w_file_symbol` times the probability of its best symbol candidate
(relative to the best), so the file hit of any weights is measured without indexing again.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from swevis.localize.devset.caselists import LISTS_LANGUAGE
from swevis.localize.devset.crossval import fit_linear
from swevis.localize.devset.features import ALL_NAMES, View
from swevis.localize.devset.scoring import KS, TOP, mean, ranked_symbols, symbol_hits

POOLS = ("python", "all")
LEVELS = ("symbol", "file")


def case_language(case: dict) -> str:
    """A case's code language: its list's `language` column, else the lists' own (Python)."""
    return case.get("language") or LISTS_LANGUAGE


def probabilities(logits: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(logits, -50.0, 50.0)))


def replay_files(r: dict, cands: list[list], probs: np.ndarray, w_file_symbol: float) -> list[str]:
    """The case's files ranked as D_loc ranks them with these symbol probabilities: the
    stored heuristic file scores (a candidate's own when its file is past those kept) plus
    `w_file_symbol` times its best candidate's probability relative to the best."""
    scores = {p: float(v) for p, v in r.get("file_scores", [])}
    for c in cands:
        scores.setdefault(c[0], float(c[5]))
    if w_file_symbol > 0 and len(probs):
        top = float(max(probs)) or 1.0
        best: dict[str, float] = {}
        for c, p in zip(cands, probs):
            best[c[0]] = max(best.get(c[0], 0.0), float(p) / top)
        scores = {p: v + w_file_symbol * best.get(p, 0.0) for p, v in scores.items()}
    return sorted(scores, key=lambda p: (-scores[p], p))


def case_rows(r: dict, language: str, cands: list[list], logits: np.ndarray, method: str,
              w_file_symbol: float) -> list[dict]:
    """Symbol and file hit rows (any gold) of one case's ranking at every k."""
    syms = ranked_symbols(cands, logits)
    files = replay_files(r, cands, probabilities(logits), w_file_symbol)
    out = []
    for k in KS:
        _share, s_any = symbol_hits(r["gold_symbols"], syms, files, k)
        f_any = float(any(g in files[:k] for g in r["gold_files"]))
        for level, hit in (("symbol", s_any), ("file", f_any)):
            out.append({"case": r["case_id"], "repo": r["repo"], "language": language, "method": method,
                        "k": k, "level": level, "any": hit})
    return out


def model_rows(results: list[dict], views: list[View], languages: list[str], model: dict, method: str,
               w_file_symbol: float) -> list[dict]:
    """Every case ranked by fixed weights (`model`: features, weights, bias)."""
    cols = [ALL_NAMES.index(n) for n in model["features"]]
    w, b = np.array(model["weights"], dtype=float), float(model["bias"])
    rows = []
    for r, v, lang in zip(results, views, languages):
        logits = v.m[:, cols] @ w + b if len(v.y) else np.zeros(0)
        rows += case_rows(r, lang, v.cands, logits, method, w_file_symbol)
    return rows


def pooled_held_out(results: list[dict], views: list[View], languages: list[str], names: tuple[str, ...],
                    loss: str, l2: float, extra: list, pool: str, w_file_symbol: float,
                    fit: Callable = fit_linear) -> list[dict]:
    """Every repository ranked by a fit on the other repositories of `pool` (and `extra`
    groups, by `names`): one fit per distinct training set."""
    cols = [ALL_NAMES.index(n) for n in names]
    fits: dict[frozenset, tuple[np.ndarray, float]] = {}
    rows = []
    for held in sorted({r["repo"] for r in results}):
        train = [i for i, (r, v, lang) in enumerate(zip(results, views, languages))
                 if r["repo"] != held and len(v.y) and (pool == "all" or lang == LISTS_LANGUAGE)]
        key = frozenset(results[i]["repo"] for i in train)
        if key not in fits:
            fits[key] = fit([(views[i].m[:, cols], views[i].y) for i in train] + list(extra), names, loss, l2)
        w, b = fits[key]
        for r, v, lang in zip(results, views, languages):
            if r["repo"] == held:
                logits = v.m[:, cols] @ w + b if len(v.y) else np.zeros(0)
                rows += case_rows(r, lang, v.cands, logits, f"fit: {pool}", w_file_symbol)
    return rows


def replay_check(results: list[dict], views: list[View], model: dict, w_file_symbol: float) -> int:
    """How many cases' top 10 files `model` (the release's: the run's own D_loc) replays
    exactly as the run ranked them: the check that file ranks are measured as D_loc ranks."""
    cols = [ALL_NAMES.index(n) for n in model["features"]]
    w, b = np.array(model["weights"], dtype=float), float(model["bias"])
    same = 0
    for r, v in zip(results, views):
        logits = v.m[:, cols] @ w + b if len(v.y) else np.zeros(0)
        files = replay_files(r, v.cands, probabilities(logits), w_file_symbol)[:TOP]
        same += files == [f[0] for f in r["dloc"]["file"]]
    return same


def hit_table(rows: list[dict]) -> dict[tuple[str, str, str, int], float]:
    """{(language, method, level, k): % of cases hit}; language "all" pools every case."""
    out = {}
    for lang in ["all", *sorted({x["language"] for x in rows})]:
        for method in dict.fromkeys(x["method"] for x in rows):
            for level in LEVELS:
                for k in KS:
                    sel = [x["any"] for x in rows if x["method"] == method and x["level"] == level and x["k"] == k
                           and lang in ("all", x["language"])]
                    out[(lang, method, level, k)] = round(100 * mean(sel), 1)
    return out


def print_languages(rows: list[dict], ks: tuple[int, ...] = (1, 5)) -> None:
    """Per language and method: cases, symbol hit and file hit at `ks` (%)."""
    table = hit_table(rows)
    methods = list(dict.fromkeys(x["method"] for x in rows))
    n = {lang: len({x["case"] for x in rows if lang in ("all", x["language"])})
         for lang in ["all", *sorted({x["language"] for x in rows})]}
    at = "/".join(f"@{k}" for k in ks)
    print(f"held-out hit (% of cases, any gold): symbol {at} | file {at}")
    print(f"{'language':<12}{'n':>6}  " + "".join(f"{m:>26}" for m in methods))
    for lang in n:
        cells = ["/".join(f"{table[(lang, m, 'symbol', k)]:.1f}" for k in ks) + " | "
                 + "/".join(f"{table[(lang, m, 'file', k)]:.1f}" for k in ks) for m in methods]
        print(f"{lang:<12}{n[lang]:>6}  " + "".join(f"{c:>26}" for c in cells))


def print_shipped(rows: list[dict]) -> None:
    """Per language (or text kind) and pooled: file and symbol hit at every k (% of cases, any
    gold) of one method's rows (model_rows)."""
    table = hit_table(rows)
    method = rows[0]["method"] if rows else ""
    print(f"\nany of gold hit at k = {'/'.join(map(str, KS))}, D_loc ({method} weights, replayed)")
    print(f"{'cases':<28}{'n':>5}  {'file':>23}  {'symbol':>23}")
    for lang in sorted({x["language"] for x in rows}) + ["all"]:
        n = len({x["case"] for x in rows if lang in ("all", x["language"])})
        cells = ["/".join(f"{table[(lang, method, level, k)]:.1f}" for k in KS) for level in LEVELS[::-1]]
        print(f"{lang:<28}{n:>5}  " + "  ".join(f"{c:>23}" for c in cells))
