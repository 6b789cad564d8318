"""swevis.localize.devset.split: the dev split's case list stays outside Verified; a case is
prepared from its SWE-bench row and a clone; a localize option is chosen held out by repository."""

from __future__ import annotations

import json

import pytest
from devset_helpers import case_files, commit_files, new_repo, publish
from helpers import PROJECT_ROOT

from swevis.cli import main
from swevis.errors import SwevisError
from swevis.localize.devset.caselists import CaseFiles
from swevis.localize.devset.prepare import fetch_mirrors
from swevis.localize.devset.split import choose_option, load_prepared, measure_split, prepare_split, read_rows, read_split

SHIPPED = CaseFiles(PROJECT_ROOT / "devset", PROJECT_ROOT / "tests" / "fixtures" / "swebench" / "verified_ids.csv")


def test_the_case_list_has_no_verified_instance_and_a_verified_one_is_refused(tmp_path):
    cases = read_split(SHIPPED)
    assert len(cases) >= 20 and all(c["source"] and c["repo_licence"] for c in cases)
    files = case_files(tmp_path / "lists")
    files.split.write_text("instance_id,repo,base_commit,source,repo_licence\n"
                           "astropy__astropy-12907,astropy/astropy,abc,lite-dev,BSD\n")
    with pytest.raises(SwevisError, match="astropy__astropy-12907 are SWE-bench Verified"):
        read_split(files)
    files.split.write_text("instance_id,repo,base_commit,source,repo_licence\nme__x-1,me/x,abc,somewhere,MIT\n")
    with pytest.raises(SwevisError, match="unknown source somewhere"):
        read_split(files)


def test_prepare_rebuilds_a_case_from_rows_and_a_clone(tmp_path):
    src = new_repo(tmp_path / "src")
    commit = commit_files(src, {"pkg/__init__.py": "", "pkg/calc.py": "def add(a, b):\n    return a - b\n"}, "base")
    publish(src, tmp_path / "remotes", "me+calc")
    mirrors = tmp_path / "mirrors"
    fetch_mirrors(mirrors, str(tmp_path / "remotes"), ["me+calc"])
    patch = ("diff --git a/pkg/calc.py b/pkg/calc.py\n--- a/pkg/calc.py\n+++ b/pkg/calc.py\n"
             "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n")
    row = {"instance_id": "me__calc-1", "repo": "me/calc", "base_commit": commit, "patch": patch,
           "problem_statement": "`add` subtracts"}
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(row) + "\n")
    case = {"instance_id": "me__calc-1", "repo": "me/calc", "base_commit": commit, "source": "lite-dev"}
    out = tmp_path / "out"
    prepare_split([case], read_rows([rows]), mirrors, out)
    meta = json.loads((out / "cases" / "me__calc-1" / "meta.json").read_text())
    assert meta["gold_files"] == ["pkg/calc.py"] and meta["gold_symbols"] == [["pkg/calc.py", ["add"]]]
    assert (out / "repos" / "me__calc-1" / "pkg" / "calc.py").read_text().endswith("a - b\n")
    per = measure_split(load_prepared(out, [case]))
    assert {(r["k"], r["level"]): r["dloc"] for r in per}[(1, "symbol")] == 1.0
    with pytest.raises(SwevisError, match="base commit"):
        prepare_split([{**case, "base_commit": "0" * 40}], read_rows([rows]), mirrors, out)
    (tmp_path / "bad.json").write_text("[not json")
    with pytest.raises(SwevisError, match="bad.json: not a JSON list or JSON lines"):
        read_rows([tmp_path / "bad.json"])


def test_cross_validation_chooses_on_the_other_repositories():
    """Each repository is measured at the value the other repositories chose; ties go first."""
    # a and b prefer 1, c prefers 0; every fold's other two repositories average higher at 1
    hits = {("a", 0): 0.0, ("a", 1): 1.0, ("b", 0): 0.0, ("b", 1): 1.0, ("c", 0): 1.0, ("c", 1): 0.5}

    def fake_measure(rows, options=None, model=None):
        v = options["w_file_symbol"]
        return [{"instance_id": r["instance_id"], "repo": r["repo"], "k": k, "level": "file",
                 "dloc": hits[(r["repo"], v)], "bm25": 0.0, "n_gold_hunks": 1} for r in rows for k in (1, 5)]

    rows = [{"instance_id": f"{r}-1", "repo": r} for r in "abc"]
    res = choose_option(rows, "w_file_symbol", [0, 1], "file", "learned", measure=fake_measure)
    assert res["folds"] == [("a", 1), ("b", 1), ("c", 1)]
    assert res["chosen"] == 1
    assert sorted((r["repo"], r["dloc"]) for r in res["estimate"] if r["k"] == 1) == [("a", 1.0), ("b", 1.0), ("c", 0.5)]


def test_measuring_the_split_needs_its_cases_prepared(tmp_path, capsys):
    config = tmp_path / "c.yaml"
    config.write_text(f"devset: {{lists: {SHIPPED.folder}, verified: {SHIPPED.verified}, work: {tmp_path / 'work'}}}\n")
    assert main(["devset", "split-measure", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert "not prepared under" in err and str(tmp_path / "work" / "dev_split") in err
