"""The re-ranker variants the development set compares: a feature set and a loss each, and
the release they are measured against.

A variant is named "<feature set>, <loss>" (e.g. "+ names, candidate set, frames, history,
listwise"); `swevis devset cv` measures every one held out by repository and `swevis devset
fit` fits the one the config's devset.fit.variant names.
"""

from __future__ import annotations

from swevis.errors import SwevisError
from swevis.localize.devset.features import BASE, EXTRA
from swevis.localize.history import HISTORY_FEATURES
from swevis.localize.rerank import fit, fit_listwise
from swevis.localize.symtext import TEXT_FEATURES

EXPAND = 5  # `measure` stores the definitions of this many best files as candidates too
# the re-ranker of the release before the development set (ranker_weights.json at ee96923),
# kept to measure against after the shipped weights are re-fitted
RELEASE = {"features": ["heuristic", "heuristic_rank", "symptom", "walk", "chain", "is_class", "is_exception", "is_private"],
           "weights": [1.885348, 0.697592, 2.479314, 1.216429, 0.198491, -0.579476, -0.213497, 0.813624],
           "bias": -2.388234}
NO_FRAMES = tuple(n for n in (*BASE, *EXTRA) if n != "in_frame")
FEATURE_SETS = {
    "release features": BASE,
    "+ symbol text, file context": (*BASE, *TEXT_FEATURES, "file_score", "in_file_rank"),
    "+ names, candidate set": NO_FRAMES,
    "+ names, candidate set, frames": (*BASE, *EXTRA),
    "+ names, candidate set, history": (*NO_FRAMES, *HISTORY_FEATURES),
    "+ names, candidate set, frames, history": (*BASE, *EXTRA, *HISTORY_FEATURES),
}
LOSSES = {"pointwise": fit, "listwise": fit_listwise}  # swevis.localize.rerank


def variants(n_files: int) -> dict[str, tuple[tuple, int, str]]:
    """Every (feature set, loss) pair measured, as (feature names, candidate files, loss), with
    the candidates of the `n_files` best files added (0: none)."""
    return {f"{name}, {loss}": (names, n_files, loss) for name, names in FEATURE_SETS.items() for loss in LOSSES}


def variant(name: str, n_files: int) -> tuple[tuple, int, str]:
    """The variant called `name`, or a one-line error listing the names."""
    known = variants(n_files)
    if name not in known:
        raise SwevisError(f"unknown re-ranker variant {name!r}: one of {'; '.join(known)}")
    return known[name]


def variant_of(model: dict) -> str:
    """The name of the variant a fitted model's features and loss are (to refit it)."""
    for name, (names, _n, loss) in variants(0).items():
        if list(names) == list(model["features"]) and loss == model.get("loss", "pointwise"):
            return name
    raise SwevisError(f"the model's features and loss are no variant of swevis.localize.devset.variants: {model['features']}")
