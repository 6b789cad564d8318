"""Java in the index (swevis.index.java_lang) on a small Maven repository of its own: symbols,
module names, import-resolved calls, extends/implements, test references, broken syntax, the
registry's conventions, stack traces, and an update equal to a cold build."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import INDEX_TABLES, git, index_rows

from swevis.index import build_index, languages, open_index
from swevis.localize import extract_hints
from swevis.localize.history import parse_log

FIXTURE = Path(__file__).parents[1] / "fixtures" / "index" / "javarepo"
MAIN = "src/main/java/com/example"


def _targets(db: Path) -> set[tuple[str, str, str]]:
    """(caller, callee, how) of every resolved call target."""
    con = sqlite3.connect(db)
    try:
        return set(con.execute(
            "SELECT s.qualname, d.qualname, t.how FROM targets t JOIN symbols s ON s.id = t.src_symbol"
            " JOIN symbols d ON d.id = t.dst_symbol"))
    finally:
        con.close()


def _edges(db: Path, kind: str) -> set[tuple[str, str]]:
    """(source symbol or file, target symbol or file) of the resolved edges of a kind."""
    con = sqlite3.connect(db)
    try:
        return set(con.execute(
            "SELECT coalesce(s.qualname, sf.path), coalesce(d.qualname, df.path) FROM edges e"
            " JOIN files sf ON sf.id = e.src_file LEFT JOIN symbols s ON s.id = e.src_symbol"
            " LEFT JOIN symbols d ON d.id = e.dst_symbol LEFT JOIN files df ON df.id = e.dst_file"
            " WHERE e.kind = ? AND e.dst_file IS NOT NULL", (kind,)))
    finally:
        con.close()


def test_symbols_spans_signatures_and_docs(indexed):
    stats, db = indexed
    assert stats.skipped_by_extension == {".xml": 1}
    with open_index(db) as idx:
        got = {s.qualname: (s.kind, s.start_line, s.end_line, s.signature, s.doc)
               for s in idx.symbols_in_file(f"{MAIN}/shapes/Circle.java")}
        assert got == {
            "Circle": ("class", 8, 25, "public class Circle extends AbstractShape", "A circle of a given radius."),
            "Circle.Circle": ("method", 11, 14, "public Circle(double radius)", ""),
            "Circle.area": ("method", 17, 20, "public double area()", "Pi times the radius squared."),
            "Circle.scaledArea": ("method", 22, 24, "public double scaledArea(double factor)", ""),
        }
        shape = {s.qualname: (s.kind, s.signature) for s in idx.symbols_in_file(f"{MAIN}/shapes/Shape.java")}
        assert shape == {"Shape": ("class", "public interface Shape"), "Shape.area": ("method", "double area()"),
                         "Shape.describe": ("method", "String describe()")}
        clamp = idx.symbols_by_name("clamp")[0]
        assert clamp.signature == "public static double clamp(double value, double low, double high)"
        assert idx.enclosing_symbol(f"{MAIN}/util/Geometry.java", 12).qualname == "Geometry.clamp"
        # BM25: a method's own text is its document
        assert idx.bm25_search("negative lengths become zero", 1)[0].path == f"{MAIN}/util/Geometry.java"


def test_module_names_follow_the_package_below_the_source_root(indexed):
    _, db = indexed
    with open_index(db) as idx:
        assert idx.file(f"{MAIN}/shapes/Circle.java").module == "com.example.shapes.Circle"
        assert idx.file("src/test/java/com/example/shapes/CircleTest.java").module == "com.example.shapes.CircleTest"
    assert languages.module_names(["lib/src/com/x/A.java", "B.java", "m/src/main/java/a/C.java"]) == {
        "lib/src/com/x/A.java": "com.x.A", "B.java": "B", "m/src/main/java/a/C.java": "a.C"}


def test_calls_resolve_across_files_through_imports_and_types(indexed):
    _, db = indexed
    targets = _targets(db)
    for edge in [
        ("Circle.Circle", "Geometry.clamp", "typed"),  # import a.b.Geometry; Geometry.clamp()
        ("Circle.area", "Geometry.square", "direct"),  # import static a.b.Geometry.square
        ("Circle.scaledArea", "Circle.area", "self"),  # area() is this.area()
        ("AbstractShape.describe", "Shape.area", "self"),  # this.area() on the interface ...
        ("AbstractShape.describe", "Circle.area", "dispatch"),  # ... dispatches to its implementations
        ("Report.render", "Circle.area", "typed"),  # Circle unit = new Circle(1) via `import ...shapes.*`
        ("Report.render", "Shape.describe", "typed"),  # a for-loop variable of type Shape
        ("Report.render", "Circle", "init"),  # new Circle(1)
        ("Square.inscribed", "Circle", "init"),  # a class of the same package, not imported
    ]:
        assert edge in targets, edge


def test_extends_and_implements_are_bases(indexed):
    _, db = indexed
    assert {("Circle", "AbstractShape"), ("Square", "AbstractShape"), ("AbstractShape", "Shape")} <= _edges(
        db, "inherits")
    imports = _edges(db, "imports")
    assert ("src/main/java/com/example/shapes/Circle.java", "Geometry") in imports


def test_a_test_file_references_what_it_tests(indexed):
    _, db = indexed
    with open_index(db) as idx:
        test = idx.file("src/test/java/com/example/shapes/CircleTest.java")
        assert test.is_test and not idx.file(f"{MAIN}/shapes/Circle.java").is_test
    assert ("CircleTest.areaOfUnitCircle", "Circle.area", "typed") in _targets(db)
    refs = {dst for src, dst in _edges(db, "references")}
    assert "scaledArea" not in refs and "Geometry" not in refs  # only what the test names
    assert any(src.endswith("CircleTest.java") for src, _ in _edges(db, "references"))


def test_a_file_with_syntax_errors_is_partial_and_keeps_its_good_parts(indexed):
    stats, db = indexed
    assert stats.status_counts == {"ok": 7, "partial": 1}
    with open_index(db) as idx:
        broken = idx.file(f"{MAIN}/broken/Broken.java")
        assert broken.status == "partial"
        assert [s.qualname for s in idx.symbols_in_file(broken.path)][:2] == ["Broken", "Broken.fine"]


def test_the_registry_knows_java_conventions():
    java = languages.language_for("a/B.java")
    assert java.name == "java"
    assert languages.is_test_path("src/test/java/a/Helper.java")
    assert languages.is_test_path("a/CircleTest.java") and languages.is_test_path("a/CircleTests.java")
    assert languages.is_test_path("a/TestCircle.java") and not languages.is_test_path("src/main/java/a/Tester.java")
    assert languages.test_commands(["src/test/java/a/CircleTest.java", "src/test/java/b/SquareTest.java"]) == [
        (java, "mvn -q test -Dsurefire.failIfNoSpecifiedTests=false -Dtest=CircleTest,SquareTest")]
    assert java.test_passed(0) and not java.test_passed(1)


def test_java_stack_traces_are_frames():
    trace = ('Exception in thread "main" java.lang.IllegalStateException: negative\n'
             "\tat com.example.util.Geometry.clamp(Geometry.java:11)\n"
             "\tat com.example.shapes.Circle.<init>(Circle.java:13)\n"
             "\tat java.base/java.util.ArrayList.forEach(ArrayList.java:1596)\n")
    frames = extract_hints(trace).frames
    assert [(f.path, f.line, f.func, f.order) for f in frames] == [  # the first frame is the closest to the error
        ("Geometry.java", 11, "Geometry.clamp", 2), ("Circle.java", 13, None, 1),
        ("ArrayList.java", 1596, "ArrayList.forEach", 0)]


def test_update_between_two_commits_equals_a_cold_build(repo_copy, tmp_path):
    """Edits that move resolution in files that did not change: a new method a caller elsewhere
    resolves to, a class that changes its base, a removed and an added file."""
    repo = repo_copy
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "v1")
    geometry = repo / MAIN / "util" / "Geometry.java"
    geometry.write_text(geometry.read_text().rstrip().removesuffix("}") +
                        "\n    public static double halve(double x) {\n        return x / 2;\n    }\n}\n")
    square = repo / MAIN / "shapes" / "Square.java"
    square.write_text(square.read_text().replace("extends AbstractShape", "extends Circle").replace(
        'super("square");', "super(side);"))
    (repo / "src/test/java/com/example/shapes/CircleTest.java").unlink()
    (repo / MAIN / "shapes" / "Ring.java").write_text(
        "package com.example.shapes;\n\nimport com.example.util.Geometry;\n\n"
        "public class Ring extends Circle {\n    public Ring(double r) {\n        super(Geometry.halve(r));\n    }\n\n"
        "    @Override\n    public double area() {\n        return super.area() - Geometry.square(1);\n    }\n}\n")
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
    assert ("Ring.area", "Circle.area", "self") in _targets(db)  # super.area()


def test_the_history_reads_java_definitions_from_hunk_headers_and_changed_lines():
    log = ("\x00c1\ndiff --git a/src/A.java b/src/A.java\n"
           "@@ -9,1 +9,1 @@ public static double clamp(double value, double low, double high) {\n"
           "-        return low;\n+        return high;\n"
           "@@ -30,0 +31,3 @@ public final class Geometry {\n"
           "+    @Override\n+    public static <T> List<T> halve(List<T> values) {\n"
           "+        return helper(values);\n+        throw new IllegalStateException(values);\n")
    commit = parse_log(log).commits[0]
    assert commit == (frozenset({"src/A.java"}), frozenset({("src/A.java", "clamp"), ("src/A.java", "Geometry"),
                                                             ("src/A.java", "halve")}))


def test_anonymous_classes_and_lambda_fields_are_symbols():
    from swevis.index.java_lang import extract

    src = b"""package a;

public class Outer {
    private final Function<String, Integer> parse = s -> {
        return Integer.parseInt(s);
    };
    private int n = 3;

    void run() {
        Runnable r = new Runnable() {
            public void run() {}
        };
    }
}
"""
    fx = extract("src/a/Outer.java", src, "a.Outer", {})
    assert [(s.qualname, s.kind, s.start_line, s.end_line, s.signature) for s in fx.symbols] == [
        ("Outer", "class", 3, 14, "public class Outer"),
        ("Outer.parse", "method", 4, 6, "private final Function<String, Integer> parse"),  # `n` is no symbol
        ("Outer.run", "method", 9, 13, "void run()"),
        ("Outer.run.new Runnable", "class", 10, 12, "new Runnable()"),
        ("Outer.run.new Runnable.run", "method", 11, 11, "public void run()"),
    ]
    assert [(e.dst_name, fx.symbols[e.src_symbol].qualname) for e in fx.edges if e.kind == "inherits"] == [
        ("Runnable", "Outer.run.new Runnable")]


def test_a_same_package_test_is_a_test_of_its_package_without_an_import(indexed):
    """CircleTest (package com.example.shapes) imports nothing of its package: it still tests
    Square's code as a file of the package; Geometry's package has no test."""
    _, db = indexed
    with open_index(db) as idx:
        (inscribed,) = idx.symbols_by_qualname("Square.inscribed")
        assert [(t["path"], t["references"], t["imports_module"]) for t in idx.tests_for(inscribed)] == [
            ("src/test/java/com/example/shapes/CircleTest.java", [], True)]
        (clamp,) = idx.symbols_by_qualname("Geometry.clamp")
        assert idx.tests_for(clamp) == []


def test_junit_methods_are_test_functions_by_their_annotation():
    src = FIXTURE / "src/test/java/com/example/shapes/CircleTest.java"
    lines = src.read_text().splitlines()
    path = "src/test/java/com/example/shapes/CircleTest.java"
    assert languages.is_test_function(path, "areaOfUnitCircle", lines, 8, 12)  # @Test on the line above
    assert not languages.is_test_function(path, "CircleTest", lines, 7, 13)
    helper = ["    private double unit() {", "        return 1;", "    }"]
    assert not languages.is_test_function(path, "unit", helper, 1, 3)
    assert languages.is_test_function(path, "testArea", ["    public void testArea() {", "    }"], 1, 2)  # JUnit 3
