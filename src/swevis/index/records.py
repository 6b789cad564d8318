"""What a language is (`Language`) and what its extractor finds in one file: definitions,
edges, text chunks. Shared by every language's module, the registry (swevis.index.languages)
and the index builder, so none of them imports another."""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Callable

__all__ = ["SymbolRec", "EdgeRec", "ChunkRec", "FileExtract", "Language"]

# a module name written with dots, at least two parts (`verso.VersionTest`, `tests.test_a`)
_DOTTED_NAME = re.compile(r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)+")


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


@dataclass(frozen=True, eq=False)
class Language:
    """One language the index reads: its files, its extractor, and the conventions of its
    code that the index and the localizer need (test files, module names, stack traces,
    comments, the test runner). Code outside the language's own module asks this record
    (through swevis.index.languages) and never tests a file name itself.

    Paths are repository-relative and use "/". An empty field means the language has no such
    convention: a doc language sets only the first few.
    """

    name: str
    extensions: tuple[str, ...]  # ".py": lower case, with the dot; a path's longest one picks its language
    extract: Callable[[str, bytes, str, dict], FileExtract]  # (path, bytes, module, options) -> its records
    kind: str = "code"  # code | doc
    # (its files' paths, the indexed folder's name when that is a package) -> module name per path
    module_names: Callable[..., dict[str, str]] | None = None
    # files the module names are read from (Go's go.mod): module_names then takes a third
    # argument, read(path) -> the text of that repository file, or None when it does not exist
    module_files: tuple[str, ...] = ()
    stub_extensions: tuple[str, ...] = ()  # declarations only (.pyi): ranked down; no trace or history points there
    test_dirs: tuple[str, ...] = ()  # a file below a folder of this name is a test file (the index's is_test)
    test_only_dirs: tuple[str, ...] = ()  # narrower: folders that hold test code only, never an edit site
    test_files: tuple[str, ...] = ()  # file-name globs of test files ("test_*", "*_test.py")
    # stack-trace frames: named groups path, line and (optional) func, e.g. Python's
    # `File "a/b.py", line 3, in f`
    trace_frames: tuple[re.Pattern, ...] = ()
    frame_placeholders: frozenset[str] = frozenset()  # a frame's func for no definition (<module>)
    trace_innermost_first: bool = False  # its traces list the failing frame first (Java, Go), not last (Python)
    definition: str = ""  # regex of a line defining a named thing, its name in group 1 (`def f`, `class C`)
    git_diff_driver: str = ""  # git's built-in hunk-header pattern for it (`diff=python`), if git has one
    line_comments: tuple[str, ...] = ()  # a line starting (after blanks) with one is a comment
    block_comments: tuple[tuple[str, str], ...] = ()  # (regex opening it at a line's start, text closing it)
    keywords: frozenset[str] = frozenset()  # reserved words and names every method uses (self): no identifier
    common_names: frozenset[str] = frozenset()  # builtins: an issue's mention of one names no location
    package_files: tuple[str, ...] = ()  # file names that stand for their folder (__init__.py)
    common_file_names: tuple[str, ...] = ()  # names so common that a bare one names no file (setup.py)
    test_runner: tuple[str, ...] = ()  # the command that runs the tests named after it
    # test files -> the runner's arguments (Go: their packages); None: the files themselves
    test_arguments: Callable[[list[str]], list[str]] | None = None
    test_ok_returncodes: tuple[int, ...] = (0,)  # the runner's exit codes that mean no test failed
    # names of the project files its extractor also reads (tsconfig.json): the build
    # passes every one in the tree as options["project"] (path -> bytes), and a change to one
    # rebuilds the index cold (they decide how every file's imports resolve)
    project_files: tuple[str, ...] = ()
    # how the renderer colours and wraps its files: a Pygments lexer name ("java"), and
    # (extension, lexer name) for extensions that take another (".tsx" -> "tsx"); none: Pygments'
    # own choice by file name
    lexer: str = ""
    extension_lexers: tuple[tuple[str, str], ...] = ()
    # (name, signature) -> a definition its module keeps to itself (Python `_f`, Go lower-case,
    # Rust without `pub`, Java `private`): the re-ranker's is_private flag; None: none is
    private: Callable[[str, str], bool] | None = None
    root_package: bool = False  # files at the repository's top level are library code (Go's root package)
    # a test function of a test file, by its head (its source from its first line, annotations
    # and attributes included, to its name): Java `@Test`, Rust `#[test]`, Go `func TestX(`;
    # None: a function or method named `test*` (Python, JavaScript's named tests)
    test_function: re.Pattern | None = None
    # how its code writes a qualified name besides dots (Rust `Type::method`, `crate::a::f`):
    # an issue's `A::b` is read as the dotted name `A.b`
    scope_separator: str = ""

    def __repr__(self) -> str:
        return f"Language({self.name!r}, {self.extensions})"

    @property
    def source_extensions(self) -> tuple[str, ...]:
        """Its extensions of files that run (not stubs): where traces and fixes point."""
        return tuple(e for e in self.extensions if e not in self.stub_extensions)

    def lexer_name(self, path: str) -> str:
        """The Pygments lexer name for one of its files ("" for Pygments' choice by name)."""
        name = path.lower()
        return next((lexer for ext, lexer in self.extension_lexers if name.endswith(ext)), self.lexer)

    def is_stub(self, path: str) -> bool:
        return path.lower().endswith(self.stub_extensions)

    def _test_name(self, path: str) -> bool:
        base = path.rsplit("/", 1)[-1]
        return any(fnmatchcase(base, glob) for glob in self.test_files)

    def is_test_path(self, path: str) -> bool:
        """A test file: below one of `test_dirs`, or named like one of `test_files`."""
        return any(p in self.test_dirs for p in path.split("/")[:-1]) or self._test_name(path)

    def is_test_module(self, path: str) -> bool:
        """Surely test code: below one of `test_only_dirs`, or named like a test file."""
        return any(p in self.test_only_dirs for p in path.split("/")[:-1]) or self._test_name(path)

    def is_test_function(self, name: str, head: str) -> bool:
        """A test function of a test file, by its name and its head (see `test_function`)."""
        return self.test_function.search(head) is not None if self.test_function is not None \
            else name.startswith("test")

    def test_command(self, test_files: list[str]) -> str:
        """The shell command running `test_files` (empty when it has no runner)."""
        if not self.test_runner:
            return ""
        args = self.test_arguments(test_files) if self.test_arguments is not None else test_files
        return shlex.join([*self.test_runner, *args])

    def is_test_module_name(self, word: str) -> bool:
        """A word of a command that names one of its test files by module name, as
        `module_names` writes it (Java's `verso.VersionTest` for .../verso/VersionTest.java):
        dotted names whose last part, with one of its extensions, is named like a test file (its
        folders do not count: `tests.sh` is a script, not `tests/sh.java`). A language whose
        module names come from project files (Go's go.mod) names none this way."""
        if self.module_names is None or self.module_files or not _DOTTED_NAME.fullmatch(word):
            return False
        return any(self._test_name(word.rsplit(".", 1)[-1] + ext) for ext in self.source_extensions)

    def test_passed(self, returncode: int | None) -> bool:
        return returncode in self.test_ok_returncodes
