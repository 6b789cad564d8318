"""The language registry (swevis.index.languages): a language is one module and one register
line, and the index, the hints and D_loc follow it; files of no language are counted as skipped."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from swevis.cli import main
from swevis.errors import SwevisError
from swevis.index import build_index, languages, open_index
from swevis.index.records import Language
from swevis.index.treesitter_util import GrammarError, compiled_once
from swevis.localize import by_kind, extract_hints, localize_issue
from swevis.localize.spans import best_line

FIXTURE = Path(__file__).parents[1] / "fixtures" / "index" / "minirepo"

# a language of its own, as a new language's module would be: an extractor and its record
TOY_MODULE = '''
import re

from swevis.index.records import FileExtract, Language, SymbolRec

_FN = re.compile(r"fn (\\w+)")


def extract(path, data, module, options):
    """Each `fn name` line opens a function that runs to the next blank line."""
    text = data.decode("utf-8", "replace")
    if "BROKEN" in text:
        raise ValueError("the toy parser gave up")
    fx = FileExtract(language="toy")
    lines = text.splitlines()
    for no, line in enumerate(lines, 1):
        m = _FN.match(line)
        if m:
            end = next((k for k in range(no, len(lines)) if not lines[k].strip()), len(lines))
            fx.symbols.append(SymbolRec(m.group(1), m.group(1), "function", no, end, line.strip(), "", None,
                                        own_text="\\n".join(lines[no - 1:end])))
    return fx


def module_names(paths, root_name):
    return {p: p.rsplit(".", 1)[0].replace("/", "::") for p in paths}


TOY = Language(
    name="toy",
    extensions=(".toy",),
    extract=extract,
    module_names=module_names,
    test_dirs=("spec",),
    test_only_dirs=("spec",),
    test_files=("*_check.toy",),
    trace_frames=(re.compile(r"at (?P<func>\\w+) \\((?P<path>[\\w/]+\\.toy):(?P<line>\\d+)\\)"),),
    line_comments=("--",),
    keywords=frozenset({"fn"}),
    test_runner=("toyrun", "--quiet"),
)
'''

SHAPES = """fn area
  -- the radius is squared here
  width * height * scale

fn perimeter
  2 * (width + height)
"""


@pytest.fixture()
def toy(tmp_path):
    """The toy language, imported from a module file of its own and registered for one test."""
    path = tmp_path / "toy_lang.py"
    path.write_text(TOY_MODULE)
    spec = importlib.util.spec_from_file_location("toy_lang", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    languages.register(module.TOY)
    try:
        yield module.TOY
    finally:
        languages.unregister("toy")


@pytest.fixture()
def toy_repo(tmp_path, toy):
    repo = tmp_path / "mixed"
    for rel, text in {
        "lib/shapes.toy": SHAPES,
        "lib/broken.toy": "fn half\n  BROKEN\n",
        "spec/shapes_check.toy": "fn check_area\n  area\n",
        "app/__init__.py": "",
        "app/main.py": "def main():\n    return 1\n",
        "notes.xyz": "not a language\n",
        "Makefile": "all:\n",
    }.items():
        (repo / rel).parent.mkdir(parents=True, exist_ok=True)
        (repo / rel).write_text(text)
    return repo


def test_a_language_registered_from_its_own_module_is_indexed(toy_repo, tmp_path):
    db = tmp_path / "toy.sqlite"
    stats = build_index(toy_repo, db)
    assert stats.n_files == 5 and stats.n_code_files == 5
    assert stats.skipped_by_extension == {"(none)": 1, ".xyz": 1}
    with open_index(db) as idx:
        shapes = idx.file("lib/shapes.toy")
        assert (shapes.language, shapes.kind, shapes.module, shapes.is_test) == ("toy", "code", "lib::shapes", False)
        assert idx.file("spec/shapes_check.toy").is_test and not idx.file("app/main.py").is_test
        assert [(s.path, s.start_line, s.end_line) for s in idx.symbols_by_name("area")] == [("lib/shapes.toy", 1, 3)]
        assert idx.enclosing_symbol("lib/shapes.toy", 6).qualname == "perimeter"
        assert idx.bm25_search("perimeter width height", 1)[0].path == "lib/shapes.toy"
        assert idx.file("app/main.py").module == "app.main"  # Python beside it, as before


def test_a_file_its_extractor_fails_on_is_an_error_row_and_the_build_goes_on(toy_repo, tmp_path):
    db = tmp_path / "toy.sqlite"
    stats = build_index(toy_repo, db)
    assert stats.status_counts == {"ok": 4, "error": 1}
    with open_index(db) as idx:
        broken = idx.file("lib/broken.toy")
        assert broken.status == "error" and idx.symbols_in_file("lib/broken.toy") == []
        row = idx.con.execute("SELECT error FROM files WHERE path = 'lib/broken.toy'").fetchone()
        assert row[0] == "ValueError: the toy parser gave up"
        assert idx.symbols_by_name("perimeter")  # the files after it are indexed


def test_a_grammar_that_does_not_compile_stops_the_build_in_one_line(toy, toy_repo, tmp_path):
    """Grammars compile on first use, inside the build's per-file error handling: a broken
    install must stop the build, not index every file of the language as an error."""
    calls = []

    @compiled_once("Toy")
    def grammar():
        calls.append(1)
        raise ValueError("Invalid node type at row 2")

    def extract(path, data, module, options):
        grammar()

    languages.unregister("toy")
    languages.register(dataclasses.replace(toy, extract=extract))
    with pytest.raises(GrammarError, match=r"the Toy tree-sitter grammar does not compile \(ValueError: Invalid node"):
        build_index(toy_repo, tmp_path / "toy.sqlite")
    assert calls == [1]  # the first toy file stopped it


def test_the_registry_answers_for_the_toy_language(toy):
    assert languages.language_for("lib/Shapes.TOY") is toy
    assert languages.is_test_path("spec/a.toy") and languages.is_test_path("lib/a_check.toy")
    assert not languages.is_test_path("lib/test_a.toy")  # Python's test_ prefix is Python's
    assert languages.is_test_module("spec/a.toy") and not languages.is_test_module("lib/a.toy")
    assert languages.module_names(["lib/a.toy", "pkg/__init__.py", "pkg/b.py", "README.md"]) == {
        "lib/a.toy": "lib::a", "pkg/__init__.py": "pkg", "pkg/b.py": "pkg.b", "README.md": ""}
    runs = languages.test_commands(["spec/a_check.toy", "tests/test_b.py", "spec/it's_check.toy", "notes.xyz"])
    assert [(lang.name, cmd) for lang, cmd in runs] == [
        ("toy", "toyrun --quiet spec/a_check.toy 'spec/it'\"'\"'s_check.toy'"),
        ("python", "python -m pytest -q -p no:cacheprovider tests/test_b.py"),
    ]
    assert runs[1][0].test_passed(5) and not runs[0][0].test_passed(5)
    # a runner that takes its tests' packages, not files (as `go test` does)
    by_package = Language("pkgtoy", (".pkgtoy",), toy.extract, test_runner=("go", "test"),
                          test_arguments=lambda files: sorted({"./" + f.rsplit("/", 1)[0] for f in files}))
    assert by_package.test_command(["a/x_test.pkgtoy", "b/y_test.pkgtoy", "a/z_test.pkgtoy"]) == "go test ./a ./b"
    # D_loc's spans skip its comment lines ("radius" is only in the comment of `area`)
    assert best_line(SHAPES.splitlines(), 1, 3, "area", {"radius": 1.0}, [], toy) == (None, [])
    assert best_line(SHAPES.splitlines(), 1, 3, "area", {"radius": 1.0}, [], None) == (2, ["`radius`"])


def test_hints_and_dloc_read_the_toy_languages_stack_traces(toy_repo, tmp_path):
    frames = extract_hints("  at area (lib/shapes.toy:3)\n  at main (app/main.py:2)\nsee lib/shapes.toy:5").frames
    assert [(f.path, f.line, f.func) for f in frames] == [
        ("lib/shapes.toy", 3, "area"), ("app/main.py", 2, None), ("lib/shapes.toy", 5, None)]  # then file:line hints
    issue = "The result is wrong after resizing:\n\n  at area (lib/shapes.toy:3)\n"
    build_index(toy_repo, tmp_path / "toy.sqlite")
    with open_index(tmp_path / "toy.sqlite") as idx:
        cands = localize_issue(idx, issue, repo_dir=toy_repo)
    assert by_kind(cands, "symbol")[0].qualified_name == "area"
    assert by_kind(cands, "file")[0].path == "lib/shapes.toy"
    trace = [c for c in by_kind(cands, "span") if "traceback" in c.evidence[0]]
    assert trace and trace[0].path == "lib/shapes.toy"


def test_an_unregistered_language_is_gone_from_index_and_hints(toy):
    languages.unregister("toy")
    assert languages.language_for("lib/a.toy") is None and not languages.is_test_path("spec/a.toy")
    assert extract_hints("  at area (lib/shapes.toy:3)").frames == []
    languages.register(toy)
    assert extract_hints("  at area (lib/shapes.toy:3)").frames[0].func == "area"


def test_an_extension_belongs_to_one_language(toy):
    with pytest.raises(SwevisError, match=r"language pyish: extension \.py is already python's"):
        languages.register(Language("pyish", (".py",), toy.extract))
    with pytest.raises(SwevisError, match="extension '.Toy2' is not lower case"):
        languages.register(Language("toy2", (".Toy2",), toy.extract))
    assert languages.language_for("a.py").name == "python"


def test_files_of_no_registered_language_are_skipped_and_counted(tmp_path, capsys):
    repo = tmp_path / "minirepo"
    shutil.copytree(FIXTURE, repo)
    (repo / "shapes" / "kernel.c").write_text("int main(void) { return 0; }\n")
    (repo / "shapes" / "fast.c").write_text("int f(void) { return 1; }\n")
    (repo / "data.CSV").write_text("a,b\n")
    (repo / "LICENSE").write_text("MIT\n")
    db = tmp_path / "idx.sqlite"
    stats = build_index(repo, db)
    assert stats.skipped_by_extension == {".c": 2, "(none)": 1, ".csv": 1}
    with open_index(db) as idx:
        assert idx.file("shapes/kernel.c") is None and idx.file("shapes/core.py") is not None
        assert json.loads(idx.meta["stats"])["skipped_by_extension"] == stats.skipped_by_extension
    assert build_index(repo, db).mode == "noop"  # counted again when nothing changed
    assert main(["index", str(repo), "--db", str(db)]) == 0
    assert "  skipped (no registered language) 4: .c 2, (none) 1, .csv 1\n" in capsys.readouterr().out


@pytest.mark.parametrize("path, name, signature, private", [
    ("pkg/a.py", "_helper", "def _helper(x)", True),
    ("pkg/a.py", "__init__", "def __init__(self)", False),  # a dunder is public protocol
    ("pkg/a.py", "run", "def run()", False),
    ("src/main/java/a/A.java", "f", "private int f()", True),
    ("src/main/java/a/A.java", "g", "public void g(String privateName)", False),  # the word in a parameter is no modifier
    ("src/main/java/a/A.java", "h", "void h()", False),
    ("cmd.go", "helper", "func helper()", True),  # unexported
    ("cmd.go", "Run", "func (c *Command) Run()", False),
    ("src/lib.rs", "helper", "fn helper()", True),
    ("src/lib.rs", "open", "pub fn open()", False),
    ("src/lib.rs", "mid", "pub(crate) fn mid()", False),
    ("lib/a.js", "#secret", "#secret()", True),
    ("lib/a.js", "_update", "_update()", True),
    ("lib/a.js", "update", "update()", False),
    ("src/a.ts", "inner", "private inner()", True),
    ("src/a.ts", "outer", "public outer()", False),
    ("docs/a.md", "_x", "", False),  # a documentation language has no such convention
])
def test_a_private_definition_follows_its_languages_convention(path, name, signature, private):
    assert languages.is_private(path, name, signature) is private


def test_only_go_keeps_library_code_at_the_repository_top():
    assert languages.is_root_package("command.go") and not languages.is_root_package("cmd/cobra/main.go")
    assert not languages.is_root_package("setup.py") and not languages.is_root_package("build.rs")


def test_grammars_are_compiled_when_a_language_is_first_parsed_not_at_import():
    """Every agent job imports swevis.index and most parse nothing: a fresh interpreter that
    imports it has compiled no grammar, and parsing a Python file compiles Python's only."""
    import subprocess
    import sys

    probe = (
        "from swevis.index import go_lang, java_lang, javascript_lang, python_lang, rust_lang, typescript_lang\n"
        "mods = (go_lang, java_lang, javascript_lang, python_lang, rust_lang, typescript_lang)\n"
        "print([m._grammar.cache_info().currsize for m in mods])\n"
        "python_lang.extract('a.py', b'def f():\\n    return g()\\n', 'a')\n"
        "print([m._grammar.cache_info().currsize for m in mods])\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert done.stdout.split("\n")[:2] == ["[0, 0, 0, 0, 0, 0]", "[0, 0, 0, 1, 0, 0]"]


def test_test_functions_by_each_languages_convention():
    """What a runner runs: Go's TestX, Rust's #[test] fns, Python's and JavaScript's test* names."""
    go = ["func TestParse(t *testing.T) {", "}", "func helper() {}"]
    assert languages.is_test_function("a_test.go", "TestParse", go, 1, 2)
    assert not languages.is_test_function("a_test.go", "helper", go, 3, 3)
    rust = ["#[test]", "fn parses() {", "}", "#[cfg(test)]", "fn setup() {}", "#[tokio::test]", "async fn runs() {}"]
    assert languages.is_test_function("tests/a.rs", "parses", rust, 1, 3)
    assert not languages.is_test_function("tests/a.rs", "setup", rust, 4, 5)
    assert languages.is_test_function("tests/a.rs", "runs", rust, 6, 7)
    assert languages.is_test_function("tests/test_a.py", "test_a", ["def test_a():", "    pass"], 1, 2)
    assert not languages.is_test_function("tests/test_a.py", "helper", ["def helper():", "    pass"], 1, 2)
