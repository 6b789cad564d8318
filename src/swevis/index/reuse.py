"""The parts of a file's previous version in an earlier index that an update can reuse.

An update parses a changed file afresh, but most of it is usually unchanged (django's test
modules change by a few tests at a time, its reference docs by a few paragraphs): `OldFile`
gives the extractor each unchanged function's calls edges, attribute types and BM25 term
counts (swevis.index.python_units says when that is exact), and the builder each unchanged
text chunk's term counts (a chunk's document is its path's and text's tokens).
"""

from __future__ import annotations

import json
import sqlite3

from swevis.index.lexical import doc_counts
from swevis.index.python_units import Piece
from swevis.index.rows import unpack, unpack_counts

__all__ = ["OldFile"]


class OldFile:
    """One file of the index attached as `old` (of the same path and module): its units
    (python_units.Piece by key, read on the first `get`) and its chunks' term counts (by text,
    read on the first `chunk`); `edges` = the file's first and last edge id there."""

    def __init__(self, con: sqlite3.Connection, file_id: int, edges: tuple[int, int] | None):
        self.con = con
        self.file_id = file_id
        self.edges = edges
        self._pieces: dict[str, Piece] | None = None
        self._chunks: dict[str, dict] | None = None
        self._docs: list[dict] | None = None

    def get(self, key: str) -> Piece | None:
        if self._pieces is None:
            self._pieces = self._load()
        return self._pieces.get(key)

    def chunk(self, text: str) -> dict | None:
        """The term counts of a chunk with this text, if the old file had one."""
        if self._chunks is None:
            texts = [t for (t,) in self.con.execute("SELECT text FROM old.chunks WHERE file_id = ? ORDER BY seq",
                                                     (self.file_id,))]
            docs = self.docs()
            # a documentation file's documents are its chunks', in order
            self._chunks = dict(zip(texts, docs)) if texts and len(texts) == len(docs) else {}
        return self._chunks.get(text)

    def docs(self) -> list[dict]:
        """The old file's BM25 documents as term counts, in order (read once)."""
        if self._docs is None:
            blobs = self.con.execute("SELECT terms, counts FROM old.doc_tokens WHERE file_id = ?",
                                     (self.file_id,)).fetchone()
            self._docs = doc_counts(*unpack_counts(*blobs)) if blobs else []
        return self._docs

    def _load(self) -> dict[str, Piece]:
        con, fid = self.con, self.file_id
        row = con.execute("SELECT units FROM old.units WHERE file_id = ?", (fid,)).fetchone()
        if row is None:
            return {}
        units = json.loads(unpack(row[0]))
        first = con.execute("SELECT min(id) FROM old.symbols WHERE file_id = ?", (fid,)).fetchone()[0]
        # only the units' calls edges (a test module's thousands of references edges come after);
        # a unit is stored as python_units.Unit.record lists it
        spans = [(call_lo, call_lo + n_call) for *_, call_lo, n_call in units if n_call]
        lo, hi = (min(a for a, _ in spans), max(b for _, b in spans)) if spans and self.edges else (0, 0)
        e0 = self.edges[0] if self.edges else 0
        edges = con.execute("SELECT dst_name, src_symbol, line, recv FROM old.edges WHERE id BETWEEN ? AND ?"
                            " ORDER BY id", (e0 + lo, e0 + hi - 1)).fetchall() if hi else []
        attrs = con.execute("SELECT class_id, name, type FROM old.attrs WHERE file_id = ? ORDER BY rowid",
                            (fid,)).fetchall()
        docs = self.docs()
        out: dict[str, Piece] = {}
        for key, first_line, sym_lo, n_sym, attr_lo, n_attr, call_lo, n_call in units:
            base = first + sym_lo
            calls = [(name, src - base, line - first_line, recv)
                     for name, src, line, recv in edges[call_lo - lo : call_lo - lo + n_call]]
            unit_attrs = [(c - base if base <= c < base + n_sym else -1, name, te)
                          for c, name, te in attrs[attr_lo : attr_lo + n_attr]]
            # a code file's documents: the whole file's, then one per definition
            out.setdefault(key, Piece(n_sym, calls, unit_attrs, docs[1 + sym_lo : 1 + sym_lo + n_sym]))
        return out
