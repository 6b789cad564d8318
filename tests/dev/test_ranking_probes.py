"""swevis_dev.ranking_probes: the probes of what else could lift D_loc's symbol ranking
rank as the development set's cross-validation does, and count what they claim to count."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from devset_helpers import commit_files, new_repo, stored_result
from helpers import git

from swevis_dev import ranking_probes as probes
from swevis.localize.devset.crossval import cross_validate, held_out, linear
from swevis.localize.devset.features import ALL_NAMES, BASE, View, case_matrix
from swevis.localize.devset.scoring import KS

NOWHERE = Path("/nonexistent")


def test_the_reference_is_the_development_sets_listwise_cross_validation():
    """The probes' reference (held_out with the linear re-ranker, as `benchmarks/ranking_probes.py`
    runs it) gives exactly the rows of `swevis devset cv`'s listwise variant."""
    results = [stored_result(f"o/r{i % 3}", f"c{i}", gold_first=i % 2 == 0) for i in range(12)]
    mats = [case_matrix(r, {}, NOWHERE, NOWHERE, 300) for r in results]
    names = (*BASE, "body_quote")
    cols = [ALL_NAMES.index(n) for n in names]
    views = [View(r, m, 1) for r, m in zip(results, mats)]
    rows, scores = held_out(results, views, lambda r, v: v.m[:, cols], linear(names))
    assert rows == cross_validate(results, mats, names, 1, 1.0, None, "listwise")
    assert sorted(scores) == sorted(r["case_id"] for r in results) and all(len(s) == 3 for s in scores.values())
    assert sum(x["any"] for x in rows if x["k"] == 1) == 12  # the quoted message is learned held out


def test_recency_weighs_a_definitions_recent_changes_above_old_ones(tmp_path):
    (tmp_path / "history").mkdir()
    commits = {"c1": [["a.py"], [["a.py", "f"]]], "c2": [["a.py"], [["a.py", "g"]]], "c3": [["a.py"], [["a.py", "g"]]]}
    (tmp_path / "history" / "o+r.json").write_text(json.dumps(
        {"depth": 1000, "lists": {"x": ["c1", "c2", "c3"]}, "commits": commits}))
    r = {"case_id": "x", "repo": "o/r"}
    cands = [["a.py", "C.f", "method", 1, 2], ["a.py", "g", "function", 4, 5], ["a.py", "h", "function", 7, 8]]
    col = probes.recency_column(tmp_path, r, cands, 300)[:, 0]
    assert col.tolist() == pytest.approx([math.log(2), math.log1p(math.exp(-1 / 30) + math.exp(-2 / 30)), 0.0])


def test_literal_phrases_come_from_quotes_and_error_messages():
    text = ("Saving fails with 'unique constraint failed' and `x`.\n"
            "ValueError: db_table 'books' is used by multiple models: a.Book, b.Book.\n")
    assert probes.literal_phrases(text) == ["unique constraint failed", "is used by multiple models"]
    source = ["class C:", "    def m(self):", "        raise ValueError('is used by multiple models')", "x = 1",
              "if True:", "    def f():", "        def inner():", "            return 'is used by multiple models'"]
    assert probes.enclosing(source, 3) == "C.m" and probes.enclosing(source, 4) is None
    assert probes.enclosing(source, 8) == "f"  # under an if, and a local function counts as its function


def test_literal_recall_counts_a_gold_symbol_that_only_the_message_finds(tmp_path):
    repo = new_repo(tmp_path / "work")
    base = commit_files(repo, {"pkg/models.py": "def check(m):\n    raise ValueError('%s is used by multiple models' % m)\n",
                               **{f"pkg/tests/test_m{i}.py": "MSG = 'is used by multiple models'\n" for i in range(5)},
                               "pkg/conftest.py": "MSG = 'is used by multiple models'\n"}, "one")
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(tmp_path / "mirrors" / "o+r" / "repo"))
    (tmp_path / "out" / "cases" / "c1").mkdir(parents=True)
    (tmp_path / "out" / "cases" / "c1" / "problem_statement.md").write_text(
        "Error: db_table 'books' is used by multiple models: a.Book\n")
    cases = {"c1": {"mirror": "o+r", "base_commit": base}}
    r = {"case_id": "c1", "gold_symbols": [["pkg/models.py", ["check"]]], "candidates": []}
    counts = probes.literal_recall([r], cases, tmp_path / "out", tmp_path / "mirrors")
    assert counts == {"cases": 1, "with phrases": 1, "selective hit": 1, "in a gold symbol": 1, "gold not a candidate": 1}
    # the six test modules that share the phrase are not counted against its selectivity
    r["candidates"] = [["pkg/models.py", "check", "function", 1, 2, 1.0, 3]]  # only added from a best file
    assert probes.literal_recall([r], cases, tmp_path / "out", tmp_path / "mirrors")["gold not a candidate"] == 1
    r["candidates"] = [["pkg/models.py", "check", "function", 1, 2, 1.0, 0]]
    assert probes.literal_recall([r], cases, tmp_path / "out", tmp_path / "mirrors")["gold not a candidate"] == 0
    with pytest.raises(RuntimeError, match="git grep failed"):
        probes.literal_recall([r], {"c1": {"mirror": "o+r", "base_commit": "0" * 40}}, tmp_path / "out", tmp_path / "mirrors")


def test_the_dense_stage_learns_the_issues_meaning_held_out(tmp_path):
    from swevis.agents.mechanisms.embedding import default_model_dir

    if default_model_dir() is None:
        pytest.skip("the MiniLM weights are not installed (make install installs them)")
    repo = new_repo(tmp_path / "work")
    base = commit_files(repo, {"a.py": "def save_row(db, row):\n    db.insert(row)  # unique constraint violation on duplicates\n\n"
                                       "def draw_legend(ax):\n    ax.legend(colors=['red', 'blue'])  # plot legend colours\n"}, "one")
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(tmp_path / "mirrors" / "o+r" / "repo"))
    texts = {"save_row": "Saving a row fails: the database reports a unique constraint violation.",
             "draw_legend": "The legend of my plot shows the wrong colours."}
    cands = [["a.py", "draw_legend", "function", 4, 5, 1.0, 0], ["a.py", "save_row", "function", 1, 2, 1.0, 0]]
    results, cases = [], {}
    for i in range(12):
        gold = "save_row" if i % 2 else "draw_legend"
        case = f"c{i}"
        (tmp_path / "out" / "cases" / case).mkdir(parents=True)
        (tmp_path / "out" / "cases" / case / "problem_statement.md").write_text(texts[gold])
        cases[case] = {"mirror": "o+r", "base_commit": base}
        results.append({"case_id": case, "repo": f"o/r{i % 3}", "text_kind": "issue", "features": list(ALL_NAMES),
                        "x": [[0.0] * len(ALL_NAMES)] * 2, "y": [float(c[1] == gold) for c in cands],
                        "candidates": cands, "gold_symbols": [["a.py", [gold]]],
                        "dloc": {"file": [["a.py", None, None, None]], "symbol": []}})
    views = [View(r, case_matrix(r, {}, NOWHERE, NOWHERE, 300), 0) for r in results]
    reference = {r["case_id"]: np.zeros(2) for r in results}  # ties: draw_legend (line 4) after save_row
    ref_rows, rows = probes.dense_stage(results, views, reference, cases, tmp_path / "out", tmp_path / "mirrors", 1)
    at1 = lambda rs: sum(x["any"] for x in rs if x["k"] == 1)  # noqa: E731
    assert len(rows) == len(ref_rows) == 12 * len(KS)
    assert at1(ref_rows) == 6 and at1(rows) == 12  # each repository's order learned from the other two
