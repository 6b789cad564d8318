"""Leave-one-repository-out: every repository's cases ranked by a fit on the other
repositories' cases, so that no estimate has seen the code it ranks.

`held_out` is the one loop (any columns, any fit); `cross_validate` runs it for a variant with
the linear re-ranker, `compare_variants` for every variant beside the release's weights.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

import numpy as np

from swevis.localize.devset.features import ALL_NAMES, BASE, View
from swevis.localize.devset.scoring import KS, TOP, mean, ranked_symbols, symbol_rows
from swevis.localize.devset.variants import LOSSES, RELEASE, variants
from swevis.localize.rerank import FLAGS, vector

log = logging.getLogger(__name__)

Groups = list[tuple[np.ndarray, np.ndarray]]
Scorer = Callable[[np.ndarray], np.ndarray]


def held_out(results: list[dict], views: list[View], columns: Callable[[dict, View], np.ndarray],
             fit: Callable[[Groups], Scorer]) -> tuple[list[dict], dict[str, np.ndarray]]:
    """Symbol hit rows and each case's scores, every repository scored by `fit` (train groups ->
    a scoring function) over the other repositories' `columns(r, view)`."""
    rows, scores = [], {}
    for held in sorted({r["repo"] for r in results}):
        score = fit([(columns(r, v), v.y) for r, v in zip(results, views) if r["repo"] != held and len(v.y)])
        for r, v in zip(results, views):
            if r["repo"] == held:
                scores[r["case_id"]] = score(columns(r, v)) if len(v.y) else np.zeros(0)
                rows += symbol_rows(r, v.cands, scores[r["case_id"]], "cv")
    return rows, scores


def fit_linear(groups: Groups, names: tuple[str, ...], loss: str, l2: float) -> tuple[np.ndarray, float]:
    """The re-ranker's fit (swevis.localize.rerank): evidence weights kept >= 0, flags free."""
    return LOSSES[loss](groups, l2=l2, nonnegative=tuple(n not in FLAGS for n in names))


def linear(names: tuple[str, ...], loss: str = "listwise", l2: float = 1.0,
           extra: Groups | None = None) -> Callable[[Groups], Scorer]:
    """A fit for `held_out`: the linear re-ranker over `names`, with `extra` groups (the small
    cases, their columns already chosen) added to every training set."""
    def fit(train: Groups) -> Scorer:
        w, b = fit_linear(train + list(extra or []), names, loss, l2)
        return lambda x: x @ w + b
    return fit


def cross_validate(results: list[dict], mats: list, names: tuple, n_files: int, l2: float,
                   extra: list | None = None, loss: str = "pointwise") -> list[dict]:
    """Leave-one-repository-out: fit on the other repositories' cases (and `extra` groups, by
    ALL_NAMES), rank the held-out ones."""
    cols = [ALL_NAMES.index(n) for n in names]
    views = [View(r, m, n_files) for r, m in zip(results, mats)]
    extra_cols = [(m[:, cols], y) for m, y in extra or []]
    rows, _scores = held_out(results, views, lambda r, v: v.m[:, cols], linear(names, loss, l2, extra_cols))
    return rows


def release_symbol_rows(results: list[dict], mats: list) -> tuple[list[dict], int]:
    """The release's symbol ranking, replayed from the stored features, and how many cases'
    top symbols it ranks exactly as the run's release D_loc did (a check, never hidden)."""
    w0 = np.array(vector(dict(zip(RELEASE["features"], RELEASE["weights"])), BASE))
    base = [ALL_NAMES.index(n) for n in BASE]
    rows, same = [], 0
    for r, m in zip(results, mats):
        v = View(r, m, 0)
        scores = v.m[:, base] @ w0 if len(v.y) else np.zeros(0)
        same += ranked_symbols(v.cands, scores)[:TOP] == [(c[0], c[1]) for c in r["dloc"]["symbol"]]
        rows += symbol_rows(r, v.cands, scores, "release")
    return rows, same


def compare_variants(results: list[dict], mats: list, l2: float, max_files: int, extra: list | None = None,
                     only: list[str] | None = None) -> tuple[dict[str, list[dict]], str, int]:
    """The release's rows and every variant's (or `only` those) held out by repository; the
    variant with the best held-out symbol hit@5 (any gold hunk; ties: the earlier); and the
    release replay's check count."""
    release, same = release_symbol_rows(results, mats)
    table = {"release": release}
    for name, (names, n, loss) in variants(max_files).items():
        if only and name not in only:
            continue
        table[name] = cross_validate(results, mats, names, n, l2, extra, loss)
        log.info("  %s: done", name)
    vs = [v for v in variants(max_files) if v in table]
    best = max(vs, key=lambda n: (round(mean([x["any"] for x in table[n] if x["k"] == 5]), 9), -vs.index(n)))
    return table, best, same


def estimate(rows: list[dict]) -> dict[str, float]:
    """{"symbol@k": held-out share of cases with any gold hunk's symbol in the top k}."""
    return {f"symbol@{k}": round(mean([x["any"] for x in rows if x["k"] == k]), 4) for k in KS}
