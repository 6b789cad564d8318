"""The index as a knowledge graph: folders and HAS_FILE, and every query of swevis.index.graph."""

from __future__ import annotations

import sqlite3

import pytest

from helpers import index_rows, indexed_repo
from swevis.index import build_index
from swevis.index.graph import GraphLookupError, RepoGraph

FILES = {
    "pkg/__init__.py": "",
    "pkg/core.py": (
        "class Engine:\n"
        "    def start(self):\n"
        "        return helper(1)\n"
        "\n"
        "    def stop(self):\n"
        "        return 'stopped'\n"
        "\n"
        "\n"
        "def helper(x):\n"
        "    return x + 1\n"
    ),
    "pkg/sub/util.py": "def helper(y):\n    return y\n",
    "tests/test_core.py": "from pkg.core import Engine\n\n\ndef test_start():\n    assert Engine().start() == 2\n",
    "docs/guide.md": "# Guide\n\n" + "\n\n".join(f"Paragraph {i} about engines and gears." for i in range(60)) + "\n",
}


@pytest.fixture
def graph(tmp_path):
    repo, index = indexed_repo(tmp_path, FILES)
    yield RepoGraph(index, repo)
    index.close()


def test_folders_and_has_file_edges(tmp_path, graph):
    con = sqlite3.connect(tmp_path / "i.sqlite")
    dirs = con.execute("SELECT path FROM dirs ORDER BY id").fetchall()
    assert [d for (d,) in dirs] == [".", "docs", "pkg", "pkg/sub", "tests"]
    edges = con.execute(
        "SELECT p.path, coalesce(d.path, f.path) FROM has_file h JOIN dirs p ON p.id = h.dir_id"
        " LEFT JOIN dirs d ON d.id = h.child_dir LEFT JOIN files f ON f.id = h.child_file ORDER BY h.rowid").fetchall()
    assert edges == [(".", "docs"), (".", "pkg"), (".", "tests"), ("docs", "docs/guide.md"), ("pkg", "pkg/sub"),
                     ("pkg", "pkg/__init__.py"), ("pkg", "pkg/core.py"), ("pkg/sub", "pkg/sub/util.py"),
                     ("tests", "tests/test_core.py")]
    assert [n.path for n in graph.list_dir(".")] == ["docs", "pkg", "tests"]
    assert [(n.kind, n.path) for n in graph.list_dir("./pkg/")] == [
        ("dir", "pkg/sub"), ("file", "pkg/__init__.py"), ("file", "pkg/core.py")]
    with pytest.raises(GraphLookupError, match="no indexed folder 'nope'"):
        graph.list_dir("nope")


def test_an_update_writes_the_folders_of_a_cold_build(tmp_path):
    repo, index = indexed_repo(tmp_path, FILES)
    index.close()
    (repo / "pkg/sub/util.py").unlink()
    (repo / "lib/deep").mkdir(parents=True)
    (repo / "lib/deep/new.py").write_text("def fresh():\n    return 0\n")
    assert build_index(repo, tmp_path / "i.sqlite").mode == "incremental"
    build_index(repo, tmp_path / "cold.sqlite")
    got, want = index_rows(tmp_path / "i.sqlite"), index_rows(tmp_path / "cold.sqlite")
    assert got["dirs"] == want["dirs"] and got["has_file"] == want["has_file"]
    assert ("lib/deep",) in [r[1:2] for r in got["dirs"]] and ("pkg/sub",) not in [r[1:2] for r in got["dirs"]]


def test_find_paths_by_relative_path_or_basename(graph):
    assert [(n.kind, n.path) for n in graph.find_paths("pkg/core.py", 5)] == [("file", "pkg/core.py")]
    assert [n.path for n in graph.find_paths("core.py", 5)] == ["pkg/core.py"]
    assert [(n.kind, n.path) for n in graph.find_paths("sub", 5)] == [("dir", "pkg/sub")]
    assert [n.path for n in graph.find_paths(".", 5)] == ["."]
    assert [n.path for n in graph.find_paths("sub/util.py", 5)] == ["pkg/sub/util.py"]  # a path's tail
    assert graph.find_paths("missing.py", 5) == []
    assert len(graph.find_paths("__init__.py", 5)) == 1


def test_find_nodes_by_text_smallest_first_capped(graph):
    nodes = graph.find_nodes(5, text="return")
    names = [n.symbol.qualname for n in nodes]
    assert names[0] == "helper" and names[1] == "helper"  # the two smallest (util's 2 lines, then core's)
    assert "Engine" in names and names.index("Engine.start") < names.index("Engine")
    assert [len(n.text) for n in nodes] == sorted(len(n.text) for n in nodes)
    assert len(graph.find_nodes(2, text="return")) == 2
    inside = graph.find_nodes(5, text="stopped", within="pkg/core.py")
    assert [n.symbol.qualname for n in inside] == ["Engine.stop", "Engine"]
    assert inside[0].text == "    def stop(self):\n        return 'stopped'"
    assert [n.symbol.path for n in graph.find_nodes(5, text="helper", within="util.py")] == ["pkg/sub/util.py"]
    assert graph.find_nodes(5, text="no such text") == []


def test_find_nodes_by_kind_and_unknowns(graph):
    assert {n.symbol.qualname for n in graph.find_nodes(9, kind="method")} == {"Engine.start", "Engine.stop"}
    assert [n.symbol.qualname for n in graph.find_nodes(9, kind="class", within="core.py")] == ["Engine"]
    with pytest.raises(GraphLookupError, match="no definition kind 'function_definition'; the index has: class"):
        graph.find_nodes(5, kind="function_definition")
    with pytest.raises(GraphLookupError, match="no indexed file 'nope.py'"):
        graph.find_nodes(5, text="x", within="nope.py")
    with pytest.raises(ValueError):
        graph.find_nodes(5)


def test_parent_children_and_unknown_ids(graph):
    (engine,) = graph.find_nodes(1, kind="class")
    kids = graph.children(engine.id)
    assert [k.symbol.qualname for k in kids] == ["Engine.start", "Engine.stop"]
    assert graph.parent(kids[0].id).id == engine.id
    assert graph.parent(engine.id) is None
    with pytest.raises(GraphLookupError, match="no definition with id 999"):
        graph.children(999)
    with pytest.raises(GraphLookupError, match="no definition with id 999"):
        graph.parent(999)


def test_callers_callees_and_tests(graph):
    (start,) = graph.symbols("pkg.core.Engine.start", 5)
    callees = graph.calls(start, "calls", 5)
    assert [(s.path, s.qualname) for s in callees] == [("pkg/core.py", "helper")]
    (helper,) = graph.symbols("core.helper", 5)
    assert [s.qualname for s in graph.calls(helper, "called_by", 5)] == ["Engine.start"]
    assert [s.path for s in graph.symbols("helper", 5)] == ["pkg/core.py", "pkg/sub/util.py"]
    assert graph.symbols(str(start.id), 5) == [start]
    tests = graph.tests_for(start, 5)
    assert tests[0]["path"] == "tests/test_core.py" and "Engine" in tests[0]["references"]
    with pytest.raises(GraphLookupError, match="no definition named 'Nowhere'"):
        graph.symbols("Nowhere", 5)


def test_text_chunks_and_next_chunk(graph):
    hits = graph.find_text("Paragraph 0 ", 5)
    assert [c.path for c in hits] == ["docs/guide.md"] and hits[0].seq == 0
    chain = [hits[0]]
    while (nxt := graph.next_chunk(chain[-1].id)) is not None:
        chain.append(nxt)
    assert len(chain) > 1 and [c.seq for c in chain] == list(range(len(chain)))
    assert all(a.end_line <= b.start_line + 1 for a, b in zip(chain, chain[1:]))
    assert "Paragraph 59" in chain[-1].text
    assert graph.find_text("gears", 2, within="guide.md")[0].id == hits[0].id
    assert len(graph.find_text("gears", 2)) == 2
    assert graph.find_text("paragraph 0 ", 5) == []  # case-sensitive
    with pytest.raises(GraphLookupError, match="no text chunk with id 999"):
        graph.next_chunk(999)


def test_read_span_is_one_based_and_inclusive(graph):
    assert graph.read_span("pkg/core.py", 2, 3) == ["    def start(self):", "        return helper(1)"]
    assert graph.read_span("pkg/core.py", 10, 99) == ["    return x + 1"]
    with pytest.raises(GraphLookupError, match="no indexed file 'pkg/none.py'"):
        graph.read_span("pkg/none.py", 1, 2)
    with pytest.raises(GraphLookupError, match="has 10 lines"):
        graph.read_span("pkg/core.py", 11, 12)
