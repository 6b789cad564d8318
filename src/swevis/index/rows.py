"""One file's index rows with file-local references, and the one writer that gives them ids.

A parsed file's rows (`from_extract`) reach the database through `Writer.write`, which
numbers every row in the order files are written; `Writer.copy` brings a run of unchanged
files' rows over from an earlier index built the same way, renumbered by one offset per
table. A build that writes the files in path order therefore gives the same rows, id for id,
whether each file was parsed or copied, which is what makes an update exactly equal to a
cold build.

A file's BM25 documents are stored as their term counts (swevis.index.lexical.term_counts:
the file's distinct terms, compressed text, and one compressed int32 array), only read back
whole to rebuild the BM25 model: counts, not tokens, so an update rebuilds it without
splitting or looking up an unchanged file's tokens again. Its imports and import namespace
(JSON) are compressed likewise.
"""

from __future__ import annotations

import json
import sqlite3
import zlib
from dataclasses import dataclass, field

import numpy as np

from swevis.index.lexical import term_counts, tokenize
from swevis.index.records import FileExtract

__all__ = ["FileRows", "from_extract", "edge_ranges", "Writer", "file_row", "pack", "unpack", "pack_counts",
           "unpack_counts"]

FILE_COLS = (
    "path, language, kind, size, sha256, module, is_test, n_lines, status, n_errors, encoding, error, imports,"
    " module_doc, names"
)


def pack(text: str) -> bytes:
    # level 1: a fraction of level 6's CPU (1 s of a django build at 6) for a 2% larger database
    return zlib.compress(text.encode(), 1)


def unpack(blob: bytes | None) -> str:
    return zlib.decompress(blob).decode() if blob else ""


def pack_counts(terms: list[str], counts: np.ndarray) -> tuple[bytes, bytes]:
    """A file's `term_counts` as two blobs (its terms, its counts)."""
    return pack(" ".join(terms)), zlib.compress(counts.tobytes(), 1)


def unpack_counts(terms: bytes, counts: bytes) -> tuple[list[str], np.ndarray]:
    return unpack(terms).split(), np.frombuffer(zlib.decompress(counts), dtype=np.int32)


@dataclass
class FileRows:
    """Rows of one file; `parent`, `src`, `cls`, `sym` and `chunk` are indexes into this file's lists."""

    file: tuple  # the FILE_COLS values
    symbols: list[tuple] = field(default_factory=list)  # name, qualname, kind, start, end, signature, doc, parent
    edges: list[tuple] = field(default_factory=list)  # kind, src, dst_name, line, recv
    attrs: list[tuple] = field(default_factory=list)  # cls, name, type
    chunks: list[tuple] = field(default_factory=list)  # start, end, text
    docs: list[tuple] = field(default_factory=list)  # sym, chunk, start, end
    terms: bytes = b""  # the documents' term counts (see pack_counts)
    counts: bytes = b""
    units: bytes | None = None  # the file's reusable units (python_units), JSON, compressed
    n_reused: int = 0


def from_extract(file: tuple, fx: FileExtract | None, code: bool, path_tokens: list[str], n_lines: int,
                 known_chunk=None) -> FileRows:
    """The rows of a parsed file (`fx` None: a file kept as a row and a path-only document).
    `known_chunk(text)`: the term counts of a chunk of this text in the file's previous
    version, or None (a chunk's document depends on nothing else: it is not tokenized again)."""
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
        rows.units = pack(json.dumps(fx.units)) if fx.units else None
        rows.n_reused = fx.n_reused
        if code or not fx.chunks:
            rows.docs.append(whole)
            texts.append(path_tokens + tokenize(fx.module_text) if code else path_tokens)
        for i, s in enumerate(fx.symbols):
            rows.docs.append((i, None, s.start_line, s.end_line))
            if s.terms is not None:  # counted in an earlier index (python_units)
                texts.append(s.terms)
            else:
                texts.append(tokenize(s.qualname.replace(".", " ")) + path_tokens[-3:] + tokenize(s.own_text))
        for i, c in enumerate(fx.chunks):
            rows.docs.append((None, i, c.start_line, c.end_line))
            counted = known_chunk(c.text) if known_chunk is not None else None
            texts.append(counted if counted is not None else path_tokens + tokenize(c.text))
    rows.terms, rows.counts = pack_counts(*term_counts(texts))
    return rows


def edge_ranges(con: sqlite3.Connection, schema: str = "main") -> dict[int, tuple[int, int]]:
    """First and last edge id of every file (a file's edges are numbered together)."""
    return {f: (lo, hi) for f, lo, hi in con.execute(
        f"SELECT src_file, min(id), max(id) FROM {schema}.edges GROUP BY src_file")}


class Writer:
    """Numbers and inserts files' rows: ids run from 1 in the order files are written."""

    def __init__(self, con: sqlite3.Connection):
        self.con = con
        self.next = {"file": 1, "symbol": 1, "edge": 1, "chunk": 1, "doc": 1}

    def _take(self, key: str, n: int) -> int:
        first = self.next[key]
        self.next[key] = first + n
        return first

    def copy(self, f0: int, f1: int, edges: dict[int, tuple[int, int]]) -> None:
        """Copy the rows of files `f0`..`f1` of the index attached as `old` (numbered there as
        this writer numbers them: each table's ids of a run of files are one block, so one
        offset per table renumbers them); `edges` = edge_ranges of `old`."""
        con = self.con
        blocks = {"file": (f0, f1 - f0 + 1)}
        for key, table in (("symbol", "symbols"), ("chunk", "chunks"), ("doc", "bm25_docs")):
            blocks[key] = con.execute(
                f"SELECT min(id), count(*) FROM old.{table} WHERE file_id BETWEEN ? AND ?", (f0, f1)).fetchone()
        spans = [edges[f] for f in range(f0, f1 + 1) if f in edges]
        blocks["edge"] = (spans[0][0], spans[-1][1] - spans[0][0] + 1) if spans else (None, 0)
        d = {key: self._take(key, n) - (lo or 0) for key, (lo, n) in blocks.items()}
        df, ds, dc = d["file"], d["symbol"], d["chunk"]
        run = (f0, f1)
        con.execute(f"INSERT INTO files(id, {FILE_COLS}) SELECT id + {df}, {FILE_COLS} FROM old.files"
                    " WHERE id BETWEEN ? AND ? ORDER BY id", run)
        con.execute(
            "INSERT INTO symbols(id, file_id, name, qualname, kind, start_line, end_line, signature, doc, parent_id)"
            f" SELECT id + {ds}, file_id + {df}, name, qualname, kind, start_line, end_line, signature, doc,"
            f" parent_id + {ds} FROM old.symbols WHERE file_id BETWEEN ? AND ? ORDER BY id", run)
        if spans:
            con.execute(
                "INSERT INTO edges(id, kind, src_file, src_symbol, dst_name, line, recv)"
                f" SELECT id + {d['edge']}, kind, src_file + {df}, src_symbol + {ds}, dst_name, line, recv"
                " FROM old.edges WHERE id BETWEEN ? AND ? ORDER BY id", (spans[0][0], spans[-1][1]))
        con.execute(f"INSERT INTO attrs(file_id, class_id, name, type) SELECT file_id + {df}, class_id + {ds}, name,"
                    " type FROM old.attrs WHERE file_id BETWEEN ? AND ? ORDER BY rowid", run)
        con.execute(f"INSERT INTO chunks(id, file_id, seq, start_line, end_line, text, next_id) SELECT id + {dc},"
                    f" file_id + {df}, seq, start_line, end_line, text, next_id + {dc} FROM old.chunks"
                    " WHERE file_id BETWEEN ? AND ? ORDER BY id", run)
        con.execute(
            "INSERT INTO bm25_docs(id, doc_idx, file_id, symbol_id, chunk_id, start_line, end_line)"
            f" SELECT id + {d['doc']}, doc_idx + {d['doc']}, file_id + {df}, symbol_id + {ds}, chunk_id + {dc},"
            " start_line, end_line FROM old.bm25_docs WHERE file_id BETWEEN ? AND ? ORDER BY id", run)
        con.execute(f"INSERT INTO doc_tokens(file_id, terms, counts) SELECT file_id + {df}, terms, counts FROM old.doc_tokens"
                    " WHERE file_id BETWEEN ? AND ? ORDER BY file_id", run)
        con.execute(f"INSERT INTO units(file_id, units) SELECT file_id + {df}, units FROM old.units"
                    " WHERE file_id BETWEEN ? AND ? ORDER BY file_id", run)

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
        con.execute("INSERT INTO doc_tokens(file_id, terms, counts) VALUES (?, ?, ?)", (fid, rows.terms, rows.counts))
        if rows.units is not None:
            con.execute("INSERT INTO units(file_id, units) VALUES (?, ?)", (fid, rows.units))
        return fid


def file_row(path: str, language: str, kind: str, data: bytes, digest: str, module: str, is_test: bool,
             n_lines: int, status: str, encoding: str, error: str, fx: FileExtract | None) -> tuple:
    """The FILE_COLS values of one file."""
    return (path, language, kind, len(data), digest, module, int(is_test), n_lines, status,
            fx.n_errors if fx else 0, encoding, error, pack(json.dumps(fx.imports if fx else [])),
            fx.module_doc if fx else "", pack(json.dumps(fx.names)) if fx and fx.names else None)
