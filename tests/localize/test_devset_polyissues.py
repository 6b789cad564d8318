"""swevis.localize.devset.polyissues: the real GitHub issues of the polyglot repositories are the
fixes that name the issue they close, their texts come from the REST API (a local server here)
or from a file of texts, and the shipped list stays inside the repositories checked against
every benchmark's test split."""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import yaml
from devset_helpers import case_files, commit_files, merge_pr, new_repo, publish, write_list
from helpers import FIXTURES, PROJECT_ROOT

from swevis.cli import main

from swevis.errors import SwevisError
from swevis.localize.devset.runner import load_results
from swevis.localize.devset.caselists import POLYGLOT, POLYGLOT_FIELDS, CaseFiles, read_cases
from swevis.localize.devset.polyissues import (
    closed_issue,
    fetch_issue,
    fetch_issue_texts,
    issue_number,
    issue_refs,
    issue_texts,
    polyglot_candidates,
    read_issue_texts,
)
from swevis.localize.devset.prepare import clone_folders, fetch_mirrors, prepare

SHIPPED = CaseFiles(PROJECT_ROOT / "devset", PROJECT_ROOT / "tests" / "fixtures" / "swebench" / "verified_ids.csv")
# a made-up Go repository under a polyglot repository's name (read_cases takes no other)
REPO, FOLDER = "spf13/cobra", "spf13+cobra"
RUN = "package cobra\n\nfunc Run(n int) int {{ return {} }}\n\nfunc Other() int {{ return 0 }}\n"
# a fake issue, written for this test
FAKE = {"title": "Run returns the wrong count", "body": "Calling `Run(2)` gives 1.\n\nExpected 2."}


def test_a_fix_names_the_issue_in_its_subject_or_alone_in_its_message():
    assert issue_refs("Fix Run; closes #12, fixes spf13/cobra#13 (#40)", REPO) == [12, 13]
    assert issue_refs("resolves https://github.com/spf13/cobra/issues/7", REPO) == [7]
    assert issue_refs("fixes other/repo#9, see #10, Fixes: #11", REPO) == [11]
    assert closed_issue("Fix Run (#40)", "Fix Run (#40)\n\nFixes #12", REPO, "40") == 12
    assert closed_issue("Fix #12 and #13 (#40)", "", REPO, "40") == 12
    assert closed_issue("fix: closes #12, closes #13", "", REPO, "") == 12
    assert closed_issue("Stacked fixes (#40)", "* a (closes #12)\n* b (closes #13)", REPO, "40") is None
    assert closed_issue("Fixes #40 (#40)", "", REPO, "40") is None


@pytest.fixture
def cobra_like(tmp_path):
    """A Go history on a remote: fixes that close an issue (squashed, merged, direct), one that
    names two, a test-only fix and a fix that adds a file. Returns the mirrors folder."""
    repo = new_repo(tmp_path / "work")
    commit_files(repo, {"go.mod": "module x\n", "run.go": RUN.format("n")}, "initial")
    commit_files(repo, {"run.go": RUN.format("n - 1")}, "Fix Run off by one, fixes #3 (#10)")
    commit_files(repo, {"run.go": RUN.format("n")}, "Stacked fixes (#11)\n\n* a, closes #4\n* b, closes #5")
    commit_files(repo, {"run_test.go": "package cobra\n"}, "Fix a flaky test, fixes #6 (#12)")
    commit_files(repo, {"new.go": "package cobra\n"}, "Add new.go, fixes #7 (#13)")
    merge_pr(repo, 14, {"run.go": RUN.format("n + 0")}, "Fix Run for zero", "Run(0) was wrong\n\nCloses #8")
    commit_files(repo, {"run.go": RUN.format("n * 1")}, "Fix Run again, closes #3")
    remotes, mirrors = tmp_path / "remotes", tmp_path / "mirrors"
    publish(repo, remotes, FOLDER)
    fetch_mirrors(mirrors, str(remotes), [FOLDER])
    return mirrors


def test_candidates_are_qualifying_fixes_one_a_closed_issue_newest_fix_first(cobra_like):
    cases = polyglot_candidates(cobra_like, 10, {REPO: (FOLDER, "go")})
    assert [(c["case_id"], c["pull_request"], c["source"], c["text_kind"]) for c in cases] == [
        ("issue__cobra-3", "", "github-issue", "issue"), ("issue__cobra-8", "14", "github-issue", "issue")]
    assert set(cases[0]) == set(POLYGLOT_FIELDS) and cases[0]["language"] == "go"
    assert len(polyglot_candidates(cobra_like, 1, {REPO: (FOLDER, "go")})) == 1
    with pytest.raises(SwevisError, match="no clone of spf13/cobra"):
        polyglot_candidates(cobra_like / "none", 1, {REPO: (FOLDER, "go")})


class _Issues(BaseHTTPRequestHandler):
    """GET /repos/<owner>/<name>/issues/<n>: issue 5 is a pull request, 3 and 8 the fake issue, 7
    answers a JSON list."""

    seen: list[dict] = []

    def do_GET(self):  # noqa: N802 (the handler's name)
        _Issues.seen.append({"path": self.path, "auth": self.headers.get("Authorization")})
        number = self.path.rsplit("/", 1)[-1]
        known = {n: {**FAKE, "number": int(n), "html_url": f"https://example.invalid/{n}"} for n in ("3", "8")}
        known |= {
            "5": {"title": "a pull request", "body": "", "pull_request": {}}, "7": ["not", "an", "issue"]}
        status, body = (200, known[number]) if number in known else (404, {"message": "Not Found"})
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture
def api():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Issues)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    _Issues.seen.clear()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_the_api_gives_an_issue_with_the_token_and_refuses_a_pull_request(api, tmp_path, monkeypatch):
    row = fetch_issue(api, REPO, 8, token="t0k")
    assert row == {"repo": REPO, "number": 8, "title": FAKE["title"], "body": FAKE["body"],
                   "url": "https://example.invalid/8"}
    assert _Issues.seen[-1] == {"path": "/repos/spf13/cobra/issues/8", "auth": "Bearer t0k"}
    with pytest.raises(SwevisError, match="spf13/cobra#5 is a pull request"):
        fetch_issue(api, REPO, 5)
    with pytest.raises(SwevisError, match="GET .*/issues/9: HTTP Error 404"):
        fetch_issue(api, REPO, 9)
    with pytest.raises(SwevisError, match="GET .*/issues/7: not an issue"):
        fetch_issue(api, REPO, 7)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    out = tmp_path / "texts.jsonl"
    assert fetch_issue_texts([{"case_id": "issue__cobra-8", "repo": REPO}], api, out) == 1
    assert _Issues.seen[-1]["auth"] is None
    assert read_issue_texts(out) == {(REPO, 8): row}


def test_a_github_issue_is_prepared_from_a_texts_file_or_the_api(cobra_like, api, tmp_path):
    files = case_files(tmp_path / "lists")
    cases = polyglot_candidates(cobra_like, 10, {REPO: (FOLDER, "go")})
    write_list(files.polyglot_issues, cases)
    listed = read_cases(files, files.polyglot_issues)
    assert clone_folders(listed) == [FOLDER]
    texts = tmp_path / "texts.jsonl"
    texts.write_text(json.dumps({"repo": REPO, "number": 3, **FAKE}) + "\n\n")
    assert prepare(listed[:1], cobra_like, tmp_path / "out", issue_text=issue_texts(api, texts)) == 1
    with pytest.raises(SwevisError, match="issue__cobra-8: no issue spf13/cobra#8 in .*texts.jsonl"):
        prepare(listed, cobra_like, tmp_path / "out", issue_text=issue_texts(api, texts))
    cdir = tmp_path / "out" / "cases" / "issue__cobra-3"
    assert cdir.joinpath("problem_statement.md").read_text() == f"{FAKE['title']}\n\n{FAKE['body']}\n"
    meta = json.loads(cdir.joinpath("meta.json").read_text())
    assert meta["gold_files"] == ["run.go"] and meta["language"] == "go" and meta["source"] == "github-issue"
    assert "n * 1" in cdir.joinpath("patch.diff").read_text()
    assert prepare(listed, cobra_like, tmp_path / "out", issue_text=issue_texts(api)) == 1
    assert tmp_path.joinpath("out", "cases", "issue__cobra-8", "problem_statement.md").read_text().startswith(FAKE["title"])
    with pytest.raises(SwevisError, match="a GitHub issue, and no issue texts given"):
        prepare(listed, cobra_like, tmp_path / "again")


def test_bad_texts_files_and_unchecked_repositories_are_refused(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"repo": "spf13/cobra", "number": 3, "title": "t", "body": "b"}\n{"title": "no repo"}\n')
    with pytest.raises(SwevisError, match="bad.jsonl:2: not an issue row"):
        read_issue_texts(bad)
    for line in ('{"repo": "spf13/cobra", "number": 3, "body": "no title"}', '{"repo": "spf13/cobra", "number": 3, '
                 '"title": null, "body": "b"}', '["not", "an", "object"]'):
        bad.write_text(line + "\n")
        with pytest.raises(SwevisError, match="bad.jsonl:1: not an issue row"):
            read_issue_texts(bad)
    with pytest.raises(SwevisError, match="no issue-texts file"):
        read_issue_texts(tmp_path / "none.jsonl")
    with pytest.raises(SwevisError, match="not an issue case id"):
        issue_number({"case_id": "mined__cobra-3"})
    files = case_files(tmp_path / "lists")
    row = {f: "" for f in POLYGLOT_FIELDS} | {"case_id": "issue__other-1", "repo": "acme/other",
                                               "source": "github-issue", "text_kind": "issue"}
    write_list(files.polyglot_issues, [row])
    with pytest.raises(SwevisError, match="issue__other-1: a repository not checked to be in no benchmark's test split"):
        read_cases(files, files.polyglot_issues)


def test_the_shipped_issue_list_covers_every_language_inside_the_checked_repositories():
    cases = read_cases(SHIPPED, SHIPPED.polyglot_issues)
    assert len({c["case_id"] for c in cases}) == len(cases) >= 25
    assert {c["language"] for c in cases} == {"java", "javascript", "typescript", "go", "rust"}
    for c in cases:
        assert POLYGLOT[c["repo"]] == (c["mirror"], c["language"])
        assert (c["source"], c["text_kind"]) == ("github-issue", "issue") and issue_number(c) > 0
        assert c["case_id"] == f"issue__{c['repo'].split('/')[1]}-{issue_number(c)}"
    assert SHIPPED.polyglot_issues.read_text().splitlines()[0] == ",".join(POLYGLOT_FIELDS)


def test_the_steps_list_fetch_prepare_measure_and_report_the_issues(cobra_like, api, tmp_path, capsys):
    lists, work, texts = tmp_path / "lists", tmp_path / "work", tmp_path / "texts.jsonl"
    devset = {"lists": str(lists), "verified": str(FIXTURES / "swebench" / "verified_ids.csv"),
              "mirrors": str(cobra_like), "work": str(work), "issues_api": api}
    config = tmp_path / "devset.yaml"
    config.write_text(yaml.safe_dump({"devset": devset}))
    lists.mkdir()
    candidates = ["devset", "issue-candidates", "--config", str(config), "--write", str(lists / "issues_polyglot.csv")]
    assert main([*candidates, "--repos", "acme/other"]) == 2
    assert main([*candidates, "--repos", REPO]) == 0
    assert main(["devset", "issue-texts", "--config", str(config), "--write", str(texts)]) == 0
    assert sorted(n for _repo, n in read_issue_texts(texts)) == [3, 8]
    assert main(["devset", "prepare", "--config", str(config), "--polyglot-issues", "--issue-texts", str(texts)]) == 0
    assert main(["devset", "measure", "--config", str(config), "--polyglot-issues"]) == 0
    assert [r["gold_files"] for r in load_results(work)] == [["run.go"], ["run.go"]]
    capsys.readouterr()
    assert main(["devset", "report", "--config", str(config), "--polyglot-issues"]) == 0
    report = capsys.readouterr().out
    assert re.search(r"^spf13/cobra +2 ", report, re.M) and re.search(r"^all +2 ", report, re.M)
    assert main(["devset", "report", "--config", str(config), "--polyglot", "--polyglot-issues"]) == 2
