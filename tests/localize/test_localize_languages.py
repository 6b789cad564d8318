"""D_loc on JavaScript, TypeScript and Rust repositories: an issue describing a behaviour, or
carrying the language's stack trace, localizes the right file and symbol into the top 5."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from swevis.index import build_index, open_index
from swevis.localize import by_kind, localize_issue
from swevis.localize.hints import extract_hints, reading_languages

FIXTURES = Path(__file__).parents[1] / "fixtures" / "index"

CASES = {
    "jsrepo": {
        "behaviour": ("The report prints large balances without a thousands separator\n\n"
                      "A balance of 1234567 shows as 1234567; the digits should be grouped by thousands with a comma."),
        "behaviour_at": ("lib/format.js", "formatAmount"),
        "trace": ("TypeError: entry is not a number\n    at Ledger.add (/srv/app/lib/ledger.js:15:12)\n"
                  "    at renderReport (/srv/app/src/report.mjs:6:36)\n"),
        "trace_at": ("lib/ledger.js", "Ledger.add"),
    },
    "tsrepo": {
        "behaviour": ("Shape descriptions show the area with many decimals\n\n"
                      "The area should be rounded to two decimals and followed by its unit."),
        "behaviour_at": ("src/util/index.ts", "formatArea"),
        "trace": "Error: negative radius\n    at Circle.area (/app/src/shapes/circle.ts:11:5)\n",
        "trace_at": ("src/shapes/circle.ts", "Circle.area"),
    },
    "rustrepo": {
        "behaviour": ("A circle made with a radius of 5000 keeps that radius\n\n"
                      "The radius should be kept between 0 and 1000 when the circle is made."),
        "behaviour_at": ("src/shapes/circle.rs", "Circle.new"),
        "trace": "thread 'main' panicked at src/shapes/circle.rs:13:9:\nradius out of range\n",
        "trace_at": ("src/shapes/circle.rs", "Circle.new"),
    },
}


@pytest.fixture(scope="module", params=sorted(CASES))
def case(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(request.param)
    repo = tmp / request.param
    shutil.copytree(FIXTURES / request.param, repo)
    build_index(repo, tmp / "idx.sqlite")
    with open_index(tmp / "idx.sqlite") as idx:
        yield idx, repo, CASES[request.param]


def _top5(idx, repo, issue: str) -> tuple[list[str], list[tuple[str, str]]]:
    cands = localize_issue(idx, issue, top_k=5, repo_dir=repo)
    return [c.path for c in by_kind(cands, "file")][:5], [(c.path, c.qualified_name) for c in by_kind(cands, "symbol")][:5]


def test_an_issue_describing_a_behaviour_localizes_its_file_and_symbol(case):
    idx, repo, c = case
    files, symbols = _top5(idx, repo, c["behaviour"])
    assert c["behaviour_at"][0] in files, files
    assert c["behaviour_at"] in symbols, symbols


def test_a_stack_trace_of_the_language_localizes_its_frame(case):
    idx, repo, c = case
    cands = localize_issue(idx, c["trace"], top_k=5, repo_dir=repo)
    top = by_kind(cands, "symbol")[0]
    assert (top.path, top.qualified_name) == c["trace_at"]
    assert any("traceback" in e for e in top.evidence)
    assert by_kind(cands, "file")[0].path == c["trace_at"][0]


def test_a_rust_issue_naming_type_colon_colon_method_localizes_that_method(tmp_path):
    """`Square::new` is Rust's spelling of the index's `Square.new`: the dotted-name evidence
    picks it out of the two `new` methods, and `crate::` names no part of it."""
    repo = tmp_path / "rustrepo"
    shutil.copytree(FIXTURES / "rustrepo", repo)
    build_index(repo, tmp_path / "idx.sqlite")
    issue = "A negative side is accepted\n\n`Square::new(-2.0)` builds a square; crate::shapes::Square::new should refuse it."
    with open_index(tmp_path / "idx.sqlite") as idx:
        cands = localize_issue(idx, issue, top_k=5, repo_dir=repo)
    top = by_kind(cands, "symbol")[0]
    assert (top.path, top.qualified_name) == ("src/shapes/square.rs", "Square.new")
    assert any("dotted name `Square.new`" in e for e in top.evidence), top.evidence


def test_rust_paths_in_an_issue_are_read_as_dotted_names():
    """A leading crate/self/Self/super is dropped, a type named like a keyword (`Type`, `Vec`)
    is kept, and pytest's node ids (`a.py::T::t`) are no Rust path."""
    text = ("crate::shapes::Square::new and self::util::clamp fail; Self::area too; `Type::parse`, "
            "Vec::with_capacity; run tests/test_x.py::TestFoo::test_bar")
    dotted = extract_hints(text, reading_languages(["rust"])).dotted
    assert [d for d in dotted if "::" not in d and not d.endswith(".py")] == [
        "shapes.Square.new", "util.clamp", "Type.parse", "Vec.with_capacity"], dotted
