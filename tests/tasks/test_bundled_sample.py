"""The bundled sample is real: realistic repositories, reproducible commits, and for every
instance of every set (the study's sample and the probe sets) FAIL_TO_PASS fails before the
gold patch and passes after it (local runner)."""

import ast
from pathlib import Path

import pytest

from swevis.harness.validate import validate_local
from swevis.tasks.bundled import SAMPLE_DIR, bundled_commit, load_bundled_instances, load_bundled_set, probe_set_names, repo_tree
from swevis.tasks.repos import ensure_mirror

ROWS = load_bundled_instances(verify_commits=False) if (SAMPLE_DIR / "instances").is_dir() else []
REPOS = sorted({r["repo"] for r in ROWS})
EVERY_SET = ROWS + [row for name in probe_set_names() for row in load_bundled_set(name, verify_commits=False)]


def test_sample_size_and_spread():
    assert len(ROWS) >= 8
    assert len(REPOS) >= 3
    for repo in REPOS:
        assert sum(r["repo"] == repo for r in ROWS) >= 2, repo
    assert sum(r["patch"].count("diff --git") >= 2 for r in ROWS) >= 2, "some gold patches must span two files"


def test_base_commits_are_reproducible_and_recorded():
    rows = load_bundled_instances(verify_commits=True)  # raises if a frozen tree changed
    for repo in REPOS:
        assert bundled_commit(repo) == bundled_commit(repo)
        assert {r["base_commit"] for r in rows if r["repo"] == repo} == {bundled_commit(repo)}


def _package_files(tree: Path) -> list[Path]:
    return [
        p for p in tree.rglob("*.py")
        if "tests" not in p.relative_to(tree).parts and "docs" not in p.relative_to(tree).parts
    ]


@pytest.mark.parametrize("repo", REPOS)
def test_repositories_are_realistic(repo):
    tree = repo_tree(repo)
    files = _package_files(tree)
    lines = sum(len(p.read_text().splitlines()) for p in files)
    assert lines >= 600, f"{repo}: {lines} source lines"
    packages = {p.parent for p in files if p.name == "__init__.py"}
    assert len(packages) >= 2, f"{repo}: needs a package with a subpackage"
    class_names, subclass_bases, internal_imports = set(), [], 0
    top = {p.relative_to(tree).parts[0] for p in packages}
    for path in files:
        module = ast.parse(path.read_text())
        for node in ast.walk(module):
            if isinstance(node, ast.ClassDef):
                class_names.add(node.name)
                subclass_bases += [b.id for b in node.bases if isinstance(b, ast.Name)]
            if isinstance(node, ast.ImportFrom) and (node.level > 0 or (node.module or "").split(".")[0] in top):
                internal_imports += 1
    assert any(base in class_names for base in subclass_bases), f"{repo}: no inheritance between its own classes"
    assert internal_imports >= 5, f"{repo}: too few cross-module imports"
    assert list((tree / "tests").glob("test_*.py")), f"{repo}: no pytest suite"
    assert (tree / "README.md").exists() and (tree / "docs").is_dir(), f"{repo}: no docs"


@pytest.fixture(scope="module")
def mirrors(tmp_path_factory):
    cache = tmp_path_factory.mktemp("mirrors")
    return {repo: ensure_mirror(repo, cache)["mirror"] for repo in sorted({r["repo"] for r in EVERY_SET})}


@pytest.mark.slow
@pytest.mark.parametrize("row", EVERY_SET, ids=[r["instance_id"] for r in EVERY_SET])
def test_gold_patch_flips_fail_to_pass(row, mirrors, tmp_path):
    """The environment validation every study run makes: gold resolves, empty does not."""
    settings = {"timeout_s": 600, "retries": 0, "cache_dir": None}
    report = validate_local([row], mirrors, settings, tmp_path)
    assert report["n_valid"] == 1 and report["invalid"] == {}, report["invalid"]
    before, after = report["instances"][row["instance_id"]]["empty"], report["instances"][row["instance_id"]]["gold"]
    assert not before["infra_failure"], before
    assert before["tests"]["FAIL_TO_PASS"]["success"] == [], "FAIL_TO_PASS must fail before the fix"
    assert sorted(before["tests"]["PASS_TO_PASS"]["success"]) == sorted(row["PASS_TO_PASS"])
    assert after["resolved"], after
    assert sorted(after["tests"]["FAIL_TO_PASS"]["success"]) == sorted(row["FAIL_TO_PASS"])
    assert sorted(after["tests"]["PASS_TO_PASS"]["success"]) == sorted(row["PASS_TO_PASS"])
