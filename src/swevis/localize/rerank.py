"""D_loc's final symbol ranking: a logistic re-ranker over the heuristic score and graph features.

The heuristic (swevis.localize.dloc) adds hand-weighted evidence: traceback frames,
names, BM25 and a focused graph walk. Those weights were set on the nine bundled sample
instances and carried over poorly to issues they were not set on (symbol hit@5 0.72 there,
0.50 on nine held-out cases). The re-ranker keeps the heuristic as one feature and lets gold
patches decide how much to trust it against a few others (FEATURES): how much a symbol's own
text reads like the symptom, how much a walk from the seeds reaches it, how symptom-like the
call chain that reaches it is, and what kind of symbol it is.

The weights are fitted on the development set (swevis.localize.devset: `swevis devset fit`,
the workflow target devset_weights) and shipped in src/swevis/data/ranker_weights.json with
the cases they were fitted on, their leave-one-repository-out estimate and how to refit them.
Evidence features keep a weight >= 0 (more evidence never lowers a score); only the flags may
weigh against.

The fit is a few lines of Newton's method (IRLS) on numpy: scikit-learn and scipy are not
dependencies of swevis, and one small L2-regularized logistic regression does not justify
adding them.
"""

from __future__ import annotations

import hashlib
import json
import math
from functools import lru_cache
from importlib import resources

import numpy as np

FEATURES: tuple[str, ...] = (
    "heuristic",  # the heuristic score (direct + graph), relative to the best symbol's
    "heuristic_rank",  # 1 / its rank under the heuristic
    "symptom",  # BM25 of its own text against the prose, relative to the best symbol's
    "walk",  # mass the focused walk from the seeds brings it, relative to the most any symbol gets
    "chain",  # seed score x edge weights x relative symptom relevance along the best chain, / top seed
    "is_class",
    "is_exception",  # an exception class or its method: raised in many places, rarely the fix
    "is_private",  # a _helper: where many fixes land
    # what tells the edited symbol from its neighbours (swevis.localize.symtext)
    "body_ident",  # the identifiers (by strength) found in the symbol's own lines
    "body_quote",  # the share of the quoted strings found there
    "named",  # the issue names the symbol
    "class_named",  # the issue names the class a method belongs to
    "size",  # its number of lines, log-scaled
    "file_score",  # its file's heuristic score, relative to the best file's
    "in_file_rank",  # 1 / its heuristic rank among its own file's candidates
    "name_words",  # the share of its name's sub-words in the issue
    "name_in_text",  # its name written anywhere in the issue
    "class_words",  # the share of its class's name's sub-words in the issue
    "file_named",  # its module's name is a word of the issue
    "outside_package",  # its file is a script, doc or tool beside the library
    # its file beside the others: files and symbols ranked together (swevis.localize.symtext)
    "body_terms",  # the words in its own lines, weighted by rarity among the candidates
    "file_rank",  # 1 / its file's rank
    "file_best",  # the best heuristic score among its file's candidates
    "file_cands",  # how many candidates its file has (log)
    "in_frame",  # a traceback frame or file:line hint of the issue points into it
    # the repository's own history before the checkout (swevis.localize.history)
    "hist_file",  # how often its file changed in the last commits (log-scaled)
    "hist_sym",  # how often a definition of its name in its file changed there
)
FLAGS = frozenset({"is_class", "is_exception", "is_private", "outside_package"})
MONOTONE = tuple(name not in FLAGS for name in FEATURES)
WEIGHTS_RESOURCE = "ranker_weights.json"


def weights_path():
    """Where the shipped weights are (an input of the localization table: refitting reruns it)."""
    return resources.files("swevis.data").joinpath(WEIGHTS_RESOURCE)


def describe(ranker: str, weights_text: str | None = None) -> str:
    """One line of provenance for a table or a run: which symbol ranking produced it, and for
    the re-ranker which weights (a digest of the weights file tells two fits apart). Never
    raises: a broken weights file is reported, not fatal, where only provenance is asked."""
    if ranker != "learned":
        return ranker
    try:
        text = weights_text if weights_text is not None else weights_path().read_text()
        m = json.loads(text)
        digest = hashlib.sha256(text.encode()).hexdigest()[:12]
        return f"learned (weights {digest}, fitted {m.get('fitted', '?')} on {len(m.get('fitted_on', []))} cases)"
    except (OSError, ValueError) as exc:
        return f"learned (weights unreadable: {exc})"


@lru_cache(maxsize=1)
def default_model() -> dict:
    """The shipped model: {"features": [...], "weights": [...], "bias": float, ...provenance}."""
    model = json.loads(weights_path().read_text())
    check_model(model)
    return model


def check_model(model: dict) -> None:
    unknown = [f for f in model.get("features", []) if f not in FEATURES]
    if unknown or len(model.get("weights", [])) != len(model.get("features", [])) or "bias" not in model:
        raise ValueError(f"re-ranker model does not match swevis.localize.rerank.FEATURES (unknown: {unknown})")


def candidate_files(model: dict) -> int:
    """How many best files' definitions the model was fitted to see as candidates (a model
    written before such candidates existed has no such key: none)."""
    return int(model.get("candidate_files", 0))


def history_depth(model: dict) -> int:
    """How many past commits the model's history features count (0: it has none, or a model
    written before them): D_loc reads that much of the checkout's git log."""
    if not any(f.startswith("hist_") for f in model.get("features", [])):
        return 0
    return int(model.get("history_depth", 0))


def vector(features: dict[str, float], names=FEATURES) -> list[float]:
    return [float(features.get(n, 0.0)) for n in names]


def probability(features: dict[str, float], model: dict | None = None) -> float:
    m = model or default_model()
    z = m["bias"] + sum(w * x for w, x in zip(m["weights"], vector(features, m["features"])))
    return 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))


def chain_scores(seeds: list[tuple[int, float]], adj: dict[int, list[tuple[str, int, float]]],
                 relevance: dict[int, float], *, depth: int, decay: float, eps: float) -> dict[int, float]:
    """For every symbol reached from a seed: the best product of the seed's score, edge weights
    (capped at 1), a decay per hop and, at every hop, the step's symptom relevance relative to
    its most relevant sibling (so the most symptom-like callee of a seed inherits most of it).
    Relative to the top seed's score; the seeds themselves are left out."""
    if not seeds:
        return {}
    top = seeds[0][1] or 1.0
    seed_ids = {sid for sid, _ in seeds}
    value = {sid: v for sid, v in seeds}
    chain: dict[int, float] = {}
    frontier = [sid for sid, _ in seeds]
    for _ in range(depth):
        nxt = []
        for a in frontier:
            outs = [(b, w) for _, b, w in adj.get(a, ()) if b not in seed_ids]
            if not outs:
                continue
            best_sibling = max(eps + relevance.get(b, 0.0) for b, _ in outs)
            for b, w in outs:
                val = value[a] * min(1.0, w) * decay * (eps + relevance.get(b, 0.0)) / best_sibling
                if val > value.get(b, 0.0):
                    value[b] = chain[b] = val
                    nxt.append(b)
        frontier = list(dict.fromkeys(nxt))
    return {v: c / top for v, c in chain.items()}


def fit(groups: list[tuple[np.ndarray, np.ndarray]], l2: float = 1.0, iterations: int = 50,
        nonnegative: tuple[bool, ...] | None = None) -> tuple[np.ndarray, float]:
    """L2-regularized logistic regression over issues, each issue weighing the same.

    groups: one (X, y) per issue, X of shape (candidates, features), y in {0, 1}. Within an
    issue the positives share a weight of 1 and the negatives share a weight of 1, so an
    issue with 300 candidates does not outvote one with 30. nonnegative[j] keeps weight j at
    or above 0: a feature whose weight would go below 0 is held at 0 and the rest refitted,
    until none does. By default FEATURES' evidence is constrained and its flags are not.
    Returns (weights, bias).
    """
    n_features = groups[0][0].shape[1] if groups else 0
    if nonnegative is None:
        nonnegative = MONOTONE
    if len(nonnegative) != n_features:
        raise ValueError(f"nonnegative has {len(nonnegative)} entries for {n_features} features")
    free = np.ones(n_features, dtype=bool)
    while True:
        w, b = _fit_free(groups, l2, iterations, free)
        bad = [j for j in range(n_features) if nonnegative[j] and free[j] and w[j] < 0]
        if not bad:
            return w, b
        free[min(bad, key=lambda j: w[j])] = False


def fit_listwise(groups: list[tuple[np.ndarray, np.ndarray]], l2: float = 1.0, iterations: int = 50,
                 nonnegative: tuple[bool, ...] | None = None) -> tuple[np.ndarray, float]:
    """A listwise re-ranker: per issue, a softmax over its candidates and the likelihood of its
    gold set (the gold's share of the softmax), L2-regularized; each issue weighs the same.

    Fitting what is measured (the gold near the top of its own issue's list) instead of each
    candidate's label apart: on the development set it ranks better at every k than `fit`'s
    pointwise logistic loss (`swevis devset cv`). The scores are then calibrated
    into probabilities by a one-feature `fit` (scale >= 0, bias), which keeps their order.
    nonnegative as in `fit`. Returns (weights, bias)."""
    n_features = groups[0][0].shape[1] if groups else 0
    nonnegative = MONOTONE if nonnegative is None else nonnegative
    if len(nonnegative) != n_features:
        raise ValueError(f"nonnegative has {len(nonnegative)} entries for {n_features} features")
    used = [(x, y) for x, y in groups if 0 < y.sum() < len(y)]
    if not used:
        raise ValueError("no issue has both a gold symbol and another candidate to fit on")
    x = np.vstack([a for a, _ in used])
    gold = np.concatenate([b for _, b in used]) > 0
    starts = np.cumsum([0] + [len(b) for _, b in used[:-1]])
    group = np.repeat(np.arange(len(used)), [len(b) for _, b in used])
    free = np.ones(n_features, dtype=bool)
    w = np.zeros(n_features)
    while True:
        w = _listwise_free(x, gold, starts, group, l2, iterations, free, np.where(free, w, 0.0))
        bad = [j for j in range(n_features) if nonnegative[j] and free[j] and w[j] < 0]
        if not bad:
            break
        free[min(bad, key=lambda j: w[j])] = False
    (scale,), bias = _fit_free([(a @ w[:, None], b) for a, b in used], l2, iterations, np.ones(1, dtype=bool))
    scale = scale if scale > 0 else 1.0
    return w * scale, bias


def _listwise_loss(x, gold, starts, group, w, l2):
    """(loss, softmax p, gold posterior q) of the listwise objective at w."""
    s = x @ w
    top = np.maximum.reduceat(s, starts)
    e = np.exp(s - top[group])
    z = np.bincount(group, e)
    sg = np.where(gold, s, -np.inf)
    top_g = np.maximum.reduceat(sg, starts)
    eg = np.where(gold, np.exp(np.where(gold, s, 0.0) - top_g[group]), 0.0)
    zg = np.bincount(group, eg)
    loss = float(np.sum(top + np.log(z) - top_g - np.log(zg)) + 0.5 * l2 * w @ w)
    return loss, e / z[group], eg / zg[group]


def _listwise_free(x, gold, starts, group, l2, iterations, free, w0):
    """Damped Newton on the free weights (the fixed ones stay 0) from w0 (the previous round's
    optimum: the objective is convex, so a warm start only saves iterations). The curvature
    is the softmax part's (positive semi-definite); a halving line search keeps each step
    downhill."""
    w = w0.copy()
    for _ in range(iterations):
        loss, p, q = _listwise_loss(x, gold, starts, group, w, l2)
        grad = x.T @ (p - q) + l2 * w
        xp = np.add.reduceat(x * p[:, None], starts)
        hess = (x * p[:, None]).T @ x - xp.T @ xp + l2 * np.eye(len(w)) + 1e-9 * np.eye(len(w))
        step = np.zeros(len(w))
        step[free] = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        t = 1.0
        while t > 1e-6 and _listwise_loss(x, gold, starts, group, w - t * step, l2)[0] > loss:
            t /= 2
        w = w - t * step
        if np.max(np.abs(t * step)) < 1e-8:
            break
    return w


def _fit_free(groups, l2: float, iterations: int, free: np.ndarray) -> tuple[np.ndarray, float]:
    xs, ys, ws = [], [], []
    for x, y in groups:
        npos, nneg = int(y.sum()), int(len(y) - y.sum())
        if npos == 0 or nneg == 0:
            continue
        xs.append(x[:, free])
        ys.append(y)
        ws.append(np.where(y > 0, 1.0 / npos, 1.0 / nneg))
    if not xs:
        raise ValueError("no issue has both a gold symbol and another candidate to fit on")
    x = np.hstack([np.vstack(xs), np.ones((sum(len(a) for a in xs), 1))])
    y = np.concatenate(ys)
    w = np.concatenate(ws)
    beta = np.zeros(x.shape[1])
    reg = np.full(x.shape[1], l2)
    reg[-1] = 0.0  # the bias is not shrunk
    for _ in range(iterations):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ beta, -50, 50)))
        grad = x.T @ (w * (p - y)) + reg * beta
        hess = (x * (w * p * (1 - p))[:, None]).T @ x + np.diag(reg) + 1e-9 * np.eye(x.shape[1])
        step = np.linalg.solve(hess, grad)
        beta -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    weights = np.zeros(len(free))
    weights[free] = beta[:-1]
    return weights, float(beta[-1])
