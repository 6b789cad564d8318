"""The language registry: which files are indexed, by which extractor, under which conventions.

A language is one module that defines its extractor and a `Language` record (swevis.index.
records: extensions, module names, test files, stack-trace frames, comments, test runner),
and one `register(...)` line below. Everything else asks the registry (`language_for(path)`
and the functions here) and never tests a file's extension or name itself; a file of no
registered language is not indexed (the build counts it as skipped).
"""

from __future__ import annotations

import os

from swevis.errors import SwevisError
from swevis.index import docs, go_lang, java_lang, javascript_lang, python_lang, rust_lang, typescript_lang
from swevis.index.records import ChunkRec, EdgeRec, FileExtract, Language, SymbolRec

__all__ = [
    "SymbolRec",
    "EdgeRec",
    "ChunkRec",
    "FileExtract",
    "Language",
    "register",
    "unregister",
    "registered",
    "language_for",
    "extension_of",
    "extensions",
    "is_test_path",
    "is_test_module",
    "is_test_function",
    "is_stub",
    "is_private",
    "is_root_package",
    "is_common_file_name",
    "module_names",
    "test_commands",
]

_LANGUAGES: dict[str, Language] = {}
_BY_EXT: dict[str, Language] = {}


def register(language: Language) -> None:
    """Add a language (replacing one of the same name); an extension is one language's only."""
    if language.kind not in ("code", "doc"):
        raise SwevisError(f"language {language.name}: kind {language.kind!r} is not 'code' or 'doc'")
    for ext in language.extensions:
        if not ext.startswith(".") or ext != ext.lower():
            raise SwevisError(f"language {language.name}: extension {ext!r} is not lower case with a leading dot")
        owner = _BY_EXT.get(ext)
        if owner is not None and owner.name != language.name:
            raise SwevisError(f"language {language.name}: extension {ext} is already {owner.name}'s")
    unregister(language.name)
    _LANGUAGES[language.name] = language
    for ext in language.extensions:
        _BY_EXT[ext] = language


def unregister(name: str) -> None:
    """Remove a language by name (nothing when it is not registered)."""
    language = _LANGUAGES.pop(name, None)
    if language is not None:
        for ext in language.extensions:
            _BY_EXT.pop(ext, None)


def registered(kind: str | None = None) -> tuple[Language, ...]:
    """The registered languages (of one kind, `code` or `doc`, when given), in registration order."""
    return tuple(lang for lang in _LANGUAGES.values() if kind is None or lang.kind == kind)


def language_for(path: str) -> Language | None:
    """The language of a path, by its longest registered extension (`.d.ts` before `.ts`), or None."""
    name = path.replace("\\", "/").rsplit("/", 1)[-1].lower()
    parts = name.split(".")
    for i in range(1, len(parts)):
        language = _BY_EXT.get("." + ".".join(parts[i:]))
        if language is not None:
            return language
    return None


def extension_of(path: str) -> str:
    """A file's last extension, lower case (".c"), or "(none)": how skipped files are counted."""
    return os.path.splitext(path.rsplit("/", 1)[-1])[1].lower() or "(none)"


def extensions(kind: str | None = None, *, stubs: bool = True) -> tuple[str, ...]:
    """Every registered extension (of one kind; without stub extensions when `stubs` is False)."""
    return tuple(e for lang in registered(kind) for e in (lang.extensions if stubs else lang.source_extensions))


def is_test_path(path: str) -> bool:
    """A test file by its language's conventions (the index's `is_test`); False for other files."""
    language = language_for(path)
    return language is not None and language.is_test_path(path.replace("\\", "/"))


def is_test_module(path: str) -> bool:
    """Surely test code by its language's conventions: narrower than `is_test_path`, whose
    test/ and testing/ folders hold library code in several repositories."""
    language = language_for(path)
    return language is not None and language.is_test_module(path.replace("\\", "/"))


def is_test_function(path: str, name: str, lines: list[str], start_line: int, end_line: int) -> bool:
    """A test function of a test file by its language's convention (Language.is_test_function:
    Java's @Test methods, Go's TestX, Rust's #[test] fns, else `test*` names), read from the
    file's `lines`: its head runs from its first line (annotations included) to the line naming it."""
    language = language_for(path)
    if language is None:
        return name.startswith("test")
    last = next((i for i in range(start_line - 1, min(end_line, len(lines))) if name in lines[i]), start_line - 1)
    return language.is_test_function(name, "\n".join(lines[start_line - 1 : last + 1]))


def is_stub(path: str) -> bool:
    """A declarations-only file (.pyi): ranked below the source it declares."""
    language = language_for(path)
    return language is not None and language.is_stub(path)


def is_private(path: str, name: str, signature: str) -> bool:
    """A definition its module keeps to itself, by its language's convention (Python `_f`, Go
    lower-case, Rust without `pub`, Java and TypeScript `private`, JavaScript `#f`/`_f`)."""
    language = language_for(path)
    return language is not None and language.private is not None and language.private(name, signature)


def is_root_package(path: str) -> bool:
    """A top-level file that is library code by its language's layout (Go's root package), not
    a script beside the library."""
    language = language_for(path)
    return "/" not in path and language is not None and language.root_package


def is_common_file_name(name: str) -> bool:
    """A file name so common in its language (setup.py, __init__.py) that alone it names no file."""
    language = language_for(name)
    return language is not None and name in language.common_file_names


def module_names(paths: list[str], root_name: str = "", read=None) -> dict[str, str]:
    """Module name per path, by each path's language ("" for a language without modules).

    `root_name`: the indexed folder's name, when the folder itself may be a package. `read(path)`
    -> a repository file's text or None: for languages whose module names come from files
    (`Language.module_files`, Go's go.mod); without it, they read none."""
    by_language: dict[str, list[str]] = {}
    for p in paths:
        language = language_for(p)
        if language is not None and language.module_names is not None:
            by_language.setdefault(language.name, []).append(p)
    out = dict.fromkeys(paths, "")
    for name, own in by_language.items():
        language = _LANGUAGES[name]
        if language.module_files:
            out.update(language.module_names(own, root_name, read or (lambda _path: None)))
        else:
            out.update(language.module_names(own, root_name))
    return out


def test_commands(test_files: list[str]) -> list[tuple[Language, str]]:
    """(language, shell command) running `test_files`: one per language that has a test runner,
    in the order their files first appear; files of other languages are left out."""
    by_language: dict[str, list[str]] = {}
    for f in test_files:
        language = language_for(f)
        if language is not None and language.test_runner:
            by_language.setdefault(language.name, []).append(f)
    return [(_LANGUAGES[name], _LANGUAGES[name].test_command(files)) for name, files in by_language.items()]


register(python_lang.PYTHON)
register(docs.TEXT)
register(java_lang.JAVA)
register(go_lang.GO)
register(javascript_lang.JAVASCRIPT)
register(typescript_lang.TYPESCRIPT)
register(rust_lang.RUST)
