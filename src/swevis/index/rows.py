"""One file's index rows with file-local references, and the one writer that gives them ids.

A file's rows are made either from a fresh extract (`from_extract`) or read back from an
earlier index of the same content (`from_index`); both reach the database only through
`Writer.write`, which numbers every row in the order files are written. A build that writes
the files in path order therefore gives the same rows, id for id, whether each file was
parsed or copied, which is what makes an update exactly equal to a cold build.

A file's BM25 tokens are stored as one zlib-compressed blob (documents one a line, in
document order): they are the largest thing an index keeps and are only read back whole, to
rebuild the BM25 model. Its imports and import namespace (JSON) are compressed likewise.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import dataclass, field

from swevis.index.lexical import tokenize
from swevis.index.records import FileExtract

__all__ = ["FileRows", "from_extract", "edge_ranges", "from_index", "Writer", "file_row", "pack", "unpack", "unpack_docs"]

FILE_COLS = (
    "path, language, kind, size, sha256, module, is_test, n_lines, status, n_errors, encoding, error, imports,"
    " module_doc, names"
)


def pack(text: str) -> bytes:
    return zlib.compress(text.encode(), 6)


def unpack(blob: bytes | None) -> str:
    return zlib.decompress(blob).decode() if blob else ""


def unpack_docs(blob: bytes | None, n_docs: int) -> list[list[str]]:
    """The token lists of a file's `n_docs` documents from its tokens blob."""
    lines = unpack(blob).split("\n") if n_docs else []
    return [line.split() for line in lines]


@dataclass
class FileRows:
    """Rows of one file; `parent`, `src`, `cls`, `sym` and `chunk` are indexes into this file's lists."""

    file: tuple  # the FILE_COLS values
    symbols: list[tuple] = field(default_factory=list)  # name, qualname, kind, start, end, signature, doc, parent
    edges: list[tuple] = field(default_factory=list)  # kind, src, dst_name, line, recv
    attrs: list[tuple] = field(default_factory=list)  # cls, name, type
    chunks: list[tuple] = field(default_factory=list)  # start, end, text
    docs: list[tuple] = field(default_factory=list)  # sym, chunk, start, end
    tokens: bytes = b""  # every document's tokens (see unpack_docs)


def from_extract(file: tuple, fx: FileExtract | None, code: bool, path_tokens: list[str], n_lines: int) -> FileRows:
    """The rows of a parsed file (`fx` None: a file kept as a row and a path-only document)."""
    rows = FileRows(file)
    whole = (None, None, 1, max(n_lines, 1))
    texts: list[list[str]] = []
    if fx is None:
        rows.docs.append(whole)
        texts.append(path_tokens)
    else:
        rows.symbols = [(s.name, s.qualname, s.kind, s.start_line, s.end_line, s.signature, s.doc, s.parent)
                        for s in fx.symbols]
        rows.edges = [(e.kind, e.src_symbol, e.dst_name, e.line, e.recv) for e in fx.edges]
        rows.attrs = [(c, name, te) for c, name, te in fx.attrs]
        rows.chunks = [(c.start_line, c.end_line, c.text) for c in fx.chunks]
        if code or not fx.chunks:
            rows.docs.append(whole)
            texts.append(path_tokens + tokenize(fx.module_text) if code else path_tokens)
        for i, s in enumerate(fx.symbols):
            rows.docs.append((i, None, s.start_line, s.end_line))
            texts.append(tokenize(s.qualname.replace(".", " ")) + path_tokens[-3:] + tokenize(s.own_text))
        for i, c in enumerate(fx.chunks):
            rows.docs.append((None, i, c.start_line, c.end_line))
            texts.append(path_tokens + tokenize(c.text))
    rows.tokens = pack("\n".join(" ".join(t) for t in texts))
    return rows


def _local(ids: list[int]) -> dict[int, int]:
    return {old: i for i, old in enumerate(ids)}


def edge_ranges(con: sqlite3.Connection) -> dict[int, tuple[int, int]]:
    """First and last edge id of every file (a file's edges are numbered together)."""
    return {f: (lo, hi) for f, lo, hi in con.execute("SELECT src_file, min(id), max(id) FROM edges GROUP BY src_file")}


def from_index(con: sqlite3.Connection, file_id: int, edges: tuple[int, int] | None) -> FileRows:
    """The rows of file `file_id` in an existing index (its edges: ids `edges`, from
    `edge_ranges`), their ids turned back into local indexes."""
    file = con.execute(f"SELECT {FILE_COLS} FROM files WHERE id = ?", (file_id,)).fetchone()
    rows = FileRows(tuple(file))
    sym = con.execute(
        "SELECT id, name, qualname, kind, start_line, end_line, signature, doc, parent_id FROM symbols"
        " WHERE file_id = ? ORDER BY id", (file_id,)
    ).fetchall()
    s_local = _local([r[0] for r in sym])
    rows.symbols = [(*r[1:8], s_local.get(r[8])) for r in sym]
    rows.edges = [
        (k, s_local.get(s), n, line, recv)
        for k, s, n, line, recv in con.execute(
            "SELECT kind, src_symbol, dst_name, line, recv FROM edges WHERE id BETWEEN ? AND ? ORDER BY id",
            edges or (0, -1),
        )
    ]
    rows.attrs = [(s_local[c], n, t) for c, n, t in con.execute(
        "SELECT class_id, name, type FROM attrs WHERE file_id = ? ORDER BY rowid", (file_id,))]
    chunks = con.execute(
        "SELECT id, start_line, end_line, text FROM chunks WHERE file_id = ? ORDER BY id", (file_id,)).fetchall()
    c_local = _local([r[0] for r in chunks])
    rows.chunks = [r[1:] for r in chunks]
    rows.docs = [
        (s_local.get(s), c_local.get(c), a, b)
        for s, c, a, b in con.execute(
            "SELECT symbol_id, chunk_id, start_line, end_line FROM bm25_docs WHERE file_id = ? ORDER BY id", (file_id,)
        )
    ]
    rows.tokens = con.execute("SELECT tokens FROM doc_tokens WHERE file_id = ?", (file_id,)).fetchone()[0]
    return rows


class Writer:
    """Numbers and inserts files' rows: ids run from 1 in the order files are written."""

    def __init__(self, con: sqlite3.Connection):
        self.con = con
        self.next = {"file": 1, "symbol": 1, "edge": 1, "chunk": 1, "doc": 1}

    def _take(self, key: str, n: int) -> int:
        first = self.next[key]
        self.next[key] = first + n
        return first

    def write(self, rows: FileRows) -> int:
        """Insert one file's rows; returns its file id."""
        con = self.con
        fid = self._take("file", 1)
        con.execute(f"INSERT INTO files(id, {FILE_COLS}) VALUES ({','.join('?' * 16)})", (fid, *rows.file))
        s0 = self._take("symbol", len(rows.symbols))

        def sid(i: int | None) -> int | None:
            return None if i is None else s0 + i

        con.executemany(
            "INSERT INTO symbols(id, file_id, name, qualname, kind, start_line, end_line, signature, doc, parent_id)"
            " VALUES (?,?,?,?,?,?,?,?,?,?)",
            [(s0 + i, fid, *r[:7], sid(r[7])) for i, r in enumerate(rows.symbols)],
        )
        e0 = self._take("edge", len(rows.edges))
        con.executemany(
            "INSERT INTO edges(id, kind, src_file, src_symbol, dst_name, line, recv) VALUES (?,?,?,?,?,?,?)",
            [(e0 + i, k, fid, sid(s), n, line, recv) for i, (k, s, n, line, recv) in enumerate(rows.edges)],
        )
        con.executemany("INSERT INTO attrs(file_id, class_id, name, type) VALUES (?,?,?,?)",
                        [(fid, sid(c), n, t) for c, n, t in rows.attrs])
        n_chunks = len(rows.chunks)
        c0 = self._take("chunk", n_chunks)
        con.executemany(
            "INSERT INTO chunks(id, file_id, seq, start_line, end_line, text, next_id) VALUES (?,?,?,?,?,?,?)",
            [(c0 + i, fid, i, a, b, t, c0 + i + 1 if i + 1 < n_chunks else None)
             for i, (a, b, t) in enumerate(rows.chunks)],
        )
        d0 = self._take("doc", len(rows.docs))
        con.executemany(
            "INSERT INTO bm25_docs(id, doc_idx, file_id, symbol_id, chunk_id, start_line, end_line) VALUES (?,?,?,?,?,?,?)",
            [(d0 + i, d0 + i - 1, fid, sid(s), None if c is None else c0 + c, a, b)
             for i, (s, c, a, b) in enumerate(rows.docs)],
        )
        con.execute("INSERT INTO doc_tokens(file_id, tokens) VALUES (?, ?)", (fid, rows.tokens))
        return fid


def file_row(path: str, language: str, kind: str, data: bytes, digest: str, module: str, is_test: bool,
             n_lines: int, status: str, encoding: str, error: str, fx: FileExtract | None) -> tuple:
    """The FILE_COLS values of one file."""
    return (path, language, kind, len(data), digest, module, int(is_test), n_lines, status,
            fx.n_errors if fx else 0, encoding, error, pack(json.dumps(fx.imports if fx else [])),
            fx.module_doc if fx else "", pack(json.dumps(fx.names)) if fx and fx.names else None)
