"""swevis.index: build, queries, incremental re-index, doc chunks, bad input."""

from __future__ import annotations

import ast
import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from swevis.index import IndexError_, build_index, open_index
from swevis.index.languages import module_names
from swevis.index.docs import chunk_text

FIXTURE = Path(__file__).parents[1] / "fixtures" / "index" / "minirepo"


@pytest.fixture()
def repo(tmp_path):
    dst = tmp_path / "minirepo"
    shutil.copytree(FIXTURE, dst)
    return dst


@pytest.fixture()
def built(repo, tmp_path):
    db = tmp_path / "idx.sqlite"
    stats = build_index(repo, db, repo="acme/minirepo", commit="0" * 40)
    return repo, db, stats


def test_symbols_files_and_graph(built):
    repo, db, stats = built
    assert stats.mode == "cold" and stats.n_symbols > 5
    with open_index(db) as idx:
        assert idx.meta["repo"] == "acme/minirepo" and idx.meta["swevis_version"]
        core = idx.file("shapes/core.py")
        assert core.module == "shapes.core" and core.language == "python"
        (circle,) = idx.symbols_by_qualname("Circle")
        assert circle.kind == "class" and circle.signature == "class Circle(Shape)"
        assert circle.doc == "A circle given by its radius."
        area = [s for s in idx.symbols_by_name("area") if s.qualname == "Circle.area"][0]
        assert area.kind == "method" and area.parent_id == circle.id
        rel = {(r, s.qualname) for r, s in idx.neighbours(circle.id)}
        assert ("base", "Shape") in rel and ("child", "Circle.area") in rel
        init = idx.symbols_by_qualname("Circle.__init__")[0]
        assert ("calls", "clamp") in {(r, s.qualname) for r, s in idx.neighbours(init.id)}
        clamp = idx.symbols_by_qualname("clamp")[0]
        callers = {s.qualname for r, s in idx.neighbours(clamp.id, ("called_by",))}
        assert {"Circle.__init__", "scale_factor"} <= callers
        # imports resolved to files (relative and absolute)
        assert "shapes/util.py" in idx.imports_of(core.id)
        assert "shapes/core.py" in idx.imported_by(idx.file("shapes/util.py").id)
        # enclosing symbol of a file:line; nested local function
        assert idx.enclosing_symbol("shapes/core.py", 25).qualname == "Circle.area"
        assert idx.enclosing_symbol("shapes/core.py", 31).qualname == "Circle.scaled_area.inner"
        assert idx.enclosing_symbol("shapes/core.py", 1) is None
        assert [s.qualname for s in idx.symbols_by_dotted("shapes.core.Circle.area")] == ["Circle.area"]
        # test pointers
        tests = idx.tests_for(clamp)
        assert tests and tests[0]["path"] == "tests/test_core.py"
        # BM25
        hits = idx.bm25_search("clamp value into range", 5)
        assert hits and hits[0].path == "shapes/util.py"


def test_doc_chunks_linked_in_order(built):
    _, db, stats = built
    assert stats.n_doc_files == 1 and stats.n_chunks >= 3
    with open_index(db) as idx:
        chunks = idx.chunks("docs/guide.md")
        assert len(chunks) == stats.n_chunks
        assert [c["seq"] for c in chunks] == list(range(len(chunks)))
        assert all(a["next_id"] == b["id"] for a, b in zip(chunks, chunks[1:])) and chunks[-1]["next_id"] is None
        assert all(a["end_line"] <= b["start_line"] for a, b in zip(chunks, chunks[1:]))
        assert "Section 0" in chunks[0]["text"]


def test_chunk_text_splits_adaptively():
    text = "para one\n\n" + "word " * 500 + "\n\nlast"
    chunks = chunk_text(text, 200)
    assert all(len(c.text) <= 200 for c in chunks)
    assert chunks[0].text == "para one" and chunks[-1].text == "last" and chunks[-1].start_line == 5
    assert chunk_text("x" * 450, 200)[0].text == "x" * 200


def test_bad_files_are_indexed_as_far_as_possible_and_counted(built):
    _, db, stats = built
    sc = stats.status_counts
    assert sc.get("partial", 0) >= 1  # the syntax error (tree-sitter-python also parses print/exec statements)
    assert sum(sc.values()) == stats.n_files
    assert sc.get("binary") == 1
    assert stats.n_non_utf8 == 1
    with open_index(db) as idx:
        # definitions around the broken region are still found
        assert idx.symbols_by_qualname("StillFound.method") and idx.symbols_by_qualname("good_one")
        assert idx.symbols_by_qualname("greet") and idx.symbols_by_qualname("after_error")
        assert idx.symbols_by_qualname("latin_function")
        assert idx.file("legacy/binary_blob.py").status == "binary"


def test_huge_and_generated_files_do_not_stop_the_build(repo, tmp_path):
    (repo / "shapes" / "_generated_table.py").write_text("TABLE = [\n" + "    1,\n" * 300_000 + "]\n")
    (repo / "shapes" / "_minified.py").write_text("X = [" + "1," * 30_000 + "]\n")
    db = tmp_path / "big.sqlite"
    stats = build_index(repo, db, options={"max_file_bytes": 1_000_000})
    assert stats.status_counts.get("too_large") == 1 and stats.status_counts.get("generated") == 1
    with open_index(db) as idx:
        assert idx.file("shapes/_generated_table.py").status == "too_large"
        assert idx.symbols_by_qualname("Circle")


def test_incremental_reindex_touches_only_changed_files(built):
    repo, db, _ = built
    again = build_index(repo, db)
    assert again.mode == "noop" and again.files_parsed == 0
    util = repo / "shapes" / "util.py"
    util.write_text(util.read_text() + "\n\ndef brand_new_helper():\n    return clamp(1, 0, 2)\n")
    (repo / "tests" / "test_core.py").unlink()
    (repo / "shapes" / "extra.py").write_text("from shapes.util import brand_new_helper\n\ndef use():\n    return brand_new_helper()\n")
    inc = build_index(repo, db)
    assert inc.mode == "incremental" and inc.files_parsed == 2 and inc.files_removed == 1
    with open_index(db) as idx:
        new = idx.symbols_by_qualname("brand_new_helper")[0]
        assert "use" in {s.qualname for _, s in idx.neighbours(new.id, ("called_by",))}
        # edges from unchanged files into the re-parsed file are re-resolved
        init = idx.symbols_by_qualname("Circle.__init__")[0]
        assert "clamp" in {s.qualname for _, s in idx.neighbours(init.id, ("calls",))}
        assert idx.file("tests/test_core.py") is None
        assert idx.bm25_search("brand new helper", 3)[0].path in ("shapes/util.py", "shapes/extra.py")
    # same result as a cold build
    cold = build_index(repo, db.with_name("cold.sqlite"))
    assert (cold.n_symbols, cold.n_edges, cold.n_edges_resolved) == (inc.n_symbols, inc.n_edges, inc.n_edges_resolved)


def test_warm_load_is_fast_and_db_is_plain_sqlite(built):
    _, db, _ = built
    t = time.process_time()  # this process's CPU time: what other processes do cannot inflate it
    idx = open_index(db).warm()
    assert time.process_time() - t < 0.5
    idx.close()
    con = sqlite3.connect(db)
    names = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"symbols_name", "symbols_qualname", "edges_dst_symbol", "files_module"} <= names


def test_a_failed_cold_build_leaves_the_old_database_and_no_temporary_file(built, monkeypatch):
    """A forced rebuild that fails half-way keeps the database it would have replaced, byte for
    byte, and removes its temporary database."""
    repo, db, _ = built
    before = db.read_bytes()

    def fail(*args, **kwargs):
        raise RuntimeError("bm25 failed")

    monkeypatch.setattr("swevis.index.build._rebuild_bm25", fail)
    with pytest.raises(RuntimeError, match="bm25 failed"):
        build_index(repo, db, force=True)
    assert db.read_bytes() == before
    assert sorted(p.name for p in db.parent.iterdir()) == sorted(["minirepo", db.name])


def test_errors_name_the_file(tmp_path):
    with pytest.raises(IndexError_, match="does not exist"):
        open_index(tmp_path / "missing.sqlite")
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(IndexError_, match="bad.sqlite"):
        open_index(bad)
    with pytest.raises(IndexError_, match="nope"):
        build_index(tmp_path / "nope", tmp_path / "x.sqlite")
    assert not (tmp_path / "x.sqlite").exists() and not (tmp_path / "x.sqlite.tmp").exists()


def test_module_names_src_layout_and_installed_package():
    paths = ["lib/pkg/__init__.py", "lib/pkg/a.py", "lib/pkg/sub/__init__.py", "lib/pkg/sub/b.py", "setup.py"]
    m = module_names(paths)
    assert m["lib/pkg/a.py"] == "pkg.a" and m["lib/pkg/sub/b.py"] == "pkg.sub.b" and m["setup.py"] == "setup"
    m2 = module_names(["__init__.py", "colors.py"], root_name="matplotlib")
    assert m2["colors.py"] == "matplotlib.colors" and m2["__init__.py"] == "matplotlib"


def test_two_builds_of_a_repository_are_identical(tmp_path):
    """Row ids order every ranking tie and cut-off downstream: a build must not depend on the
    order tree-sitter happens to return a query's captures in."""
    sample = Path(__file__).resolve().parents[2] / "src" / "swevis" / "data" / "sample" / "repos" / "ledgerkit"
    dumps = []
    for name in ("a", "b"):
        build_index(sample, tmp_path / f"{name}.sqlite")
        con = sqlite3.connect(tmp_path / f"{name}.sqlite")
        dumps.append({t: con.execute(f"SELECT * FROM {t} ORDER BY rowid").fetchall()
                      for t in ("files", "symbols", "edges", "targets", "attrs", "bm25_docs")})
        con.close()
    for table in dumps[0]:
        assert dumps[0][table] == dumps[1][table], table


def _index_import_graph() -> dict[str, set[str]]:
    """swevis.index module -> the swevis.index modules it imports (anywhere in the file)."""
    folder = Path(__file__).resolve().parents[2] / "src" / "swevis" / "index"
    names = {p.stem for p in folder.glob("*.py")}
    graph: dict[str, set[str]] = {}
    for path in folder.glob("*.py"):
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module == "swevis.index":
                deps |= {a.name for a in node.names if a.name in names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("swevis.index."):
                deps.add(node.module.split(".")[2])
            elif isinstance(node, ast.Import):
                deps |= {a.name.split(".")[2] for a in node.names if a.name.startswith("swevis.index.")}
        graph[path.stem] = deps - {path.stem}
    return graph


def test_languages_and_their_extractors_import_no_cycle():
    """The extractors (docs, python_lang) share their records with the registry through
    swevis.index.records, so none of the three imports back the one that imports it."""
    graph = _index_import_graph()
    trio = {"languages", "docs", "python_lang"}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(d == goal or (d not in seen and reaches(d, goal, seen | {d})) for d in graph.get(start, ()))

    cycles = sorted(m for m in trio if reaches(m, m, {m}))
    assert cycles == [], f"import cycle through {cycles}"
    assert "records" in graph["docs"] and "records" in graph["python_lang"]
