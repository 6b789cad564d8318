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
have is a tool error (returncode 1, one line); malformed arguments raise `format_error`. The
phase's environment holds a `GraphView` part (its caps and the graph, opened on first use).
"""

from __future__ import annotations

import shlex
from typing import TYPE_CHECKING, Any

from swevis.agents.tool_registry import Tool
from swevis.agents.tools.environment import format_error

if TYPE_CHECKING:
    from swevis.index.graph import Chunk, DefNode, RepoGraph
    from swevis.index.store import Symbol

EMPTY = "no match: try another text, type or file\n"


def _usage(name: str) -> str:
    return next(t.usage for t in TOOLS if t.name == name)


def _numbered(lines: list[str], start: int) -> str:
    from swevis.agents.observation.observe import number_lines

    return number_lines(lines, start)


def _ok(text: str) -> dict[str, Any]:
    return {"output": text if text.endswith("\n") else text + "\n", "returncode": 0, "exception_info": ""}


def _failed(name: str, exc: Exception) -> dict[str, Any]:
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
                raise format_error(f"{name}: {w} needs a value; usage: {_usage(name)}")
            opts[w] = words.pop(0)
        elif w.startswith("--"):
            raise format_error(f"{name}: unknown option {w}; usage: {_usage(name)}")
        else:
            args.append(w)
    if len(args) != positional:
        raise format_error(f"usage: {_usage(name)}")
    return args, opts


def _number(name: str, word: str) -> int:
    if not word.isdigit():
        raise format_error(f"{name}: {word!r} is not a number; usage: {_usage(name)}")
    return int(word)


def _by_file(items: list[tuple[str, str]]) -> str:
    """(path, entry) pairs as one block per file, in the order files first appear, no repeats."""
    groups: dict[str, list[str]] = {}
    for path, entry in items:
        if entry not in groups.setdefault(path, []):
            groups[path].append(entry)
    return "".join(f"== {path}\n" + "".join(groups[path]) for path in groups)


class GraphView:
    """A phase's part for the graph tools: `graph_results` caps every search and `node_lines`
    the lines shown of each definition; the graph is built over the environment's index on
    first use (`env` is set by the tools' handlers)."""

    def __init__(self, *, graph_results: int, node_lines: int):
        if graph_results < 1 or node_lines < 1:
            raise ValueError("graph_results and node_lines must be at least 1")
        self.graph_results = graph_results
        self.node_lines = node_lines
        self.env: Any = None
        self._graph: RepoGraph | None = None

    def graph(self) -> RepoGraph:
        if self._graph is None:
            from swevis.index.graph import RepoGraph

            self._graph = RepoGraph(self.env.index(), self.env.pristine_dir)
        return self._graph

    def _node_entry(self, node: DefNode) -> str:
        s = node.symbol
        lines = node.text.split("\n")
        shown = lines[: self.node_lines]
        more = (f"       ... {len(lines) - len(shown)} more lines: read_span {s.path} "
                f"{s.start_line + len(shown)} {s.end_line}\n" if len(lines) > len(shown) else "")
        return (f"node {s.id}: {s.kind} {s.qualname} (lines {s.start_line}-{s.end_line})\n"
                + _numbered(shown, s.start_line) + more)

    def _nodes(self, nodes: list[DefNode]) -> str:
        return _by_file([(n.symbol.path, self._node_entry(n)) for n in nodes]) or EMPTY

    @staticmethod
    def _symbol_line(s: Symbol) -> str:
        return f"  {s.start_line}-{s.end_line} node {s.id}: {s.kind} {s.qualname}\n"

    def _lookup(self, name: str, query, as_output=_ok) -> dict[str, Any]:
        from swevis.index.graph import GraphLookupError

        try:
            return as_output(query())
        except GraphLookupError as exc:
            return _failed(name, exc)

    # -- folders and files
    def find_path(self, command: str) -> dict[str, Any]:
        (want,), _ = parse_args(command, FIND_PATH.name, 1)
        nodes = self.graph().find_paths(want, self.graph_results)
        return _ok("".join(f"{n.kind} {n.path}\n" for n in nodes) or f"no file or folder named {want!r}\n")

    def list_dir(self, command: str) -> dict[str, Any]:
        (path,), _ = parse_args(command, LIST_DIR.name, 1)
        return self._lookup(LIST_DIR.name, lambda: "".join(
            f"{n.path}/\n" if n.kind == "dir" else f"{n.path}\n" for n in self.graph().list_dir(path)) or "(empty)\n")

    # -- definitions
    def find_nodes(self, command: str) -> dict[str, Any]:
        (text,), opts = parse_args(command, FIND_NODES.name, 1, ("--type", "--in"))
        if not text and "--type" not in opts:
            raise format_error(f"find_nodes: give a TEXT or a --type; usage: {FIND_NODES.usage}")
        return self._lookup(FIND_NODES.name, lambda: self._nodes(self.graph().find_nodes(
            self.graph_results, text=text or None, kind=opts.get("--type"), within=opts.get("--in"))))

    def node_parent(self, command: str) -> dict[str, Any]:
        (word,), _ = parse_args(command, NODE_PARENT.name, 1)
        node_id = _number(NODE_PARENT.name, word)

        def query() -> str:
            parent = self.graph().parent(node_id)
            return self._nodes([parent]) if parent else f"node {node_id} is at the top of its file\n"
        return self._lookup(NODE_PARENT.name, query)

    def node_children(self, command: str) -> dict[str, Any]:
        (word,), _ = parse_args(command, NODE_CHILDREN.name, 1)
        node_id = _number(NODE_CHILDREN.name, word)

        def query() -> str:
            kids = self.graph().children(node_id)[: self.graph_results]
            return self._nodes(kids) if kids else f"node {node_id} has no definitions inside it\n"
        return self._lookup(NODE_CHILDREN.name, query)

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

    def callers(self, command: str) -> dict[str, Any]:
        return self._calls(CALLERS.name, "called_by", command)

    def callees(self, command: str) -> dict[str, Any]:
        return self._calls(CALLEES.name, "calls", command)

    def tests_for(self, command: str) -> dict[str, Any]:
        (symbol,), _ = parse_args(command, TESTS_FOR.name, 1)

        def query() -> str:
            found: dict[str, list[str]] = {}
            for s in self.graph().symbols(symbol, self.graph_results):
                for t in self.graph().tests_for(s, self.graph_results):
                    why = found.setdefault(t["path"], [])
                    why += [f"references {r}" for r in t["references"] if f"references {r}" not in why]
                    if t["imports_module"] and f"imports {s.module}" not in why:
                        why.append(f"imports {s.module}")
            return "".join(f"{p}: {', '.join(w)}\n" for p, w in list(found.items())[: self.graph_results]) or EMPTY
        return self._lookup(TESTS_FOR.name, query)

    # -- text chunks and code
    @staticmethod
    def _chunk_entry(c: Chunk) -> str:
        return f"chunk {c.id} (lines {c.start_line}-{c.end_line}):\n" + _numbered(c.text.split("\n"), c.start_line)

    def find_text(self, command: str) -> dict[str, Any]:
        (text,), opts = parse_args(command, FIND_TEXT.name, 1, ("--in",))
        if not text:
            raise format_error(f"find_text: TEXT is empty; usage: {FIND_TEXT.usage}")
        return self._lookup(FIND_TEXT.name, lambda: _by_file(
            [(c.path, self._chunk_entry(c)) for c in self.graph().find_text(text, self.graph_results, opts.get("--in"))]
        ) or EMPTY)

    def next_chunk(self, command: str) -> dict[str, Any]:
        (word,), _ = parse_args(command, NEXT_CHUNK.name, 1)
        chunk_id = _number(NEXT_CHUNK.name, word)

        def query() -> str:
            nxt = self.graph().next_chunk(chunk_id)
            return _by_file([(nxt.path, self._chunk_entry(nxt))]) if nxt else f"chunk {chunk_id} is the last of its file\n"
        return self._lookup(NEXT_CHUNK.name, query)

    def read_span(self, command: str) -> dict[str, Any]:
        (path, a, b), _ = parse_args(command, READ_SPAN.name, 3)
        start, end = _number(READ_SPAN.name, a), _number(READ_SPAN.name, b)
        if start < 1 or end < start:
            raise format_error(f"read_span: bad line span {start}-{end}")
        # a code window, as pack_context's are: the observation shows it as text or as pages
        def as_window(lines: list[str]) -> dict[str, Any]:
            window = {"path": path, "start": start, "end": start + len(lines) - 1, "text": "\n".join(lines)}
            return {**_ok(f"== {path}"), "extra": {"windows": [window]}}

        return self._lookup(READ_SPAN.name, lambda: self.graph().read_span(path, start, end), as_output=as_window)


def _on_view(method: Any) -> Any:
    """A handler that runs a GraphView method with the phase's view."""
    def handler(env: Any, command: str) -> dict[str, Any]:
        view = env.part(GraphView)
        view.env = env
        return method(view, command)
    return handler


FIND_PATH = Tool("find_path", "search", "find_path NAME_OR_PATH", _on_view(GraphView.find_path))
LIST_DIR = Tool("list_dir", "search", "list_dir PATH", _on_view(GraphView.list_dir))
FIND_NODES = Tool("find_nodes", "search", "find_nodes TEXT [--type KIND] [--in PATH]", _on_view(GraphView.find_nodes))
NODE_PARENT = Tool("node_parent", "read", "node_parent NODE_ID", _on_view(GraphView.node_parent))
NODE_CHILDREN = Tool("node_children", "read", "node_children NODE_ID", _on_view(GraphView.node_children))
CALLERS = Tool("callers", "search", "callers SYMBOL", _on_view(GraphView.callers))
CALLEES = Tool("callees", "search", "callees SYMBOL", _on_view(GraphView.callees))
TESTS_FOR = Tool("tests_for", "search", "tests_for SYMBOL", _on_view(GraphView.tests_for))
FIND_TEXT = Tool("find_text", "search", "find_text TEXT [--in PATH]", _on_view(GraphView.find_text))
NEXT_CHUNK = Tool("next_chunk", "read", "next_chunk CHUNK_ID", _on_view(GraphView.next_chunk))
READ_SPAN = Tool("read_span", "read", "read_span PATH START END", _on_view(GraphView.read_span))
TOOLS = (FIND_PATH, LIST_DIR, FIND_NODES, NODE_PARENT, NODE_CHILDREN, CALLERS, CALLEES, TESTS_FOR, FIND_TEXT,
         NEXT_CHUNK, READ_SPAN)
