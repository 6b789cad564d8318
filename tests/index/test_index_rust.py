"""Rust in the index (swevis.index.rust_lang): items, impl blocks as the type's methods, trait
impls as inheritance, `mod` and `use` imports resolved to files, the registry's answers."""

from __future__ import annotations

from pathlib import Path

from helpers import call_targets, index_rows

from swevis.index import build_index, languages, open_index
from swevis.index.rust_lang import extract
from swevis.localize import extract_hints

FIXTURE = Path(__file__).parents[1] / "fixtures" / "index" / "rustrepo"


def test_items_impls_and_mods(index):
    idx, _ = index
    got = [(s.qualname, s.kind, s.start_line, s.end_line, s.signature) for s in idx.symbols_in_file("src/shapes/circle.rs")]
    assert got == [
        ("Circle", "class", 4, 8, "pub struct Circle"),  # from its doc comment and attributes
        ("Circle.impl", "class", 10, 15, "impl Circle"),  # an impl beside its type: a part of it
        ("Circle.new", "method", 11, 14, "pub fn new(radius: f64) -> Self"),  # impl Circle
        ("Circle.impl Shape", "class", 17, 21, "impl Shape for Circle"),
        ("Circle.area", "method", 18, 20, "fn area(&self) -> f64"),  # impl Shape for Circle
        ("tests", "class", 23, 31, "mod tests"),  # #[cfg(test)] unit tests inside the source file
        ("tests.unit_circle", "function", 27, 30, "fn unit_circle()"),
    ]
    (circle,) = idx.symbols_by_qualname("Circle")
    assert circle.doc == "A circle given by its radius."
    assert {s.qualname for _, s in idx.neighbours(circle.id, ("child",))} == {
        "Circle.impl", "Circle.new", "Circle.impl Shape", "Circle.area"}
    trait = {s.qualname: (s.kind, s.signature) for s in idx.symbols_in_file("src/shapes/mod.rs")}
    assert trait == {"Shape": ("class", "pub trait Shape"), "Shape.area": ("method", "fn area(&self) -> f64"),
                     "Shape.describe": ("method", "fn describe(&self) -> String")}
    assert idx.enclosing_symbol("src/shapes/circle.rs", 13).qualname == "Circle.new"
    doc = idx.con.execute("SELECT module_doc FROM files WHERE path = 'src/lib.rs'").fetchone()[0]
    assert doc == "Shapes and their areas."  # its //! comment


def test_module_names_are_crate_paths_and_mod_and_use_resolve_to_files(index):
    idx, _ = index
    modules = {p: idx.file(p).module for p in ("src/lib.rs", "src/shapes/mod.rs", "src/shapes/circle.rs", "src/util.rs")}
    assert modules == {"src/lib.rs": "shape_kit", "src/shapes/mod.rs": "shape_kit.shapes",  # Cargo.toml's shape-kit
                       "src/shapes/circle.rs": "shape_kit.shapes.circle", "src/util.rs": "shape_kit.util"}
    assert set(idx.imports_of(idx.file("src/lib.rs").id)) == {"src/shapes/mod.rs", "src/util.rs", "src/shapes/circle.rs"}
    # super::Shape, crate::util::clamp; the crate by its name (shape_kit) from tests/
    assert set(idx.imports_of(idx.file("src/shapes/circle.rs").id)) >= {"src/shapes/mod.rs", "src/util.rs"}
    assert set(idx.imports_of(idx.file("tests/areas.rs").id)) == {"src/shapes/circle.rs", "src/shapes/mod.rs"}


def test_calls_and_trait_impls_across_files(index):
    idx, _ = index
    (circle,) = idx.symbols_by_qualname("Circle")
    assert [s.qualname for _, s in idx.neighbours(circle.id, ("base",))] == ["Shape"]
    (shape,) = idx.symbols_by_qualname("Shape")
    assert {s.qualname for _, s in idx.neighbours(shape.id, ("subclass",))} == {"Circle", "Square"}
    assert call_targets(idx, "src/shapes/circle.rs") >= {
        ("Circle.new", "src/util.rs", "clamp", "direct"),  # use crate::util::clamp
        ("tests.unit_circle", "src/shapes/circle.rs", "Circle.new", "typed"),  # Circle::new in assert!()
    }
    assert call_targets(idx, "src/shapes/square.rs") >= {("Square.scaled", "src/shapes/square.rs", "Square.new", "typed")}
    assert call_targets(idx, "src/shapes/mod.rs") >= {
        ("Shape.describe", "src/shapes/mod.rs", "Shape.area", "self"),  # self.area() in format!()
        ("Shape.describe", "src/shapes/circle.rs", "Circle.area", "dispatch"),
        ("Shape.describe", "src/shapes/square.rs", "Square.area", "dispatch"),
    }
    assert call_targets(idx, "tests/areas.rs") >= {
        ("circle_area_grows_with_radius", "src/shapes/circle.rs", "Circle.new", "typed"),
        ("circle_area_grows_with_radius", "src/shapes/circle.rs", "Circle.area", "typed"),  # on `let large = Circle::new()`
    }


def test_tests_parse_errors_and_skipped_files(index):
    idx, stats = index
    assert idx.file("tests/areas.rs").is_test and not idx.file("src/shapes/circle.rs").is_test
    (new,) = idx.symbols_by_qualname("Circle.new")
    assert [t["path"] for t in idx.tests_for(new)] == ["tests/areas.rs"]
    assert stats.status_counts == {"ok": 6, "partial": 1} and idx.file("src/broken.rs").status == "partial"
    assert [s.qualname for s in idx.symbols_in_file("src/broken.rs")] == ["half", "double"]
    assert stats.skipped_by_extension == {".toml": 1}


def test_use_trees_in_the_resolvers_vocabulary():
    fx = extract("src/a/b.rs", b"use crate::x::{y::Z, w as v, self};\nuse super::q::*;\nuse std::fmt;\nmod c;\n"
                 b"mod inner { use super::c::D; }\npub extern crate grep_cli as cli;\n", "kit.a.b", {})
    assert fx.names == {"Z": "kit.x.y.Z", "v": "kit.x.w", "x": "kit.x", "*": "kit.a.q", "fmt": "std.fmt",
                        "c": "kit.a.b.c", "D": "kit.a.b.c.D", "cli": "grep_cli"}
    # an impl of a type defined elsewhere is a class of its own, named by the type
    fx = extract("src/a.rs", b"impl<T> fmt::Display for Wrapper<T> {\n    fn fmt(&self) {}\n}\n", "crate.a", {})
    assert [(s.qualname, s.kind, s.signature) for s in fx.symbols] == [
        ("Wrapper", "class", "impl<T> fmt::Display for Wrapper<T>"), ("Wrapper.fmt", "method", "fn fmt(&self)")]
    assert [(e.kind, e.dst_name, e.src_symbol) for e in fx.edges] == [("inherits", "fmt.Display", 0)]


def test_the_registry_answers_for_rust():
    assert languages.language_for("src/Main.RS").name == "rust"
    assert languages.is_test_path("tests/a.rs") and languages.is_test_path("src/shapes/tests.rs")
    assert not languages.is_test_path("src/testing.rs")
    paths = ["src/lib.rs", "src/a/mod.rs", "src/a/b.rs", "crates/cli/src/lib.rs", "crates/cli/src/x.rs",
             "crates/core/main.rs", "src/bin/tool/main.rs", "tests/it.rs"]
    # without the Cargo.toml files: crates named by their folders
    assert languages.module_names(paths) == {
        "src/lib.rs": "crate", "src/a/mod.rs": "crate.a", "src/a/b.rs": "crate.a.b", "crates/cli/src/lib.rs": "cli",
        "crates/cli/src/x.rs": "cli.x", "crates/core/main.rs": "core", "src/bin/tool/main.rs": "tool",
        "tests/it.rs": "tests.it"}
    cargo = {"Cargo.toml": '[package]\nname = "rg"\n', "crates/cli/Cargo.toml": '[package]\nname = "grep-cli"\n'}
    # by their packages' names; crates/core/main.rs is the top package's (as ripgrep's is), and
    # src/bin/tool a binary of its own
    assert languages.module_names(paths[3:], "", cargo.get) == {
        "crates/cli/src/lib.rs": "grep_cli", "crates/cli/src/x.rs": "grep_cli.x", "crates/core/main.rs": "rg",
        "src/bin/tool/main.rs": "tool", "tests/it.rs": "tests.it"}
    runs = languages.test_commands(["tests/areas.rs", "src/shapes/circle.rs", "tests/more.rs"])
    assert [cmd for _, cmd in runs] == ["cargo test --test areas --test more -- shapes::circle"]


def test_panics_and_backtraces_are_frames():
    text = ("thread 'main' panicked at src/shapes/circle.rs:13:9:\nradius out of range\n"
            "thread 'old' panicked at 'called `Option::unwrap()` on a `None` value', src/util.rs:3:5\n"
            "stack backtrace:\n   4: shape_kit::shapes::circle::Circle::new\n             at ./src/shapes/circle.rs:13:9\n")
    frames = [(f.path, f.line, f.func) for f in extract_hints(text).frames]
    assert frames == [("src/shapes/circle.rs", 13, None), ("src/util.rs", 3, None), ("./src/shapes/circle.rs", 13, "new")]


def test_a_renamed_package_renames_its_modules_and_an_update_equals_a_cold_build(repo_copy, tmp_path):
    repo = repo_copy
    db = tmp_path / "idx.sqlite"
    build_index(repo, db)
    (repo / "Cargo.toml").write_text((repo / "Cargo.toml").read_text().replace("shape-kit", "shapes"))
    (repo / "tests" / "areas.rs").write_text((repo / "tests" / "areas.rs").read_text().replace("shape_kit", "shapes"))
    upd = build_index(repo, db)
    cold = build_index(repo, tmp_path / "cold.sqlite", force=True)
    assert upd.mode == "incremental" and upd.files_parsed == cold.files_parsed  # every module renamed
    assert index_rows(db) == index_rows(tmp_path / "cold.sqlite")
    with open_index(db) as idx:
        assert idx.file("src/util.rs").module == "shapes.util"
        assert "src/shapes/circle.rs" in idx.imports_of(idx.file("tests/areas.rs").id)


def test_impl_blocks_associated_items_and_constants_are_symbols():
    """A line of an impl outside its fns (a where clause, an associated type) has a symbol;
    consts and statics are symbols; the fns stay the type's methods."""
    src = (b"pub struct Point { x: i32 }\n"
           b"impl<T> fmt::Display for Point where T: Clone {\n"
           b"    type Output = u8;\n"
           b"    fn fmt(&self) {}\n"
           b"}\n"
           b"pub const TABLE: [u8; 2] = [1, 2];\n")
    fx = extract("src/a.rs", src, "crate.a", {})
    assert [(s.qualname, s.kind, s.start_line, s.end_line) for s in fx.symbols] == [
        ("Point", "class", 1, 1), ("Point.impl Display", "class", 2, 5), ("Point.Output", "class", 3, 3),
        ("Point.fmt", "method", 4, 4), ("TABLE", "class", 6, 6)]
    assert [(e.dst_name, fx.symbols[e.src_symbol].qualname) for e in fx.edges if e.kind == "inherits"] == [
        ("fmt.Display", "Point")]
