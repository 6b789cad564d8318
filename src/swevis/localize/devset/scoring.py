"""Hit rates of one case's rankings against its gold: the rows every table of the
development set is made of.

A row is one (case, method, k, level) with `share` (the share of gold hunks hit) and `any`
(whether any gold hunk is hit). A symbol hits a hunk it encloses; a module-level hunk (no
enclosing definition) is hit by its file in the top k (as swevis.localize.coverage.hit_rates).
"""

from __future__ import annotations

import numpy as np

KS = (1, 3, 5, 10)
TOP = 10  # the candidates of each kind a case's stored rankings keep

LOST = {
    "file": "gold a candidate, its file not in the top 5 files",
    "neighbours": "gold file in the top 5, its other symbols chosen",
    "other files": "gold file in the top 5, none of its symbols chosen",
    "added only": "gold only among the best files' added definitions",
    "no candidate": "gold symbol not a candidate",
    "module level": "module-level hunks only, file not in the top 5",
}


def mean(vals: list[float]) -> float:
    """The mean of the values that are numbers (NaN: a case without such gold), NaN if none."""
    vals = [v for v in vals if v == v]
    return sum(vals) / len(vals) if vals else float("nan")


def symbol_hits(gold_symbols: list, symbols: list[tuple[str, str]], files: list[str], k: int) -> tuple[float, float]:
    """(share of gold hunks hit, any hunk hit) by the top-k symbols; a module-level hunk (no
    enclosing definition) is hit by its file in the top k."""
    top, top_files = set(symbols[:k]), set(files[:k])
    hits = [(p in top_files) if not names else any((p, n) in top for n in names) for p, names in gold_symbols]
    return (sum(hits) / len(hits), float(any(hits))) if hits else (float("nan"), float("nan"))


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
                    "level": "symbol", "share": share, "any": anyhit,
                    "lost": lost_where(r, syms, files, k) if anyhit == 0.0 else ""})
    return out


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


def release_rows(r: dict) -> list[dict]:
    """Hit rates (share of gold and any gold hit) of a case's stored D_loc and BM25 rankings."""
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
