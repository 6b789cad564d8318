"""An issue is read with the languages of its repository: a Python repository's issue keeps the
identifiers other languages reserve (`delete`, `default`, `Set`), and its hints, D_loc's and
BM25's rankings and D_pkg's package are those of a registry that holds no other code language."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from swevis.index import build_index, languages, open_index
from swevis.localize import bm25_baseline, extract_hints, localize_issue, pack_context
from swevis.localize.hints import reading_languages
from swevis.localize.spans import issue_terms

SAMPLE = Path(__file__).resolve().parents[2] / "src" / "swevis" / "data" / "sample"
OTHER_CODE = ("java", "go", "javascript", "typescript", "rust")

# Python issues naming things Java, Go, JavaScript, TypeScript or Rust reserve or build in
SYNTHETIC = [
    "`delete()` removes the row but `default` is kept; calling select(columns) after copy() fails",
    "The `record` of an `interface` is wrong: `static` tables ignore `Integer` widths and `String` padding",
    "Set of columns: `Set` and `Integer` are not accepted by the parser, `type` neither",
]


@pytest.fixture(scope="module")
def sample_indexes(tmp_path_factory):
    """Each Python repository of the bundled sample (those of the study's instances; the Java and
    JavaScript ones of the polyglot set are not Python) indexed once: name -> (source tree, open index)."""
    out = {}
    for repo in sorted(SAMPLE / "repos" / name for name in _issues()):
        db = tmp_path_factory.mktemp("idx") / f"{repo.name}.sqlite"
        build_index(repo, db)
        out[repo.name] = (repo, open_index(db))
    yield out
    for _repo, index in out.values():
        index.close()


def _issues() -> dict[str, list[str]]:
    """Repository name -> the sample's issue texts about it, and the synthetic ones for each."""
    issues: dict[str, list[str]] = {}
    for folder in sorted((SAMPLE / "instances").iterdir()):
        repo = folder.name.split("__", 1)[1].rsplit("-", 1)[0]
        issues.setdefault(repo, list(SYNTHETIC)).append((folder / "problem_statement.md").read_text())
    return issues


def _everything(sample_indexes) -> str:
    """The hints, spans' terms, D_loc's (both rankers), BM25's and D_pkg's output of every issue, as JSON."""
    out = []
    for repo, texts in _issues().items():
        tree, index = sample_indexes[repo]
        for text in texts:
            hints = extract_hints(text, reading_languages(index.languages()))
            dloc = localize_issue(index, text, repo_dir=tree)
            heuristic = localize_issue(index, text, repo_dir=tree, options={"ranker": "heuristic"})
            pkg = pack_context(index, dloc, repo_dir=tree, max_windows=3, issue_text=text)
            out.append([vars(hints) | {"frames": [vars(f) for f in hints.frames]},
                        issue_terms(text, hints, reading_languages(index.languages())),
                        [vars(c) for c in dloc + heuristic + bm25_baseline(index, text, repo_dir=tree)], pkg])
    return json.dumps(out, sort_keys=True, default=str)


def test_a_python_repository_reads_its_issues_as_with_python_alone(sample_indexes):
    assert {index.languages() for _tree, index in sample_indexes.values()} == {("python",)}
    now = _everything(sample_indexes)
    kept = languages.registered()
    try:
        for name in OTHER_CODE:
            languages.unregister(name)
        before = _everything(sample_indexes)
    finally:
        for language in kept:
            languages.unregister(language.name)
        for language in kept:
            languages.register(language)
    assert languages.registered() == kept
    assert now == before


def test_other_languages_keywords_stay_identifiers_of_a_python_issue():
    python = reading_languages(["python"])
    assert [lang.name for lang in python if lang.kind == "code"] == ["python"]
    for text, names in zip(SYNTHETIC, (["delete", "default", "select", "copy"],
                                       ["record", "interface", "static", "Integer", "String"],
                                       ["Set", "Integer", "type"])):
        read = extract_hints(text, python).identifiers
        everything = extract_hints(text).identifiers  # every registered language's keywords dropped
        # `type` and (case-insensitive) `Set` are Python builtins: dropped in a Python repository too
        assert [n for n in names if n in read] == [n for n in names if n not in ("type", "Set")], text
        assert not {"delete", "default", "static", "interface", "Integer"} & set(everything)
    words, _quoted = issue_terms(SYNTHETIC[1], extract_hints(SYNTHETIC[1], python), python)
    assert {"record", "interface", "static"} <= set(words)
    assert "static" not in issue_terms(SYNTHETIC[1], extract_hints(SYNTHETIC[1]))[0]


def test_a_java_repository_still_drops_java_keywords():
    java = reading_languages(["java"])
    assert "static" not in extract_hints("the static interface record fails", java).identifiers
    assert "static" not in issue_terms("the static block", extract_hints("the static block", java), java)[0]
