"""What an extractor finds in one file: definitions, edges, text chunks (shared by every
language's extractor and the index builder)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["SymbolRec", "EdgeRec", "ChunkRec", "FileExtract"]


@dataclass
class SymbolRec:
    """One definition: class, function or method. Lines are 1-based and inclusive."""

    name: str
    qualname: str
    kind: str  # class | function | method
    start_line: int
    end_line: int
    signature: str
    doc: str  # first docstring line
    parent: int | None  # index into FileExtract.symbols
    own_text: str = ""  # the lines of the span not inside a child definition (for BM25)
    terms: dict | None = None  # its BM25 document's term counts, when reused from an earlier index


@dataclass
class EdgeRec:
    """A graph edge out of this file, resolved later against the whole index by name."""

    kind: str  # imports | calls | inherits | references
    dst_name: str
    src_symbol: int | None  # index into FileExtract.symbols; None = module level
    line: int
    # calls: what the callee is looked up on, for type-aware resolution
    #   ""        plain name call `f()` (scopes, then imports; a class -> its __init__)
    #   "self"    `self.f()` / `cls.f()`: the enclosing class and its bases (MRO)
    #   "super"   `super().f()`: the bases of the enclosing class
    #   "N:a.b"   a dotted name in this file's namespace (module, class, or a typed variable)
    #   "R:a.b"   the value returned by calling a.b (a class -> an instance; a function ->
    #             its return annotation)
    #   "A:x"     the attribute self.x of the enclosing class (its type as assigned/annotated)
    #   "?"       unknown receiver: resolved by name only, as a weaker edge
    recv: str = ""


@dataclass
class ChunkRec:
    start_line: int
    end_line: int
    text: str


@dataclass
class FileExtract:
    language: str
    status: str = "ok"  # ok | partial (syntax errors) | error
    error: str = ""
    n_errors: int = 0
    symbols: list[SymbolRec] = field(default_factory=list)
    edges: list[EdgeRec] = field(default_factory=list)
    imports: list[dict] = field(default_factory=list)
    chunks: list[ChunkRec] = field(default_factory=list)
    module_text: str = ""  # file content outside every definition (for BM25)
    module_doc: str = ""
    names: dict = field(default_factory=dict)  # local name -> dotted target bound by imports; "*" -> star modules
    attrs: list = field(default_factory=list)  # (class symbol index, attribute, type expression "N:..."/"R:..."/"A:...")
    units: list = field(default_factory=list)  # reusable units (python_units.Unit.record), for a later update
    n_reused: int = 0  # units whose rows came from an earlier index
