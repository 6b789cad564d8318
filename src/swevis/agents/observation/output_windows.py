"""Code windows in a command's output: which file and line range a command showed, found
from the command and from the output it produced (no repository needed).

The counterfactual's recorded mode re-renders these windows under each condition; the live
observation pipeline renders those detect_code_read cannot tell from the command alone
(checked against the file first). The command is read by swevis.agents.observation.shell
(`plain_statements`, `pipeline_read`); recognized, optionally after `cd DIR &&`:

- readers: `sed -n 'A,Bp' F`, `nl [-ba] F`, `cat [-n] F`, `head`/`tail` with line counts,
  `awk` NR ranges (`NR>=A && NR<=B`, `NR==A,NR==B`, printing NR or not), `git show REV:F`,
  `view_code F A B`;
- filters after a reader: `| sed -n 'A,Bp'`, `| head`, `| tail -n K` or `-n +K`, `| nl -ba` or
  `| cat -n` (on a whole file), `| grep [-n] -A/-B/-C N PATTERN` (each group of grep's
  output is one window; `| head` may follow grep);
- grep with context lines on files: `grep -n -A/-B/-C N PATTERN F` and, with file names in
  its output, on several files or a folder (`grep -rn -C 3 PATTERN DIR`);
- diff hunks: `git diff`, `git show REV`, `git log -p`, `git stash show -p`, `diff -u`; each
  hunk is one window of kind "diff" (its lines with their markers, numbered from the new
  side's first line, so the numbers drift by the removed lines);
- editor views: SWE-agent's and OpenHands' file viewer (`str_replace_editor view F
  [--view_range A B]`, and the snippet the editor prints after an edit, "Here's the result of
  running `cat -n` on a snippet of F:"; a clipped view keeps its complete lines), and
  SWE-agent's windowed viewer and editor (`open`, `goto`, `scroll_*`, `edit`, `create`: each
  `[File: F (N lines total)]` header and its numbered lines);
- several reads in one command (`cat a.py && echo --- && sed -n '1,9p' b.py`): the output is
  split at the echoed separators, or by each read's known line count.

Line numbers come from the output when it carries them (nl, cat -n, grep -n, awk printing NR,
the viewers), else from the command. `tail -n N` (the last N lines) and `cat F` in a sequence
need the file's length: `file_lines` (the repository's line count of F) gives it, else it is
no window. Everything else (test logs, tracebacks, listings, search hits without context) is
no window and stays text; so is an output that does not fit its command.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Callable

from swevis.agents.observation.shell import SWEBENCH_ROOT, Read, folder_after, pipeline_read, plain_statements, repository_path

NL_LINE = re.compile(r"^\s*(\d+)\t(.*)$")
NL_BLANK = re.compile(r"^\s*$")  # `nl` without -ba leaves empty lines unnumbered
AWK_NR_LINE = re.compile(r"^\s*(\d+)(?::\s?|\t| )(.*)$")
GREP_LINE = re.compile(r"^(\d+)([:-])(.*)$")
GREP_FILE_LINE = re.compile(r"^(.+?)([:-])(\d+)\2(.*)$")  # grep -n with file names: F:N:match, F-N-context
TRAILER = re.compile(r"^\[.*\]$")  # OpenHands' "[The command completed with exit code 0.]"
SWE_FILE = re.compile(r"^\[File: (.+) \(\d+ lines total\)\]$")  # SWE-agent's windowed viewer (open, goto, scroll)
SWE_MORE = re.compile(r"^\((\d+ more lines (above|below)|this is the (beginning|end) of the file)\)$")
SWE_LINE = re.compile(r"^(\d+):(.*)$")
# the file viewer's header: a whole view, or the snippet the editor shows after an edit
VIEW_HEADER = re.compile(r"(?:^|\s)Here's the result of running `cat -n` on (?:a snippet of )?(.+?):$")
CLIPPED = "<response clipped>"  # the viewer's note where it cut a long file
HUNK = re.compile(r"^@@ -\d+(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
DIFF_GIT = re.compile(r"^diff --git a/(.+) b/(.+)$")
READ_ERROR = re.compile(r"^(cat|sed|head|tail|nl|awk|gawk|grep|git|fatal): ")


@dataclass(frozen=True)
class RecordedWindow:
    """Lines start..end of `path`, shown at observation[span[0]:span[1]] as `text` (without
    the line numbers the output may have carried; one line ends in one newline). A window
    of kind "diff" is a hunk: its text keeps the diff markers, start is the new side's."""

    path: str
    start: int
    end: int
    numbered: bool
    span: tuple[int, int]
    text: str
    kind: str = "file"

    def ref(self) -> dict:
        return {"path": self.path, "start": self.start, "end": self.end}


def output_body(observation: str) -> tuple[int, int] | None:
    """Where the command's output sits in the observation: inside mini's <output> tags, or
    all of it; None for an elided output (mini's <output_head>/<output_tail>)."""
    if "<output_head>" in observation or "<elided_chars>" in observation:
        return None
    m = re.search(r"<output>\n?(.*?)</output>", observation, re.DOTALL)
    if m:
        return m.start(1), m.end(1)
    return 0, len(observation)


Line = tuple[int, int, str]  # (start, end, text) of one line of the observation


def _lines(observation: str, lo: int, hi: int) -> list[Line]:
    """(start, end, text) of each line in observation[lo:hi], the trailer line dropped."""
    out, pos = [], lo
    for line in observation[lo:hi].splitlines(keepends=True):
        out.append((pos, pos + len(line), line.rstrip("\r\n")))
        pos += len(line)
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


def _numbered(src: Read, lines: list[Line]) -> RecordedWindow | None:
    if src.numbers == "nlbt":  # `nl F`: blank lines unnumbered, so the numbers are not the file's
        if not all(NL_LINE.match(t) or NL_BLANK.match(t) for _, _, t in lines) or src.first is None:
            return None
        texts = [m.group(2) if (m := NL_LINE.match(t)) else "" for _, _, t in lines]
        numbers = list(range(src.first, src.first + len(lines)))
        return _window(src.path, numbers, texts, (lines[0][0], lines[-1][1]), True)
    pattern = AWK_NR_LINE if src.numbers == "awk" else NL_LINE
    matches = [pattern.match(text) for _, _, text in lines]
    if not all(matches):
        return None
    shift = src.first - 1 if src.numbers == "nlrel" and src.first is not None else 0
    numbers = [int(m.group(1)) + shift for m in matches]  # type: ignore[union-attr]
    if src.first is not None and numbers[0] != src.first:  # the output does not fit the command
        return None
    return _window(src.path, numbers, [m.group(2) for m in matches], (lines[0][0], lines[-1][1]), True)  # type: ignore[union-attr]


def _swe_viewer(lines: list[Line]) -> list[RecordedWindow]:
    """SWE-agent's `open`/`goto`/`scroll_*`/`edit` output: each `[File: PATH (N lines
    total)]` header, then `N:code` lines between `(k more lines above/below)` notes; text
    around them (an edit's "File updated ...") stays text."""
    windows = []
    for k, (_, _, text) in enumerate(lines):
        header = SWE_FILE.match(text)
        if header is None:
            continue
        j = k + 1
        while j < len(lines) and SWE_MORE.match(lines[j][2]):
            j += 1
        body = []
        while j < len(lines) and (m := SWE_LINE.match(lines[j][2])):
            body.append((lines[j], m))
            j += 1
        if body:
            windows += _numbered_window(header.group(1), body)
    return windows


def _numbered_window(path: str, body: list) -> list[RecordedWindow]:
    """The window a viewer's numbered lines show (`body`: (line, match of number and text)
    pairs), as a list of none or one."""
    w = _window(path.removeprefix(SWEBENCH_ROOT), [int(m.group(1)) for _, m in body], [m.group(2) for _, m in body],
                (body[0][0][0], body[-1][0][1]), True)
    return [w] if w else []


def _editor_views(lines: list[Line]) -> list[RecordedWindow]:
    """The file viewer's output (`cat -n` lines after its header line); a clipped view ends
    before the line the clipping note cut."""
    windows = []
    for k, (_, _, text) in enumerate(lines):
        header = VIEW_HEADER.search(text)
        if header is None:
            continue
        body = []
        for line in lines[k + 1 :]:
            m = NL_LINE.match(line[2])
            if m is None or CLIPPED in line[2]:
                break
            body.append((line, m))
        if body:
            windows += _numbered_window(header.group(1), body)
    return windows


def _hunk_body(lines: list[Line], j: int, old: int, new: int) -> list[Line]:
    """The lines of a hunk from index j: context, removed and added lines (and "\\ No
    newline") until the header's counts are met or the output ends (a hunk cut by head)."""
    body = []
    while j < len(lines) and (old > 0 or new > 0 or lines[j][2].startswith("\\")):
        text = lines[j][2]
        marker = text[:1]
        if marker in (" ", "") :
            old, new = old - 1, new - 1
        elif marker == "-":
            old -= 1
        elif marker == "+":
            new -= 1
        elif marker != "\\":
            break
        body.append(lines[j])
        j += 1
    return body


def _diff_hunks(lines: list[Line]) -> list[RecordedWindow]:
    """Each hunk of a diff (git diff/show/log -p, diff -u) as a window of kind "diff"."""
    windows, path, k = [], None, 0
    while k < len(lines):
        text = lines[k][2]
        git = DIFF_GIT.match(text)
        if git:
            path = git.group(2)
        elif text.startswith("+++ "):
            target = text[4:].split("\t")[0].strip()
            path = None if target == "/dev/null" else target[2:] if target.startswith("b/") else target
        hunk = HUNK.match(text)
        if hunk and path:
            old = int(hunk.group(1) if hunk.group(1) is not None else 1)
            new = int(hunk.group(3) if hunk.group(3) is not None else 1)
            body = _hunk_body(lines, k + 1, old, new)
            if body and any(t.strip() for _, _, t in body):
                start = max(1, int(hunk.group(2)))
                windows.append(RecordedWindow(path.removeprefix(SWEBENCH_ROOT), start, start + len(body) - 1, False,
                                              (body[0][0], body[-1][1]), "".join(t + "\n" for _, _, t in body), "diff"))
            k += 1 + len(body)
            continue
        k += 1
    return windows


def _grep_line(src: Read, text: str) -> tuple[str, int, str, bool] | None:
    """(file, line number, code, is a match line) of one line of grep's output, or None."""
    if src.grep == "files":
        m = GREP_FILE_LINE.match(text)
        return (m.group(1), int(m.group(3)), m.group(4), m.group(2) == ":") if m else None
    if src.grep == "plain":  # grep without -n over nl's lines: the numbers are nl's
        m = NL_LINE.match(text)
        return (src.path, int(m.group(1)), m.group(2), True) if m else None
    m = GREP_LINE.match(text)
    if m is None:
        return None
    number, code = int(m.group(1)) + (src.first or 1) - 1, m.group(3)
    if src.numbers == "nl":  # nl -ba F | grep -n: the file's numbers follow grep's
        inner = NL_LINE.match(code)
        if inner is None:
            return None
        number, code = int(inner.group(1)), inner.group(2)
    return src.path, number, code, m.group(2) == ":"


def _grep_groups(src: Read, lines: list[Line]) -> list[RecordedWindow]:
    """Each group of grep's context output (groups end at `--`) as one window; grep's own
    error lines (`grep: DIR: Is a directory`) end a group too. Any line that is not grep's
    output, or a group without a match line, and the output is no window."""
    groups: list[list[Line]] = [[]]
    for line in lines:
        if line[2] == "--" or line[2].startswith("grep: "):
            groups.append([])
        else:
            groups[-1].append(line)
    windows = []
    for group in [g for g in groups if g]:
        parsed = [_grep_line(src, text) for _, _, text in group]
        if not all(parsed) or len({p[0] for p in parsed}) != 1 or not any(p[3] for p in parsed):  # type: ignore[index]
            return []
        path = parsed[0][0]  # type: ignore[index]
        w = _window(path, [p[1] for p in parsed], [p[2] for p in parsed], (group[0][0], group[-1][1]), True)  # type: ignore[index]
        if w is None:
            return []
        windows.append(w)
    return windows


def _cd(stages: list[list[str]], cwd: str | None) -> str | None:
    """The folder after a statement that is a plain `cd DIR`, or None."""
    return folder_after(stages[0], cwd) if len(stages) == 1 else None


def _windows_of(src: Read, lines: list[Line], file_lines: Callable[[str], int | None] | None,
                cwd: str | None) -> list[RecordedWindow]:
    """The windows one read's output shows (see identify_windows)."""
    if not lines:
        return []
    if src.special == "diff":
        return [replace(w, path=repository_path(w.path, cwd)) for w in _diff_hunks(lines)]
    if src.special == "swe":
        return _swe_viewer(lines)
    if src.special == "editor":
        return _editor_views(lines)
    if src.grep:
        windows = _grep_groups(src, lines)
        return [replace(w, path=repository_path(w.path, cwd)) for w in windows] if src.grep == "files" else windows
    if src.numbers:
        w = _numbered(src, lines)
        return [w] if w else []
    if any(READ_ERROR.match(t) for _, _, t in lines):
        return []  # `cat: F: No such file or directory` and the like, when no return code was recorded
    first = src.first
    if src.last_n is not None:
        total = src.end if src.end is not None else file_lines(src.path) if file_lines else None
        if total is None or len(lines) != min(src.last_n, total):
            return []
        first = total - len(lines) + 1
    numbers = list(range(first, first + len(lines)))  # type: ignore[arg-type]
    w = _window(src.path, numbers, [t for _, _, t in lines], (lines[0][0], lines[-1][1]), False)
    return [w] if w else []


def _read(stages: list[list[str]], cwd: str | None) -> Read | None:
    """What one pipeline reads (swevis.agents.observation.shell.pipeline_read), its path as the
    repository knows it; or None."""
    src = pipeline_read(stages)
    return replace(src, path=repository_path(src.path, cwd)) if src else None


def _echo(stages: list[list[str]]) -> list[str] | None:
    """The lines a plain `echo WORDS` prints (a separator between reads), or None."""
    if len(stages) != 1 or stages[0][:1] != ["echo"] or (len(stages[0]) > 1 and re.fullmatch(r"-[neE]+", stages[0][1])):
        return None
    return " ".join(stages[0][1:]).split("\n")


def _expected_lines(src: Read, file_lines: Callable[[str], int | None] | None) -> int | None:
    """How many lines a read prints, when the command (or the file's length) says."""
    if src.special or src.grep or src.first is None:
        return None
    end = src.end
    if end is None or src.last_n is not None:
        total = file_lines(src.path) if file_lines and src.path else None
        end = total if end is None else end if total is None else min(end, total)
    return None if end is None else max(0, end - src.first + 1)


def _sequence(statements: list[list[list[str]]], lines: list[Line],
              file_lines: Callable[[str], int | None] | None) -> list[RecordedWindow]:
    """Several reads in one command, split at echoed separators or by known line counts;
    any other statement, or an output that does not split, and it shows no window."""
    cwd, pos, windows = None, 0, []
    for k, stages in enumerate(statements):
        if (folder := _cd(stages, cwd)) is not None:
            cwd = folder
            continue
        separator = _echo(stages)
        if separator is not None:
            if [t for _, _, t in lines[pos : pos + len(separator)]] != separator:
                return []
            pos += len(separator)
            continue
        src = _read(stages, cwd)
        if src is None:
            return []
        end = _read_end(statements[k + 1 :], lines, pos, src, file_lines)
        found = _windows_of(src, lines[pos:end], file_lines, cwd) if end is not None else []
        if not found:
            return []
        windows += found
        pos = end  # type: ignore[assignment]
    return windows if pos == len(lines) else []


def _read_end(rest: list[list[list[str]]], lines: list[Line], pos: int, src: Read,
              file_lines: Callable[[str], int | None] | None) -> int | None:
    """Where the output of the read at `pos` ends: at the next echoed separator, by its
    known line count, or at the end for the last statement."""
    nxt = next((s for s in rest if _cd(s, None) is None), None)
    if nxt is None:
        return len(lines)
    separator = _echo(nxt)
    if separator is not None:
        texts = [t for _, _, t in lines]
        for j in range(pos, len(lines) - len(separator) + 1):
            if texts[j : j + len(separator)] == separator:
                return j
        return None
    count = _expected_lines(src, file_lines)
    return None if count is None or pos + count > len(lines) else pos + count


def identify_windows(
    command: str | None, observation: str | None, *, returncode: int | None = None,
    file_lines: Callable[[str], int | None] | None = None,
) -> list[RecordedWindow]:
    """The code windows `command` showed in `observation` (see the module docstring); [] for
    any other command, a failed one, or an output that does not fit the command."""
    if not command or not observation or returncode not in (None, 0):
        return []
    statements = plain_statements(command)
    body = output_body(observation)
    if statements is None or body is None:
        return []
    lines = _lines(observation, *body)
    if sum(_cd(s, None) is None for s in statements) > 1:
        return _sequence(statements, lines, file_lines)
    cwd = None
    for stages in statements[:-1]:
        cwd = _cd(stages, cwd)
        if cwd is None:
            return []
    src = _read(statements[-1], cwd)
    return _windows_of(src, lines, file_lines, cwd) if src else []
