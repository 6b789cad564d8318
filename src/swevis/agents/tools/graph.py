"""Tools that traverse the repository knowledge graph (swevis.index.graph), for Prometheus's
context retrieval, in the text action format of swevis.agents.tools.environment (one command each):

    find_path NAME_OR_PATH                folders and files by relative path or basename
    list_dir PATH                         a folder's HAS_FILE children ("." is the root)
    find_nodes TEXT [--type KIND] [--in PATH]
                                          definitions whose source contains TEXT (case-sensitive),
                                          smallest first; TEXT may be "" with --type; --in takes
                                          a path or a basename (default: the whole repository)
    node_parent NODE_ID                   the definition containing a definition
    node_children NODE_ID                 the definitions directly inside one
    callers SYMBOL                        definitions calling SYMBOL (an id, dotted or bare name)
    callees SYMBOL                        definitions SYMBOL calls
    tests_for SYMBOL                      test files referencing SYMBOL or importing its module
    find_text TEXT [--in PATH]            doc-file text chunks containing TEXT
    next_chunk CHUNK_ID                   NEXT_CHUNK: the chunk after one in its file
    read_span PATH START END              lines START..END of a file (1-based, inclusive)

Results are deduplicated and grouped by file, with line numbers; each search shows at most
`graph_results` hits and each definition at most `node_lines` lines (the rest is named, to
read with read_span). A call naming a file, folder, definition or chunk the index does not
have is a tool error (returncode 1, one line); malformed arguments raise `format_error`.
"""

from __future__ import annotations

import shlex
from typing import Any

from swevis.agents.observation.observe import number_lines
from swevis.agents.tools.environment import ToolEnvironment, format_error
from swevis.index.graph import Chunk, DefNode, GraphLookupError, RepoGraph
from swevis.index.store import Symbol

GRAPH_TOOLS = frozenset({"find_path", "list_dir", "find_nodes", "node_parent", "node_children", "callers", "callees",
                         "tests_for", "find_text", "next_chunk", "read_span"})
EMPTY = "no match: try another text, type or file\n"

USAGE = {
    "find_path": "find_path NAME_OR_PATH",
    "list_dir": "list_dir PATH",
    "find_nodes": "find_nodes TEXT [--type KIND] [--in PATH]",
    "node_parent": "node_parent NODE_ID",
    "node_children": "node_children NODE_ID",
    "callers": "callers SYMBOL",
    "callees": "callees SYMBOL",
    "tests_for": "tests_for SYMBOL",
    "find_text": "find_text TEXT [--in PATH]",
    "next_chunk": "next_chunk CHUNK_ID",
    "read_span": "read_span PATH START END",
}


def _ok(text: str) -> dict[str, Any]:
    return {"output": text if text.endswith("\n") else text + "\n", "returncode": 0, "exception_info": ""}


def _failed(name: str, exc: GraphLookupError) -> dict[str, Any]:
    return {"output": f"{name}: {exc}\n", "returncode": 1, "exception_info": ""}


def parse_args(command: str, name: str, positional: int, options: tuple[str, ...] = ()) -> tuple[list[str], dict]:
    """(positional words, {option: value}) of a tool call; exactly `positional` words."""
    try:
        words = shlex.split(command)[1:]
    except ValueError as exc:
        raise format_error(f"{name}: {exc}") from None
    args, opts = [], {}
    while words:
        w = words.pop(0)
        if w in options:
            if not words:
                raise format_error(f"{name}: {w} needs a value; usage: {USAGE[name]}")
            opts[w] = words.pop(0)
        elif w.startswith("--"):
            raise format_error(f"{name}: unknown option {w}; usage: {USAGE[name]}")
        else:
            args.append(w)
    if len(args) != positional:
        raise format_error(f"usage: {USAGE[name]}")
    return args, opts


def _number(name: str, word: str) -> int:
    if not word.isdigit():
        raise format_error(f"{name}: {word!r} is not a number; usage: {USAGE[name]}")
    return int(word)


def _by_file(items: list[tuple[str, str]]) -> str:
    """(path, entry) pairs as one block per file, in the order files first appear, no repeats."""
    groups: dict[str, list[str]] = {}
    for path, entry in items:
        if entry not in groups.setdefault(path, []):
            groups[path].append(entry)
    return "".join(f"== {path}\n" + "".join(groups[path]) for path in groups)


class GraphTools:
    """The graph tools as `_tool_<name>` methods. The class mixing them in is a ToolEnvironment
    (index_db, pristine_dir, _open_index) that sets `graph_results` and `node_lines`."""

    graph_results: int
    node_lines: int
    _graph: RepoGraph | None = None

    def graph(self) -> RepoGraph:
        if self._graph is None:
            self._graph = RepoGraph(self._open_index(), self.pristine_dir)
        return self._graph

    def _node_entry(self, node: DefNode) -> str:
        s = node.symbol
        lines = node.text.split("\n")
        shown = lines[: self.node_lines]
        more = (f"       ... {len(lines) - len(shown)} more lines: read_span {s.path} "
                f"{s.start_line + len(shown)} {s.end_line}\n" if len(lines) > len(shown) else "")
        return (f"node {s.id}: {s.kind} {s.qualname} (lines {s.start_line}-{s.end_line})\n"
                + number_lines(shown, s.start_line) + more)

    def _nodes(self, nodes: list[DefNode]) -> str:
        return _by_file([(n.symbol.path, self._node_entry(n)) for n in nodes]) or EMPTY

    @staticmethod
    def _symbol_line(s: Symbol) -> str:
        return f"  {s.start_line}-{s.end_line} node {s.id}: {s.kind} {s.qualname}\n"

    def _lookup(self, name: str, query) -> dict[str, Any]:
        try:
            return _ok(query())
        except GraphLookupError as exc:
            return _failed(name, exc)

    # -- folders and files
    def _tool_find_path(self, command: str) -> dict[str, Any]:
        (want,), _ = parse_args(command, "find_path", 1)
        nodes = self.graph().find_paths(want, self.graph_results)
        return _ok("".join(f"{n.kind} {n.path}\n" for n in nodes) or f"no file or folder named {want!r}\n")

    def _tool_list_dir(self, command: str) -> dict[str, Any]:
        (path,), _ = parse_args(command, "list_dir", 1)
        return self._lookup("list_dir", lambda: "".join(
            f"{n.path}/\n" if n.kind == "dir" else f"{n.path}\n" for n in self.graph().list_dir(path)) or "(empty)\n")

    # -- definitions
    def _tool_find_nodes(self, command: str) -> dict[str, Any]:
        (text,), opts = parse_args(command, "find_nodes", 1, ("--type", "--in"))
        if not text and "--type" not in opts:
            raise format_error(f"find_nodes: give a TEXT or a --type; usage: {USAGE['find_nodes']}")
        return self._lookup("find_nodes", lambda: self._nodes(self.graph().find_nodes(
            self.graph_results, text=text or None, kind=opts.get("--type"), within=opts.get("--in"))))

    def _tool_node_parent(self, command: str) -> dict[str, Any]:
        (word,), _ = parse_args(command, "node_parent", 1)
        node_id = _number("node_parent", word)

        def query() -> str:
            parent = self.graph().parent(node_id)
            return self._nodes([parent]) if parent else f"node {node_id} is at the top of its file\n"
        return self._lookup("node_parent", query)

    def _tool_node_children(self, command: str) -> dict[str, Any]:
        (word,), _ = parse_args(command, "node_children", 1)
        node_id = _number("node_children", word)

        def query() -> str:
            kids = self.graph().children(node_id)[: self.graph_results]
            return self._nodes(kids) if kids else f"node {node_id} has no definitions inside it\n"
        return self._lookup("node_children", query)

    def _calls(self, name: str, direction: str, command: str) -> dict[str, Any]:
        (symbol,), _ = parse_args(command, name, 1)

        label = "callers of" if direction == "called_by" else "callees of"

        def query() -> str:
            blocks = []
            for s in self.graph().symbols(symbol, self.graph_results):
                found = self.graph().calls(s, direction, self.graph_results)
                head = f"{label} node {s.id}: {s.kind} {s.qualname} ({s.path}:{s.start_line})\n"
                blocks.append(head + (_by_file([(o.path, self._symbol_line(o)) for o in found]) or "  none resolved\n"))
            return "".join(blocks)
        return self._lookup(name, query)

    def _tool_callers(self, command: str) -> dict[str, Any]:
        return self._calls("callers", "called_by", command)

    def _tool_callees(self, command: str) -> dict[str, Any]:
        return self._calls("callees", "calls", command)

    def _tool_tests_for(self, command: str) -> dict[str, Any]:
        (symbol,), _ = parse_args(command, "tests_for", 1)

        def query() -> str:
            found: dict[str, list[str]] = {}
            for s in self.graph().symbols(symbol, self.graph_results):
                for t in self.graph().tests_for(s, self.graph_results):
                    why = found.setdefault(t["path"], [])
                    why += [f"references {r}" for r in t["references"] if f"references {r}" not in why]
                    if t["imports_module"] and f"imports {s.module}" not in why:
                        why.append(f"imports {s.module}")
            return "".join(f"{p}: {', '.join(w)}\n" for p, w in list(found.items())[: self.graph_results]) or EMPTY
        return self._lookup("tests_for", query)

    # -- text chunks and code
    @staticmethod
    def _chunk_entry(c: Chunk) -> str:
        return f"chunk {c.id} (lines {c.start_line}-{c.end_line}):\n" + number_lines(c.text.split("\n"), c.start_line)

    def _tool_find_text(self, command: str) -> dict[str, Any]:
        (text,), opts = parse_args(command, "find_text", 1, ("--in",))
        if not text:
            raise format_error(f"find_text: TEXT is empty; usage: {USAGE['find_text']}")
        return self._lookup("find_text", lambda: _by_file(
            [(c.path, self._chunk_entry(c)) for c in self.graph().find_text(text, self.graph_results, opts.get("--in"))]
        ) or EMPTY)

    def _tool_next_chunk(self, command: str) -> dict[str, Any]:
        (word,), _ = parse_args(command, "next_chunk", 1)
        chunk_id = _number("next_chunk", word)

        def query() -> str:
            nxt = self.graph().next_chunk(chunk_id)
            return _by_file([(nxt.path, self._chunk_entry(nxt))]) if nxt else f"chunk {chunk_id} is the last of its file\n"
        return self._lookup("next_chunk", query)

    def _tool_read_span(self, command: str) -> dict[str, Any]:
        (path, a, b), _ = parse_args(command, "read_span", 3)
        start, end = _number("read_span", a), _number("read_span", b)
        if start < 1 or end < start:
            raise format_error(f"read_span: bad line span {start}-{end}")
        return self._lookup("read_span", lambda: f"== {path}\n" + number_lines(self.graph().read_span(path, start, end), start))


class GraphToolEnvironment(GraphTools, ToolEnvironment):
    """A ToolEnvironment with the graph tools; `graph_results` caps every search and
    `node_lines` the lines shown of each definition."""

    def __init__(self, base: Any, *, graph_results: int, node_lines: int, **kwargs: Any):
        super().__init__(base, **kwargs)
        if graph_results < 1 or node_lines < 1:
            raise ValueError("graph_results and node_lines must be at least 1")
        self.graph_results = graph_results
        self.node_lines = node_lines
