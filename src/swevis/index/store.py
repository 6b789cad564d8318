"""SQLite schema of the index and `RepoIndex`, the read side used by the operators.

Tables (one database file per repo@commit):
  meta(key, value)                    repo, commit, swevis version, schema version, stats
  files   F                           path, language, size, sha256 content hash, module,
                                      imports and import namespace (zlib-compressed JSON)
  symbols Σ                           name, qualname, kind, line span, signature, doc, parent
  edges   G                           imports | calls | inherits | references (from test files);
                                      dst_name as written, recv = a call's receiver descriptor,
                                      dst_file / dst_symbol = the best resolved target.
                                      `contains` is symbols.parent_id / symbols.file_id.
  targets                             every resolved target of a call edge with how it was found:
                                      direct | init | module | self | typed (by scope, import,
                                      MRO or receiver type), dispatch (an override in a subclass
                                      of the receiver's class), name (by name only: weaker)
  attrs                               attribute types of classes (self.x = C(...), x: C)
  chunks                              doc-file text chunks in file order (seq); next_id = NEXT_CHUNK
  dirs                                every folder holding an indexed file, and its ancestors; the
                                      root is "."; ids in path order
  has_file                            HAS_FILE: folder -> child folder (child_dir) or file
                                      (child_file), derived from the files' paths
  bm25_docs, bm25_model   B           the BM25 documents and the bm25s score matrix as blobs
  doc_tokens                          per file, its documents' term counts (compressed), kept so
                                      an update rebuilds the model without re-reading files
  units                               per Python file, its functions' keys and where their rows
                                      are (swevis.index.python_units), for an update to reuse
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass
from pathlib import Path
from urllib.parse import quote

import numpy as np

from swevis.errors import SwevisError
from swevis.index.lexical import Lexical, tokenize
from swevis.index.rows import unpack


def open_read_only(path: str | Path, **kwargs) -> sqlite3.Connection:
    """A read-only connection to the database at `path`, whatever characters its folders hold:
    SQLite reads `?` and `#` in a `file:` URI as the start of its query and fragment, so an
    unquoted path there opens (or creates) another file."""
    return sqlite3.connect(f"file:{quote(str(Path(path).resolve()))}?mode=ro", uri=True, **kwargs)

# 2: stemmed BM25 tokens; 3: type-aware call targets, namespaces, attrs; 4: collection
# element types (withdrawn: its mutation facts hid attribute types); 5: the graph of 3 again;
# 6: ids numbered in path order (an update copies unchanged files' rows), compressed BM25
# tokens, no dirty flags; 7: BM25 term counts per file instead of tokens, functions reusable
# in an update (units); 8: folders (dirs) and HAS_FILE edges (has_file)
SCHEMA_VERSION = "8"

TABLES = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS files(
    id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, language TEXT, kind TEXT,
    size INTEGER, sha256 TEXT, module TEXT, is_test INTEGER, n_lines INTEGER,
    status TEXT, n_errors INTEGER, encoding TEXT, error TEXT, imports BLOB, module_doc TEXT, names BLOB);
CREATE TABLE IF NOT EXISTS symbols(
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, name TEXT NOT NULL, qualname TEXT NOT NULL,
    kind TEXT, start_line INTEGER, end_line INTEGER, signature TEXT, doc TEXT, parent_id INTEGER);
CREATE TABLE IF NOT EXISTS edges(
    id INTEGER PRIMARY KEY, kind TEXT NOT NULL, src_file INTEGER NOT NULL, src_symbol INTEGER,
    dst_name TEXT NOT NULL, dst_file INTEGER, dst_symbol INTEGER,
    line INTEGER, recv TEXT DEFAULT '');
CREATE TABLE IF NOT EXISTS targets(
    edge_id INTEGER NOT NULL, src_file INTEGER NOT NULL, src_symbol INTEGER, dst_symbol INTEGER NOT NULL,
    dst_file INTEGER, how TEXT);
CREATE TABLE IF NOT EXISTS attrs(
    file_id INTEGER NOT NULL, class_id INTEGER NOT NULL, name TEXT NOT NULL, type TEXT);
CREATE TABLE IF NOT EXISTS chunks(
    id INTEGER PRIMARY KEY, file_id INTEGER NOT NULL, seq INTEGER, start_line INTEGER,
    end_line INTEGER, text TEXT, next_id INTEGER);
CREATE TABLE IF NOT EXISTS dirs(id INTEGER PRIMARY KEY, path TEXT UNIQUE NOT NULL, parent_id INTEGER);
CREATE TABLE IF NOT EXISTS has_file(dir_id INTEGER NOT NULL, child_dir INTEGER, child_file INTEGER);
CREATE TABLE IF NOT EXISTS bm25_docs(
    id INTEGER PRIMARY KEY, doc_idx INTEGER, file_id INTEGER NOT NULL, symbol_id INTEGER,
    chunk_id INTEGER, start_line INTEGER, end_line INTEGER);
CREATE TABLE IF NOT EXISTS doc_tokens(file_id INTEGER PRIMARY KEY, terms BLOB, counts BLOB);
CREATE TABLE IF NOT EXISTS units(file_id INTEGER PRIMARY KEY, units BLOB);
CREATE TABLE IF NOT EXISTS bm25_model(key TEXT PRIMARY KEY, value BLOB);
"""

# created after the bulk insert (cheaper than maintaining them row by row); only what a read
# query, resolution or copying a file's rows into an update looks up
INDEXES = """
CREATE INDEX IF NOT EXISTS files_module ON files(module);
CREATE INDEX IF NOT EXISTS symbols_name ON symbols(name, file_id);
CREATE INDEX IF NOT EXISTS symbols_qualname ON symbols(qualname);
CREATE INDEX IF NOT EXISTS symbols_file ON symbols(file_id, start_line);
CREATE INDEX IF NOT EXISTS symbols_parent ON symbols(parent_id);
CREATE INDEX IF NOT EXISTS attrs_file ON attrs(file_id);
CREATE INDEX IF NOT EXISTS chunks_file ON chunks(file_id, seq);
CREATE INDEX IF NOT EXISTS bm25_docs_file ON bm25_docs(file_id);
CREATE INDEX IF NOT EXISTS has_file_dir ON has_file(dir_id);
"""

# the graph's, created once its edges are resolved; partial where the read queries only ever
# look up one kind of edge or a set column (a third to a seventh of the rows: most edges are
# calls, and most of those resolve to nothing)
GRAPH_INDEXES = """
CREATE INDEX IF NOT EXISTS edges_imports ON edges(src_file) WHERE kind = 'imports';
CREATE INDEX IF NOT EXISTS edges_src_symbol ON edges(src_symbol, kind) WHERE src_symbol IS NOT NULL;
CREATE INDEX IF NOT EXISTS edges_dst_symbol ON edges(dst_symbol, kind) WHERE dst_symbol IS NOT NULL;
CREATE INDEX IF NOT EXISTS edges_imported ON edges(dst_file) WHERE kind = 'imports';
CREATE INDEX IF NOT EXISTS edges_referenced ON edges(dst_name) WHERE kind = 'references';
CREATE INDEX IF NOT EXISTS targets_src ON targets(src_symbol);
CREATE INDEX IF NOT EXISTS targets_dst ON targets(dst_symbol);
"""

SCHEMA = TABLES + INDEXES + GRAPH_INDEXES


# how confident a resolved call target is (higher = by scope/type, lowest = by name only)
HOW_RANK = {"name": 1, "dispatch": 2, "module": 3, "typed": 3, "self": 3, "init": 3, "direct": 4}


class IndexError_(SwevisError):
    """An index database that is missing, unreadable or of another schema version."""


@dataclass(frozen=True)
class FileInfo:
    id: int
    path: str
    language: str
    kind: str
    size: int
    module: str
    is_test: bool
    n_lines: int
    status: str
    imports: list

    @property
    def directory(self) -> str:
        return self.path.rsplit("/", 1)[0] if "/" in self.path else "."


@dataclass(frozen=True)
class Symbol:
    id: int
    file_id: int
    path: str
    module: str
    name: str
    qualname: str
    kind: str
    start_line: int
    end_line: int
    signature: str
    doc: str
    parent_id: int | None

    @property
    def full_name(self) -> str:
        return f"{self.module}.{self.qualname}" if self.module else self.qualname

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class LexHit:
    doc: int
    score: float
    path: str
    file_id: int
    symbol_id: int | None
    chunk_id: int | None
    start_line: int
    end_line: int


_SYM_COLS = (
    "s.id, s.file_id, f.path, f.module, s.name, s.qualname, s.kind, s.start_line, s.end_line,"
    " s.signature, s.doc, s.parent_id"
)
_FILE_COLS = "id, path, language, kind, size, module, is_test, n_lines, status, imports"


def _sym(row) -> Symbol:
    return Symbol(*row)


def _file(row) -> FileInfo:
    r = list(row)
    r[6] = bool(r[6])
    r[9] = json.loads(unpack(r[9])) if r[9] else []
    return FileInfo(*r)


class RepoIndex:
    """Read-only queries over one index database. BM25 is loaded on first use."""

    def __init__(self, db_path: str | Path):
        self.db_path = str(db_path)
        if not Path(self.db_path).exists():
            raise IndexError_(f"index database {self.db_path} does not exist (build it with `swevis index`)")
        self.con = open_read_only(self.db_path, check_same_thread=False)
        try:
            meta = dict(self.con.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.DatabaseError as exc:
            raise IndexError_(f"{self.db_path} is not a swevis index: {exc}") from None
        if meta.get("schema_version") != SCHEMA_VERSION:
            raise IndexError_(
                f"{self.db_path} has index schema {meta.get('schema_version')!r}, expected {SCHEMA_VERSION}; rebuild it"
            )
        self.meta = meta
        self._lex = None
        self._doc_rows: list | None = None
        self._paths: list[str] | None = None

    def close(self) -> None:
        self.con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ---- files
    def all_paths(self) -> list[str]:
        if self._paths is None:
            self._paths = [r[0] for r in self.con.execute("SELECT path FROM files ORDER BY path")]
        return self._paths

    def file(self, path: str) -> FileInfo | None:
        row = self.con.execute(f"SELECT {_FILE_COLS} FROM files WHERE path = ?", (path,)).fetchone()
        return _file(row) if row else None

    def files_by_module(self, module: str) -> list[FileInfo]:
        rows = self.con.execute(f"SELECT {_FILE_COLS} FROM files WHERE module = ?", (module,)).fetchall()
        return [_file(r) for r in rows]

    def files_by_suffix(self, suffix: str) -> list[FileInfo]:
        """Files whose path ends with `suffix` at a path-component boundary."""
        suffix = suffix.lstrip("/")
        out = []
        for p in self.all_paths():
            if p == suffix or p.endswith("/" + suffix):
                out.append(p)
        return [f for f in (self.file(p) for p in out) if f is not None]

    def languages(self) -> tuple[str, ...]:
        """The names of the code languages of the indexed files (an issue about this repository
        is read with their keywords: swevis.localize.hints.reading_languages)."""
        rows = self.con.execute("SELECT DISTINCT language FROM files WHERE kind = 'code' ORDER BY language")
        return tuple(r[0] for r in rows)

    # ---- symbols
    def _symbols(self, where: str, args: tuple | list) -> list[Symbol]:
        """Symbols with their file's path and module, selected by `where` (and its ORDER/LIMIT)."""
        sql = f"SELECT {_SYM_COLS} FROM symbols s JOIN files f ON f.id = s.file_id WHERE {where}"
        return [_sym(r) for r in self.con.execute(sql, args)]

    def symbol(self, symbol_id: int) -> Symbol | None:
        found = self._symbols("s.id = ?", (symbol_id,))
        return found[0] if found else None

    def symbols_by_name(self, name: str, limit: int = 200) -> list[Symbol]:
        return self._symbols("s.name = ? LIMIT ?", (name, limit))

    def symbols_by_qualname(self, qualname: str) -> list[Symbol]:
        return self._symbols("s.qualname = ?", (qualname,))

    def symbols_by_dotted(self, dotted: str) -> list[Symbol]:
        """Symbols whose module-qualified name ends with `dotted` (component-wise)."""
        parts = dotted.split(".")
        out = []
        for s in self.symbols_by_name(parts[-1], limit=500):
            full = s.full_name.split(".")
            if full[-len(parts) :] == parts:
                out.append(s)
        return out

    def symbols_in_file(self, path: str) -> list[Symbol]:
        return self._symbols("f.path = ? ORDER BY s.start_line", (path,))

    def enclosing_symbol(self, path: str, line: int) -> Symbol | None:
        """The innermost definition whose span contains `line` in `path`, or None (module level)."""
        found = self._symbols(
            "f.path = ? AND s.start_line <= ? AND s.end_line >= ? ORDER BY s.start_line DESC, s.end_line ASC LIMIT 1",
            (path, line, line),
        )
        return found[0] if found else None

    def children(self, symbol_id: int) -> list[Symbol]:
        return self._symbols("s.parent_id = ? ORDER BY s.start_line", (symbol_id,))

    # ---- graph
    def neighbours(self, symbol_id: int, relations: tuple[str, ...] | None = None, limit: int = 50):
        """(relation, Symbol) pairs: parent, child, calls, called_by, base, subclass."""
        rel = set(relations or ("parent", "child", "calls", "called_by", "base", "subclass"))
        out: list[tuple[str, Symbol]] = []
        s = self.symbol(symbol_id)
        if s is None:
            return out
        if "parent" in rel and s.parent_id is not None:
            p = self.symbol(s.parent_id)
            if p:
                out.append(("parent", p))
        if "child" in rel:
            out.extend(("child", c) for c in self.children(symbol_id)[:limit])
        q = (
            "SELECT " + _SYM_COLS + " FROM edges e JOIN symbols s ON s.id = e.{dst}"
            " JOIN files f ON f.id = s.file_id WHERE e.{src} = ? AND e.kind = ?"
            " AND e.src_symbol IS NOT e.dst_symbol LIMIT ?"
        )
        for name, kind, src, dst in (
            ("calls", "calls", "src_symbol", "dst_symbol"),
            ("called_by", "calls", "dst_symbol", "src_symbol"),
            ("base", "inherits", "src_symbol", "dst_symbol"),
            ("subclass", "inherits", "dst_symbol", "src_symbol"),
        ):
            if name in rel:
                sql = q.format(dst=dst, src=src)
                for row in self.con.execute(sql, (symbol_id, kind, limit)):
                    out.append((name, _sym(row)))
        return out

    def symbols_by_ids(self, ids) -> dict[int, Symbol]:
        """Symbols by id, in one query per 500 ids."""
        ids = list(dict.fromkeys(ids))
        out: dict[int, Symbol] = {}
        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            q = ",".join("?" * len(part))
            out.update((s.id, s) for s in self._symbols(f"s.id IN ({q})", part))
        return out

    def adjacency(self, ids, limit: int = 40) -> list[tuple[int, str, int, str]]:
        """(src, relation, dst, how) symbol edges around `ids`, both directions, in a few batched queries.

        Relations: calls / called_by (every resolved call target; `how` says how it was
        resolved: direct, init, module, self, typed, dispatch or name), child / parent
        (contains), base / subclass (inherits). At most `limit` edges per node and relation.
        Of several edges between the same pair, the most confident is kept.
        """
        ids = list(dict.fromkeys(ids))
        out: list[tuple[int, str, int, str]] = []
        counts: dict[tuple[int, str], int] = {}
        seen: dict[tuple[int, str, int], int] = {}

        def add(a: int, rel: str, b: int, how: str = "") -> None:
            if a == b:
                return
            key = (a, rel, b)
            if key in seen:
                i = seen[key]
                if HOW_RANK.get(how, 0) > HOW_RANK.get(out[i][3], 0):
                    out[i] = (a, rel, b, how)
                return
            n = counts.get((a, rel), 0)
            if n < limit:
                counts[(a, rel)] = n + 1
                seen[key] = len(out)
                out.append((a, rel, b, how))

        for i in range(0, len(ids), 500):
            part = ids[i : i + 500]
            q = ",".join("?" * len(part))
            for src, dst, how in self.con.execute(
                f"SELECT src_symbol, dst_symbol, how FROM targets WHERE src_symbol IN ({q})", part
            ):
                add(src, "calls", dst, how)
            for src, dst, how in self.con.execute(
                f"SELECT src_symbol, dst_symbol, how FROM targets WHERE dst_symbol IN ({q})"
                " AND src_symbol IS NOT NULL",
                part,
            ):
                add(dst, "called_by", src, how)
            for src, dst in self.con.execute(
                f"SELECT DISTINCT src_symbol, dst_symbol FROM edges WHERE src_symbol IN ({q})"
                " AND kind = 'inherits' AND dst_symbol IS NOT NULL",
                part,
            ):
                add(src, "base", dst)
            for src, dst in self.con.execute(
                f"SELECT DISTINCT src_symbol, dst_symbol FROM edges WHERE dst_symbol IN ({q})"
                " AND kind = 'inherits' AND src_symbol IS NOT NULL",
                part,
            ):
                add(dst, "subclass", src)
            for sid, parent in self.con.execute(
                f"SELECT id, parent_id FROM symbols WHERE id IN ({q}) AND parent_id IS NOT NULL", part
            ):
                add(sid, "parent", parent)
            for sid, parent in self.con.execute(f"SELECT id, parent_id FROM symbols WHERE parent_id IN ({q})", part):
                add(parent, "child", sid)
        return out

    def call_targets(self, symbol_id: int) -> list[tuple[str, Symbol, str]]:
        """("calls" | "called_by", Symbol, how) for every resolved call target around a symbol."""
        out = []
        for rel, src, dst in (("calls", "src_symbol", "dst_symbol"), ("called_by", "dst_symbol", "src_symbol")):
            rows = self.con.execute(
                f"SELECT DISTINCT t.{dst}, t.how FROM targets t WHERE t.{src} = ? AND t.{dst} IS NOT NULL"
                f" AND t.{dst} != ?",
                (symbol_id, symbol_id),
            ).fetchall()
            syms = self.symbols_by_ids([r[0] for r in rows])
            out.extend((rel, syms[i], how) for i, how in rows if i in syms)
        return out

    def symbol_doc_index(self) -> tuple[list[int], list[int]]:
        """(BM25 document indexes, symbol ids) of every symbol document, cached."""
        if getattr(self, "_sym_docs", None) is None:
            docs, sids = [], []
            for r in self._docs():
                if r[3] is not None:
                    docs.append(r[0])
                    sids.append(r[3])
            self._sym_docs = (docs, sids)
        return self._sym_docs

    def symbol_relevance(self, query: str | list[str]) -> dict[int, float]:
        """BM25 score of every symbol's own document for `query` (symbols scoring 0 left out)."""
        tokens = tokenize(query) if isinstance(query, str) else list(query)
        if not tokens:
            return {}
        scores = self.lexical.scores(tokens)
        if scores.size == 0:
            return {}
        docs, sids = self.symbol_doc_index()
        if not docs:
            return {}
        d = np.asarray(docs, dtype=np.int64)
        ok = d < scores.size
        vals = np.zeros(len(d), dtype=np.float32)
        vals[ok] = scores[d[ok]]
        nz = np.nonzero(vals > 0)[0]
        return {sids[i]: float(vals[i]) for i in nz}

    def imports_of(self, file_id: int) -> list[str]:
        return self._import_ends(file_id, near="src", far="dst", limit=-1)

    def imported_by(self, file_id: int, limit: int = 50) -> list[str]:
        return self._import_ends(file_id, near="dst", far="src", limit=limit)

    def _import_ends(self, file_id: int, *, near: str, far: str, limit: int) -> list[str]:
        """Paths at the `far` end of the import edges whose `near` end is `file_id`, sorted
        (SQLite's LIMIT -1: all)."""
        rows = self.con.execute(
            f"SELECT DISTINCT f.path FROM edges e JOIN files f ON f.id = e.{far}_file"
            f" WHERE e.{near}_file = ? AND e.kind = 'imports' AND e.{far}_file != e.{near}_file"
            " ORDER BY f.path LIMIT ?",
            (file_id, limit),
        ).fetchall()
        return [r[0] for r in rows]

    def tests_for(self, symbol: Symbol, limit: int = 10) -> list[dict]:
        """Test files that reference the symbol's name (strong) or import its module (weak)."""
        found: dict[str, dict] = {}
        names = [symbol.name]
        if symbol.parent_id is not None:
            p = self.symbol(symbol.parent_id)
            if p is not None:
                names.append(p.name)
        for n in names:
            for (path,) in self.con.execute(
                "SELECT DISTINCT f.path FROM edges e JOIN files f ON f.id = e.src_file"
                " WHERE e.kind = 'references' AND e.dst_name = ? AND f.is_test = 1 LIMIT 200",
                (n,),
            ):
                found.setdefault(path, {"path": path, "references": [], "imports_module": False})
                found[path]["references"].append(n)
        for path in self._importing_tests(symbol.file_id):
            found.setdefault(path, {"path": path, "references": [], "imports_module": False})
            found[path]["imports_module"] = True
        ranked = sorted(
            found.values(),
            key=lambda d: (-(len(d["references"]) * 2 + d["imports_module"]), d["path"]),
        )
        return ranked[:limit]

    def _importing_tests(self, file_id: int) -> list[str]:
        """Test files that import the file's module, or see it without an import: a test file
        of its own package (Java's and Go's same-package tests, `names["+"]`)."""
        paths = [path for (path,) in self.con.execute(
            "SELECT DISTINCT f.path FROM edges e JOIN files f ON f.id = e.src_file"
            " WHERE e.kind = 'imports' AND e.dst_file = ? AND f.is_test = 1 LIMIT 200", (file_id,))]
        own = self.con.execute("SELECT language, names FROM files WHERE id = ?", (file_id,)).fetchone()
        packages = set(json.loads(unpack(own[1])).get("+", "").split()) if own and own[1] else set()
        if packages:
            for path, names in self.con.execute(
                    "SELECT path, names FROM files WHERE is_test = 1 AND language = ? AND id != ? AND names IS NOT NULL"
                    " ORDER BY path", (own[0], file_id)):
                if packages & set(json.loads(unpack(names)).get("+", "").split()) and path not in paths:
                    paths.append(path)
        return paths

    # ---- documentation chunks
    def chunks(self, path: str) -> list[dict]:
        """The doc file's chunks, following NEXT_CHUNK from the first."""
        rows = self.con.execute(
            "SELECT c.id, c.seq, c.start_line, c.end_line, c.text, c.next_id FROM chunks c"
            " JOIN files f ON f.id = c.file_id WHERE f.path = ?",
            (path,),
        ).fetchall()
        by_id = {r[0]: r for r in rows}
        targets = {r[5] for r in rows if r[5] is not None}
        heads = [r for r in rows if r[0] not in targets]
        out = []
        cur = heads[0] if heads else None
        while cur is not None:
            out.append(
                {"id": cur[0], "seq": cur[1], "start_line": cur[2], "end_line": cur[3], "text": cur[4], "next_id": cur[5]}
            )
            cur = by_id.get(cur[5]) if cur[5] is not None else None
        return out

    # ---- lexical index
    @property
    def lexical(self):
        if self._lex is None:
            self._lex = Lexical.load(self.con)
        return self._lex

    def _docs(self):
        if self._doc_rows is None:
            self._doc_rows = self.con.execute(
                "SELECT d.doc_idx, f.path, d.file_id, d.symbol_id, d.chunk_id, d.start_line, d.end_line"
                " FROM bm25_docs d JOIN files f ON f.id = d.file_id ORDER BY d.doc_idx"
            ).fetchall()
        return self._doc_rows

    def bm25_search(self, query: str | list[str], k: int = 50) -> list[LexHit]:
        tokens = tokenize(query) if isinstance(query, str) else list(query)
        if not tokens:
            return []
        rows = self._docs()
        out = []
        for idx, score in self.lexical.top(tokens, k):
            if idx < len(rows):
                r = rows[idx]
                out.append(LexHit(idx, score, r[1], r[2], r[3], r[4], r[5] or 1, r[6] or 1))
        return out

    def warm(self) -> "RepoIndex":
        """Load everything the operators need up front (BM25 model, document table)."""
        _ = self.lexical
        self._docs()
        self.all_paths()
        return self


def open_index(db_path: str | Path) -> RepoIndex:
    return RepoIndex(db_path)
