"""Units of a Python file whose extracted rows an update can reuse from an earlier index.

A unit is a function or method not nested in another function (only in classes, or at the
top): every scope inside it is its own, so what the extractor records for it (its
definitions, their `inherits` and `calls` edges, the attribute types its assignments give,
its definitions' BM25 documents) depends only on
  - its text: the whole lines from its first decorator to its end (so its definitions' own
    lines, which BM25 reads a line at a time, are the same),
  - the qualified name of the class it is in (its kind and qualified names follow),
  - what the file binds at module level to the names its text holds (a name it does not
    bind itself is looked up there; it only ever looks up names written in it): those
    bindings in order, and how many of them come before it.
Its key hashes exactly these, so a unit with the key of one in the file's previous version
takes that one's `calls` edges, attribute types and BM25 term counts (the costly part: the
bindings, receivers and tokens of its body), shifted to its lines, instead of computing them;
an update stays row for row the cold build. Definitions, imports, module-level text and (in
tests) references are always extracted afresh.
Files with syntax errors have no units (tree-sitter's recovery could depend on context).
"""

from __future__ import annotations

import bisect
import hashlib
import re
from dataclasses import dataclass

import tree_sitter as ts

# an identifier as the bytes of a file hold it (non-ASCII letters are bytes >= 0x80)
_WORD = re.compile(rb"[A-Za-z_\x80-\xff][A-Za-z0-9_\x80-\xff]*")
MANY_BINDINGS = 64  # distinct module-level names above which a function's words are looked up

__all__ = ["Unit", "Piece", "Spans", "candidates", "find_units"]


@dataclass
class Unit:
    node: ts.Node  # the function_definition
    key: str
    first_line: int  # 1-based line of its first decorator (its symbol's start_line)
    # filled by the extractor: where its rows are in the file's lists (see python_lang.extract)
    sym_lo: int = 0
    n_sym: int = 0
    attr_lo: int = 0
    n_attr: int = 0
    call_lo: int = 0
    n_call: int = 0

    def record(self) -> list:
        """What the index stores of it (rows.Writer)."""
        return [self.key, self.first_line, self.sym_lo, self.n_sym, self.attr_lo, self.n_attr, self.call_lo,
                self.n_call]


@dataclass
class Piece:
    """What a unit of an earlier index gives: its calls edges (name, caller as an index into
    its definitions, line after its first line, receiver), its attribute types (class as an
    index into its definitions, -1 = the class it is in; name; type) and its definitions'
    BM25 term counts."""

    n_sym: int
    calls: list[tuple]
    attrs: list[tuple]
    docs: list[dict]


class Spans:
    """Sorted, disjoint byte ranges: is a byte inside one of them."""

    def __init__(self, ranges: list[tuple[int, int]]):
        self.starts = [a for a, _ in ranges]
        self.ends = [b for _, b in ranges]

    def __contains__(self, byte: int) -> bool:
        i = bisect.bisect_right(self.starts, byte) - 1
        return i >= 0 and byte < self.ends[i]


def _outermost(nodes: list[ts.Node]) -> list[ts.Node]:
    """The nodes not inside another of them, in source order."""
    out: list[ts.Node] = []
    for n in sorted(nodes, key=lambda n: (n.start_byte, -n.end_byte)):
        if not out or n.start_byte >= out[-1].end_byte:
            out.append(n)
    return out


def candidates(defs: list) -> list[ts.Node]:
    """The function definitions not inside another function (`defs`: the query's definition
    matches), in source order."""
    return _outermost([caps["def"][0] for _, caps in defs if caps["def"][0].type == "function_definition"])


def find_units(data: bytes, funcs: list[ts.Node], classes: list[str], module_events: list[tuple]) -> list[Unit]:
    """The units of `funcs` (see `candidates`; `classes`: the qualified name of the class each
    is in, "" at module level), keyed (see the module's docstring): `module_events` is every
    module-level binding (name, type expression, start byte of the assignment or None for a
    parameter) in the order the extractor binds them."""
    names = [name.encode() for name, _, _ in module_events]
    by_name: dict[bytes, list[int]] = {}
    for i, name in enumerate(names):
        by_name.setdefault(name, []).append(i)
    out = []
    for node, cls in zip(funcs, classes):
        outer = node.parent if node.parent is not None and node.parent.type == "decorated_definition" else node
        lo = data.rfind(b"\n", 0, outer.start_byte) + 1
        hi = data.find(b"\n", node.end_byte)
        text = data[lo : len(data) if hi < 0 else hi]
        # the bindings of names in its text: more than it uses (words of strings and comments,
        # substrings), never fewer. A substring search a binding is fast while a module has
        # few; with many, its words are looked up instead (3,000 bindings and functions: 0.15
        # CPU s, not 1.35), but splitting every function into words made django's cold build
        # slower (its modules bind few names)
        if len(by_name) <= MANY_BINDINGS:
            hits = [i for i, name in enumerate(names) if name in text]
        else:
            hits = sorted(i for word in set(_WORD.findall(text)) for i in by_name.get(word, ()))
        seen = [((module_events[i][0], module_events[i][1], module_events[i][2] is None), module_events[i][2])
                for i in hits]
        before = sum(1 for _, at in seen if at is not None and at < node.start_byte)
        h = hashlib.blake2b(text, digest_size=16)
        h.update(repr((cls, before, [event for event, _ in seen])).encode())
        out.append(Unit(node, h.hexdigest(), outer.start_point[0] + 1))
    return out
