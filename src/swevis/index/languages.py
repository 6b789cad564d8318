"""Language registry: which files are parsed, and by which extractor.

Each language is a `LanguageSpec` (name, file extensions, `extract(path, data, module)`).
Python uses tree-sitter-python; documentation files (rst, md, txt) are split into text
chunks. Adding a grammar = writing one extractor that fills a `FileExtract` (the records
live in swevis.index.records) and calling `register(LanguageSpec(...))`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from swevis.index import docs, python_lang
from swevis.index.records import ChunkRec, EdgeRec, FileExtract, SymbolRec

__all__ = [
    "SymbolRec",
    "EdgeRec",
    "ChunkRec",
    "FileExtract",
    "LanguageSpec",
    "register",
    "language_for",
    "LANGUAGES",
]


@dataclass(frozen=True)
class LanguageSpec:
    name: str
    extensions: tuple[str, ...]
    extract: Callable[[str, bytes, str, dict], FileExtract]
    kind: str = "code"  # code | doc


LANGUAGES: dict[str, LanguageSpec] = {}
_BY_EXT: dict[str, LanguageSpec] = {}


def register(spec: LanguageSpec) -> None:
    LANGUAGES[spec.name] = spec
    for ext in spec.extensions:
        _BY_EXT[ext] = spec


def language_for(path: str) -> LanguageSpec | None:
    """The spec for a repository-relative path, by its (longest) extension, or None."""
    name = path.rsplit("/", 1)[-1].lower()
    parts = name.split(".")
    for i in range(1, len(parts)):
        spec = _BY_EXT.get("." + ".".join(parts[i:]))
        if spec is not None:
            return spec
    return None


def _register_builtin() -> None:
    register(LanguageSpec("python", (".py", ".pyi"), python_lang.extract))
    register(LanguageSpec("text", (".rst", ".md", ".txt"), docs.extract, kind="doc"))


_register_builtin()
