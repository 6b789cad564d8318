"""Go in the index (swevis.index.go_lang) on a small module of its own: symbols, import paths
from go.mod, import-resolved calls, embedding, test references, broken syntax, the registry's
conventions, goroutine traces, and an update equal to a cold build."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import INDEX_TABLES, git, index_rows

from swevis.index import build_index, languages, open_index
from swevis.localize import extract_hints
from swevis.localize.history import parse_log

FIXTURE = Path(__file__).parents[1] / "fixtures" / "index" / "gorepo"


def _targets(db: Path) -> set[tuple[str, str, str]]:
    con = sqlite3.connect(db)
    try:
        return set(con.execute(
            "SELECT s.qualname, d.qualname, t.how FROM targets t JOIN symbols s ON s.id = t.src_symbol"
            " JOIN symbols d ON d.id = t.dst_symbol"))
    finally:
        con.close()


def _bases(db: Path) -> set[tuple[str, str]]:
    con = sqlite3.connect(db)
    try:
        return set(con.execute(
            "SELECT s.qualname, d.qualname FROM edges e JOIN symbols s ON s.id = e.src_symbol"
            " JOIN symbols d ON d.id = e.dst_symbol WHERE e.kind = 'inherits'"))
    finally:
        con.close()


def test_symbols_spans_signatures_and_docs(indexed):
    stats, db = indexed
    assert stats.skipped_by_extension == {".mod": 1}
    with open_index(db) as idx:
        got = {s.qualname: (s.kind, s.start_line, s.end_line, s.signature, s.doc)
               for s in idx.symbols_in_file("shapes/circle.go")}
        assert got == {
            "Circle": ("class", 11, 14, "type Circle struct", "Circle is a circle of a given radius."),
            "NewCircle": ("function", 17, 19, "func NewCircle(radius float64) *Circle",
                          "NewCircle makes a circle, its radius kept inside the drawing."),
            "Circle.Area": ("method", 22, 24, "func (c *Circle) Area() float64", "Area is pi times the radius squared."),
            "Circle.ScaledArea": ("method", 27, 29, "func (c *Circle) ScaledArea(zoom float64) float64",
                                  "ScaledArea is the area in a drawing zoomed by a factor."),
            "Circle.String": ("method", 31, 33, "func (c *Circle) String() string", ""),
        }
        area = next(s for s in idx.symbols_in_file("shapes/circle.go") if s.qualname == "Circle.Area")
        assert [c.qualname for c in idx.children(idx.symbols_by_name("Circle")[0].id)] == [
            "Circle.Area", "Circle.ScaledArea", "Circle.String"]  # methods are members of their type
        assert idx.enclosing_symbol("shapes/circle.go", 23).id == area.id
        assert idx.symbols_by_name("Shape")[0].signature == "type Shape interface"
        doc = idx.con.execute("SELECT module_doc FROM files WHERE path = 'shapes/shape.go'").fetchone()[0]
        assert doc == "Package shapes has plane figures with areas."
        assert idx.bm25_search("negative lengths become zero", 1)[0].path == "internal/mathutil/mathutil.go"


def test_a_package_is_its_folder_below_the_module_path_of_go_mod(indexed):
    _, db = indexed
    with open_index(db) as idx:
        assert idx.file("shapes/circle.go").module == "example.com/geo/shapes"
        assert idx.file("shapes/circle_test.go").module == "example.com/geo/shapes"
        assert idx.file("internal/mathutil/mathutil.go").module == "example.com/geo/internal/mathutil"
        assert idx.file("cmd/report/main.go").module == "example.com/geo/cmd/report"
    # a nested module, a vendored package, and no go.mod at all
    files = {"go.mod": "module example.com/top\n", "tools/go.mod": "// tools\nmodule example.com/tools // x\n"}
    assert languages.module_names(["a/b.go", "tools/c/d.go", "vendor/golang.org/x/y/z.go", "e.go"], "",
                                  files.get) == {
        "a/b.go": "example.com/top/a", "tools/c/d.go": "example.com/tools/c", "vendor/golang.org/x/y/z.go":
        "golang.org/x/y", "e.go": "example.com/top"}
    assert languages.module_names(["a/b.go", "c.go"]) == {"a/b.go": "a", "c.go": "."}


def test_calls_resolve_across_files_and_packages(indexed):
    _, db = indexed
    targets = _targets(db)
    for edge in [
        ("NewCircle", "Clamp", "module"),  # mathutil.Clamp() through the import path
        ("Circle.Area", "Square", "module"),  # mathutil.Square, not the type Square of this package
        ("Circle.ScaledArea", "Circle.Area", "typed"),  # c.Area() on the receiver
        ("Circle.String", "Base.Describe", "typed"),  # promoted from the embedded Base
        ("Square.Inscribed", "NewCircle", "direct"),  # another file of the same package
        ("render", "NewCircle", "module"),  # an aliased import: geo.NewCircle
        ("main", "render", "direct"),
        ("TestCircleArea", "NewCircle", "direct"),
    ]:
        assert edge in targets, edge


def test_embedded_types_are_bases(indexed):
    _, db = indexed
    assert {("Circle", "Base"), ("Square", "Base")} <= _bases(db)


def test_a_test_file_is_a_test_and_references_what_it_tests(indexed):
    _, db = indexed
    with open_index(db) as idx:
        assert idx.file("shapes/circle_test.go").is_test and not idx.file("shapes/circle.go").is_test
        con = idx.con
        refs = {r[0] for r in con.execute(
            "SELECT d.qualname FROM edges e JOIN symbols d ON d.id = e.dst_symbol WHERE e.kind = 'references'")}
    assert refs == {"NewCircle"}  # Area has two definitions: no reference by name alone


def test_a_file_with_syntax_errors_is_partial_and_keeps_its_good_parts(indexed):
    stats, db = indexed
    assert stats.status_counts == {"ok": 6, "partial": 1}
    with open_index(db) as idx:
        assert idx.file("broken/broken.go").status == "partial"
        assert [s.qualname for s in idx.symbols_in_file("broken/broken.go")][0] == "Fine"


def test_the_registry_knows_go_conventions():
    go = languages.language_for("a/b.go")
    assert go.name == "go"
    assert languages.is_test_path("a/b_test.go") and not languages.is_test_path("a/test.go")
    assert languages.is_test_path("a/testdata/x.go")
    assert languages.test_commands(["shapes/circle_test.go", "x_test.go", "shapes/square_test.go",
                                    "cmd/report/main_test.go"]) == [(go, "go test . ./cmd/report ./shapes")]
    assert go.test_passed(0) and not go.test_passed(1)


def test_goroutine_traces_are_frames():
    trace = ("panic: runtime error: index out of range [3] with length 3\n\n"
             "goroutine 1 [running]:\n"
             "example.com/geo/internal/mathutil.Clamp(0x0, 0x0, 0x408f400000000000)\n"
             "\t/home/dev/geo/internal/mathutil/mathutil.go:7 +0x1d\n"
             "example.com/geo/shapes.(*Circle).Area(...)\n"
             "\t/home/dev/geo/shapes/circle.go:23\n"
             "main.main()\n"
             "\t/home/dev/geo/cmd/report/main.go:19 +0x45\n"
             "exit status 2\n")
    frames = extract_hints(trace).frames
    assert [(f.path, f.line, f.func.rsplit(".", 1)[-1], f.order) for f in frames] == [  # the first is the closest
        ("/home/dev/geo/internal/mathutil/mathutil.go", 7, "Clamp", 2), ("/home/dev/geo/shapes/circle.go", 23, "Area", 1),
        ("/home/dev/geo/cmd/report/main.go", 19, "main", 0)]


def test_update_between_two_commits_equals_a_cold_build(repo_copy, tmp_path):
    """Edits that move resolution in files that did not change: a new function of a package
    another file calls, a type that changes what it embeds, a removed and an added file."""
    repo = repo_copy
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v1")
    util = repo / "internal" / "mathutil" / "mathutil.go"
    util.write_text(util.read_text() + "\n// Halve is half of x.\nfunc Halve(x float64) float64 {\n\treturn x / 2\n}\n")
    square = repo / "shapes" / "square.go"
    square.write_text(square.read_text().replace("\tBase\n", "\tCircle\n"))
    (repo / "shapes" / "circle_test.go").unlink()
    (repo / "shapes" / "ring.go").write_text(
        'package shapes\n\nimport "example.com/geo/internal/mathutil"\n\n'
        "// Ring is a circle with a hole.\ntype Ring struct {\n\tCircle\n}\n\n"
        "func (r *Ring) Area() float64 {\n\treturn r.Circle.Area() - mathutil.Halve(1)\n}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v2")
    db = tmp_path / "idx.sqlite"
    git(repo, "checkout", "-q", "HEAD~1")
    build_index(repo, db)
    git(repo, "checkout", "-q", "-")
    upd = build_index(repo, db)
    cold = build_index(repo, tmp_path / "cold.sqlite", force=True)
    assert upd.mode == "incremental" and upd.files_parsed == 3 and upd.files_removed == 1
    got, want = index_rows(db), index_rows(tmp_path / "cold.sqlite")
    for table in INDEX_TABLES:
        assert got[table] == want[table], table
    assert ("Ring.Area", "Halve", "module") in _targets(db) and ("Square", "Circle") in _bases(db)


def test_a_changed_go_mod_renames_every_package(repo_copy, tmp_path):
    repo = repo_copy
    db = tmp_path / "idx.sqlite"
    build_index(repo, db)
    (repo / "go.mod").write_text("module example.org/renamed\n")
    (repo / "cmd" / "report" / "main.go").write_text(
        (repo / "cmd" / "report" / "main.go").read_text().replace("example.com/geo", "example.org/renamed"))
    upd = build_index(repo, db)
    assert upd.mode == "incremental" and upd.files_parsed == upd.n_files
    with open_index(db) as idx:
        assert idx.file("shapes/circle.go").module == "example.org/renamed/shapes"
    assert ("render", "NewCircle", "module") in _targets(db)


def test_the_history_reads_go_definitions_from_hunk_headers_and_changed_lines():
    log = ("\x00c1\ndiff --git a/a/b.go b/a/b.go\n"
           "@@ -9,1 +9,1 @@ func (c *Circle) Area() float64 {\n-\treturn 0\n+\treturn 1\n"
           "@@ -30,0 +31,4 @@ func NewCircle(radius float64) *Circle {\n"
           "+type Ring struct {\n+\tCircle\n+}\n+func Halve[T any](x T) T {\n+\tfuncs := helper(x)\n")
    commit = parse_log(log).commits[0]
    assert commit == (frozenset({"a/b.go"}), frozenset({("a/b.go", "Area"), ("a/b.go", "NewCircle"),
                                                         ("a/b.go", "Ring"), ("a/b.go", "Halve")}))


def test_interface_methods_and_package_level_tables_are_symbols():
    from swevis.index.go_lang import extract

    src = (b"package p\n\ntype Shape interface {\n\tArea() float64\n\tfmt.Stringer\n}\n\n"
           b"var terms = map[string]int{\n\t\"a\": 1,\n}\n\n"
           b"var (\n\thook = func(x int) int { return x }\n\tn    = 3\n)\n")
    fx = extract("p/a.go", src, "p", {})
    assert [(s.qualname, s.kind, s.start_line, s.end_line, s.signature) for s in fx.symbols] == [
        ("Shape", "class", 3, 6, "type Shape interface"),
        ("Shape.Area", "method", 4, 4, "Area() float64"),
        ("terms", "class", 8, 10, "var terms = map[string]int{"),
        ("hook", "function", 13, 13, "var hook = func(x int) int {"),  # `n = 3` is no table: no symbol
    ]
