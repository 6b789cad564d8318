"""The functions of a file's previous version in an earlier index, for the extractor to reuse.

An update parses a changed file afresh, but most of its functions are usually unchanged
(django's test modules change by a few tests at a time): `OldUnits` gives the extractor each
unchanged function's calls edges, attribute types and BM25 term counts from the earlier
index's rows (swevis.index.python_units says when that is exact).
"""

from __future__ import annotations

import json
import sqlite3

from swevis.index.lexical import doc_counts
from swevis.index.python_units import Piece
from swevis.index.rows import unpack, unpack_counts

__all__ = ["OldUnits"]


class OldUnits:
    """The units (python_units.Piece by key) of one file of the index attached as `old`,
    read on the first `get`; `edges` = the file's first and last edge id there."""

    def __init__(self, con: sqlite3.Connection, file_id: int, edges: tuple[int, int] | None):
        self.con = con
        self.file_id = file_id
        self.edges = edges
        self._pieces: dict[str, Piece] | None = None

    def get(self, key: str) -> Piece | None:
        if self._pieces is None:
            self._pieces = self._load()
        return self._pieces.get(key)

    def _load(self) -> dict[str, Piece]:
        con, fid = self.con, self.file_id
        row = con.execute("SELECT units FROM old.units WHERE file_id = ?", (fid,)).fetchone()
        if row is None:
            return {}
        units = json.loads(unpack(row[0]))
        first = con.execute("SELECT min(id) FROM old.symbols WHERE file_id = ?", (fid,)).fetchone()[0]
        # only the units' calls edges (a test module's thousands of references edges come after)
        spans = [(u[6], u[6] + u[7]) for u in units if u[7]]
        lo, hi = (min(a for a, _ in spans), max(b for _, b in spans)) if spans and self.edges else (0, 0)
        e0 = self.edges[0] if self.edges else 0
        edges = con.execute("SELECT dst_name, src_symbol, line, recv FROM old.edges WHERE id BETWEEN ? AND ?"
                            " ORDER BY id", (e0 + lo, e0 + hi - 1)).fetchall() if hi else []
        attrs = con.execute("SELECT class_id, name, type FROM old.attrs WHERE file_id = ? ORDER BY rowid",
                            (fid,)).fetchall()
        blobs = con.execute("SELECT terms, counts FROM old.doc_tokens WHERE file_id = ?", (fid,)).fetchone()
        docs = doc_counts(*unpack_counts(*blobs))
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
