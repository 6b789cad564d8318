"""Candidate patches: normalisation (git's metadata never tells two candidates apart, a changed
added or removed line always does), dedupe, the majority vote and its fallback when no
candidate passed, and the model's pick (a usable answer decides, an unusable one leaves it to
the majority)."""

from __future__ import annotations

import json

import pytest

from swevis.agents.mechanisms.candidates import (
    aggregate,
    aggregation_prompt,
    dedupe,
    majority_vote,
    normalize_patch,
    parse_choice,
)

GIT_DIFF = """\
diff --git a/pkg/calc.py b/pkg/calc.py
index 3b18e51..a4c2f1d 100644
--- a/pkg/calc.py
+++ b/pkg/calc.py
@@ -10,7 +10,7 @@ def total(values):
     return sum(values)
 
 def mean(values):
-    return sum(values) / 2
+    return sum(values) / len(values)
 
 
 def spread(values):
diff --git a/pkg/__init__.py b/pkg/__init__.py
index 1111111..2222222 100644
--- a/pkg/__init__.py
+++ b/pkg/__init__.py
@@ -1,2 +1,3 @@
 from .calc import mean, total
+from .calc import spread
 __all__ = ["mean", "total"]
"""

# the same change as diff -u prints it (no git header, timestamps, no section heading), the
# files in the other order, trailing blanks on context lines, CRLF on header and context lines
PLAIN_DIFF = (
    "--- a/pkg/__init__.py\t2025-01-01 10:00:00.000000000 +0000\r\n"
    "+++ b/pkg/__init__.py\t2025-01-02 11:00:00.000000000 +0000\r\n"
    "@@ -1,2 +1,3 @@\r\n"
    " from .calc import mean, total   \r\n"
    "+from .calc import spread\n"
    " __all__ = [\"mean\", \"total\"]\r\n"
    "--- a/pkg/calc.py\t2025-01-01 10:00:00.000000000 +0000\n"
    "+++ b/pkg/calc.py\t2025-01-02 11:00:00.000000000 +0000\n"
    "@@ -10,7 +10,7 @@\n"
    "     return sum(values)\t\n"
    "\n"
    " def mean(values):\n"
    "-    return sum(values) / 2\n"
    "+    return sum(values) / len(values)\n"
    " \n"
    " \n"
    " def spread(values):\n"
)


def test_metadata_and_formatting_do_not_tell_candidates_apart():
    canonical = normalize_patch(GIT_DIFF)
    assert canonical == normalize_patch(PLAIN_DIFF)
    assert "index " not in canonical and "diff --git" not in canonical and "2025-01" not in canonical
    # files sorted by path, hunk headers rebuilt without git's section heading
    assert canonical.index("+++ b/pkg/__init__.py") < canonical.index("+++ b/pkg/calc.py")
    assert "@@ -10,7 +10,7 @@\n" in canonical
    # a mode change and a hunk that changes nothing are no part of the change
    with_noise = GIT_DIFF.replace("index 1111111..2222222 100644\n", "old mode 100644\nnew mode 100755\nindex 1111111..2222222\n")
    with_noise += "diff --git a/pkg/other.py b/pkg/other.py\nindex 1..2 100644\n--- a/pkg/other.py\n+++ b/pkg/other.py\n@@ -1,2 +1,2 @@\n x = 1\n y = 2\n"
    assert normalize_patch(with_noise) == canonical
    # git's --no-prefix output names the same files
    no_prefix = GIT_DIFF.replace("--- a/", "--- ").replace("+++ b/", "+++ ")
    assert normalize_patch(no_prefix) == canonical


@pytest.mark.parametrize("changed", [
    ("+    return sum(values) / len(values)\n", "+    return sum(values) / len(values)  \n"),  # trailing blank added
    ("+    return sum(values) / len(values)\n", "+    return sum(values) / len(values)\r\n"),  # CRLF added line
    ("-    return sum(values) / 2\n", "-    return sum(values)  / 2\n"),  # another removed line
    ("+from .calc import spread\n", "+from .calc import spread as _spread\n"),
    ("+++ b/pkg/calc.py\n", "+++ b/pkg/calc2.py\n"),  # another file
])
def test_a_changed_added_or_removed_line_is_another_patch(changed):
    old, new = changed
    assert old in GIT_DIFF
    assert normalize_patch(GIT_DIFF.replace(old, new)) != normalize_patch(GIT_DIFF)


def test_added_and_removed_lines_are_kept_byte_for_byte():
    diff = (
        "--- a/q.sql\n+++ b/q.sql\n@@ -1,3 +1,3 @@\n"
        "--- a comment that looks like a file header\n"   # removed line "-- a comment ..."
        "+-- a comment \x0c with a form feed\r\n"
        " select 1;\n"
        "-select 2;\n"
        "\\ No newline at end of file\n"
    )
    canonical = normalize_patch(diff)
    assert "--- a comment that looks like a file header\n" in canonical
    assert "+-- a comment \x0c with a form feed\r\n" in canonical
    assert canonical.endswith("-select 2;\n\\ No newline at end of file\n")
    assert canonical.count("+++ ") == 1  # the removed "-- ..." line was not read as a second file
    assert normalize_patch(diff.replace("\\ No newline at end of file\n", "")) != canonical


def test_new_and_deleted_files_keep_that_fact_but_not_their_mode():
    new_file = "diff --git a/n.py b/n.py\nnew file mode 100644\nindex 0000000..e69de29\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+x = 1\n"
    assert normalize_patch(new_file) == "--- /dev/null\n+++ b/n.py\nnew file\n@@ -0,0 +1,1 @@\n+x = 1\n"
    assert normalize_patch(new_file.replace("100644", "100755")) == normalize_patch(new_file)
    empty_new = "diff --git a/empty.txt b/empty.txt\nnew file mode 100644\nindex 0000000..e69de29\n"
    assert normalize_patch(empty_new) == "--- a/empty.txt\n+++ b/empty.txt\nnew file\n"
    assert normalize_patch(empty_new.replace("a/empty.txt b/empty.txt", "empty.txt empty.txt")) == normalize_patch(empty_new)
    binary = "diff --git a/logo.png b/logo.png\nindex 1..2 100644\nBinary files a/logo.png and b/logo.png differ\n"
    assert normalize_patch(binary) == "--- a/logo.png\n+++ b/logo.png\nBinary files a/logo.png and b/logo.png differ\n"


@pytest.mark.parametrize("diff", ["", "   \n\t\n", "no diff here, just prose\n",
                                  "diff --git a/x b/x\nold mode 100644\nnew mode 100755\n"])
def test_no_change_normalises_to_nothing(diff):
    assert normalize_patch(diff) == ""


def test_dedupe_groups_in_first_occurrence_order_and_counts():
    other = GIT_DIFF.replace("/ len(values)", "/ max(len(values), 1)")
    groups = dedupe([other, GIT_DIFF, "", PLAIN_DIFF, other, GIT_DIFF, "  \n"])
    assert [g["members"] for g in groups] == [[0, 4], [1, 3, 5]]
    assert [g["count"] for g in groups] == [2, 3]
    assert groups[1]["patch"] == GIT_DIFF  # the first of its group, as generated
    assert groups[1]["normalized"] == normalize_patch(GIT_DIFF)
    assert groups[0]["hash"] != groups[1]["hash"] and len(groups[0]["hash"]) == 16
    assert dedupe(["", " "]) == []


def _groups(*counts: int):
    """Patch groups holding ``counts`` candidates each (distinct changes)."""
    diffs = []
    for n, count in enumerate(counts):
        diffs += [f"--- a/f.py\n+++ b/f.py\n@@ -1 +1 @@\n-x = 0\n+x = {n}\n"] * count
    return dedupe(diffs)


def test_majority_among_those_that_passed():
    groups = _groups(3, 2, 1)
    vote = majority_vote(groups, [False, True, True])  # the most frequent failed: not eligible
    assert (vote["winner"], vote["method"], vote["pool"]) == (1, "majority", "passed")
    assert vote["reason"].startswith("2 of 3 candidates in the pool")


def test_majority_tie_goes_to_the_earliest():
    groups = _groups(1, 2, 2)
    vote = majority_vote(groups, [True, True, True])
    assert vote["winner"] == 1 and "tied with 1 other" in vote["reason"]


def test_fallback_over_all_candidates_when_none_passed():
    groups = _groups(1, 2)
    vote = majority_vote(groups, [False, False])
    assert (vote["winner"], vote["method"], vote["pool"]) == (1, "fallback-majority", "all")
    assert "none passed" in vote["reason"]


def test_single_and_no_candidate():
    groups = _groups(1, 4)
    assert majority_vote(groups, [True, False])["winner"] == 0  # the only one that passed
    assert majority_vote(groups, [True, False])["method"] == "single"
    assert majority_vote(_groups(1), [False])["method"] == "single"
    # three equal candidates: one distinct patch, a unanimous majority
    assert majority_vote(_groups(3), [True]) == {
        "winner": 0, "method": "majority", "pool": "passed",
        "reason": "3 of 3 candidates in the pool are this patch, the most; pool: passed the regression tests"}
    assert majority_vote([], []) == {"winner": None, "method": "none", "pool": "all",
                                     "reason": "no candidate patch changes anything"}
    with pytest.raises(ValueError, match="2 entries for 1 patch groups"):
        majority_vote(_groups(1), [True, True])


@pytest.mark.parametrize("text,n,expected", [
    ("Candidate 2 keeps the API.\nCHOICE: 2", 3, 1),
    ("choice = #3", 3, 2),
    ("<choice>1</choice>", 2, 0),
    ("CHOICE: 1 ... on reflection\nChoice: candidate 2", 2, 1),  # the last one counts
    ("2", 3, 1),
    (" #2.\n", 3, 1),
    ("CHOICE: 4", 3, None),  # out of range
    ("CHOICE: 0", 3, None),
    ("CHOICE: N", 3, None),  # the instruction echoed
    ("I like the second and the third.", 3, None),  # no pick
    ("", 3, None),
])
def test_parse_choice(text, n, expected):
    assert parse_choice(text, n) == expected


class Model:
    """A scripted model: answers in turn, recording the messages of each call."""

    def __init__(self, *answers: str):
        self.answers = list(answers)
        self.calls: list[list[dict[str, str]]] = []

    def __call__(self, messages):
        self.calls.append(messages)
        return self.answers[len(self.calls) - 1]


def test_the_model_picks_among_those_that_passed():
    groups = _groups(3, 1, 1)
    model = Model("The third is smallest.\nCHOICE: 2")
    rec = aggregate(groups, [False, True, True], model, issue="mean() is wrong", votes=1)
    assert (rec["winner"], rec["method"], rec["pool"]) == (2, "model", "passed")  # candidate 2 of the pool
    assert "warning" not in rec
    assert rec["patch"] == groups[2]["patch"]
    assert rec["answers"] == ["The third is smallest.\nCHOICE: 2"] and rec["picks"] == [2]
    assert [c["passed"] for c in rec["candidates"]] == [False, True, True]
    assert [c["count"] for c in rec["candidates"]] == [3, 1, 1]
    shown = model.calls[0][1]["content"]
    assert "mean() is wrong" in shown and "Each of these candidates passed" in shown
    assert shown.count("<candidate number=") == 2 and "+x = 0" not in shown  # the failing one is not shown
    json.dumps(rec)


@pytest.mark.parametrize("answer", ["CHOICE: 7", "no idea", ""])
def test_an_unusable_answer_leaves_it_to_the_majority(answer):
    groups = _groups(1, 2)
    rec = aggregate(groups, [True, True], Model(answer), issue="i", votes=1)
    assert (rec["winner"], rec["method"]) == (1, "majority")
    assert rec["reason"].startswith("no usable model answer (1 asked)") and rec["picks"] == [None]
    assert rec["warning"] == "no aggregation answer of 1 named one of the 2 candidates: the majority vote decides (majority)"


def test_the_model_chooses_among_all_when_none_passed():
    groups = _groups(2, 1)
    model = Model("CHOICE: 2")
    rec = aggregate(groups, [False, False], model, issue="i", votes=1)
    assert (rec["winner"], rec["method"], rec["pool"]) == (1, "model", "all")
    assert "None of the candidates passed" in model.calls[0][1]["content"]
    garbage = aggregate(groups, [False, False], Model("?"), issue="i", votes=1)
    assert (garbage["winner"], garbage["method"]) == (0, "fallback-majority")


def test_no_model_call_without_a_choice_to_make():
    model = Model()
    assert aggregate(_groups(2, 1), [False, True], model, issue="i", votes=3)["method"] == "single"
    assert aggregate(_groups(3), [True], model, issue="i", votes=3)["method"] == "majority"
    nothing = aggregate([], [], model, issue="i", votes=3)
    assert (nothing["method"], nothing["winner"], nothing["patch"]) == ("none", None, "")
    assert model.calls == []
    # without a model (the issue is then not needed)
    groups = _groups(1, 2)
    rec = aggregate(groups, passed=[True, True])
    assert (rec["method"], rec["winner"], rec["patch"]) == ("majority", 1, groups[1]["patch"])
    assert "answers" not in rec
    with pytest.raises(ValueError, match="needs the issue"):
        aggregate(groups, [True, True], model)


def test_votes_take_the_plurality_and_stop_once_decided():
    groups = _groups(1, 1, 1)
    model = Model("CHOICE: 3", "CHOICE: 1", "CHOICE: 3", "CHOICE: 3", "CHOICE: 1")
    rec = aggregate(groups, [True] * 3, model, issue="i", votes=5)
    assert len(model.calls) == 4  # 2-1 with two left could still turn; 3-1 with one left cannot
    assert rec["winner"] == 2 and rec["picks"] == [3, 1, 3, 3]
    tie = aggregate(groups, [True] * 3, Model("CHOICE: 2", "CHOICE: 1", "nonsense"), issue="i", votes=3)
    assert tie["winner"] == 0 and tie["picks"] == [2, 1, None]  # tied 1-1: the earlier candidate
    assert "in 1 of 3 answer(s)" in tie["reason"]
    with pytest.raises(ValueError, match="votes"):
        aggregate(groups, [True] * 3, model, issue="i", votes=0)


def test_aggregation_prompt_numbers_the_candidates():
    system, user = aggregation_prompt("the issue", ["--- a/x\n+++ b/x\n", "--- a/y\n+++ b/y"], passed=True)
    assert system["role"] == "system" and "CHOICE: N" in system["content"]
    assert user["role"] == "user"
    assert '<candidate number="1">\n--- a/x\n+++ b/x\n</candidate>' in user["content"]
    assert '<candidate number="2">\n--- a/y\n+++ b/y\n</candidate>' in user["content"]
    assert "N from 1 to 2" in user["content"]
