"""Shell commands as the shell reads them, and what the commands that read code print.

One parser for the two questions asked of an agent's command: its action class
(swevis.agents.observation.actions) and the code windows its output shows (swevis.agents.observation.output_windows).

`statements` splits a command into statements on newlines, `;`, `&`, `&&` and `||`, each a
pipeline of simple commands (`a | b`, `a |& b`). Quotes are removed from words, `$(...)` and
backquotes stay one word, a line continuation joins its lines, comments are dropped, and
redirections (`> f`, `2>&1`, `<<EOF`) are taken out of the words. A heredoc's body is data
of the statement that opened it, never commands.

`pipeline_read` says what a pipeline prints when it reads code (a `Read`): the readers
`sed -n 'A,Bp' F`, `nl [-ba] F`, `cat [-n] F`, `head`/`tail` with line counts, `awk` NR
ranges, `git show REV:F`, `view_code F [A [B]]`; filters after a reader (`| sed -n 'A,Bp'`,
`| head`, `| tail`, `| nl -ba`, `| cat -n`, `| grep` with context lines); grep with context
lines on files; and the commands whose output carries its own file names and lines (diffs,
the file viewers of SWE-agent and OpenHands). Which of these shows a window is the callers'
to decide: from the command alone (`actions.detect_code_read`) or from the output
(`output_windows.identify_windows`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

SWEBENCH_ROOT = "/testbed/"  # where SWE-bench images hold the repository: paths below it are repository paths

# -- statements ---------------------------------------------------------------------------

_HEREDOC = re.compile(r"<<(-?)\s*\\?(['\"]?)([A-Za-z_][\w.\-]*)\2")
_REDIRECT = re.compile(r"&>>|&>|<<<|<<|<>|<&|>&|>>|>\||<|>")
_COMMENT_AFTER = " \t\n;&|("  # a `#` starts a comment at the start of a word after these


@dataclass(frozen=True)
class Redirect:
    """One redirection: `2>&1` is fd "2", op ">&", target "1"; a heredoc's target is its delimiter."""

    op: str
    fd: str
    target: str


@dataclass
class SimpleCommand:
    """One stage of a pipeline: its text as typed, its words, and its redirections."""

    text: str
    words: list[str] = field(default_factory=list)
    redirects: list[Redirect] = field(default_factory=list)

    def files_written(self) -> list[str]:
        """The files its standard output goes into (`> f`, `>> f`, `&> f`; not /dev/null)."""
        return [r.target for r in self.redirects
                if r.op in (">", ">>", ">|", "&>", "&>>") and r.fd in ("", "1") and r.target not in ("", "/dev/null")]


@dataclass
class Statement:
    """One shell statement: its pipeline stages, the heredoc bodies it opened, and the
    operator that ended it ("\\n", ";", "&", "&&", "||", or "" at the end of the command)."""

    stages: list[SimpleCommand] = field(default_factory=list)
    bodies: list[str] = field(default_factory=list)
    ended_by: str = ""


def _heredoc_body(command: str, i: int, delimiter: str) -> tuple[str, int]:
    """The body of a heredoc that starts at offset i, and the offset after its end line
    (a missing end line: the body runs to the end of the command, as bash reads it)."""
    j = i
    while j < len(command):
        nl = command.find("\n", j)
        line_end = len(command) if nl < 0 else nl
        if command[j:line_end].strip() == delimiter:
            return command[i:j], line_end + 1
        j = line_end + 1
    return command[i:], len(command)


def _closing(command: str, i: int) -> int:
    """The offset after the `$(...)` (parentheses counted) or backquoted text at offset i."""
    if command[i] == "`":
        j = command.find("`", i + 1)
        return len(command) if j < 0 else j + 1
    depth, j = 0, i + 1
    while j < len(command) and not (command[j] == ")" and depth == 1):
        depth += {"(": 1, ")": -1}.get(command[j], 0)
        j += 1
    return j + 1


def _quoted(command: str, i: int) -> tuple[str, str, int]:
    """The quoted text at offset i: (as typed, its value, the offset after it). Inside double
    quotes a backslash escapes only `"`, `\\`, `$`, a backquote and a newline, as in bash."""
    quote, j, value = command[i], i + 1, []
    while j < len(command) and command[j] != quote:
        if quote == '"' and command[j] == "\\" and j + 1 < len(command):
            nxt = command[j + 1]
            value.append("" if nxt == "\n" else nxt if nxt in '"\\$`' else command[j : j + 2])
            j += 2
        else:
            value.append(command[j])
            j += 1
    return command[i : j + 1], "".join(value), j + 1


class _Reader:
    """The state of one pass over a command (see `statements`)."""

    def __init__(self, command: str):
        self.command = command
        self.out: list[Statement] = []
        self.statement = Statement()
        self.text: list[str] = []  # the current stage as typed
        self.words: list[str] = []
        self.redirects: list[Redirect] = []
        self.word: list[str] | None = None  # the word being read (None: between words)
        self.bare_digits = False  # the word so far is unquoted digits: a file descriptor if an operator follows
        self.op: tuple[str, str] | None = None  # a redirection waiting for its target: (op, fd)
        self.heredocs: list[tuple[str, Statement]] = []  # delimiters waiting for the end of the line

    def add(self, typed: str, value: str, bare: bool = False) -> None:
        """A piece of the current word: as typed, and its value (quotes and escapes removed)."""
        self.text.append(typed)
        self.bare_digits = (self.word is None or self.bare_digits) and bare and value.isdigit()
        if self.word is None:
            self.word = []
        self.word.append(value)

    def end_word(self) -> None:
        if self.word is None:
            return
        word, self.word = "".join(self.word), None
        if self.op is not None:
            self.redirects.append(Redirect(self.op[0], self.op[1], word))
            self.op = None
        else:
            self.words.append(word)

    def redirect(self, op: str, target: str | None = None) -> None:
        """An operator read: a pending descriptor word is its fd; a heredoc brings its target."""
        fd = "".join(self.word) if self.word is not None and self.bare_digits else ""
        if fd:
            self.word = None
        self.end_word()
        if self.op is not None:  # an operator without a target
            self.redirects.append(Redirect(self.op[0], self.op[1], ""))
        if target is None:
            self.op = (op, fd)
        else:
            self.op = None
            self.redirects.append(Redirect(op, fd, target))

    def end_stage(self) -> None:
        self.end_word()
        if self.op is not None:
            self.redirects.append(Redirect(self.op[0], self.op[1], ""))
            self.op = None
        text = "".join(self.text).strip()
        if text:
            self.statement.stages.append(SimpleCommand(text, self.words, self.redirects))
        self.text, self.words, self.redirects = [], [], []

    def end_statement(self, operator: str) -> None:
        self.end_stage()
        if self.statement.stages:
            self.statement.ended_by = operator
            self.out.append(self.statement)
        self.statement = Statement()


def _operator(r: _Reader, i: int) -> int | None:
    """Read the control or redirection operator at offset i, if one starts there; the offset after it."""
    command = r.command
    if command[i] == "\n":
        r.end_statement("\n")
        i += 1
        for delimiter, owner in r.heredocs:
            body, i = _heredoc_body(command, i, delimiter)
            owner.bodies.append(body)
        r.heredocs.clear()
        return i
    if command.startswith(("&&", "||"), i) or command[i] == ";" or (command[i] == "&" and command[i + 1 : i + 2] != ">"):
        op = command[i : i + 2] if command.startswith(("&&", "||"), i) else command[i]
        r.end_statement(op)
        return i + len(op)
    if command[i] == "|":
        r.end_stage()
        return i + (2 if command.startswith("|&", i) else 1)
    if command.startswith("<<", i) and not command.startswith("<<<", i) and (m := _HEREDOC.match(command, i)):
        r.redirect("<<" + m.group(1), m.group(3))
        r.text.append(m.group(0))
        r.heredocs.append((m.group(3), r.statement))
        return m.end()
    if m := _REDIRECT.match(command, i):
        r.redirect(m.group(0))
        r.text.append(m.group(0))
        return m.end()
    return None


def statements(command: str) -> list[Statement]:
    """The statements of a shell command, read as bash reads them (see the module docstring)."""
    r, i, n = _Reader(command), 0, len(command)
    while i < n:
        ch = command[i]
        if ch in "'\"":
            typed, value, i = _quoted(command, i)
            r.add(typed, value)
        elif ch == "\\":
            if command.startswith("\\\n", i):  # a line continuation
                i += 2
                continue
            r.add(command[i : i + 2], command[i + 1 : i + 2] or "\\")
            i += 2
        elif command.startswith("$(", i) or ch == "`":
            j = _closing(command, i)
            r.add(command[i:j], command[i:j])
            i = j
        elif ch == "#" and (i == 0 or command[i - 1] in _COMMENT_AFTER):
            nl = command.find("\n", i)
            i = n if nl < 0 else nl
        elif ch in " \t\r":
            r.end_word()
            r.text.append(ch)
            i += 1
        elif (after := _operator(r, i)) is not None:
            i = after
        else:
            r.add(ch, ch, bare=True)
            i += 1
    r.end_statement("")
    return r.out


_PREFIXES = {"time", "env", "sudo", "nice", "nohup", "command"}
# shell keywords that run the command after them (`do cmd`, `if cmd`)
_KEYWORDS = {"do", "then", "else", "elif", "if", "while", "until", "!", "{"}


def command_words(words: list[str]) -> list[str]:
    """The words of the command a stage runs: without variable assignments, wrappers
    (timeout N, env, time, nohup, ...) and the shell keywords that run the command after
    them (do, then, if, ...)."""
    while words and (re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]) or words[0] in _PREFIXES | _KEYWORDS
                     or words[0] == "timeout"):
        if words[0] == "timeout":
            words = words[1:]
            while words and words[0].startswith("-"):
                words = words[2:] if words[0] in ("-s", "-k") else words[1:]  # -s SIGNAL, -k DURATION
            words = words[1:]  # the duration
        else:
            words = words[1:]
    return words


# -- what a read prints -------------------------------------------------------------------


@dataclass(frozen=True)
class Read:
    """What a command that reads code prints: lines of `path` from line `first` (None: not
    known from the command) up to `end` (None: the file's end), or the last `last_n` lines.

    numbers: how the output numbers its lines: None, "nl" (nl -ba, cat -n, view_code),
    "nlbt" (nl leaving blank lines unnumbered), "nlrel" (nl after a range: numbered from 1,
    not from the file's line), "awk" (NR printed by awk). grep: grep with context lines, "n"
    (grep -n), "plain" (no -n, over nl's lines) or "files" (F:N: in its output). special: an
    output that names its own files and lines, "swe" (SWE-agent's viewer), "editor" (the
    file viewer) or "diff" (hunks); path is then "". revision: `git show REV:F` prints F as
    committed at REV, not as the working tree has it."""

    path: str
    first: int | None
    numbers: str | None
    last_n: int | None = None
    grep: str | None = None
    end: int | None = None
    special: str | None = None
    revision: str | None = None


SWE_VIEWERS = {"open", "goto", "scroll_up", "scroll_down", "edit", "create", "insert", "append"}
EDITORS = {"str_replace_editor", "file_editor"}
DIFF_COMMANDS = {"diff", "show", "log", "stash"}  # git subcommands whose output may carry hunks
_SED = re.compile(r"^(\d+)(?:\s*,\s*(\d+|\$))?\s*p$")


def _sed_range(words: list[str]) -> tuple[tuple[int, int | None], list[str]] | None:
    """`sed -n 'A,Bp' ...` (also 'Ap', 'A,$p'): ((A, B or None), the words after the range)."""
    if len(words) < 3 or words[0] != "sed" or words[1] != "-n":
        return None
    m = _SED.match(words[2].strip())
    if not m:
        return None
    end = int(m.group(1)) if m.group(2) is None else None if m.group(2) == "$" else int(m.group(2))
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


_AWK_RANGE = [  # (program start, the offset of its first line, of its last line)
    (re.compile(r"^NR\s*>=\s*(\d+)\s*&&\s*NR\s*<=\s*(\d+)"), 0, 0),
    (re.compile(r"^NR\s*>\s*(\d+)\s*&&\s*NR\s*<\s*(\d+)"), 1, -1),
    (re.compile(r"^NR\s*==\s*(\d+)\s*,\s*NR\s*==\s*(\d+)"), 0, 0),
]
_AWK_PRINT = re.compile(r"\{\s*print(\s+\$0)?\s*;?\s*\}")
_AWK_PRINT_NR = re.compile(r"\{\s*printf?\s*\(?\s*(\"[^\"]*\"\s*,\s*)?NR\b.*\}")


def _awk(args: list[str]) -> tuple[int, int, bool] | None:
    """(first line, last line of an NR range program, whether it prints NR before each line)."""
    if len(args) != 2:
        return None
    prog = args[0].strip()
    for pattern, lo, hi in _AWK_RANGE:
        m = pattern.match(prog)
        if m:
            rest = prog[m.end() :].strip()
            if rest and not (_AWK_PRINT.fullmatch(rest) or _AWK_PRINT_NR.fullmatch(rest)):
                return None
            return int(m.group(1)) + lo, int(m.group(2)) + hi, "NR" in rest
    return None


@dataclass(frozen=True)
class _GrepCall:
    numbered: bool
    context: bool
    names: bool | None  # True: -r/-R/-H (file names shown), False: -h, None: as grep decides
    operands: list[str]  # files (and folders); the pattern taken out


_GREP_LONG = {"--after-context": "ctx", "--before-context": "ctx", "--context": "ctx", "--line-number": "n",
              "--recursive": "names", "--dereference-recursive": "names", "--with-filename": "names",
              "--no-filename": "nonames", "--include": "", "--exclude": "", "--exclude-dir": "", "--color": "",
              "--colour": "", "--ignore-case": "", "--word-regexp": "", "--extended-regexp": "", "--fixed-strings": "",
              "--perl-regexp": "", "--binary-files": "", "-I": ""}


def _grep_call(args: list[str]) -> _GrepCall | None:
    """grep's options that decide what its output is; None for one whose output is no code
    (-l, -L, -c, -o, -q, -v) or with an option not known here."""
    numbered = context = False
    names: bool | None = None
    pattern, operands, i = None, [], 0
    while i < len(args):
        a = args[i]
        if a in ("-e", "--regexp") and i + 1 < len(args):
            pattern, i = args[i + 1], i + 2
            continue
        if a.startswith("--"):
            name, _, _ = a.partition("=")
            kind = _GREP_LONG.get(name)
            if kind is None:
                return None
            context |= kind == "ctx"
            numbered |= kind == "n"
            names = True if kind == "names" else False if kind == "nonames" else names
            if kind == "ctx" and "=" not in a:
                i += 1
        elif a.startswith("-") and len(a) > 1 and not a[1:].isdigit():
            flags = a[1:]
            for j, c in enumerate(flags):
                if c in "lLcoqv":
                    return None
                if c in "ABC" or c == "m":
                    digits = flags[j + 1 :]
                    if not digits and i + 1 < len(args) and args[i + 1].isdigit():
                        i += 1
                    elif digits and not digits.isdigit():
                        return None
                    context |= c != "m"
                    break
                if c == "e":
                    pattern = flags[j + 1 :] or (args[i + 1] if i + 1 < len(args) else "")
                    i += 0 if flags[j + 1 :] else 1
                    break
                numbered |= c == "n"
                names = True if c in "rRH" else False if c == "h" else names
        elif a.startswith("-") and a[1:].isdigit():
            context = True  # -5: five lines each side
        else:
            operands.append(a)
        i += 1
    if pattern is None:
        if not operands:
            return None
        operands = operands[1:]
    return _GrepCall(numbered, context, names, operands)


def _grep_read(args: list[str]) -> Read | None:
    """grep with context lines over files: one file with -n, or file names in the output."""
    g = _grep_call(args)
    if g is None or not g.context or not g.numbered or g.names is False and len(g.operands) != 1:
        return None
    if len(g.operands) == 1 and not g.names and not re.search(r"[*?\[]", g.operands[0]):  # a glob: several files
        return Read(g.operands[0], 1, None, grep="n")
    return Read("", 1, None, grep="files")


def _single(args: list[str]) -> str | None:
    """The one file of a reader's arguments, when they are exactly one file."""
    files = [a for a in args if not a.startswith("-")]
    return files[0] if len(files) == 1 and len(files) == len(args) else None


def _git_read(args: list[str]) -> Read | None:
    """`git show REV:F` prints the file; a diff-printing subcommand prints hunks."""
    if not args:
        return None
    if args[0] == "show" and len(args) == 2 and re.fullmatch(r"[^:\s-][^:\s]*:[^:\s]+", args[1]):
        revision, path = args[1].split(":", 1)
        return Read(path, 1, None, revision=revision)
    if args[0] in DIFF_COMMANDS:
        return Read("", None, None, special="diff")
    return None


def _head_or_tail(cmd: str, args: list[str]) -> Read | None:
    val, rest = _count(args)
    path = _single(rest)
    if not path or (val is not None and not re.fullmatch(r"\+?\d+", val)):
        return None
    if cmd == "head":
        return Read(path, 1, None, end=int(val or 10))
    if val is not None and val.startswith("+"):
        return Read(path, int(val[1:]), None)
    return Read(path, None, None, last_n=int(val or 10))


def _view_code(args: list[str]) -> Read | None:
    """The LET agent's `view_code F [A [B]]`: numbered like nl -ba."""
    nums = [int(a) for a in args[1:3] if re.fullmatch(r"\d+", a)]
    if not args or len(nums) != len(args) - 1:
        return None
    return Read(args[0], nums[0] if nums else 1, "nl", end=nums[1] if len(nums) > 1 else None)


def command_read(words: list[str]) -> Read | None:
    """What one simple command prints, when it reads code (see the module docstring)."""
    cmd, args = words[0].rsplit("/", 1)[-1], words[1:]
    if cmd == "sed":
        got = _sed_range(words)
        path = _single(got[1]) if got else None
        return Read(path, got[0][0], None, end=got[0][1]) if got and path else None
    if cmd == "nl":
        path = _single([a for a in args if a not in ("-ba", "-b", "a")])
        return Read(path, 1, "nl" if "-ba" in args or "a" in args else "nlbt") if path else None
    if cmd == "cat":
        numbered = any(a in ("-n", "--number") for a in args)
        path = _single([a for a in args if a not in ("-n", "--number")])
        return Read(path, 1, "nl" if numbered else None) if path else None
    if cmd in ("head", "tail"):
        return _head_or_tail(cmd, args)
    if cmd in ("awk", "gawk"):
        got = _awk(args)
        return Read(args[1], got[0], "awk" if got[2] else None, end=got[1]) if got else None
    if cmd in ("grep", "egrep"):
        return _grep_read(args)
    if cmd == "git":
        return _git_read(args)
    if cmd == "view_code":
        return _view_code(args)
    if cmd == "diff" and any(a.startswith("-") and "u" in a for a in args):
        return Read("", None, None, special="diff")
    if cmd in EDITORS and args[:1] in (["view"], ["str_replace"], ["insert"], ["undo_edit"]):
        return Read("", None, None, special="editor")  # the file and its lines are in the output
    if cmd in SWE_VIEWERS:
        return Read("", None, None, special="swe")
    return None


def _min_end(a: int | None, b: int | None) -> int | None:
    return b if a is None else a if b is None else min(a, b)


def _filtered(read: Read, words: list[str]) -> Read | None:
    """The read as seen through one more pipeline stage, or None."""
    cmd = words[0]
    if read.special == "diff" or read.grep:  # hunks and grep groups may be cut short by head
        return read if cmd == "head" and not _count(words[1:])[1] else None
    if read.special or read.last_n is not None or read.first is None:
        return None
    if cmd == "sed":
        got = _sed_range(words)
        if not got or got[1]:
            return None
        (a, b) = got[0]
        end = read.first + b - 1 if b is not None else None
        return replace(read, first=read.first + a - 1, end=_min_end(end, read.end))
    if cmd in ("head", "tail"):
        val, rest = _count(words[1:])
        if rest or (val is not None and not re.fullmatch(r"\+?\d+", val)):
            return None
        if cmd == "head":
            return replace(read, end=_min_end(read.first + int(val or 10) - 1, read.end))
        if val is not None and val.startswith("+"):
            return replace(read, first=read.first + int(val[1:]) - 1)
        return replace(read, first=None, last_n=int(val or 10)) if read.end is not None or read.numbers else None
    if words in (["nl", "-ba"], ["nl", "-b", "a"], ["cat", "-n"]) and read.numbers is None:
        return replace(read, numbers="nl" if read.first == 1 else "nlrel")  # numbered from 1: shifted to the file's
    if cmd in ("grep", "egrep"):
        g = _grep_call(words[1:])
        if g is None or not g.context or g.operands or g.names:
            return None
        if g.numbered:
            return replace(read, grep="n")
        return replace(read, grep="plain") if read.numbers == "nl" else None
    return None


def pipeline_read(stages: list[list[str]]) -> Read | None:
    """What a pipeline (the words of each stage) prints, through its filters, or None when
    it is no read."""
    first = command_words(stages[0]) if stages else []
    read = command_read(first) if first else None
    for stage in stages[1:]:
        words = command_words(stage)
        read = _filtered(read, words) if read and words else None
    return read


def folder_after(words: list[str], cwd: str | None) -> str | None:
    """The folder after a plain `cd DIR` (its words) run in `cwd` (None: where the command
    started), or None when the words are no plain cd."""
    if len(words) != 2 or words[0] != "cd":
        return None
    return words[1] if cwd is None or words[1].startswith("/") else f"{cwd.rstrip('/')}/{words[1]}"


def repository_path(path: str, cwd: str | None) -> str:
    """A path as the repository knows it: the cd folder prefixed, a SWE-bench image's
    /testbed/ and a leading `./` dropped (`grep -rn X --include=*.go .` prints ./pkg/a.go)."""
    if not path:
        return path
    full = path if path.startswith("/") or cwd is None else f"{cwd.rstrip('/')}/{path}"
    full = full.removeprefix(SWEBENCH_ROOT)
    while full.startswith("./"):
        full = full[2:].lstrip("/")
    return full


def _plain(stage: SimpleCommand) -> bool:
    """The stage prints what it reads: it redirects nothing but stderr into /dev/null or one
    stream into another (2>&1)."""
    return all((r.target == "/dev/null" and r.fd not in ("", "1") and r.op != "&>") or (r.op == ">&" and r.target.isdigit())
               for r in stage.redirects)


def _tool_call(command: str) -> str | None:
    """The first line of a call of SWE-agent's windowed tools, which read the lines after it
    as text (edit's replacement, up to end_of_edit), not as commands; None for another command."""
    first = command.strip().split("\n", 1)[0]
    return first if first.split(" ", 1)[0] in SWE_VIEWERS else None


def plain_statements(command: str) -> list[list[list[str]]] | None:
    """The statements of a command that runs plain commands one after another (on newlines,
    `;` and `&&`), each the words of its pipeline's stages; None for a command with a heredoc,
    a substitution, `||`, a background job, a stage without a command or a redirection other than
    stderr into /dev/null or between streams: its output is not simply what its commands print.
    A call of SWE-agent's windowed tools is its first line."""
    command = _tool_call(command) or command
    if "<<" in command or "$(" in command or "`" in command:
        return None
    found = statements(command)
    if not found or any(s.ended_by in ("||", "&") for s in found):
        return None
    if not all(stage.words and _plain(stage) for s in found for stage in s.stages):
        return None
    return [[stage.words for stage in s.stages] for s in found]
