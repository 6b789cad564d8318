"""Every case's candidates as a matrix of the re-ranker's features, from what `measure`
stored, the clone and the stored history, so that a fit never indexes again.

Columns are ALL_NAMES: BASE (stored with each case since the first run), EXTRA (the symbol
text, name, candidate-set and frame features of swevis.localize.symtext: stored by a run that
computed them, else read from the clone at the case's base commit exactly as D_loc reads the
checkout) and the history features (swevis.localize.devset.pasthistory).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from swevis.localize.devset.gitio import blobs, clone_path
from swevis.localize.devset.pasthistory import case_history, history_columns
from swevis.index.languages import language_for
from swevis.localize.hints import extract_hints, reading_languages
from swevis.localize.history import HISTORY_FEATURES
from swevis.localize.rerank import FEATURES
from swevis.localize.symtext import (
    NAME_FEATURES,
    SET_FEATURES,
    TEXT_FEATURES,
    IssueWords,
    file_context,
    found_terms,
    frame_features,
    name_features,
    quoted_strings,
    set_features,
    text_features,
)

EXTRA = (*TEXT_FEATURES, "file_score", "in_file_rank", *NAME_FEATURES, *SET_FEATURES, "in_frame")
BASE = tuple(f for f in FEATURES if f not in EXTRA and f not in HISTORY_FEATURES)  # stored with each case
ALL_NAMES = (*BASE, *EXTRA, *HISTORY_FEATURES)


def case_languages(r: dict) -> tuple[str, ...]:
    """The code languages of a case's repository as measure stored them, or (a result stored
    before it did) its candidates' languages."""
    if "languages" in r:
        return tuple(r["languages"])
    return tuple(sorted({lang.name for c in r["candidates"] if (lang := language_for(c[0])) and lang.kind == "code"}))


def extra_features(r: dict, case: dict, text: str, mirrors: Path) -> tuple[np.ndarray, list[frozenset[str]]]:
    """The symbol-text, name and file features of a case's candidates from the clone at the
    case's base commit, as D_loc computes them from the checkout, and the issue's words each
    candidate's lines hold (in_file_rank and the candidate-set features are set per candidate
    set: View)."""
    hints = extract_hints(text, reading_languages(case_languages(r)))
    quoted = quoted_strings(text)
    words = IssueWords(text)
    cands = r["candidates"]
    files = blobs(clone_path(mirrors, case["mirror"]), case["base_commit"], sorted({c[0] for c in cands}))
    rows, found = [], []
    in_frame = frame_features(hints, [c[0] for c in cands], [(c[3], c[4]) for c in cands])
    for c, framed in zip(cands, in_frame):
        body = "\n".join(files[c[0]][c[3] - 1:c[4]])
        f = {**text_features(hints, quoted, c[1], c[2], body), **name_features(words, c[0], c[1], c[2]),
             "in_frame": framed}
        rows.append([f.get(n, c[5] if n == "file_score" else 0.0) for n in EXTRA])
        found.append(found_terms(words, body))
    return np.array(rows, dtype=float).reshape(len(cands), len(EXTRA)), found


def case_matrix(r: dict, case: dict, out: Path, mirrors: Path, depth: int) -> tuple[np.ndarray, list | None]:
    """One case's candidates by ALL_NAMES (stored where the run computed them: then body_terms
    keeps its value over the run's candidates, their found words being unknown), and the
    issue's words in each candidate's lines (None when stored). `depth`: the past commits the
    history features count."""
    x = np.array(r["x"], dtype=float).reshape(len(r["y"]), len(r["features"]))
    hist = history_columns(r, case_history(out, r, depth), depth)
    stored = (*BASE, *EXTRA)
    if all(n in r["features"] for n in stored):
        return np.hstack([x[:, [r["features"].index(n) for n in stored]], hist]), None
    text = (out / "cases" / r["case_id"] / "problem_statement.md").read_text()
    extra, found = extra_features(r, case, text, mirrors)
    return np.hstack([x[:, [r["features"].index(n) for n in BASE]], extra, hist]), found


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
