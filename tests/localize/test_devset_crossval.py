"""swevis.localize.devset: hit rows, the candidate views, leave-one-repository-out
cross-validation, and the one fit of the shipped weights with its provenance.

The pinned numbers were measured on the seeded cases of devset_helpers.random_results by the
benchmark scripts these modules replaced (eval_devset.py run_cv and cv --write): the package
must give the same rows, choice and weights.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from devset_helpers import random_results, stored_result

from swevis.errors import SwevisError
from swevis.localize.devset.crossval import compare_variants, cross_validate, estimate
from swevis.localize.devset.features import BASE, View, case_matrix
from swevis.localize.devset.fitting import FitSettings, fit_variant, weights_model, write_weights
from swevis.localize.devset.pasthistory import case_history, history_columns
from swevis.localize.devset.report import hit_line, print_variants
from swevis.localize.devset.scoring import KS, lost_where, mean, symbol_hits
from swevis.localize.devset.variants import variant_of, variants
from swevis.localize.rerank import check_model

NOWHERE = Path("/nonexistent")  # no stored history: the history columns are 0
SHIPPED_VARIANT = "+ names, candidate set, frames, history, listwise"


def _matrices(results: list[dict], depth: int = 300) -> list:
    return [case_matrix(r, {}, NOWHERE, NOWHERE, depth) for r in results]


def test_symbol_hits_count_module_level_hunks_by_file():
    gold = [("a.py", ["f"]), ("a.py", []), ("b.py", ["C.m"])]
    assert symbol_hits(gold, [("a.py", "g"), ("a.py", "f")], ["a.py"], 1) == (1 / 3, 1.0)
    assert symbol_hits(gold, [("a.py", "g"), ("a.py", "f")], ["b.py"], 2) == (1 / 3, 1.0)
    assert symbol_hits(gold, [("x.py", "g")], ["x.py"], 5) == (0.0, 0.0)


def test_cross_validation_learns_the_quoted_message_and_the_added_candidates_are_only_seen_when_asked():
    results = [stored_result(f"o/r{i % 3}", f"c{i}", gold_first=i % 2 == 0) for i in range(12)]
    mats = _matrices(results)
    assert View(results[1], mats[1], 0).cands == results[1]["candidates"][:2]
    assert len(View(results[1], mats[1], 1).cands) == 3
    with_text = cross_validate(results, mats, (*BASE, "body_quote"), 1, 1.0)
    at1 = [r["any"] for r in with_text if r["k"] == 1]
    assert len(at1) == 12 and sum(at1) == 12  # the quoted message finds the gold symbol in every held-out case
    without = cross_validate(results, mats, BASE, 0, 1.0)
    assert sum(r["any"] for r in without if r["k"] == 1) < 12


def test_cross_validation_reports_real_issues_apart_from_commit_messages(capsys):
    results = [stored_result(f"o/r{i % 3}", f"c{i}", gold_first=i % 2 == 0) for i in range(12)]
    table, best, same = compare_variants(results, _matrices(results), 1.0, 0, only=["release features, pointwise"])
    print_variants(table, best, len(results), same)
    out = capsys.readouterr().out
    for kind in ("issue", "commit-message"):
        rows = [x for x in table["release"] if x["kind"] == kind]
        assert len(rows) == 6 * len(KS)
        line = next(li for li in out.splitlines() if li.strip().startswith(f"{kind} (6)"))
        assert hit_line(rows).strip() in line
    # the issues' gold `f` is a candidate (second by the heuristic); the others' `h` is an added one, unseen here
    at3 = {kind: mean([x["any"] for x in table["release"] if x["kind"] == kind and x["k"] == 3])
           for kind in ("issue", "commit-message")}
    assert at3 == {"issue": 1.0, "commit-message": 0.0}
    assert f"rank {same} of 12 cases' top 10 symbols" in out and "chosen by held-out symbol hit@5" in out


def test_a_missed_case_says_where_the_gold_symbol_was_lost():
    r = {"gold_symbols": [["a.py", ["f"]]], "candidates": [["a.py", "f", "function", 1, 2, 1.0, 0],
                                                         ["b.py", "g", "function", 1, 2, 1.0, 3]]}
    assert lost_where(r, [("a.py", "h"), ("a.py", "f")], ["a.py"], 1) == "neighbours"
    assert lost_where(r, [("c.py", "h"), ("a.py", "f")], ["a.py"], 1) == "other files"
    assert lost_where(r, [("c.py", "h"), ("a.py", "f")], ["c.py"], 1) == "file"
    assert lost_where({**r, "gold_symbols": [["b.py", ["g"]]]}, [("c.py", "h")], ["c.py"], 1) == "added only"
    assert lost_where({**r, "gold_symbols": [["z.py", ["q"]]]}, [("c.py", "h")], ["c.py"], 1) == "no candidate"
    assert lost_where({**r, "gold_symbols": [["a.py", []]]}, [("c.py", "h")], ["c.py"], 1) == "module level"


def test_history_columns_count_only_the_depth_asked_for(tmp_path):
    (tmp_path / "history").mkdir()
    commits = {"c1": [["a.py"], [["a.py", "f"]]], "c2": [["a.py"], [["a.py", "f"]]], "c3": [["b.py"], []]}
    (tmp_path / "history" / "o+r.json").write_text(
        json.dumps({"depth": 3, "lists": {"x": ["c3", "c1", "c2"]}, "commits": commits}))
    r = {"case_id": "x", "repo": "o/r", "y": [1.0], "candidates": [["a.py", "f", "function", 1, 2, 1.0, 0]]}
    one = history_columns(r, case_history(tmp_path, r, 2), 2)  # the newest two: c3, c1
    three = history_columns(r, case_history(tmp_path, r, 3), 3)
    assert one[0].tolist() == pytest.approx([math.log(2) / math.log(3)] * 2)
    assert three[0].tolist() == pytest.approx([math.log(3) / math.log(4)] * 2)
    with pytest.raises(SwevisError, match="counts 3 commits, fewer than 4"):
        case_history(tmp_path, r, 4)
    assert case_history(tmp_path, {**r, "case_id": "unknown"}, 2) is None


# any gold hunk's symbol in the top 1/3/5/10, held out by repository, on random_results(11)
PINNED = {
    "release": [0.25, 0.5, 0.75, 0.75],
    "release features, pointwise": [0.305556, 0.666667, 0.722222, 0.75],
    "release features, listwise": [0.333333, 0.611111, 0.722222, 0.75],
    "+ symbol text, file context, pointwise": [0.527778, 0.694444, 0.75, 0.75],
    "+ symbol text, file context, listwise": [0.5, 0.666667, 0.75, 0.75],
    "+ names, candidate set, pointwise": [0.5, 0.666667, 0.75, 0.75],
    "+ names, candidate set, listwise": [0.472222, 0.666667, 0.75, 0.75],
    SHIPPED_VARIANT: [0.472222, 0.666667, 0.75, 0.75],
}
PINNED_WEIGHTS = [1.016049, 0.0, 0.270619, 0.0, 0.025426, 1.042795, -0.831856, 1.054907, 0.952905, 4.643881, 0.0, 0.0,
                  0.600032, 0.080405, 0.359662, 0.102597, 0.38097, 0.66842, 0.0, -0.480405, 0.0, 0.834029, 0.930865,
                  0.0, 0.206769, 0.0, 0.0]


def test_every_variant_gives_the_rows_and_the_choice_it_gave_before():
    results = random_results(11)
    table, best, _same = compare_variants(results, _matrices(results), 1.0, 0)
    assert list(table) == ["release", *variants(0)]
    for name, hits in PINNED.items():
        assert [round(mean([x["any"] for x in table[name] if x["k"] == k]), 6) for k in KS] == hits, name
    assert best == "+ symbol text, file context, pointwise"  # the best hit@5, ties to the earlier variant


def test_the_fit_gives_the_weights_it_gave_before_and_records_how_it_was_made(tmp_path):
    results = random_results(11)
    mats = _matrices(results)
    fit = FitSettings(SHIPPED_VARIANT, 1.0, 0, 300, False)
    table, _best, _same = compare_variants(results, mats, fit.l2, fit.candidate_files, only=[fit.variant])
    weights, bias = fit_variant(results, mats, fit)
    assert [round(float(w), 6) for w in weights] == PINNED_WEIGHTS and round(bias, 6) == -6.206104
    assert estimate(table[fit.variant]) == {"symbol@1": 0.4722, "symbol@3": 0.6667, "symbol@5": 0.75, "symbol@10": 0.75}
    model = weights_model(results, (weights, bias), fit, table, 0, {"mined": "abc"})
    check_model(model)
    assert model["history_depth"] == 300 and model["sources"] == {"mined": "abc"} and model["variant"] == fit.variant
    assert model["args"] == ["--variant", fit.variant, "--l2", "1.0", "--files", "0", "--history-depth", "300"]
    assert model["fitted_on"] == sorted(r["case_id"] for r in results)
    assert variant_of(model) == fit.variant
    path = write_weights(tmp_path / "w.json", model)
    assert json.loads(path.read_text()) == json.loads(json.dumps(model))
    with pytest.raises(SwevisError, match="unknown re-ranker variant"):
        fit_variant(results, mats, FitSettings("+ everything", 1.0, 0, 300, False))
