"""The symbol re-ranker (swevis.localize.rerank): its fit, its constraint, and the shipped weights."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from swevis.localize.rerank import (
    FEATURES,
    FLAGS,
    MONOTONE,
    chain_scores,
    check_model,
    default_model,
    describe,
    fit,
    fit_listwise,
    history_depth,
    probability,
)
from swevis.localize.devset.variants import variant_of

ROOT = Path(__file__).resolve().parents[2]


def _groups(rng, weights, n_issues=40, n_cands=30):
    groups = []
    for _ in range(n_issues):
        x = rng.random((n_cands, len(weights)))
        y = np.zeros(n_cands)
        y[int(np.argmax(x @ weights))] = 1.0  # the best candidate under the true weights is gold
        groups.append((x, y))
    return groups


def test_fit_recovers_which_features_matter():
    rng = np.random.default_rng(0)
    true = np.array([3.0, 0.0, 1.0])
    w, _ = fit(_groups(rng, true), l2=0.01, nonnegative=(True, True, True))
    assert w[0] > w[2] > abs(w[1])
    # the fitted model ranks unseen issues' gold candidate first far more often than chance (1/30)
    test = _groups(np.random.default_rng(1), true)
    top1 = np.mean([y[int(np.argmax(x @ w))] for x, y in test])
    assert top1 > 0.5


def test_evidence_weights_never_go_negative():
    rng = np.random.default_rng(2)
    true = np.array([2.0, -2.0])  # the second feature is anti-evidence
    groups = _groups(rng, true)
    free, _ = fit(groups, l2=0.01, nonnegative=(False, False))
    held, _ = fit(groups, l2=0.01, nonnegative=(True, True))
    assert free[1] < 0
    assert held[1] == 0.0 and held[0] > 0


def test_listwise_fit_ranks_unseen_gold_first_keeps_the_constraint_and_calibrates():
    true = np.array([3.0, 0.0, 1.0])
    w, b = fit_listwise(_groups(np.random.default_rng(0), true), l2=0.01, nonnegative=(True, True, True))
    assert w[0] > w[2] > abs(w[1])
    test = _groups(np.random.default_rng(1), true)
    assert np.mean([y[int(np.argmax(x @ w))] for x, y in test]) > 0.5
    # calibrated: the best candidate of an issue is likelier than a typical one, both in (0, 1)
    x = test[0][0]
    p = 1 / (1 + np.exp(-(x @ w + b)))
    assert 0.0 < p.mean() < p.max() < 1.0
    held, _ = fit_listwise(_groups(np.random.default_rng(2), np.array([2.0, -2.0])), l2=0.01, nonnegative=(True, True))
    assert held[1] == 0.0 and held[0] > 0
    with pytest.raises(ValueError, match="no issue"):
        fit_listwise([(np.ones((3, 2)), np.zeros(3))], nonnegative=(True, True))


def test_fit_needs_an_issue_with_gold_and_other_candidates():
    with pytest.raises(ValueError, match="no issue"):
        fit([(np.ones((3, 2)), np.zeros(3))], nonnegative=(True, True))
    with pytest.raises(ValueError, match="2 features"):
        fit([(np.ones((3, 2)), np.array([1.0, 0.0, 0.0]))])  # the default constraint is for FEATURES


def test_chain_prefers_the_symptom_like_callee():
    adj = {1: [("calls", 2, 1.0), ("calls", 3, 1.0)], 2: [("calls", 4, 1.0)]}
    relevance = {2: 0.1, 3: 0.9, 4: 0.8}
    chain = chain_scores([(1, 2.0)], adj, relevance, depth=2, decay=0.85, eps=0.05)
    assert chain[3] > chain[2] > 0 and 1 not in chain
    assert chain[4] > 0  # two hops down, through the less relevant callee


def test_shipped_weights_match_the_features_and_say_where_they_come_from():
    m = default_model()
    check_model(m)
    assert set(m["features"]) <= set(FEATURES)
    for name, w in zip(m["features"], m["weights"]):
        assert name in FLAGS or w >= 0, name
    assert MONOTONE == tuple(f not in FLAGS for f in FEATURES)
    assert len(m["fitted_on"]) >= 18 and m["how"].split()[0] in ("swevis", "benchmarks/eval_devset.py")
    assert variant_of(m) == "+ names, candidate set, frames, history, listwise"  # refittable by `swevis devset fit`
    assert 0.0 < probability({f: 1.0 for f in FEATURES}) < 1.0


def test_tables_and_runs_say_which_ranking_produced_them():
    m = default_model()
    shipped = describe("learned")
    assert shipped.startswith("learned (weights ") and f"on {len(m['fitted_on'])} cases" in shipped
    other = json.dumps({**m, "weights": [w + 0.1 for w in m["weights"]]})
    assert describe("learned", other) != shipped  # two fits on the same day and cases differ
    assert describe("heuristic") == "heuristic"
    assert describe("learned", "{not json").startswith("learned (weights unreadable")


def test_a_model_that_does_not_match_is_refused():
    with pytest.raises(ValueError, match="does not match"):
        check_model({"features": ["heuristic", "nonsense"], "weights": [1.0, 1.0], "bias": 0.0})
    with pytest.raises(ValueError, match="does not match"):
        check_model({"features": ["heuristic"], "weights": [1.0, 2.0], "bias": 0.0})


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("SWEVIS_DEVSET"),
                    reason="set SWEVIS_DEVSET=WORK (what `swevis devset measure` and `history` wrote) and SWEVIS_MIRRORS to refit")
def test_the_devset_fit_reproduces_the_shipped_weights(tmp_path):
    """`swevis devset fit`, run afresh over the stored results of the mined development set
    (outside the repository: they are rebuilt from public clones), gives the shipped weights
    and their leave-one-repository-out estimate."""
    m = default_model()
    out = tmp_path / "ranker_weights.json"
    fit = ["--variant", variant_of(m), "--l2", str(m["l2"]), "--files", str(m.get("candidate_files", 0)),
           "--history-depth", str(history_depth(m)), "--synthetic" if m["synthetic_cases"] else "--no-synthetic",
           *(["--polyglot"] if "mined_polyglot" in m.get("sources", {}) else [])]
    cmd = [sys.executable, "-m", "swevis.cli", "devset", "fit", "--out", os.environ["SWEVIS_DEVSET"],
           "--mirrors", os.environ.get("SWEVIS_MIRRORS", ".swevis-cache/devset/mirrors"), *fit, "--shipped-cases",
           "--weights", str(out)]
    subprocess.run(cmd, capture_output=True, text=True, check=True, cwd=ROOT,
                   env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    refit = json.loads(out.read_text())
    assert refit["fitted_on"] == m["fitted_on"] and refit["features"] == m["features"]
    assert refit["weights"] == pytest.approx(m["weights"], abs=1e-5) and refit["bias"] == pytest.approx(m["bias"], abs=1e-5)
    assert refit["leave_one_repository_out"] == pytest.approx(m["leave_one_repository_out"], abs=1e-4)
