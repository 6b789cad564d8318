"""What an issue text says about where the bug is: identifiers, tracebacks, file:line hints."""

from __future__ import annotations

import builtins
import keyword
import re
from dataclasses import dataclass, field

_BACKTICK = re.compile(r"```[^\n]*\n(.*?)```|`([^`\n]+)`", re.S)
_TB_FRAME = re.compile(r'File "([^"]+)", line (\d+)(?:, in ([\w<>.]+))?')
_PYTEST_FRAME = re.compile(r"^([\w./\\-]+\.py):(\d+)(?::\s*in\s+([\w<>.]+)|:\s*\w+)?", re.M)
_FILE_LINE = re.compile(r"([\w./\\-]+\.py)(?::(\d+)| (?:line|at line|L) ?(\d+)|#L(\d+))")
_PATH = re.compile(r"(?<![\w/.])((?:[\w.-]+/)*[\w-]+\.(?:py|pyi|rst|md|txt|cfg|toml))\b")
_DOTTED = re.compile(r"\b([A-Za-z_][\w]*(?:\.[A-Za-z_][\w]*)+)\b")
_CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
_CAMEL = re.compile(r"\b([A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+|[A-Z]{2,}[a-z]\w*)\b")
_SNAKE = re.compile(r"\b(_*[a-z][a-z0-9]*(?:_[a-z0-9]+)+_*|__\w+__)\b")
_ERROR_NAME = re.compile(r"\b(\w+(?:Error|Exception|Warning))\b")

_NOISE = {"e.g", "i.e", "etc", "vs", "www", "http", "https", "github", "com", "org", "self", "cls"}
_NOISE |= {k.lower() for k in keyword.kwlist} | {b.lower() for b in dir(builtins) if not b.endswith(("Error", "Warning"))}


@dataclass
class Frame:
    path: str
    line: int
    func: str | None
    order: int  # position in the issue text (later frames are closer to the error)


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


def _add(d: dict[str, float], name: str, w: float) -> None:
    if len(name) < 3 or name.lower() in _NOISE:
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


def extract_hints(text: str) -> IssueHints:
    h = IssueHints()
    order = 0
    for m in _TB_FRAME.finditer(text):
        h.frames.append(Frame(m.group(1).replace("\\", "/"), int(m.group(2)), m.group(3), order))
        order += 1
    for m in _PYTEST_FRAME.finditer(text):
        h.frames.append(Frame(m.group(1).replace("\\", "/"), int(m.group(2)), m.group(3), order))
        order += 1
    seen_fl = {(f.path, f.line) for f in h.frames}
    for m in _FILE_LINE.finditer(text):
        line = int(next(g for g in m.groups()[1:] if g))
        path = m.group(1).replace("\\", "/")
        if (path, line) not in seen_fl:
            h.frames.append(Frame(path, line, None, order))
            seen_fl.add((path, line))
            order += 1
    for m in _PATH.finditer(text):
        p = m.group(1)
        if p not in h.paths and not p.startswith("http"):
            h.paths.append(p)

    code_bits: list[str] = []
    for m in _BACKTICK.finditer(text):
        code_bits.append(m.group(1) or m.group(2) or "")
    prose = _BACKTICK.sub(" ", text)
    for bit in code_bits:
        for d in _DOTTED.findall(bit):
            if not d.endswith((".py", ".pyi")) and d not in h.dotted:
                h.dotted.append(d)
        for name in re.findall(r"[A-Za-z_]\w*", bit):
            _add(h.identifiers, name, 1.0)
    for d in _DOTTED.findall(prose):
        if d.endswith((".py", ".pyi", ".md", ".rst", ".txt")) or d.lower() in _NOISE or d[0].isdigit():
            continue
        if d not in h.dotted:
            h.dotted.append(d)
    for name in _CALL.findall(prose):
        _add(h.identifiers, name, 0.8)
    for name in _CAMEL.findall(prose):
        _add(h.identifiers, name, 0.7)
    for name in _SNAKE.findall(prose):
        _add(h.identifiers, name, 0.7)
    for d in h.dotted:
        for part in d.split("."):
            if part and (part[0].isupper() or "_" in part):
                _add(h.identifiers, part, 0.6)
        _add(h.identifiers, d.split(".")[-1], 0.6)
    for f in h.frames:
        if f.func and f.func not in ("<module>", "<lambda>"):
            _add(h.identifiers, f.func.split(".")[-1], 0.8)
    h.errors = sorted(set(_ERROR_NAME.findall(text)))
    return h
