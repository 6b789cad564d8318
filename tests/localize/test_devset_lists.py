"""swevis.localize.devset: the clones are fetched from a remote, the case lists are built from
their histories without any SWE-bench Verified fix, and each case is prepared from them."""

from __future__ import annotations

import csv
import json

import pytest
from devset_helpers import case_files, commit_files, merge_pr, new_repo, publish, write_list
from helpers import PROJECT_ROOT, git

from swevis.errors import SwevisError
from swevis.localize.devset.caselists import (
    DJANGO_BEFORE,
    FIELDS,
    ISSUE_ROWS,
    POLYGLOT,
    CaseFiles,
    read_cases,
    verified_ids,
)
from swevis.localize.devset.mining import list_issues, mine, mine_polyglot
from swevis.localize.devset.prepare import clone_folders, fetch_mirrors, prepare

SHIPPED = CaseFiles(PROJECT_ROOT / "devset", PROJECT_ROOT / "tests" / "fixtures" / "swebench" / "verified_ids.csv")
MODELS = "def send(r):\n    return {}\n\n\ndef other():\n    return {}\n"


@pytest.fixture
def history(tmp_path):
    """A requests-like history on a remote: fixes by merged and squashed pull requests, one of
    them a Verified instance's (psf__requests-2317), and changes that are no localization case.
    Returns (remotes folder, the first merge's commit)."""
    repo = new_repo(tmp_path / "work")
    commit_files(repo, {"requests/__init__.py": "", "requests/models.py": MODELS.format("r", 1)}, "initial")
    fixed = merge_pr(repo, 7001, {"requests/models.py": MODELS.format("r or None", 1)},
                     "Fix send on an empty request", "send() crashed on an empty request")
    merge_pr(repo, 2317, {"requests/models.py": MODELS.format("r or 0", 1)}, "Fix the Verified one",
             "fix: the bug of a Verified instance")
    commit_files(repo, {"requests/models.py": MODELS.format("r or 0", 2)}, "Fix other() returning the wrong value (#7010)")
    commit_files(repo, {"tests/test_models.py": "def test_send():\n    pass\n"}, "Fix a test (#7011)")
    commit_files(repo, {"requests/new.py": "X = 1\n"}, "Fix by adding a module (#7012)")
    commit_files(repo, {"requests/models.py": MODELS.format("r or 0", 3)}, "Make other() return three (#7013)")
    remotes = tmp_path / "remotes"
    publish(repo, remotes, "psf+requests")
    return remotes, fixed


def test_fetch_clones_once_and_then_brings_new_commits(history, tmp_path):
    remotes, _fixed = history
    mirrors = tmp_path / "mirrors"
    first = fetch_mirrors(mirrors, str(remotes), ["psf+requests"])
    assert git(mirrors / "psf+requests" / "repo", "rev-parse", "--is-bare-repository") == "true"
    work = tmp_path / "work"
    head = commit_files(work, {"requests/models.py": MODELS.format("r or 0", 4)}, "Fix other() again (#7014)")
    git(work, "push", "-q", str(remotes / "psf" / "requests.git"), "main")
    assert first["psf+requests"] != head and fetch_mirrors(mirrors, str(remotes), ["psf+requests"]) == {"psf+requests": head}
    with pytest.raises(SwevisError, match="git clone .*nobody/nothing.git"):
        fetch_mirrors(mirrors, str(remotes), ["nobody+nothing"])
    assert not (mirrors / "nobody+nothing" / "repo").exists()  # no half clone left as if whole


def test_mined_fixes_exclude_verified_pull_requests_and_non_localization_changes(history, tmp_path):
    remotes, fixed = history
    mirrors = tmp_path / "mirrors"
    fetch_mirrors(mirrors, str(remotes), ["psf+requests"])
    files = case_files(tmp_path / "lists")
    cases = mine(mirrors, 10, files, mirror_of={"psf/requests": "psf+requests"})
    assert [(c["case_id"], c["source"]) for c in cases] == [("mined__requests-7010", "squashed-pr"),
                                                             ("mined__requests-7001", "merged-pr")]
    assert cases[1]["fix_commit"] == fixed and all(c["text_kind"] == "commit-message" for c in cases)
    with files.mined.open() as fh:
        assert [r["case_id"] for r in csv.DictReader(fh)] == ["mined__requests-7010", "mined__requests-7001"]
    listed = read_cases(files, files.mined)
    assert clone_folders(listed) == ["psf+requests"]
    assert prepare(listed, mirrors, tmp_path / "out") == 2 and prepare(listed, mirrors, tmp_path / "out") == 0
    cdir = tmp_path / "out" / "cases" / "mined__requests-7001"
    assert cdir.joinpath("problem_statement.md").read_text().startswith("Fix send on an empty request\n\nsend() crashed")
    assert "+    return r or None" in cdir.joinpath("patch.diff").read_text()
    assert json.loads(cdir.joinpath("meta.json").read_text())["gold_files"] == ["requests/models.py"]


def test_a_verified_pull_request_or_a_late_django_commit_in_the_list_is_refused(tmp_path):
    files = case_files(tmp_path / "lists")
    row = {"case_id": "mined__requests-2317", "repo": "psf/requests", "base_commit": "a", "fix_commit": "b",
           "pull_request": "2317", "committed": "1", "source": "merged-pr", "text_kind": "commit-message", "mirror": "m"}
    late = {**row, "case_id": "mined__django-abc", "repo": "django/django", "pull_request": "", "committed": str(DJANGO_BEFORE + 1)}
    bad = write_list(tmp_path / "cases.csv", [row, late])
    with pytest.raises(SwevisError, match="mined__requests-2317, mined__django-abc may be SWE-bench Verified"):
        read_cases(files, bad)
    with pytest.raises(SwevisError, match="no case list there"):
        read_cases(files)


def test_the_shipped_case_lists_meet_the_sizes_and_are_outside_verified():
    mined = read_cases(SHIPPED, SHIPPED.mined)
    per = {}
    for c in mined:
        per[c["repo"]] = per.get(c["repo"], 0) + 1
    assert len(mined) >= 1000 and len(per) == 12 and min(per.values()) >= 50, per
    assert all(c["text_kind"] == "commit-message" for c in mined)
    issues = read_cases(SHIPPED, SHIPPED.issues)
    assert len(issues) >= 400 and all(c["text_kind"] == "issue" and c["source"] == "swe-bench-test" for c in issues)
    assert not verified_ids(SHIPPED.verified) & {c["case_id"] for c in issues}
    both = read_cases(SHIPPED)
    assert len({c["case_id"] for c in both}) == len(both) == len(mined) + len(issues)
    assert list(both[0]) == list(FIELDS)
    assert len(clone_folders(both)) == 13  # the 12 repositories and the issue rows' copy


def _rows_remote(tmp_path, rows: list[dict]) -> str:
    """A remote like the one ISSUE_ROWS names: one data.json a SWE-bench row."""
    repo = new_repo(tmp_path / "rows")
    folder = ISSUE_ROWS["folder"]
    sha = commit_files(repo, {f"{folder}/{r['instance_id']}/data.json": json.dumps(r) for r in rows} | {f"{folder}/README.md": "x"},
                       "rows")
    publish(repo, tmp_path / "remotes", ISSUE_ROWS["mirror"])
    return sha


def test_real_issues_are_listed_outside_verified_and_prepared_from_their_rows(tmp_path):
    patch = ("diff --git a/requests/models.py b/requests/models.py\n--- a/requests/models.py\n+++ b/requests/models.py\n"
             "@@ -2 +2 @@ def send(r):\n-    return r\n+    return r or None\n")
    row = {"instance_id": "psf__requests-1963", "repo": "psf/requests", "base_commit": "abc", "patch": patch,
           "problem_statement": "Traceback (most recent call last):\n  File \"requests/models.py\", line 3",
           "created_at": "2014-03-20T10:00:00Z"}
    rows = [row, {**row, "instance_id": "psf__requests-2317"},  # a Verified instance
            {**row, "instance_id": "sqlfluff__sqlfluff-1", "repo": "sqlfluff/sqlfluff"},  # not one of the 12
            {**row, "instance_id": "django__django-10087", "repo": "django/django", "created_at": "2018-06-23T05:35:26Z"}]
    source = {**ISSUE_ROWS, "commit": _rows_remote(tmp_path, rows)}
    mirrors = tmp_path / "mirrors"
    fetch_mirrors(mirrors, str(tmp_path / "remotes"), [ISSUE_ROWS["mirror"]])
    files = case_files(tmp_path / "lists")
    cases = list_issues(mirrors, files, source)
    assert [(c["case_id"], c["pull_request"], c["text_kind"], c["fix_commit"]) for c in cases] == [
        ("django__django-10087", 10087, "issue", ""), ("psf__requests-1963", 1963, "issue", "")]
    assert cases[1]["committed"] == 1395309600 and cases[1]["mirror"] == "psf+requests"
    listed = read_cases(files, files.issues)  # a django issue after 2016 is no mined commit: its pull request is checked
    assert [c["case_id"] for c in listed] == ["django__django-10087", "psf__requests-1963"]
    assert clone_folders(listed) == sorted([ISSUE_ROWS["mirror"], "swe-bench+django__django", "psf+requests"])
    prepare(listed, mirrors, tmp_path / "out", source)
    cdir = tmp_path / "out" / "cases" / "psf__requests-1963"
    assert cdir.joinpath("problem_statement.md").read_text() == row["problem_statement"] + "\n"
    assert cdir.joinpath("patch.diff").read_text() == patch
    meta = json.loads(cdir.joinpath("meta.json").read_text())
    assert meta["gold_files"] == ["requests/models.py"] and meta["text_kind"] == "issue"
    assert "problem_statement" not in files.issues.read_text()  # ids and commits only
    with pytest.raises(SwevisError, match="no SWE-bench rows"):
        list_issues(tmp_path / "nowhere", case_files(tmp_path / "none"), source)


def test_polyglot_fixes_are_mined_in_their_repository_language_without_its_tests(tmp_path):
    """A Go and a Java history: the gold is the language's non-test source files (a Go
    `_test.go` or a Java `src/test` file is left out of it), a fix of no such file is no case,
    and the list and each prepared case carry the language."""
    go = new_repo(tmp_path / "go")
    commit_files(go, {"go.mod": "module example.com/x\n", "cmd.go": "package x\n\nfunc Run() int { return 1 }\n"}, "initial")
    commit_files(go, {"cmd.go": "package x\n\nfunc Run() int { return 2 }\n",
                      "cmd_test.go": "package x\n\nfunc TestRun() {}\n"}, "Fix Run returning the wrong code (#12)")
    commit_files(go, {"cmd_test.go": "package x\n\nfunc TestRun() { }\n"}, "Fix a flaky test (#13)")
    commit_files(go, {"tool.py": "X = 1\n"}, "Fix the release script (#14)")
    java = new_repo(tmp_path / "java")
    main, test = "src/main/java/org/x/Text.java", "src/test/java/org/x/TextTest.java"
    commit_files(java, {main: "package org.x;\nclass Text { int n() { return 1; } }\n"}, "initial")
    merge_pr(java, 7, {main: "package org.x;\nclass Text { int n() { return 2; } }\n", test: "class TextTest {}\n"},
             "Fix Text.n being off by one", "n() returned 1, an error")
    remotes, mirrors = tmp_path / "remotes", tmp_path / "mirrors"
    publish(go, remotes, "acme+gotool")
    publish(java, remotes, "acme+jtext")
    fetch_mirrors(mirrors, str(remotes), ["acme+gotool", "acme+jtext"])
    files = case_files(tmp_path / "lists")
    repos = {"acme/gotool": ("acme+gotool", "go"), "acme/jtext": ("acme+jtext", "java")}
    cases = mine_polyglot(mirrors, 10, files, repos)
    assert [(c["case_id"], c["language"]) for c in cases] == [("mined__gotool-12", "go"), ("mined__jtext-7", "java")]
    listed = read_cases(files, files.polyglot)
    assert [c["language"] for c in listed] == ["go", "java"]
    assert prepare(listed, mirrors, tmp_path / "out") == 2
    for case_id, gold in (("mined__gotool-12", ["cmd.go"]), ("mined__jtext-7", [main])):
        cdir = tmp_path / "out" / "cases" / case_id
        meta = json.loads(cdir.joinpath("meta.json").read_text())
        assert meta["gold_files"] == gold and meta["language"] == cases[0 if "go" in case_id else 1]["language"]
        assert "Test" not in cdir.joinpath("patch.diff").read_text()
    with pytest.raises(SwevisError, match="no registered code language 'cobol'"):
        mine_polyglot(mirrors, 10, files, {"acme/gotool": ("acme+gotool", "cobol")})


def test_the_shipped_polyglot_list_holds_100_fixes_of_each_language_outside_python():
    cases = read_cases(SHIPPED, SHIPPED.polyglot)
    counts = {lang: sum(c["language"] == lang for c in cases) for lang in ("java", "javascript", "typescript", "go", "rust")}
    assert min(counts.values()) >= 100 and sum(counts.values()) == len(cases)
    assert {c["repo"]: (c["mirror"], c["language"]) for c in cases} == POLYGLOT
    assert len({c["case_id"] for c in cases}) == len(cases)
