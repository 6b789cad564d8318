"""The knowledge-graph tools (swevis.agents.tools.graph): each tool's output, the tool-error
observation for unknown names, and format errors for malformed calls."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from minisweagent.exceptions import FormatError

from helpers import indexed_repo
from swevis.agents.observation.actions import classify_action
from swevis.agents.tool_registry import all_tools, tool_of
from swevis.agents.tools.environment import ToolEnvironment
from swevis.agents.tools.graph import TOOLS, GraphView

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
    "tests/test_core.py": "from pkg.core import Engine\n\n\ndef test_start():\n    assert Engine().start() == 2\n",
    "docs/guide.md": "# Guide\n\n" + "\n\n".join(f"Paragraph {i} about engines." for i in range(80)) + "\n",
}


@pytest.fixture
def env(tmp_path):
    repo, index = indexed_repo(tmp_path, FILES)
    index.close()
    base = SimpleNamespace(config=SimpleNamespace(cwd=str(repo)))
    return ToolEnvironment(base, tools=TOOLS, allow_bash=False, index_db=str(tmp_path / "i.sqlite"),
                           pristine_dir=str(repo), parts=[GraphView(graph_results=3, node_lines=4)])


def run(env, command: str) -> dict:
    return env.execute({"command": command})


def test_the_tools_are_known_everywhere():
    assert all(all_tools()[t.name] is t for t in TOOLS)  # registered, each record once
    assert tool_of("find_nodes 'x'") == "find_nodes"
    assert classify_action("read_span pkg/core.py 1 3") == "read"
    assert classify_action("callers helper") == "search"


def test_paths_and_folders(env):
    assert run(env, "find_path core.py")["output"] == "file pkg/core.py\n"
    assert run(env, "find_path ./pkg")["output"] == "dir pkg\n"
    out = run(env, "find_path nowhere.py")
    assert out["returncode"] == 0 and "no file or folder named 'nowhere.py'" in out["output"]
    assert run(env, "list_dir .")["output"] == "docs/\npkg/\ntests/\n"
    assert run(env, "list_dir pkg")["output"] == "pkg/__init__.py\npkg/core.py\n"


def test_find_nodes_shows_numbered_capped_definitions_by_file(env):
    out = run(env, "find_nodes 'return' --in core.py")
    assert out["returncode"] == 0
    text = out["output"]
    assert text.startswith("== pkg/core.py\nnode ")
    assert text.count("== pkg/core.py") == 1  # grouped by file
    assert "function helper (lines 9-10)\n     9\tdef helper(x):\n    10\t    return x + 1\n" in text
    assert text.count("node ") == 3  # graph_results
    classes = run(env, "find_nodes '' --type class")["output"]
    assert "class Engine (lines 1-6)" in classes
    assert "... 2 more lines: read_span pkg/core.py 5 6" in classes  # node_lines = 4
    assert run(env, "find_nodes 'absent text'")["output"].startswith("no match")


def test_parent_children_callers_callees_tests(env):
    view = env.part(GraphView)
    view.env = env  # set by the tools' handlers on their first call
    graph = view.graph()
    engine = graph.symbols("Engine", 1)[0].id
    start = graph.symbols("Engine.start", 1)[0].id
    kids = run(env, f"node_children {engine}")["output"]
    assert "method Engine.start (lines 2-3)" in kids and "method Engine.stop (lines 5-6)" in kids
    assert f"node {engine}: class Engine" in run(env, f"node_parent {start}")["output"]
    assert "at the top of its file" in run(env, f"node_parent {engine}")["output"]
    callers = run(env, "callers helper")["output"]
    assert callers.startswith("callers of node") and f"== pkg/core.py\n  2-3 node {start}: method Engine.start\n" in callers
    assert "== pkg/core.py\n  9-10 node" in run(env, "callees Engine.start")["output"]
    assert "none resolved" in run(env, "callees helper")["output"]
    assert run(env, "tests_for Engine.start")["output"].startswith("tests/test_core.py: references")


def test_text_chunks_and_spans(env):
    first = run(env, "find_text 'Paragraph 0 ' --in guide.md")["output"]
    assert first.startswith("== docs/guide.md\nchunk 1 (lines 1-")
    nxt = run(env, "next_chunk 1")["output"]
    assert nxt.startswith("== docs/guide.md\nchunk 2 (lines ")
    span = run(env, "read_span pkg/core.py 9 10")
    # a code window (as pack_context's): the observation shows it numbered as text, or as pages
    assert span["output"] == "== pkg/core.py\n"
    assert span["extra"]["windows"] == [{"path": "pkg/core.py", "start": 9, "end": 10,
                                         "text": "def helper(x):\n    return x + 1"}]


@pytest.mark.parametrize("command, message", [
    ("find_nodes x --in nope.py", "find_nodes: no indexed file 'nope.py' (by path or basename)\n"),
    ("find_nodes '' --type function_definition", "find_nodes: no definition kind 'function_definition'; the index has: class, function, method\n"),
    ("node_children 999", "node_children: no definition with id 999\n"),
    ("node_parent 999", "node_parent: no definition with id 999\n"),
    ("callers Nowhere", "callers: no definition named 'Nowhere'\n"),
    ("callees Nowhere", "callees: no definition named 'Nowhere'\n"),
    ("tests_for Nowhere", "tests_for: no definition named 'Nowhere'\n"),
    ("next_chunk 999", "next_chunk: no text chunk with id 999\n"),
    ("list_dir nope", "list_dir: no indexed folder 'nope'\n"),
    ("read_span pkg/none.py 1 2", "read_span: no indexed file 'pkg/none.py'\n"),
    ("read_span pkg/core.py 40 41", "read_span: pkg/core.py has 10 lines; line 40 is past its end\n"),
    ("find_text x --in nope.md", "find_text: no indexed file 'nope.md' (by path or basename)\n"),
])
def test_unknown_names_are_tool_errors(env, command, message):
    assert run(env, command) == {"output": message, "returncode": 1, "exception_info": ""}


@pytest.mark.parametrize("command", [
    "find_path", "find_path a b", "find_nodes", "find_nodes ''", "find_nodes x --type", "find_nodes x --bad y",
    "node_children abc", "next_chunk", "read_span pkg/core.py 3", "read_span pkg/core.py 5 2", "find_text ''",
    "find_nodes 'unclosed",
])
def test_malformed_calls_are_format_errors(env, command):
    with pytest.raises(FormatError):
        run(env, command)
