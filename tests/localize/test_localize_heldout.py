"""The held-out localization sets (devset/heldout_localization*/): cases written without
looking at the localizer. Their data must be valid (every gold patch applies; an injected bug
in an installed library rebuilds from its fix), and D_loc must beat BM25 alone at the file
level there too. The symbol and span numbers are reported by `swevis devset small`, not
asserted here."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from swevis.errors import SwevisError
from swevis.localize.coverage import gold_hunks, gold_symbols
from swevis.localize.devset.caselists import CaseFiles
from swevis.localize.devset.small import case_index, heldout_rows, injected_root, small_rows
from swevis.localize.evaluation import evaluate_instance, summarize

ROOT = Path(__file__).resolve().parents[2]
FILES = CaseFiles(ROOT / "devset", ROOT / "tests" / "fixtures" / "swebench" / "verified_ids.csv")
ROWS = [row for folder in FILES.heldout_sets() for row in heldout_rows(folder)]
SAMPLE_ROWS = [r for r in ROWS if "repo_dir" in r]
INJECTED_ROWS = [r for r in ROWS if "source" in r]


def test_the_sets_cover_every_bundled_repo_and_four_real_libraries():
    assert len(ROWS) >= 33 and len(small_rows(FILES)) == len(ROWS) + 9  # and the bundled sample's nine
    assert {r["repo"] for r in SAMPLE_ROWS} == {"ledgerkit", "stratconf", "tabulon"}
    assert {r["source"]["package"] for r in INJECTED_ROWS} == {"click", "jinja2", "rich", "packaging"}
    assert all(r["problem_statement"].strip() and gold_hunks(r["patch"]) for r in ROWS)


@pytest.mark.parametrize("row", INJECTED_ROWS, ids=[r["instance_id"] for r in INJECTED_ROWS])
def test_injected_bug_rebuilds_from_the_installed_library(row, tmp_path):
    root = injected_root(row, tmp_path)  # raises when the version differs or the fix does not reverse-apply
    (tmp_path / "fix.diff").write_text(row["patch"])
    proc = subprocess.run(["git", "apply", "--check", str(tmp_path / "fix.diff")], cwd=root,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_an_injected_bug_is_rebuilt_inside_another_git_work_tree(tmp_path):
    """`git apply` run inside a foreign work tree skips paths silently; the root is its own repo."""
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    row = INJECTED_ROWS[0]
    root = injected_root(row, tmp_path / "nested" / "dest")
    (tmp_path / "fix.diff").write_text(row["patch"])
    proc = subprocess.run(["git", "apply", "--check", str(tmp_path / "fix.diff")], cwd=root,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr  # the tree is the buggy one: the fix applies


def test_a_version_mismatch_is_a_clear_error(tmp_path):
    row = dict(INJECTED_ROWS[0], source={**INJECTED_ROWS[0]["source"], "version": "0.0.1"})
    with pytest.raises(SwevisError, match="requirements.lock pins"):
        injected_root(row, tmp_path)


@pytest.mark.parametrize("row", SAMPLE_ROWS, ids=[r["instance_id"] for r in SAMPLE_ROWS])
def test_gold_patch_applies_to_its_repo(row, tmp_path):
    repo = tmp_path / row["repo"]
    shutil.copytree(row["repo_dir"], repo)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (tmp_path / "gold.diff").write_text(row["patch"])
    proc = subprocess.run(["git", "-C", str(repo), "apply", "--check", str(tmp_path / "gold.diff")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    root = tmp_path_factory.mktemp("heldout-index")
    opened: dict = {}
    out = {row["instance_id"]: case_index(row, root, opened) for row in ROWS}
    yield out
    for idx in opened.values():
        idx.close()


@pytest.mark.slow
def test_gold_symbols_resolve_and_dloc_beats_bm25_on_files(indexes):
    per = []
    for row in ROWS:
        idx = indexes[row["instance_id"]]
        assert any(names for _, names in gold_symbols(idx, row["patch"])), row["instance_id"]  # a module-level hunk (an import) has none
        per.extend(evaluate_instance(idx, row))
    files = {r["k"]: r for r in summarize(per) if r["level"] == "file"}
    assert files[5]["dloc"] == 1.0
    assert all(files[k]["dloc"] >= files[k]["bm25"] for k in files)
    assert files[1]["dloc"] > files[1]["bm25"]
