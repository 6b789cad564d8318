"""swevis.localize.retrieval: precision and recall of a retrieved context at the file, symbol and line level."""

from __future__ import annotations

import pytest

from swevis.localize import Candidate
from swevis.localize.coverage import gold_hunks, hunk_changes
from swevis.localize.retrieval import METRICS, MODULE, candidate_windows, gold_lines, retrieval_scores

from helpers import indexed_repo

CALC = '''"""Calc."""
import os


class Calc:
    def add(self, a, b):
        return a + b

    def scale(self, x):
        def inner(y):
            return y * 2
        return inner(x)


def helper():
    return 1
'''

# a pure addition after line 2 (insertion point: line 2, module level), line 7 replaced
# (Calc.add) and line 11 replaced (inside the local function inner: counts as Calc.scale)
PATCH = '''diff --git a/pkg/calc.py b/pkg/calc.py
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -1,4 +1,5 @@
 """Calc."""
 import os
+import sys
 
 
@@ -5,8 +6,8 @@
 class Calc:
     def add(self, a, b):
-        return a + b
+        return a - b
 
     def scale(self, x):
         def inner(y):
-            return y * 2
+            return y * 3
         return inner(x)
'''


@pytest.fixture(scope="module")
def index(tmp_path_factory):
    _, idx = indexed_repo(tmp_path_factory.mktemp("retrieval"), {"pkg/calc.py": CALC, "pkg/other.py": "X = 1\nY = 2\n"})
    yield idx
    idx.close()


def test_gold_lines_are_removed_lines_and_the_line_before_each_pure_addition():
    assert gold_lines(PATCH) == {("pkg/calc.py", 2), ("pkg/calc.py", 7), ("pkg/calc.py", 11)}
    assert hunk_changes(PATCH) == [("pkg/calc.py", [], [3]), ("pkg/calc.py", [7, 11], [])]
    # coverage's hunks are unchanged by sharing the parser: a pure insertion spans the lines either side
    assert gold_hunks(PATCH) == [("pkg/calc.py", 2, 3), ("pkg/calc.py", 7, 11)]
    top = "--- a/f.py\n+++ b/f.py\n@@ -1,1 +1,2 @@\n+first\n a\n"
    assert gold_lines(top) == {("f.py", 1)}
    created = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x = 1\n"
    assert gold_lines(created) == set()


def test_every_level_on_hand_made_windows(index):
    s = retrieval_scores([("pkg/calc.py", 6, 8), ["pkg/other.py", 1, 2]], PATCH, index=index)
    # files: {calc, other} against {calc}
    assert (s["files_precision"], s["files_recall"]) == (0.5, 1.0)
    # symbols: Calc.add (6-7), Calc (the blank line 8 between methods), other.py's module;
    # gold: calc.py's module (line 2), Calc.add, Calc.scale
    assert s["symbols_precision"] == pytest.approx(1 / 3) and s["symbols_recall"] == pytest.approx(1 / 3)
    # lines: 6, 7, 8 and other.py 1, 2; only 7 is gold
    assert s["lines_precision"] == pytest.approx(1 / 5) and s["lines_recall"] == pytest.approx(1 / 3)


def test_a_local_function_counts_as_its_enclosing_method(index):
    s = retrieval_scores([("pkg/calc.py", 10, 11)], PATCH, index=index)
    assert s["symbols_precision"] == 1.0 and s["symbols_recall"] == pytest.approx(1 / 3)
    assert s["lines_precision"] == 0.5


def test_the_whole_file_recalls_everything(index):
    s = retrieval_scores([{"path": "./pkg/calc.py", "start": 1, "end": 16}], PATCH, index=index)
    assert s["files_precision"] == s["files_recall"] == s["symbols_recall"] == s["lines_recall"] == 1.0
    # module, Calc, Calc.add, Calc.scale, helper: three of them gold
    assert s["symbols_precision"] == pytest.approx(3 / 5)
    assert s["lines_precision"] == pytest.approx(3 / 16)


def test_a_pure_addition_is_found_at_the_line_before_it(index):
    inside = "--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -15,2 +15,3 @@\n def helper():\n+    x = 1\n     return 1\n"
    s = retrieval_scores([("pkg/calc.py", 15, 15)], inside, index=index)
    assert all(s[m] == 1.0 for m in METRICS)
    assert retrieval_scores([("pkg/calc.py", 16, 16)], inside, index=index)["lines_recall"] == 0.0
    at_end = "--- a/pkg/calc.py\n+++ b/pkg/calc.py\n@@ -16 +16,2 @@\n     return 1\n+x = 2\n"
    assert gold_lines(at_end) == {("pkg/calc.py", 16)}
    assert retrieval_scores([("pkg/calc.py", 16, 16)], at_end, index=index)["symbols_recall"] == 1.0


def test_module_level_lines_are_the_files_module(index):
    s = retrieval_scores([("pkg/calc.py", 1, 3)], PATCH, index=index)
    assert s["symbols_precision"] == 1.0 and s["symbols_recall"] == pytest.approx(1 / 3)
    assert MODULE == "<module>"


def test_an_empty_retrieval_has_no_precision_and_no_recall(index):
    s = retrieval_scores([], PATCH, index=index)
    assert all(s[f"{level}_precision"] is None for level in ("files", "symbols", "lines"))
    assert all(s[f"{level}_recall"] == 0.0 for level in ("files", "symbols", "lines"))
    # a window of no line still names its file
    s = retrieval_scores([("pkg/calc.py", 5, 4)], PATCH, index=index)
    assert s["files_precision"] == 1.0 and s["lines_precision"] is None and s["lines_recall"] == 0.0


def test_without_an_old_side_or_an_index_the_levels_are_undefined():
    created = "--- /dev/null\n+++ b/new.py\n@@ -0,0 +1 @@\n+x = 1\n"
    assert retrieval_scores([("new.py", 1, 1)], created) == dict.fromkeys(METRICS)
    s = retrieval_scores([("pkg/calc.py", 7, 7)], PATCH)
    assert s["symbols_precision"] is None and s["symbols_recall"] is None
    assert s["lines_precision"] == 1.0 and s["files_recall"] == 1.0


def test_dloc_context_is_its_top_k_symbol_and_span_candidates_lines():
    cands = [
        Candidate("file", "a.py", None, None, None, 9.0),
        Candidate("symbol", "a.py", "f", 1, 5, 3.0),
        Candidate("symbol", "b.py", "g", 10, 20, 2.0),
        Candidate("span", "./a.py", None, 4, None, 1.0),
        Candidate("span", "c.py", None, 7, 8, 0.5),
    ]
    assert candidate_windows(cands, 1) == [("a.py", 1, 5), ("a.py", 4, 4)]
    assert candidate_windows(cands, 2) == [("a.py", 1, 5), ("b.py", 10, 20), ("a.py", 4, 4), ("c.py", 7, 8)]


def test_evaluate_instance_adds_dloc_and_bm25_precision_and_recall_at_each_k(index):
    from swevis.localize import bm25_baseline, localize_issue
    from swevis.localize.evaluation import evaluate_instance

    row = {"instance_id": "x", "repo": "o/r", "problem_statement": "Calc.add returns a + b; scale is wrong too", "patch": PATCH}
    assert "dloc_precision" not in evaluate_instance(index, row, ks=(1,))[0]
    rows = evaluate_instance(index, row, ks=(1, 3), retrieval=True)
    cands = {"dloc": localize_issue(index, row["problem_statement"], top_k=3),
             "bm25": bm25_baseline(index, row["problem_statement"], top_k=3)}
    level = {"file": "files", "symbol": "symbols", "span": "lines"}
    for r in rows:
        for who, found in cands.items():
            expect = retrieval_scores(candidate_windows(found, r["k"]), PATCH, index=index)
            assert (r[f"{who}_precision"], r[f"{who}_recall"]) == (
                expect[f"{level[r['level']]}_precision"], expect[f"{level[r['level']]}_recall"])
    by = {(r["k"], r["level"]): r for r in rows}
    assert by[(3, "symbol")]["dloc_recall"] > 0  # the issue names Calc.add
