"""What an issue text says about where the bug is: identifiers, tracebacks, file:line hints.

What is a stack-trace frame, a source file, a keyword or a builtin comes from the registered
languages (swevis.index.languages), so an issue about any of them is read the same way. An
issue is read with the languages of the repository it is about (`reading_languages`): a Python
repository's issue keeps `delete`, `default` or `Set` although Java or Rust reserve them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache

from swevis.index.languages import Language, registered

_BACKTICK = re.compile(r"```[^\n]*\n(.*?)```|`([^`\n]+)`", re.S)
_DOTTED = re.compile(r"\b([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+)\b")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_CAMEL = re.compile(r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z]{2,}[a-z]\w*)\b")
_SNAKE = re.compile(r"\b(_*[a-z][a-z0-9]*(?:_[a-z0-9]+)+_*|__\w+__)\b")
_ERROR_NAME = re.compile(r"\b(\w+(?:Error|Exception|Warning))\b")

# prose and URL words that are no identifier (the languages' keywords and builtins join them)
_PROSE_NOISE = frozenset({"e.g", "i.e", "etc", "vs", "www", "http", "https", "github", "com", "org"})


def _alternatives(exts: tuple[str, ...]) -> str:
    """Extensions (".py") as a regex alternation without the dots, longest first."""
    return "|".join(re.escape(e[1:]) for e in sorted(set(exts), key=lambda e: (-len(e), e)))


def reading_languages(code_languages: Iterable[str] | None) -> tuple[Language, ...]:
    """The registered languages an issue is read with: the code languages named (a repository's,
    `RepoIndex.languages()`) and every document kind, in registration order; None: all of them."""
    if code_languages is None:
        return registered()
    names = set(code_languages)
    return tuple(lang for lang in registered() if lang.kind != "code" or lang.name in names)


@dataclass(frozen=True)
class _Vocabulary:
    """What the registered languages make of an issue's text (built once per set of languages)."""

    frames: tuple[tuple[re.Pattern, bool], ...]  # stack-trace frames (groups path, line, func), innermost first?
    file_line: re.Pattern | None  # a.py:12, a.py line 12, a.py#L12 (source files only)
    path: re.Pattern | None  # a file path of an indexed language
    code_exts: tuple[str, ...]
    all_exts: tuple[str, ...]
    noise: frozenset[str]  # lower case: no identifier
    placeholders: frozenset[str]  # a frame's func naming no definition (<module>)
    scoped: tuple[tuple[re.Pattern, str], ...]  # (`A::b` in a language's own notation, its separator)


@lru_cache(maxsize=8)
def _vocabulary(languages: tuple[Language, ...]) -> _Vocabulary:
    code = [lang for lang in languages if lang.kind == "code"]
    source = _alternatives(tuple(e for lang in code for e in lang.source_extensions))
    every = _alternatives(tuple(e for lang in languages for e in lang.extensions))
    file_line = None
    if source:
        file_line = re.compile(rf"([\w./\\-]+\.(?:{source}))(?::(\d+)| (?:line|at line|L) ?(\d+)|#L(\d+))")
    path = re.compile(rf"(?<![\w/.])((?:[\w.-]+/)*[\w-]+\.(?:{every}))\b") if every else None
    noise = set(_PROSE_NOISE)
    for lang in code:
        noise |= {w.lower() for w in lang.keywords | lang.common_names}
    placeholders = frozenset(p for lang in languages for p in lang.frame_placeholders)
    return _Vocabulary(
        frames=tuple((p, lang.trace_innermost_first) for lang in languages for p in lang.trace_frames),
        file_line=file_line, path=path,
        code_exts=tuple(e for lang in code for e in lang.extensions),
        all_exts=tuple(e for lang in languages for e in lang.extensions), noise=frozenset(noise),
        placeholders=placeholders,
        scoped=tuple((re.compile(rf"(?<![\w.:])[A-Za-z_]\w*(?:{re.escape(sep)}[A-Za-z_]\w*)+\b"), sep)
                     for sep in sorted({lang.scope_separator for lang in code if lang.scope_separator})),
    )


@dataclass
class Frame:
    path: str
    line: int
    func: str | None
    order: int  # higher is closer to the error: later in the issue text, or in a trace that lists
    # the failing frame first (Java, Go), earlier


@dataclass
class IssueHints:
    frames: list[Frame] = field(default_factory=list)  # tracebacks and file:line hints
    paths: list[str] = field(default_factory=list)  # file paths mentioned
    dotted: list[str] = field(default_factory=list)  # a.b.C, obj.method
    identifiers: dict[str, float] = field(default_factory=dict)  # name -> strength (backticked > call > shape)
    errors: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.frames or self.paths or self.dotted or self.identifiers)


def _add(d: dict[str, float], name: str, w: float, noise: frozenset[str]) -> None:
    if len(name) < 3 or name.lower() in noise:
        return
    d[name] = max(d.get(name, 0.0), w)


_HEADING = re.compile(r"^\s*(?:#{1,6}\s+(.+?)\s*#*|\*\*(.+?)\*\*:?)\s*$")
# issue-template sections that describe the reporter's machine, not the bug
_ENVIRONMENT = re.compile(r"version|environment|platform|system|pip (?:list|freeze)|installed|__pkginfo__|"
                          r"operating system|\bos\b", re.I)


def without_environment(text: str) -> str:
    """The issue without its template's headings and environment sections.

    An issue template's headings ("Describe the bug", "Expected behavior") are the same words
    in every issue of a repository, and its environment sections (versions, platform, `pip
    list`) name packages and version numbers: both are noise for the identifiers, BM25 and the
    symptom text. A heading line of up to six words (markdown `#`, or a line in bold) outside
    code fences is dropped; a heading naming the environment drops its section too, up to the
    next heading.
    """
    out, in_fence, skipping = [], False, False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
        m = None if in_fence else _HEADING.match(line)
        title = (m.group(1) or m.group(2)) if m else ""
        if m and _ENVIRONMENT.search(title):
            skipping = True
            continue
        if m and len(title.split()) <= 6:  # a template heading; a longer bold line is prose
            skipping = False
            continue
        if not skipping:
            out.append(line)
    return "\n".join(out)


def extract_hints(text: str, languages: tuple[Language, ...] | None = None) -> IssueHints:
    """What `text` names, read with `languages` (`reading_languages`; default: every registered one)."""
    h = IssueHints()
    v = _vocabulary(registered() if languages is None else languages)
    _locations(text, v, h)
    code_bits: list[str] = []
    for m in _BACKTICK.finditer(text):
        code_bits.append(m.group(1) or m.group(2) or "")
    prose = _BACKTICK.sub(" ", text)
    for bit in code_bits:
        for d in _DOTTED.findall(bit):
            if not d.endswith(v.code_exts) and d not in h.dotted:
                h.dotted.append(d)
        for name in re.findall(r"[A-Za-z_]\w*", bit):
            _add(h.identifiers, name, 1.0, v.noise)
    for d in _DOTTED.findall(prose):
        if d.endswith(v.all_exts) or d.lower() in v.noise or d[0].isdigit():
            continue
        if d not in h.dotted:
            h.dotted.append(d)
    for d in _scoped_names(text, v):
        if d not in h.dotted:
            h.dotted.append(d)
    for name in _CALL.findall(prose):
        _add(h.identifiers, name, 0.8, v.noise)
    for name in _CAMEL.findall(prose):
        _add(h.identifiers, name, 0.7, v.noise)
    for name in _SNAKE.findall(prose):
        _add(h.identifiers, name, 0.7, v.noise)
    for d in h.dotted:
        for part in d.split("."):
            if part and (part[0].isupper() or "_" in part):
                _add(h.identifiers, part, 0.6, v.noise)
        _add(h.identifiers, d.split(".")[-1], 0.6, v.noise)
    for f in h.frames:
        if f.func and f.func not in v.placeholders:
            _add(h.identifiers, f.func.split(".")[-1], 0.8, v.noise)
    h.errors = sorted(set(_ERROR_NAME.findall(text)))
    return h


_SCOPE_ROOTS = frozenset({"crate", "self", "Self", "super"})


def _scoped_names(text: str, v: _Vocabulary) -> list[str]:
    """Qualified names in a language's own notation (Rust `Parser::parse`, `crate::fmt::write`) as
    the dotted names the index holds (`Parser.parse`, `fmt.write`): a leading `crate`, `self`,
    `Self` or `super` names the current crate, module or type, no part of a symbol's name. A
    match starts at a word, not after a dot (pytest's `tests/test_a.py::TestA::test_b`)."""
    out = []
    for pattern, sep in v.scoped:
        for m in pattern.finditer(text):
            parts = m.group(0).split(sep)
            while parts and parts[0] in _SCOPE_ROOTS:
                parts.pop(0)
            if len(parts) >= 2 and ".".join(parts) not in out:
                out.append(".".join(parts))
    return out


def _locations(text: str, v: _Vocabulary, h: IssueHints) -> None:
    """Stack-trace frames, then file:line hints not already a frame, then file paths, into `h`."""
    order = 0
    for pattern, innermost_first in v.frames:
        found = list(pattern.finditer(text))
        for k, m in enumerate(found):
            func = m.groupdict().get("func")
            closeness = order + (len(found) - 1 - k if innermost_first else k)
            h.frames.append(Frame(m.group("path").replace("\\", "/"), int(m.group("line")), func, closeness))
        order += len(found)
    seen_fl = {(f.path, f.line) for f in h.frames}
    for m in v.file_line.finditer(text) if v.file_line else ():
        line = int(next(g for g in m.groups()[1:] if g))
        path = m.group(1).replace("\\", "/")
        if (path, line) not in seen_fl:
            h.frames.append(Frame(path, line, None, order))
            seen_fl.add((path, line))
            order += 1
    for m in v.path.finditer(text) if v.path else ():
        p = m.group(1)
        if p not in h.paths and not p.startswith("http"):
            h.paths.append(p)
