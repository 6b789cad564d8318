"""The bundled sample holds code in languages besides Python: a Java repository (verso) and a
JavaScript one (routelet), and the `polyglot` set's instances over them (their gold patches
are proven by tests/tasks/test_bundled_sample.py::test_gold_patch_flips_fail_to_pass)."""

import re
from collections import Counter

from swevis.harness.test_logs import PARSERS
from swevis.index.languages import language_for
from swevis.tasks.bundled import SAMPLE_DIR, bundled_commit, load_bundled_set

POLYGLOT = load_bundled_set("polyglot", verify_commits=False)


def _source_languages() -> Counter:
    files = (p for p in (SAMPLE_DIR / "repos").rglob("*") if p.is_file() and "__pycache__" not in p.parts)
    return Counter(lang.name for lang in map(language_for, map(str, files)) if lang and lang.kind == "code")


def test_sample_holds_source_in_two_languages_besides_python():
    counts = _source_languages()
    others = {name for name, n in counts.items() if name != "python" and n >= 5}
    assert len(others) >= 2, counts


def test_polyglot_rows_are_in_their_repositories_language():
    assert {r["language"] for r in POLYGLOT} >= {"java", "javascript"}
    by_repo = Counter(r["repo"] for r in POLYGLOT)
    assert all(n >= 2 for n in by_repo.values()), by_repo
    for row in POLYGLOT:
        touched = re.findall(r"^diff --git a/(\S+) b/", row["patch"], re.M)
        assert touched and all(language_for(p).name == row["language"] for p in touched), row["instance_id"]
        assert row["log_parser"] in PARSERS and row["test_cmd"], row["instance_id"]
        assert row["FAIL_TO_PASS"] and row["PASS_TO_PASS"], row["instance_id"]


def test_polyglot_base_commits_are_the_frozen_trees():
    rows = load_bundled_set("polyglot")  # raises when a tree no longer commits to the recorded id
    for repo in {r["repo"] for r in rows}:
        assert {r["base_commit"] for r in rows if r["repo"] == repo} == {bundled_commit(repo)}


def test_repositories_have_tests_readme_and_docs():
    for name, tests in (("verso", "src/test/java/**/*Test.java"), ("routelet", "test/*.test.js")):
        tree = SAMPLE_DIR / "repos" / name
        assert len(list(tree.glob(tests))) >= 3, name
        assert (tree / "README.md").exists() and list((tree / "docs").glob("*.md")), name
