"""Code windows in RECORDED observations: which file and line range a command showed, found
from the command and from the output it produced (no repository needed).

The counterfactual's recorded mode re-renders these windows under each condition. Recognized
(optionally after `cd DIR &&`): `sed -n 'A,Bp' F`, `nl [-ba] F`, `cat [-n] F`, `head`/`tail`
with line counts, `awk 'NR>=A && NR<=B' F` (and `NR==A,NR==B`), and those followed by one
filter `| sed -n 'A,Bp'`, `| head`, `| tail -n +K` or `| grep -n -A/-B/-C N PATTERN` (each
group of grep's output is one window), `grep -n -A/-B/-C N PATTERN F`, the file viewer
of SWE-agent and OpenHands, `str_replace_editor view F [--view_range A B]`, and SWE-agent's
windowed viewer (`open F [LINE]`, `goto`, `scroll_up/down`: the file from its header). Line numbers come
from the output when it carries them (nl, cat -n, grep -n, awk printing NR), else from the
command. `tail -n N` (the last N lines) has no known start without the file: `file_lines`
(the repository's line count of F) resolves it, else it is no window.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Callable

NL_LINE = re.compile(r"^\s*(\d+)\t(.*)$")
AWK_NR_LINE = re.compile(r"^\s*(\d+)(?::\s?|\t| )(.*)$")
GREP_LINE = re.compile(r"^(\d+)([:-])(.*)$")
TRAILER = re.compile(r"^\[.*\]$")  # OpenHands' "[The command completed with exit code 0.]"
SWE_FILE = re.compile(r"^\[File: (.+) \(\d+ lines total\)\]$")  # SWE-agent's windowed viewer (open, goto, scroll)
SWE_MORE = re.compile(r"^\(\d+ more lines (above|below)\)$")
SWE_LINE = re.compile(r"^(\d+):(.*)$")
SWE_VIEWERS = {"open", "goto", "scroll_up", "scroll_down"}
VIEW_HEADER = re.compile(r"^Here's the result of running `cat -n` on .*:$")  # the file viewer's first line
SWEBENCH_ROOT = "/testbed/"  # where SWE-bench images hold the repository: paths below it are repository paths


@dataclass(frozen=True)
class RecordedWindow:
    """Lines start..end of `path`, shown at observation[span[0]:span[1]] as `text` (without
    the line numbers the output may have carried; one line ends in one newline)."""

    path: str
    start: int
    end: int
    numbered: bool
    span: tuple[int, int]
    text: str

    def ref(self) -> dict:
        return {"path": self.path, "start": self.start, "end": self.end}


@dataclass(frozen=True)
class _Source:
    path: str
    first: int | None  # absolute line of the first output line (None: not known yet)
    numbers: str | None  # None, "nl" (nl/cat -n prefixes) or "awk" (NR printed by awk)
    last_n: int | None = None  # tail -n N: the last N lines
    grep_context: bool = False


def _tokens(command: str) -> list[str] | None:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=";&|<>")
    lexer.whitespace_split = True
    try:
        return list(lexer)
    except ValueError:
        return None


def _drop_null_redirects(words: list[str]) -> list[str] | None:
    """Words without `2>/dev/null`, `2>&1`; any other redirection: None (not a plain read)."""
    out, i = [], 0
    while i < len(words):
        w = words[i]
        if w in (">", ">>", ">&", "<"):
            target = words[i + 1] if i + 1 < len(words) else ""
            if (w == ">&" and target.isdigit()) or target == "/dev/null":
                if out and out[-1].isdigit():
                    out.pop()
                i += 2
                continue
            return None
        out.append(w)
        i += 1
    return out


def _pipeline(command: str) -> tuple[str | None, list[list[str]]] | None:
    """(the directory of a leading `cd`, the stages of the one pipeline), or None."""
    if "<<" in command or "$(" in command or "`" in command:
        return None
    tokens = _tokens(command.strip())
    if not tokens:
        return None
    segments, current = [], [[]]
    for t in tokens:
        if t in ("&&", ";"):
            segments.append(current)
            current = [[]]
        elif t == "|":
            current.append([])
        elif t in ("||", "&"):
            return None
        else:
            current[-1].append(t)
    segments.append(current)
    segments = [s for s in segments if any(s)]
    cwd = None
    while len(segments) > 1 and len(segments[0]) == 1 and segments[0][0][:1] == ["cd"] and len(segments[0][0]) == 2:
        cwd = segments[0][0][1] if cwd is None or segments[0][0][1].startswith("/") else f"{cwd}/{segments[0][0][1]}"
        segments = segments[1:]
    if len(segments) != 1:
        return None
    stages = [_drop_null_redirects(stage) for stage in segments[0]]
    if any(s is None or not s for s in stages):
        return None
    return cwd, stages  # type: ignore[return-value]


_SED = re.compile(r"^(\d+)(?:\s*,\s*(\d+|\$))?\s*p$")


def _sed_range(words: list[str]) -> tuple[tuple[int, int | None], list[str]] | None:
    if len(words) < 3 or words[0] != "sed" or words[1] != "-n":
        return None
    m = _SED.match(words[2].strip())
    if not m:
        return None
    end = None if m.group(2) in (None, "$") else int(m.group(2))
    if m.group(2) is None:
        end = int(m.group(1))
    return (int(m.group(1)), end), words[3:]


def _count(args: list[str]) -> tuple[str | None, list[str]]:
    """head/tail's -n N / -N / -n +K / --lines=N, and the other arguments."""
    val, rest, i = None, [], 0
    while i < len(args):
        a = args[i]
        if a in ("-n", "--lines") and i + 1 < len(args):
            val, i = args[i + 1], i + 2
        elif re.fullmatch(r"-n?\+?\d+", a):
            val, i = a[2:] if a.startswith("-n") else a[1:], i + 1
        elif a.startswith("--lines="):
            val, i = a.split("=", 1)[1], i + 1
        else:
            rest.append(a)
            i += 1
    return val, rest


_AWK_RANGE = [  # (program start, the offset of its first line)
    (re.compile(r"^NR\s*>=\s*(\d+)\s*&&\s*NR\s*<=\s*\d+"), 0),
    (re.compile(r"^NR\s*>\s*(\d+)\s*&&\s*NR\s*<\s*\d+"), 1),
    (re.compile(r"^NR\s*==\s*(\d+)\s*,\s*NR\s*==\s*\d+"), 0),
]


def _awk(args: list[str]) -> tuple[int, bool] | None:
    """(the first line of an NR range program, whether it prints NR before each line)."""
    if len(args) != 2:
        return None
    prog = args[0].strip()
    for pattern, lo in _AWK_RANGE:
        m = pattern.match(prog)
        if m:
            rest = prog[m.end() :].strip()
            if rest and not re.fullmatch(r"\{\s*print(\s+\$0)?\s*;?\s*\}|\{\s*print(f)?\s*\(?\s*NR\b.*\}", rest):
                return None
            return int(m.group(1)) + lo, "NR" in rest
    return None


def _grep_context(args: list[str]) -> tuple[bool, list[str]] | None:
    """(grep -n with context lines, the non-option arguments) or None for any other grep."""
    numbered, context, rest, i = False, False, [], 0
    while i < len(args):
        a = args[i]
        if a in ("-A", "-B", "-C") and i + 1 < len(args) and args[i + 1].isdigit():
            context, i = True, i + 2
            continue
        if re.fullmatch(r"-[ABC]\d+", a) or re.fullmatch(r"--(after|before)?-?context=\d+", a):
            context = True
        elif a.startswith("-") and not a.startswith("--") and len(a) > 1:
            flags = a[1:]
            if any(c in flags for c in "rRlLcoHh"):
                return None
            numbered |= "n" in flags
            context |= bool(re.search(r"[ABC]\d+$", flags))
            if flags[-1] in "ABC" and i + 1 < len(args) and args[i + 1].isdigit():  # -nA 5
                context, i = True, i + 1
        elif a == "--line-number":
            numbered = True
        elif a.startswith("--"):
            return None
        else:
            rest.append(a)
        i += 1
    return (numbered and context, rest) if numbered else None


def _single(args: list[str]) -> str | None:
    files = [a for a in args if not a.startswith("-")]
    return files[0] if len(files) == 1 and len(files) == len(args) else None


def _source(words: list[str]) -> _Source | None:
    cmd, args = words[0].rsplit("/", 1)[-1], words[1:]
    if cmd == "sed":
        got = _sed_range(words)
        path = _single(got[1]) if got else None
        return _Source(path, got[0][0], None) if got and path else None
    if cmd == "nl":
        path = _single([a for a in args if a not in ("-ba", "-b", "a")])
        return _Source(path, 1, "nl") if path else None
    if cmd == "cat":
        numbered = any(a in ("-n", "--number") for a in args)
        path = _single([a for a in args if a not in ("-n", "--number")])
        return _Source(path, 1, "nl" if numbered else None) if path else None
    if cmd in ("head", "tail"):
        val, rest = _count(args)
        path = _single(rest)
        if not path or (val is not None and not re.fullmatch(r"\+?\d+", val)):
            return None
        if cmd == "head":
            return _Source(path, 1, None)
        if val is not None and val.startswith("+"):
            return _Source(path, int(val[1:]), None)
        return _Source(path, None, None, last_n=int(val or 10))
    if cmd in ("awk", "gawk"):
        got = _awk(args)
        return _Source(args[1], got[0], "awk" if got[1] else None) if got else None
    if cmd == "grep":
        got = _grep_context(args)
        if got and got[0] and len(got[1]) == 2:
            return _Source(got[1][1], 1, None, grep_context=True)
    if cmd == "str_replace_editor" and len(args) >= 2 and args[0] == "view":
        return _editor_view(args[1:])
    if cmd in SWE_VIEWERS:  # the file and its lines are in the output's header and numbers
        return _Source("", None, "swe")
    return None


def _editor_view(args: list[str]) -> _Source | None:
    """SWE-agent's and OpenHands' file viewer: `str_replace_editor view PATH [--view_range A B]`
    prints `cat -n` lines of the file (a folder prints a listing, which no line matches)."""
    path, rest = args[0], args[1:]
    if not rest:
        return _Source(path, 1, "nl")
    if len(rest) == 3 and rest[0] == "--view_range" and rest[1].isdigit() and re.fullmatch(r"-?\d+", rest[2]):
        return _Source(path, int(rest[1]), "nl")
    return None


def _filter(src: _Source, words: list[str]) -> _Source | None:
    """The source as seen through one more pipeline stage, or None."""
    cmd = words[0]
    if src.grep_context or src.last_n is not None or src.first is None:
        return None
    if cmd == "sed":
        got = _sed_range(words)
        return _Source(src.path, src.first + got[0][0] - 1, src.numbers) if got and not got[1] else None
    if cmd in ("head", "tail"):
        val, rest = _count(words[1:])
        if rest or (val is not None and not re.fullmatch(r"\+?\d+", val)):
            return None
        if cmd == "head":
            return src
        if val is not None and val.startswith("+"):
            return _Source(src.path, src.first + int(val[1:]) - 1, src.numbers)
        return None
    if cmd == "grep":
        got = _grep_context(words[1:])
        if got and got[0] and len(got[1]) == 1:
            return _Source(src.path, src.first, src.numbers, grep_context=True)
    return None


def output_body(observation: str) -> tuple[int, int] | None:
    """Where the command's output sits in the observation: inside mini's <output> tags, or
    all of it; None for an elided output (mini's <output_head>/<output_tail>)."""
    if "<output_head>" in observation or "<elided_chars>" in observation:
        return None
    m = re.search(r"<output>\n?(.*?)</output>", observation, re.DOTALL)
    if m:
        return m.start(1), m.end(1)
    return 0, len(observation)


def _lines(observation: str, lo: int, hi: int) -> list[tuple[int, int, str]]:
    """(start, end, text) of each line in observation[lo:hi], trailer lines dropped."""
    out, pos = [], lo
    for line in observation[lo:hi].splitlines(keepends=True):
        out.append((pos, pos + len(line), line.rstrip("\r\n")))
        pos += len(line)
    if out and VIEW_HEADER.match(out[0][2]):
        out.pop(0)
    if out and TRAILER.match(out[-1][2]):
        out.pop()
        while out and not out[-1][2].strip():
            out.pop()
    return out


def _window(path: str, numbers: list[int], texts: list[str], span: tuple[int, int], numbered: bool) -> RecordedWindow | None:
    if not numbers or numbers != list(range(numbers[0], numbers[0] + len(numbers))) or numbers[0] < 1:
        return None
    text = "".join(t + "\n" for t in texts)
    if not text.strip():
        return None
    return RecordedWindow(path, numbers[0], numbers[-1], numbered, span, text)


def _numbered(src: _Source, lines: list[tuple[int, int, str]]) -> RecordedWindow | None:
    pattern = NL_LINE if src.numbers == "nl" else AWK_NR_LINE
    matches = [pattern.match(text) for _, _, text in lines]
    if not all(matches):
        return None
    numbers = [int(m.group(1)) for m in matches]  # type: ignore[union-attr]
    if src.first is not None and numbers[0] != src.first:  # the output does not fit the command
        return None
    return _window(src.path, numbers, [m.group(2) for m in matches], (lines[0][0], lines[-1][1]), True)  # type: ignore[union-attr]


def _swe_viewer(lines: list[tuple[int, int, str]]) -> RecordedWindow | None:
    """SWE-agent's `open`/`goto`/`scroll_*` output: `[File: PATH (N lines total)]`, then
    `N:code` lines between `(k more lines above/below)` notes."""
    header = SWE_FILE.match(lines[0][2]) if lines else None
    if header is None:
        return None
    body = lines[1:]
    while body and SWE_MORE.match(body[0][2]):
        body = body[1:]
    while body and SWE_MORE.match(body[-1][2]):
        body = body[:-1]
    matches = [SWE_LINE.match(text) for _, _, text in body]
    if not body or not all(matches):
        return None
    numbers = [int(m.group(1)) for m in matches]  # type: ignore[union-attr]
    path = header.group(1).removeprefix(SWEBENCH_ROOT)
    return _window(path, numbers, [m.group(2) for m in matches], (body[0][0], body[-1][1]), True)  # type: ignore[union-attr]


def _grep_groups(src: _Source, lines: list[tuple[int, int, str]]) -> list[RecordedWindow]:
    groups: list[list[tuple[int, int, str]]] = [[]]
    for line in lines:
        if line[2] == "--":
            groups.append([])
        else:
            groups[-1].append(line)
    windows = []
    for group in groups:
        matches = [GREP_LINE.match(text) for _, _, text in group]
        if not group or not all(matches):
            return []
        texts = [m.group(3) for m in matches]  # type: ignore[union-attr]
        numbers = [int(m.group(1)) + (src.first or 1) - 1 for m in matches]  # type: ignore[union-attr]
        if src.numbers == "nl":  # nl -ba F | grep -n: the file's numbers follow grep's
            inner = [NL_LINE.match(t) for t in texts]
            if not all(inner):
                return []
            numbers = [int(m.group(1)) for m in inner]  # type: ignore[union-attr]
            texts = [m.group(2) for m in inner]  # type: ignore[union-attr]
        w = _window(src.path, numbers, texts, (group[0][0], group[-1][1]), True)
        if w is None:
            return []
        windows.append(w)
    return windows


def identify_windows(
    command: str | None, observation: str | None, *, returncode: int | None = None,
    file_lines: Callable[[str], int | None] | None = None,
) -> list[RecordedWindow]:
    """The code windows `command` showed in `observation` (see the module docstring); [] for
    any other command, a failed one, or an output that does not fit the command."""
    if not command or not observation or returncode not in (None, 0):
        return []
    parsed = _pipeline(command)
    if parsed is None:
        return []
    cwd, stages = parsed
    src = _source(stages[0])
    for stage in stages[1:]:
        src = _filter(src, stage) if src else None
    body = output_body(observation)
    if src is None or body is None:
        return []
    path = src.path if src.path.startswith("/") or cwd is None else f"{cwd.rstrip('/')}/{src.path}"
    path = path[len(SWEBENCH_ROOT) :] if path.startswith(SWEBENCH_ROOT) else path
    src = _Source(path, src.first, src.numbers, src.last_n, src.grep_context)
    lines = _lines(observation, *body)
    if not lines:
        return []
    if src.grep_context:
        return _grep_groups(src, lines)
    if src.numbers == "swe":
        w = _swe_viewer(lines)
        return [w] if w else []
    if src.numbers:
        w = _numbered(src, lines)
        return [w] if w else []
    first = src.first
    if src.last_n is not None:
        total = file_lines(src.path) if file_lines else None
        if total is None or len(lines) != min(src.last_n, total):
            return []
        first = total - len(lines) + 1
    numbers = list(range(first, first + len(lines)))  # type: ignore[arg-type]
    w = _window(src.path, numbers, [t for _, _, t in lines], (lines[0][0], lines[-1][1]), False)
    return [w] if w else []
