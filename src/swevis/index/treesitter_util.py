"""What the extractors on tree-sitter share: their compiled grammar, a parse with its syntax
errors and its matches by part, a node's text, the doc comment above a declaration, which
definition encloses a byte and which class holds it, the `calls` edges one per caller, the BM25
texts of a file's definitions and the references of a test file. A language's module keeps
only what its language has that the others do not: Python's extractor (python_lang) keeps its
own query split (for the units an update reuses) and its own test references (they add its
imports' names)."""

from __future__ import annotations

import bisect
import functools
import re
from typing import NamedTuple

import tree_sitter as ts

from swevis.errors import SwevisError
from swevis.index.records import EdgeRec, FileExtract, SymbolRec

__all__ = ["Compiled", "GrammarError", "compiled_once", "compile_grammar", "named_definitions", "parse",
           "matches_by_part", "text", "dotted", "member_receiver", "doc_comment", "Enclosing", "class_of", "CallEdges",
           "mark_syntax_errors", "own_texts", "test_references"]

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_COMMENT_TYPES = frozenset({"comment", "line_comment", "block_comment"})


class GrammarError(SwevisError):
    """A grammar that does not compile: the installed tree-sitter packages do not match the
    extractor's queries. It stops the index build (swevis.index.build lets it through), where an
    error of one file only marks that file."""


def compiled_once(language: str):
    """Cache a `_grammar()` function, and turn its failure into a GrammarError that names the
    language: grammars compile on first use (compile_grammar says why), inside the per-file
    error handling of the build, which must not read a broken install as broken files."""
    def wrap(fn):
        cached = functools.cache(fn)

        @functools.wraps(fn)
        def grammar(*args):
            try:
                return cached(*args)
            except Exception as exc:  # noqa: BLE001 - whatever tree-sitter raises, one message
                raise GrammarError(f"the {language} tree-sitter grammar does not compile ({type(exc).__name__}: "
                                   f"{exc}); reinstall the pinned packages (make install)") from exc
        grammar.cache_info = cached.cache_info  # what is compiled so far (tests read it)
        return grammar
    return wrap


class Compiled(NamedTuple):
    """A grammar's parser, its extraction query (every part in one: one walk of the tree), the
    part each of the query's patterns is in, and its syntax-error query."""

    parser: ts.Parser
    query: ts.Query
    part_of: list[str]
    errors: ts.Query


def compile_grammar(language: ts.Language, parts: dict[str, str]) -> Compiled:
    """The parser and queries of `parts` (part name -> patterns). Each extractor calls this from
    its `compiled_once` function when it parses its first file, not at import: compiling
    takes 40-300 ms a language, which every agent job paid on importing the index (for the
    languages' conventions) though most parse nothing."""
    part_of = [part for part, src in parts.items() for _ in range(ts.Query(language, src).pattern_count)]
    return Compiled(ts.Parser(language), ts.Query(language, "".join(parts.values())), part_of,
                    ts.Query(language, "(ERROR) @err"))


def named_definitions(name: str, *node_types: str) -> str:
    """Query patterns of definitions whose `name` field is a `name` node, one per node type:
    `(class_declaration name: (identifier) @name) @def` (the extractors' `def` and `name`)."""
    return "".join(f"\n({node_type} name: ({name}) @name) @def" for node_type in node_types) + "\n"


def parse(grammar: Compiled, data: bytes, language: str) -> tuple[ts.Node, FileExtract]:
    """A file's tree and its extract, still empty but for its syntax errors."""
    root = grammar.parser.parse(data).root_node
    fx = FileExtract(language=language)
    mark_syntax_errors(root, grammar.errors, fx)
    return root, fx


def matches_by_part(grammar: Compiled, root: ts.Node) -> dict[str, list[dict]]:
    """The captures of each match of the grammar's query, by the part its pattern is in."""
    parts: dict[str, list[dict]] = {part: [] for part in grammar.part_of}
    for pattern, caps in ts.QueryCursor(grammar.query).matches(root):
        parts[grammar.part_of[pattern]].append(caps)
    return parts


def text(node: ts.Node | None) -> str:
    if node is None:
        return ""
    raw = node.text  # a new bytes object at every access: read it once
    return raw.decode("utf-8", "replace") if raw is not None else ""


def dotted(node: ts.Node | None, member: str, name_field: str, leaves: tuple[str, ...]) -> str | None:
    """`a.b.c` of a chain of `member` nodes (the name in their `name_field`, the rest in `object`)
    that ends in a node of a `leaves` type, else None."""
    parts: list[str] = []
    while node is not None and node.type == member:
        parts.append(text(node.child_by_field_name(name_field)))
        node = node.child_by_field_name("object")
    if node is None or node.type not in leaves:
        return None
    parts.append(text(node))
    return ".".join(reversed(parts))


def member_receiver(chain: str | None, this: str, lookup, scope: int | None) -> str:
    """EdgeRec.recv of a call on a member chain (`dotted`'s): `self.a` (the language's `this`)
    is the attribute `A:a`, a longer chain on it unknown; a chain on a name no local binds
    (`lookup(scope, name)` is None) is that name `N:a.b`, one on a local unknown."""
    if chain is None:
        return "?"
    parts = chain.split(".")
    if parts[0] == this:
        return f"A:{parts[1]}" if len(parts) == 2 else "?"
    return f"N:{chain}" if lookup(scope, parts[0]) is None else "?"


def _comment_lines(raw: str) -> list[str]:
    """The words of one comment, without its markers (`//`, `/**`, ` * `, `*/`)."""
    if raw.startswith("/*"):
        raw = raw[2:].removesuffix("*/").lstrip("*")
        return [line.strip().lstrip("*").strip() for line in raw.splitlines()]
    return [raw.lstrip("/").strip()]


def doc_comment(node: ts.Node) -> str:
    """The first line of the comments directly above `node` (Javadoc, Go's `//` doc comment),
    or "". Comments separated from it by a blank line or code are not its doc."""
    comments: list[ts.Node] = []
    below = node.start_point[0]
    prev = node.prev_sibling
    while prev is not None and prev.type in _COMMENT_TYPES and prev.end_point[0] >= below - 1:
        comments.append(prev)
        below = prev.start_point[0]
        prev = prev.prev_sibling
    for comment in reversed(comments):
        for line in _comment_lines(text(comment)):
            if line:
                return line[:200]
    return ""


class Enclosing:
    """Which of a file's definitions (added in source order) encloses a byte: the innermost
    whose byte range holds it. Kept apart from SymbolRec.parent, which for a Go method is its
    type, declared elsewhere in the file."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.outer: list[int | None] = []  # the definition around each one, by byte range

    def add(self, start: int, end: int) -> int:
        """Add the next definition (its start at or after the previous one's); returns its index."""
        outer = self.at(start)
        while outer is not None and self.ends[outer] < end:  # not inside it after all
            outer = self.outer[outer]
        self.starts.append(start)
        self.ends.append(end)
        self.outer.append(outer)
        return len(self.starts) - 1

    def at(self, byte: int) -> int | None:
        i = bisect.bisect_right(self.starts, byte) - 1
        while i is not None and i >= 0:
            if self.ends[i] > byte:
                return i
            i = self.outer[i]
        return None


def class_of(symbols: list[SymbolRec], i: int | None) -> int | None:
    """The class definition `i` is (or is in), by its parents; None outside any class."""
    while i is not None and symbols[i].kind != "class":
        i = symbols[i].parent
    return i


class CallEdges:
    """A file's `calls` edges, one per caller, receiver and name: the first in source order."""

    def __init__(self, fx: FileExtract):
        self.fx = fx
        self.seen: set[tuple[int | None, str, str]] = set()

    def add(self, name: str, src: int | None, node: ts.Node, recv: str) -> None:
        """The call of `name` at `node` from definition `src` (None: the module) on `recv`."""
        if (src, recv, name) not in self.seen:
            self.seen.add((src, recv, name))
            self.fx.edges.append(EdgeRec("calls", name, src, node.start_point[0] + 1, recv))


def mark_syntax_errors(root: ts.Node, errors: ts.Query, fx: FileExtract) -> None:
    """A tree with syntax errors makes the file `partial`, with its ERROR nodes counted
    (`errors`: the language's `(ERROR) @err` query; at least one)."""
    if root.has_error:
        fx.status = "partial"
        fx.n_errors = len(ts.QueryCursor(errors).captures(root).get("err", [])) or 1


def own_texts(data: bytes, fx: FileExtract) -> None:
    """Own text per definition and the module text: each line in exactly one BM25 document
    (a line of nested definitions belongs to the innermost one, the later in source order)."""
    lines = data.split(b"\n")
    owner = [-1] * (len(lines) + 2)
    for i, s in enumerate(fx.symbols):
        owner[s.start_line : s.end_line + 1] = [i] * (s.end_line - s.start_line + 1)
    buckets: list[list[bytes]] = [[] for _ in fx.symbols]
    mod_lines: list[bytes] = []
    for ln, raw in enumerate(lines, start=1):
        o = owner[ln]
        (mod_lines if o < 0 else buckets[o]).append(raw)
    for s, b in zip(fx.symbols, buckets):
        s.own_text = b"\n".join(b).decode("utf-8", "replace")
    fx.module_text = b"\n".join(mod_lines).decode("utf-8", "replace")


def test_references(data: bytes, fx: FileExtract, keywords: frozenset[str]) -> None:
    """`references` edges from a test file to every word it uses (for test pointers), but the
    language's keywords and words naming tests."""
    names = set(_WORD.findall(data.decode("utf-8", "replace")))
    for n in sorted(names):
        if len(n) > 2 and not n.lower().startswith("test") and n not in keywords:
            fx.edges.append(EdgeRec("references", n, None, 0))
