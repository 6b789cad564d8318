"""The one fit of the re-ranker's shipped weights: a variant fitted on every case of the
development set (and the small cases), with its leave-one-repository-out estimate and the
provenance to reproduce it.

The weights file (src/swevis/data/ranker_weights.json, read by swevis.localize.rerank) holds
the model and, beside it in the same JSON, what it was made from: the case lists' and the
small cases' sha256, the variant and every argument of the fit, the cases it was fitted on,
and its held-out estimate next to the release's on the same cases.
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from swevis.fsutil import write_atomic
from swevis.localize.devset.crossval import estimate, fit_linear
from swevis.localize.devset.features import ALL_NAMES, View
from swevis.localize.devset.variants import variant
from swevis.localize.history import HISTORY_FEATURES

MEASURE = "any gold hunk's symbol in the top k (module-level hunks: the file)"


@dataclass(frozen=True)
class FitSettings:
    """The fit's arguments (config devset.fit): which variant, its L2 strength, how many best
    files' definitions are candidates, the past commits the history counts, and whether the
    small cases join the fit."""

    variant: str
    l2: float
    candidate_files: int
    history_depth: int
    synthetic: bool

    def args(self) -> list[str]:
        """The same settings as `swevis devset fit` arguments."""
        return ["--variant", self.variant, "--l2", str(self.l2), "--files", str(self.candidate_files),
                "--history-depth", str(self.history_depth), *(["--synthetic"] if self.synthetic else [])]


def fit_variant(results: list[dict], mats: list, fit: FitSettings, extra: list | None = None) -> tuple[np.ndarray, float]:
    """The variant's weights and bias fitted on every case (and the `extra` groups, by ALL_NAMES)."""
    names, n_files, loss = variant(fit.variant, fit.candidate_files)
    cols = [ALL_NAMES.index(n) for n in names]
    views = [View(r, m, n_files) for r, m in zip(results, mats)]
    groups = [(v.m[:, cols], v.y) for v in views if len(v.y)] + [(m[:, cols], y) for m, y in extra or []]
    return fit_linear(groups, names, loss, fit.l2)


def weights_model(results: list[dict], fitted: tuple[np.ndarray, float], fit: FitSettings, table: dict,
                  n_extra: int, sources: dict[str, str], polyglot: bool = False) -> dict:
    """The weights file's content: the model, its estimate and its provenance (`sources`: the
    sha256 of each file the cases came from; `args`: the fit's, `--polyglot` when the other
    languages' cases were in it)."""
    names, n_files, loss = variant(fit.variant, fit.candidate_files)
    w, b = fitted
    return {"features": list(names), "weights": [round(float(v), 6) for v in w], "bias": round(b, 6),
            "candidate_files": n_files, "loss": loss,
            **({"history_depth": fit.history_depth} if set(HISTORY_FEATURES) & set(names) else {}),
            "fitted_on": sorted(r["case_id"] for r in results), "l2": fit.l2, "fitted": dt.date.today().isoformat(),
            "leave_one_repository_out": estimate(table[fit.variant]), "release_on_same_cases": estimate(table["release"]),
            "measure": MEASURE, "synthetic_cases": n_extra, "variant": fit.variant, "sources": sources,
            "how": "swevis devset fit (rules/devset.smk, target devset_weights)",
            "args": [*fit.args(), *(["--polyglot"] if polyglot else [])]}


def write_weights(path: Path, model: dict) -> Path:
    """Write a weights file whole or not at all."""
    return write_atomic(path, json.dumps(model, indent=1) + "\n")
