"""The index read as a knowledge graph an agent traverses (Prometheus's context retrieval).

Nodes: folders and files (`PathNode`; the root folder is "."), definitions (`DefNode`: the
index's symbols, i.e. classes, functions and methods, with their source text) and text
chunks of doc files (`Chunk`). Edges: HAS_FILE (folder -> child folder or file, the `has_file`
table), contains (file or definition -> child definition), calls (resolved call targets),
references from test files, and NEXT_CHUNK (a chunk -> the next chunk of its file).

Searches return an empty list when nothing matches; a query naming a file, folder,
definition or chunk the index does not have raises `GraphLookupError` (one line). Definition
text and code spans are read from the checkout the index was built from (or `repo_dir`),
lines 1-based and inclusive. Every search takes its cap (`limit`) from the caller.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from swevis.errors import SwevisError
from swevis.index.source import SourceLines
from swevis.index.store import RepoIndex, Symbol

__all__ = ["GraphLookupError", "PathNode", "DefNode", "Chunk", "RepoGraph"]


class GraphLookupError(SwevisError):
    """A file, folder, definition or chunk the index does not have, or a span outside a file."""


@dataclass(frozen=True)
class PathNode:
    kind: str  # dir | file
    path: str

    @property
    def basename(self) -> str:
        return self.path.rsplit("/", 1)[-1]


@dataclass(frozen=True)
class DefNode:
    symbol: Symbol
    text: str  # its source lines, start_line..end_line

    @property
    def id(self) -> int:
        return self.symbol.id


@dataclass(frozen=True)
class Chunk:
    id: int
    path: str
    seq: int  # its place in its file, from 0
    start_line: int
    end_line: int
    text: str
    next_id: int | None


def _normal(path: str) -> str:
    """A repository-relative path as the index spells it ("./a/b/" -> "a/b", "" -> ".")."""
    path = path.strip()
    while path.startswith("./"):
        path = path[2:]
    return path.strip("/") or "."


class RepoGraph:
    """Graph queries over one `RepoIndex`; source text read from `repo_dir` (default: the folder
    the index was built from), each file once."""

    def __init__(self, index: RepoIndex, repo_dir: str | Path | None = None):
        self.index = index
        self.source = SourceLines(repo_dir if repo_dir is not None else index.meta.get("repo_dir"))
        self._dirs: dict[str, int] | None = None

    # ---- source text
    def lines(self, path: str) -> list[str]:
        """The lines of an indexed file (GraphLookupError: not indexed or unreadable)."""
        self.file_id(path)
        lines = self.source(path)
        if lines is None:
            raise GraphLookupError(f"{path}: indexed but cannot be read from {self.source.root}")
        return lines

    def read_span(self, path: str, start: int, end: int) -> list[str]:
        """Lines start..end (1-based, inclusive; `end` past the file's end stops there)."""
        path = _normal(path)
        lines = self.lines(path)
        if start < 1 or end < start:
            raise GraphLookupError(f"{path}: bad line span {start}-{end}")
        if start > len(lines):
            raise GraphLookupError(f"{path} has {len(lines)} lines; line {start} is past its end")
        return lines[start - 1 : end]

    # ---- folders and files
    def dirs(self) -> dict[str, int]:
        if self._dirs is None:
            self._dirs = dict(self.index.con.execute("SELECT path, id FROM dirs"))
        return self._dirs

    def file_id(self, path: str) -> int:
        row = self.index.con.execute("SELECT id FROM files WHERE path = ?", (_normal(path),)).fetchone()
        if row is None:
            raise GraphLookupError(f"no indexed file {path!r}")
        return row[0]

    def find_paths(self, name_or_path: str, limit: int) -> list[PathNode]:
        """Folders, then files, whose relative path is `name_or_path` (it has a "/" or is "."),
        else whose basename is; a path no node has exactly falls back to the nodes it ends."""
        want = _normal(name_or_path)
        dirs = list(self.dirs())
        files = self.index.all_paths()
        if "/" in want or want == ".":
            found = [PathNode("dir", p) for p in dirs if p == want] + [PathNode("file", p) for p in files if p == want]
            if found:
                return found[:limit]
        tail = "/" + want
        found = [PathNode("dir", p) for p in sorted(dirs) if p == want or p.endswith(tail)]
        found += [PathNode("file", p) for p in files if p == want or p.endswith(tail)]
        return found[:limit]

    def list_dir(self, path: str) -> list[PathNode]:
        """A folder's HAS_FILE children: its folders, then its files, each in path order."""
        path = _normal(path)
        if path not in self.dirs():
            raise GraphLookupError(f"no indexed folder {path!r}")
        rows = self.index.con.execute(
            "SELECT d.path, f.path FROM has_file h LEFT JOIN dirs d ON d.id = h.child_dir"
            " LEFT JOIN files f ON f.id = h.child_file WHERE h.dir_id = ? ORDER BY h.rowid",
            (self.dirs()[path],),
        ).fetchall()
        return [PathNode("dir", d) if d is not None else PathNode("file", f) for d, f in rows]

    # ---- definitions
    def _files_in(self, within: str | None) -> list[str]:
        """The files a definition search looks in: the file at path `within`, else every file
        of that basename, else (None) every indexed file."""
        if within is None:
            return self.index.all_paths()
        want = _normal(within)
        if self.index.file(want) is not None:
            return [want]
        named = [p for p in self.index.all_paths() if p.rsplit("/", 1)[-1] == want]
        if not named:
            raise GraphLookupError(f"no indexed file {within!r} (by path or basename)")
        return named

    def kinds(self) -> list[str]:
        return [r[0] for r in self.index.con.execute("SELECT DISTINCT kind FROM symbols ORDER BY kind")]

    def find_nodes(self, limit: int, *, text: str | None = None, kind: str | None = None,
                   within: str | None = None) -> list[DefNode]:
        """Definitions whose source contains `text` (case-sensitive) and/or whose kind is `kind`,
        in the file `within` (path or basename) or the whole repository: the smallest first
        (so the innermost definition around a match leads), at most `limit`."""
        if not text and not kind:
            raise ValueError("find_nodes needs a text or a kind")
        if kind and kind not in self.kinds():
            raise GraphLookupError(f"no definition kind {kind!r}; the index has: {', '.join(self.kinds())}")
        found: list[DefNode] = []
        for path in self._files_in(within):
            try:
                lines = self.lines(path)
            except GraphLookupError:
                continue
            if text and text not in "\n".join(lines):
                continue
            for s in self.index.symbols_in_file(path):
                if kind and s.kind != kind:
                    continue
                body = "\n".join(lines[s.start_line - 1 : s.end_line])
                if not text or text in body:
                    found.append(DefNode(s, body))
        found.sort(key=lambda n: (len(n.text), n.symbol.path, n.symbol.start_line))
        return found[:limit]

    def node(self, node_id: int) -> DefNode:
        s = self.index.symbol(node_id)
        if s is None:
            raise GraphLookupError(f"no definition with id {node_id}")
        return DefNode(s, "\n".join(self.lines(s.path)[s.start_line - 1 : s.end_line]))

    def parent(self, node_id: int) -> DefNode | None:
        """The definition containing this one (None: it is at the top of its file)."""
        parent = self.node(node_id).symbol.parent_id
        return None if parent is None else self.node(parent)

    def children(self, node_id: int) -> list[DefNode]:
        self.node(node_id)
        return [self.node(c.id) for c in self.index.children(node_id)]

    def symbols(self, name: str, limit: int) -> list[Symbol]:
        """The definitions a name stands for: an id, a dotted name (`mod.Class.method`,
        matched by its last components) or a bare name; GraphLookupError when none."""
        if name.isdigit():
            found = [self.node(int(name)).symbol]
        else:
            found = self.index.symbols_by_dotted(name.strip())
        if not found:
            raise GraphLookupError(f"no definition named {name!r}")
        return sorted(found, key=lambda s: (s.path, s.start_line))[:limit]

    def calls(self, symbol: Symbol, direction: str, limit: int) -> list[Symbol]:
        """The definitions `symbol` calls ("calls") or that call it ("called_by"), by path and line."""
        found = {s.id: s for rel, s, _ in self.index.call_targets(symbol.id) if rel == direction}
        return sorted(found.values(), key=lambda s: (s.path, s.start_line))[:limit]

    def tests_for(self, symbol: Symbol, limit: int) -> list[dict]:
        """Test files that reference the symbol (or its class) by name, or import its module."""
        return self.index.tests_for(symbol, limit=limit)

    # ---- text chunks
    def _chunks(self, where: str, args: tuple) -> list[Chunk]:
        rows = self.index.con.execute(
            "SELECT c.id, f.path, c.seq, c.start_line, c.end_line, c.text, c.next_id FROM chunks c"
            f" JOIN files f ON f.id = c.file_id WHERE {where}", args).fetchall()
        return [Chunk(*r) for r in rows]

    def find_text(self, text: str, limit: int, within: str | None = None) -> list[Chunk]:
        """Doc-file chunks containing `text` (case-sensitive), in the file `within` (path or
        basename) or anywhere, in file and chunk order, at most `limit`."""
        if within is None:
            return self._chunks("instr(c.text, ?) > 0 ORDER BY c.id LIMIT ?", (text, limit))
        out: list[Chunk] = []
        for path in self._files_in(within):
            out += self._chunks("f.path = ? AND instr(c.text, ?) > 0 ORDER BY c.id", (path, text))
        return out[:limit]

    def chunk(self, chunk_id: int) -> Chunk:
        found = self._chunks("c.id = ?", (chunk_id,))
        if not found:
            raise GraphLookupError(f"no text chunk with id {chunk_id}")
        return found[0]

    def next_chunk(self, chunk_id: int) -> Chunk | None:
        """NEXT_CHUNK: the chunk after this one in its file (None: it is the last)."""
        nxt = self.chunk(chunk_id).next_id
        return None if nxt is None else self.chunk(nxt)
