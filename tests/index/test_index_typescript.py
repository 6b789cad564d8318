"""TypeScript in the index (swevis.index.typescript_lang): interfaces, type aliases, enums,
abstract classes, tsconfig.json path aliases, .tsx and .d.ts files, the registry's answers."""

from __future__ import annotations

from pathlib import Path

from helpers import call_targets

from swevis.index import build_index, languages, open_index
from swevis.index.typescript_lang import extract
from swevis.localize import extract_hints

FIXTURE = Path(__file__).parents[1] / "fixtures" / "index" / "tsrepo"


def test_typescripts_own_definitions(index):
    idx, _ = index
    got = [(s.qualname, s.kind, s.start_line, s.end_line, s.signature) for s in idx.symbols_in_file("src/shapes/shape.ts")]
    assert got == [
        ("Shape", "class", 3, 7, "interface Shape"),  # from its doc comment
        ("Shape.area", "method", 5, 5, "area(): number"),
        ("Shape.describe", "method", 6, 6, "describe(): string"),
        ("BaseShape", "class", 9, 20, "abstract class BaseShape implements Shape"),
        ("BaseShape.area", "method", 13, 13, "abstract area(): number"),
        ("BaseShape.name", "method", 15, 15, "abstract name(): string"),
        ("BaseShape.describe", "method", 17, 19, "describe(): string"),
    ]
    assert idx.symbols_by_qualname("Shape")[0].doc == "Anything with an area."
    util = {s.qualname: s.signature for s in idx.symbols_in_file("src/util/index.ts")}
    assert util == {
        "Unit": "type Unit = 'cm' | 'm'",
        "Rounding": "enum Rounding",
        "clamp": "function clamp(value: number, lo: number, hi: number): number",
        "formatArea": "const formatArea = (area: number, unit: Unit = 'cm'): string =>",
    }
    assert [s.qualname for s in idx.symbols_in_file("src/canvas.tsx")] == ["Props", "CircleView"]  # JSX parses
    assert idx.file("types/global.d.ts").language == "typescript" and languages.is_stub("types/global.d.ts")


def test_tsconfig_path_aliases_and_relative_imports_resolve_to_files(index):
    idx, _ = index
    assert set(idx.imports_of(idx.file("src/shapes/shape.ts").id)) == {"src/util/index.ts"}  # '@util'
    assert set(idx.imports_of(idx.file("src/canvas.tsx").id)) == {"src/shapes/circle.ts"}  # '@shapes/circle'
    assert set(idx.imports_of(idx.file("src/shapes/circle.ts").id)) == {"src/shapes/shape.ts", "src/util/index.ts"}
    assert set(idx.imports_of(idx.file("src/index.ts").id)) == {"src/shapes/circle.ts", "src/shapes/shape.ts"}


def test_calls_inheritance_and_implements_across_files(index):
    idx, _ = index
    (circle,) = idx.symbols_by_qualname("Circle")
    (base,) = idx.symbols_by_qualname("BaseShape")
    assert [s.qualname for _, s in idx.neighbours(circle.id, ("base",))] == ["BaseShape"]
    assert [s.qualname for _, s in idx.neighbours(base.id, ("base",))] == ["Shape"]  # implements
    assert call_targets(idx, "src/shapes/circle.ts") >= {("Circle.area", "src/util/index.ts", "clamp", "direct")}
    assert call_targets(idx, "src/shapes/shape.ts") >= {
        ("BaseShape.describe", "src/util/index.ts", "formatArea", "direct"),
        ("BaseShape.describe", "src/shapes/shape.ts", "BaseShape.area", "self"),
        ("BaseShape.describe", "src/shapes/circle.ts", "Circle.area", "dispatch"),  # an override below it
    }
    assert call_targets(idx, "src/canvas.tsx") >= {
        ("CircleView", "src/shapes/circle.ts", "Circle", "init"),
        ("CircleView", "src/shapes/shape.ts", "BaseShape.describe", "typed"),  # inherited by Circle
    }
    # `new Circle(1).area()` in the test: on the constructed class
    assert (None, "src/shapes/circle.ts", "Circle.area", "typed") in call_targets(idx, "src/__tests__/circle.test.ts")


def test_a_class_factorys_object_methods_are_its_methods_in_typescript_too():
    src = (b"export const Foo = Base.extend({\n  bar(): number { return this.baz(1); },\n"
           b"  baz: function (x: number): number { return x + 1; },\n  limit: 3,\n});\n")
    fx = extract("src/foo.ts", src, "src.foo", {})
    assert [(s.qualname, s.kind, s.signature) for s in fx.symbols] == [
        ("Foo", "class", "const Foo = Base.extend"), ("Foo.bar", "method", "bar(): number"),
        ("Foo.baz", "method", "baz: function (x: number): number")]
    assert [e.dst_name for e in fx.edges if e.kind == "inherits"] == ["Base"]


def test_tests_parse_errors_and_skipped_files(index):
    idx, stats = index
    assert idx.file("src/__tests__/circle.test.ts").is_test
    (area,) = idx.symbols_by_qualname("Circle.area")
    assert [t["path"] for t in idx.tests_for(area)] == ["src/__tests__/circle.test.ts"]
    assert stats.status_counts == {"ok": 7, "partial": 1} and idx.file("src/broken.ts").status == "partial"
    assert [s.qualname for s in idx.symbols_in_file("src/broken.ts")] == ["half", "double"]
    assert stats.skipped_by_extension == {".json": 1}


def test_a_changed_tsconfig_rebuilds_the_index_cold(repo_copy, tmp_path):
    repo = repo_copy
    db = tmp_path / "idx.sqlite"
    build_index(repo, db)
    assert build_index(repo, db).mode == "noop"
    config = repo / "tsconfig.json"
    config.write_text(config.read_text().replace('"@util"', '"@helpers"'))
    assert build_index(repo, db).mode == "cold"  # no file changed, but how their imports resolve did
    with open_index(db) as idx:
        assert idx.imports_of(idx.file("src/shapes/shape.ts").id) == []  # '@util' is no alias now


def test_the_registry_answers_for_typescript():
    ts_ = languages.language_for("src/a.tsx")
    assert ts_.name == "typescript" and languages.language_for("types/a.d.ts") is ts_
    assert languages.is_test_path("src/a.spec.ts") and languages.is_test_path("src/__tests__/a.tsx")
    assert not languages.is_test_path("src/testing.ts")
    assert languages.module_names(["src/a.ts", "src/b/index.tsx", "types/index.d.ts"]) == {
        "src/a.ts": "src.a", "src/b/index.tsx": "src.b", "types/index.d.ts": "types"}
    runs = languages.test_commands(["src/a.test.ts", "test/b.test.js"])
    assert [(lang.name, cmd) for lang, cmd in runs] == [
        ("typescript", "npx jest --ci src/a.test.ts"), ("javascript", "npx jest --ci test/b.test.js")]


def test_stack_traces_through_typescript_sources_are_frames():
    trace = "Error: bad radius\n    at Circle.area (/app/src/shapes/circle.ts:11:5)\n    at /app/src/index.ts:2:1\n"
    assert [(f.path, f.line, f.func) for f in extract_hints(trace).frames] == [
        ("/app/src/shapes/circle.ts", 11, "Circle.area"), ("/app/src/index.ts", 2, None)]
