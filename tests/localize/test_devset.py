"""benchmarks/loc_devset.py: the development case list stays outside Verified; prepare rebuilds a case."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest
from helpers import git

ROOT = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("loc_devset", ROOT / "benchmarks" / "loc_devset.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_case_list_has_no_verified_instance_and_a_verified_one_is_refused(tmp_path):
    mod = _script()
    cases = mod.read_cases()
    assert len(cases) >= 20 and all(c["source"] and c["repo_licence"] for c in cases)
    bad = tmp_path / "cases.csv"
    bad.write_text("instance_id,repo,base_commit,source,repo_licence\n"
                   "astropy__astropy-12907,astropy/astropy,abc,x,BSD\n")
    with pytest.raises(mod.DevsetError, match="astropy__astropy-12907 are SWE-bench Verified"):
        mod.read_cases(bad)
    bad.write_text("instance_id,repo,base_commit,source,repo_licence\nme__x-1,me/x,abc,somewhere,MIT\n")
    with pytest.raises(mod.DevsetError, match="unknown source somewhere"):
        mod.read_cases(bad)


def test_prepare_rebuilds_a_case_from_rows_and_a_clone(tmp_path):
    src = tmp_path / "src"
    (src / "pkg").mkdir(parents=True)
    (src / "pkg" / "__init__.py").write_text("")
    (src / "pkg" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    git(src, "init", "-q")
    git(src, "add", ".")
    git(src, "commit", "-q", "-m", "base")
    commit = git(src, "rev-parse", "HEAD")
    mirrors = tmp_path / "mirrors"
    (mirrors / "me+calc").mkdir(parents=True)
    git(tmp_path, "clone", "-q", "--bare", str(src), str(mirrors / "me+calc" / "repo"))
    patch = ("diff --git a/pkg/calc.py b/pkg/calc.py\n--- a/pkg/calc.py\n+++ b/pkg/calc.py\n"
             "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n")
    row = {"instance_id": "me__calc-1", "repo": "me/calc", "base_commit": commit, "patch": patch,
           "problem_statement": "`add` subtracts"}
    rows = tmp_path / "rows.jsonl"
    rows.write_text(json.dumps(row) + "\n")
    mod = _script()
    case = {"instance_id": "me__calc-1", "repo": "me/calc", "base_commit": commit, "source": "test"}
    out = tmp_path / "out"
    mod.prepare([case], mod.read_rows([rows]), mirrors, out)
    meta = json.loads((out / "cases" / "me__calc-1" / "meta.json").read_text())
    assert meta["gold_files"] == ["pkg/calc.py"] and meta["gold_symbols"] == [["pkg/calc.py", ["add"]]]
    assert (out / "repos" / "me__calc-1" / "pkg" / "calc.py").read_text().endswith("a - b\n")
    per = mod.measure(mod.load_prepared(out, [case]))
    assert {(r["k"], r["level"]): r["dloc"] for r in per}[(1, "symbol")] == 1.0
    with pytest.raises(mod.DevsetError, match="base commit"):
        mod.prepare([{**case, "base_commit": "0" * 40}], mod.read_rows([rows]), mirrors, out)


def test_cross_validation_chooses_on_the_other_repositories(monkeypatch):
    """Each repository is measured at the value the other repositories chose; ties go first."""
    mod = _script()
    # a and b prefer 1, c prefers 0; every fold's other two repositories average higher at 1
    hits = {("a", 0): 0.0, ("a", 1): 1.0, ("b", 0): 0.0, ("b", 1): 1.0, ("c", 0): 1.0, ("c", 1): 0.5}

    def fake_measure(rows, options=None, model=None):
        v = options["w_file_symbol"]
        return [{"instance_id": r["instance_id"], "repo": r["repo"], "k": k, "level": "file",
                 "dloc": hits[(r["repo"], v)], "bm25": 0.0, "n_gold_hunks": 1} for r in rows for k in (1, 5)]

    monkeypatch.setattr(mod, "measure", fake_measure)
    rows = [{"instance_id": f"{r}-1", "repo": r} for r in "abc"]
    res = mod.cross_validate(rows, "w_file_symbol", [0, 1], "file", "learned")
    assert res["folds"] == [("a", 1), ("b", 1), ("c", 1)]
    assert res["chosen"] == 1
    assert sorted((r["repo"], r["dloc"]) for r in res["estimate"] if r["k"] == 1) == [("a", 1.0), ("b", 1.0), ("c", 0.5)]
