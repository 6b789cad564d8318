"""What an action is: its class (read, search, edit, test, other) and, for code-reading
commands, the code window it shows (file and line span).

The classes are the paper's Appendix A classes. A command is read as the shell reads it:
split into statements on newlines, `;`, `&`, `&&` and `||`; each statement a pipeline
(`a | b`). A heredoc's body is data for the statement that opened it, never commands, and
comments are dropped; a compound's keywords are not commands (`do cmd` runs cmd, `done` none). A command takes the strongest class of its statements in the order
edit > test > read > search > other: `sed -i ... && pytest` is an edit. In a pipeline the
first command decides, with two exceptions: a read filtered by grep (`cat f | grep x`) is a
search, and a pipeline that writes a file (`echo x | cat > f`) is an edit unless it runs
code or captures `git diff`. Only commands are test words, never file names: writing `reproduce_issue.py` is an
edit, running it is a test, `cat tests/test_x.py` is a read; but running a script that an earlier action
wrote and that rewrites repository files is an edit (`classify_actions` over a trajectory). Tool calls of the LET agent
have fixed classes, as have the file tools of SWE-agent and OpenHands (`str_replace_editor`,
SWE-agent's `open`/`goto`/`scroll_*`, `find_file`/`search_*`, `edit`/`create`).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

ACTION_CLASSES = ("read", "search", "edit", "test", "other")
SUBMIT_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
_PRIORITY = {"edit": 0, "test": 1, "read": 2, "search": 3, "other": 4}

TOOL_CLASSES = {
    "view_code": "read",
    "localize_issue": "search",
    "pack_context": "search",
    "commit_plan": "other",
    "submit": "other",
}
# the file tools of SWE-agent's and OpenHands' agents, by subcommand or by name: their views
# read (a folder's view lists it, a search), their other subcommands edit
EDITOR_TOOLS = {"str_replace_editor", "file_editor", "edit_file"}
ACI_CLASSES = {
    "open": "read", "goto": "read", "scroll_up": "read", "scroll_down": "read", "filemap": "read",
    "find_file": "search", "search_dir": "search", "search_file": "search",
    "edit": "edit", "create": "edit", "insert": "edit", "append": "edit",
}

_READERS = {"cat", "head", "tail", "nl", "less", "more", "bat", "view", "xxd", "od"}
_SEARCHERS = {"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "ls", "tree", "fd", "locate", "which", "whereis", "wc", "file"}
_GREPS = {"grep", "egrep", "fgrep", "rg", "ag", "ack"}
_EDITORS = {"patch", "ed", "ex", "apply_patch", "truncate", "touch", "mv", "cp", "rm", "rmdir", "mkdir", "ln", "unlink"}
# programs that run the code under study: test runners, build tools and the projects' own entry points
_RUNNERS = {"pytest", "py.test", "tox", "nox", "nosetests", "trial", "make", "cmake", "sphinx-build", "pylint", "pyreverse",
            "django-admin", "sqlfluff"}
_SHELLS = {"bash", "sh", "zsh"}
_INSTALLERS = {"pip", "pip3", "apt-get", "apt", "conda", "uv"}
_PREFIXES = {"time", "env", "sudo", "nice", "nohup", "command"}
# shell keywords before a command it runs (`do cmd`, `if cmd`), and those that open or close
# a compound without running one (`for x in ...`, `done`)
_KEYWORDS = {"do", "then", "else", "elif", "if", "while", "until", "!", "{"}
_NO_COMMAND = {"for", "select", "case", "done", "fi", "esac", "}", "cd", "pushd", "popd", "export", "source", "."}
# files that, by convention, have no suffix: a viewer on one reads it, not a folder
_SUFFIXLESS_FILES = {"Makefile", "makefile", "GNUmakefile", "Dockerfile", "LICENSE", "README", "AUTHORS", "CHANGES", "NEWS",
                     "COPYING", "Gemfile", "Rakefile", "Jenkinsfile", "Vagrantfile", "Procfile"}
_HEREDOC = re.compile(r"<<(-?)\s*\\?(['\"]?)([A-Za-z_][\w.\-]*)\2")
# an output redirection to a file (not 2>, not >&1, not /dev/null), on text without quotes
_WRITE_REDIRECT = re.compile(r"(?<![0-9&])>{1,2}\s*(?!/dev/null)(?!&)\S+")
_QUOTED = re.compile(r"'[^']*'|\"(?:\\.|[^\"\\])*\"")
_TARGET = re.compile(r"(?<![0-9&])>{1,2}\s*([^\s<>|&;'\"]+)")  # the file an output redirection writes
_PY_WRITES = re.compile(r"open\([^)]*,\s*['\"][wa]|\.write_text\(|\.write\(|re\.sub\(.*\bwrite")
# a file of the repository named in a Python script, outside a temporary folder: any Python
# source path ('setup.py', '/testbed/pkg/core.py'), or another project file given with its folder
_PY_REPO_PATH = re.compile(
    r"['\"](?!/tmp/|/var/tmp/)(?:/?[\w.\-]+/)*[\w.\-]+\.pyi?['\"]"
    r"|['\"](?!/tmp/|/var/tmp/)/?[\w.\-]+(?:/[\w.\-]+)+\.(?:cfg|toml|ini|txt|rst|md)['\"]"
)
_PY_TEMP = re.compile(r"\btempfile\b|\bmkdtemp\b|TemporaryDirectory|\btmp_path\b")


def _python_edits(script: str) -> bool:
    """A Python script that writes files edits the repository, unless it writes only in a
    temporary folder: a reproduction that builds its input files under tempfile and names
    no repository path is a test run, not an edit."""
    if not _PY_WRITES.search(script):
        return False
    return not (_PY_TEMP.search(script) and not _PY_REPO_PATH.search(script))


@dataclass(frozen=True)
class CodeRead:
    """A command that shows lines start..end of one file (end None: to the end of file;
    start negative: the last -start lines, as `tail -n N`)."""

    path: str
    start: int
    end: int | None
    numbered: bool = False  # the output carries line numbers (nl -ba, cat -n)


@dataclass
class _Statement:
    """One shell statement: its pipeline stages and the heredoc bodies it opened."""

    stages: list[str] = field(default_factory=list)
    bodies: list[str] = field(default_factory=list)


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


def _statements(command: str) -> list[_Statement]:
    """The statements of a shell command, read with quotes, `$(...)`, line continuations,
    comments and heredocs as bash reads them (see module docstring)."""
    out: list[_Statement] = []
    current, buf, pending = _Statement(), [], []
    quote, i, n = None, 0, len(command)

    def cut(end_statement: bool) -> None:
        nonlocal current
        text = "".join(buf).strip()
        buf.clear()
        if text:
            current.stages.append(text)
        if end_statement:
            if current.stages:
                out.append(current)
            current = _Statement()

    while i < n:
        ch = command[i]
        if quote:
            step = 2 if ch == "\\" and quote == '"' else 1
            buf.append(command[i : i + step])
            quote = None if ch == quote else quote
            i += step
        elif ch in "'\"":
            quote = ch
            buf.append(ch)
            i += 1
        elif ch == "\\":
            buf.append("" if command.startswith("\\\n", i) else command[i : i + 2])
            i += 2
        elif command.startswith("$(", i):
            depth, j = 0, i + 1
            while j < n and not (command[j] == ")" and depth == 1):
                depth += {"(": 1, ")": -1}.get(command[j], 0)
                j += 1
            buf.append(command[i : j + 1])
            i = j + 1
        elif ch == "#" and (i == 0 or command[i - 1] in " \t\n;&|("):
            nl = command.find("\n", i)
            i = n if nl < 0 else nl
        elif command.startswith("<<", i) and not command.startswith("<<<", i) and _HEREDOC.match(command, i):
            m = _HEREDOC.match(command, i)
            pending.append((m.group(3), current))
            buf.append(m.group(0))
            i = m.end()
        elif ch == "\n":
            cut(True)
            i += 1
            for delimiter, owner in pending:
                body, i = _heredoc_body(command, i, delimiter)
                owner.bodies.append(body)
            pending.clear()
        elif command.startswith(("&&", "||"), i) or ch == ";" or (
            ch == "&" and command[i - 1 : i] not in ("<", ">") and command[i + 1 : i + 2] != ">"
        ):
            cut(True)
            i += 2 if command.startswith(("&&", "||"), i) else 1
        elif ch == "|":
            cut(False)
            i += 2 if command.startswith("|&", i) else 1
        else:
            buf.append(ch)
            i += 1
    cut(True)
    return out


def _split_top(command: str, separators: tuple[str, ...]) -> list[str]:
    """Split on shell operators outside quotes and heredoc bodies (first line only); the
    code-window detector's splitter, which takes single-line commands only."""
    first_line, _, _ = command.partition("\n") if "<<" in command else (command, "", "")
    parts, buf, quote, i = [], "", None, 0
    text = first_line
    while i < len(text):
        ch = text[i]
        if quote:
            buf += ch
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote = ch
            buf += ch
        else:
            for sep in separators:
                if text.startswith(sep, i) and not (sep == "|" and text.startswith("||", i)) and not (
                    sep == "&" and text.startswith("&&", i)
                ):
                    parts.append(buf)
                    buf = ""
                    i += len(sep)
                    break
            else:
                buf += ch
                i += 1
                continue
            continue
        i += 1
    parts.append(buf)
    return [p.strip() for p in parts if p.strip()]


def _words(segment: str) -> list[str]:
    try:
        return shlex.split(segment, posix=True)
    except ValueError:
        return segment.split()


def _strip_prefixes(words: list[str]) -> list[str]:
    """Drop env assignments, wrappers (timeout N, env, time, nohup, ...) and the shell
    keywords that run the command after them (do, then, if, ...)."""
    while words and (re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]) or words[0] in _PREFIXES | _KEYWORDS
                     or words[0] == "timeout"):
        if words[0] == "timeout":
            words = words[1:]
            while words and words[0].startswith("-"):
                words = words[1:]
            words = words[1:]  # the duration
        else:
            words = words[1:]
    return words


def _writes_file(stage: str) -> bool:
    """The stage redirects its output into a file (quoted text and heredoc markers aside)."""
    return bool(_WRITE_REDIRECT.search(_QUOTED.sub("''", stage).replace("<<", "")))


def _classify_python(args: list[str], bodies: list[str], scripts: Mapping[str, str]) -> str:
    """Running Python is a test, unless it installs packages or its script writes files;
    the script is the -c code, the heredoc, or the file it runs as an earlier action wrote it."""
    if args[:2] == ["-m", "pip"]:
        return "other"
    script = args[args.index("-c") + 1] if "-c" in args[:-1] else "\n".join(bodies)
    if not script and args and not args[0].startswith("-"):
        script = scripts.get(args[0].rsplit("/", 1)[-1], "")
    return "edit" if script and _python_edits(script) else "test"


def _classify_git(args: list[str]) -> str:
    sub = args[0] if args else ""
    if sub in ("apply", "checkout", "restore", "stash", "am", "revert", "reset", "mv", "rm"):
        return "edit"
    if sub in ("grep", "log"):
        return "search"
    if sub in ("show", "blame"):
        return "read"
    return "other"


def _classify_editor(args: list[str]) -> str:
    """`str_replace_editor view PATH` reads a file: one with a line range, a suffix or a
    conventional name (Makefile); another path is a folder, whose view is a listing (a
    search). create, str_replace, insert, undo_edit edit."""
    if args[:1] != ["view"]:
        return "edit"
    name = (args[1] if len(args) > 1 else "").rstrip("/").rsplit("/", 1)[-1]
    return "read" if "--view_range" in args or "." in name or name in _SUFFIXLESS_FILES else "search"


def _classify_simple(words: list[str], text: str, bodies: list[str], scripts: Mapping[str, str]) -> str:
    """The class of one simple command (words without prefixes) given its raw text and the
    scripts earlier actions wrote."""
    cmd, args = words[0].rsplit("/", 1)[-1], words[1:]
    if cmd in TOOL_CLASSES:
        return TOOL_CLASSES[cmd]
    if cmd in EDITOR_TOOLS:
        return _classify_editor(args)
    if cmd in ACI_CLASSES and not text.lstrip().startswith(("./", "/")):
        return ACI_CLASSES[cmd]
    if any(a in ("--version", "--help") for a in args) or args in (["-V"], ["-h"]):
        return "other"  # asking a program about itself
    if cmd in _SHELLS:
        if args[:1] == ["-c"] and len(args) > 1:
            return classify_action(args[1], scripts)
        return "test" if args else "other"
    if cmd == "xargs":
        rest = [a for a in args if not a.startswith("-")]
        return _classify_simple(rest, text, bodies, scripts) if rest else "other"
    if cmd == "sed":
        return "edit" if any(w == "--in-place" or re.fullmatch(r"-[a-zA-Z]*i.*", w) for w in args) else "read"
    if cmd == "perl":
        return "edit" if any(w.startswith("-pi") or w == "-i" for w in args) else "other"
    if cmd == "tee" or (cmd == "sort" and any(a.startswith("-o") for a in args)):
        return "edit"
    if re.fullmatch(r"python3?(\.\d+)?", cmd):
        return _classify_python(args, bodies, scripts)
    if cmd in _INSTALLERS:
        return "other"
    if cmd == "git":
        return _classify_git(args)
    if cmd in _RUNNERS:
        return "test"
    if cmd in _EDITORS:
        return "edit"
    if cmd in _READERS:
        files = [a for a in args if not a.startswith(("-", "<", ">"))]
        return "other" if bodies and not files else "read"  # `cat <<EOF` prints its heredoc
    if cmd == "awk":
        return "read" if "NR" in text else "other"
    if cmd in _SEARCHERS:
        return "search"
    if "/" in words[0] or cmd.endswith((".py", ".sh")):
        return "test"  # a program run by its path: ./tests/runtests.py, bin/test, ./repro.sh
    return "other"


def _classify_statement(statement: _Statement, scripts: Mapping[str, str]) -> str | None:
    """The class of one pipeline (see module docstring); None for `cd`, assignments and the
    keywords of a compound (`for x in ...`, `done`)."""
    stages = [_strip_prefixes(_words(s)) for s in statement.stages]
    if not stages[0] or stages[0][0] in _NO_COMMAND:
        return None
    cls = _classify_simple(stages[0], statement.stages[0], statement.bodies, scripts)
    later = [w for w in stages[1:] if w]
    if cls == "read" and any(w[0].rsplit("/", 1)[-1] in _GREPS for w in later):
        cls = "search"
    if cls in ("read", "search", "other"):
        runs = [_classify_simple(w, "", [], scripts) for w in later]
        if "test" in runs:
            cls = "test"
        # `git diff > patch.txt` captures the submission; it does not change the repository
        captures = stages[0][0] == "git"
        if "edit" in runs or (not captures and any(_writes_file(s) for s in statement.stages)):
            cls = "edit"
    return cls


def classify_action(command: str | None, scripts: Mapping[str, str] | None = None) -> str:
    """The action class of one command (see module docstring); `scripts` (file name ->
    text, from `scripts_written` of the earlier actions) lets `python fix.py` be the edit
    the script fix.py makes."""
    if not command or not command.strip():
        return "other"
    if SUBMIT_MARKER in command:
        return "other"  # mini-swe-agent's submit command
    best = "other"
    for statement in _statements(command):
        cls = _classify_statement(statement, scripts or {})
        if cls is not None and _PRIORITY[cls] < _PRIORITY[best]:
            best = cls
    return best


def scripts_written(command: str | None) -> dict[str, str]:
    """The files a command writes whole, by file name, with their text: a heredoc into a
    file (`cat > F <<EOF`, `cat <<EOF > F`, `tee F <<EOF`) or the editor's `create F
    --file_text T`. A later `python F` runs that text."""
    out: dict[str, str] = {}
    for statement in _statements(command or ""):
        words = _strip_prefixes(_words(statement.stages[0]))
        if words[:2] == ["str_replace_editor", "create"] and len(words) == 5 and words[3] == "--file_text":
            out[words[2].rsplit("/", 1)[-1]] = words[4]
        if not statement.bodies or not words or words[0] not in ("cat", "tee"):
            continue
        target = _TARGET.search(_QUOTED.sub("''", statement.stages[0]).replace("<<", ""))
        name = target.group(1) if words[0] == "cat" and target else (words[1] if words[0] == "tee" and len(words) > 1 else None)
        if name:
            out[name.rsplit("/", 1)[-1]] = statement.bodies[0]
    return out


def classify_actions(commands: Iterable[str | None]) -> list[str]:
    """The classes of a trajectory's commands in order, each seeing the scripts the earlier
    ones wrote: running a script that rewrites repository files is an edit, not a test."""
    scripts: dict[str, str] = {}
    classes = []
    for command in commands:
        classes.append(classify_action(command, scripts))
        scripts.update(scripts_written(command))
    return classes


_SED_RANGE = re.compile(r"^(\d+)(?:,(\d+|\$))?p$")


def _sed_range(expr: str) -> tuple[int, int | None] | None:
    m = _SED_RANGE.match(expr.strip().strip("'\""))
    if not m:
        return None
    start = int(m.group(1))
    end = None if m.group(2) == "$" else int(m.group(2)) if m.group(2) else start
    return start, end


def _single_file(words: list[str]) -> str | None:
    files = [w for w in words if not w.startswith("-")]
    return files[0] if len(files) == 1 else None


def _read_of(words: list[str]) -> CodeRead | None:
    """A code window shown by one simple command (no pipe)."""
    words = _strip_prefixes(words)
    if not words:
        return None
    cmd, args = words[0].rsplit("/", 1)[-1], words[1:]
    if cmd == "view_code" and args:
        path = args[0]
        nums = [int(a) for a in args[1:3] if re.fullmatch(r"\d+", a)]
        start = nums[0] if nums else 1
        end = nums[1] if len(nums) > 1 else None
        return CodeRead(path, start, end, numbered=True)
    if cmd == "cat":
        numbered = any(a in ("-n", "--number") for a in args)
        path = _single_file([a for a in args if a not in ("-n", "--number")])
        return CodeRead(path, 1, None, numbered) if path else None
    if cmd == "nl":
        path = _single_file([a for a in args if a not in ("-ba", "-b", "a")])
        return CodeRead(path, 1, None, True) if path else None
    if cmd == "sed" and len(args) >= 3 and args[0] == "-n":
        rng = _sed_range(args[1])
        path = _single_file(args[2:])
        return CodeRead(path, rng[0], rng[1]) if rng and path else None
    if cmd in ("head", "tail"):
        n, rest, i = 10, [], 0
        from_start = None
        while i < len(args):
            a = args[i]
            if a in ("-n", "--lines") and i + 1 < len(args):
                val = args[i + 1]
                i += 2
            elif re.fullmatch(r"-n?\+?\d+", a):
                val = a.lstrip("-n")
                i += 1
            elif a.startswith("--lines="):
                val = a.split("=", 1)[1]
                i += 1
            else:
                rest.append(a)
                i += 1
                continue
            if val.startswith("+"):
                from_start = int(val[1:])
            else:
                n = int(val)
        path = _single_file(rest)
        if not path:
            return None
        if cmd == "head":
            return CodeRead(path, 1, n)
        return CodeRead(path, from_start, None) if from_start else CodeRead(path, -n, None)
    return None


def detect_code_read(command: str | None) -> CodeRead | None:
    """The code window a code-reading command shows, or None for any other command.

    Recognized: `cat [-n] F`, `sed -n 'A,Bp' F`, `head`/`tail` with line counts, `nl -ba F`,
    `nl -ba F | sed -n 'A,Bp'`, `cat -n F | sed -n 'A,Bp'`, `view_code F A B`; optionally
    after `cd DIR &&`. Anything else (several files, other filters) is not a code window.
    """
    if not command or "<<" in command:
        return None
    segments = _split_top(command.strip(), ("&&", ";"))
    while segments and _words(segments[0])[:1] == ["cd"]:
        segments = segments[1:]
    if len(segments) != 1 or "||" in segments[0]:
        return None
    pipeline = _split_top(segments[0], ("|",))
    if any(re.search(r"(?<![0-9&])>", p) for p in pipeline):
        return None
    first = _read_of(_words(pipeline[0]))
    if first is None:
        return None
    if len(pipeline) == 1:
        return first
    if len(pipeline) == 2 and first.start == 1 and first.end is None:
        words = _words(pipeline[1])
        if words[:2] == ["sed", "-n"] and len(words) == 3:
            rng = _sed_range(words[2])
            if rng:
                return CodeRead(first.path, rng[0], rng[1], first.numbered)
        if words and words[0] == "head":
            sub = _read_of(words + ["__stdin__"])
            if sub and sub.end:
                return CodeRead(first.path, 1, sub.end, first.numbered)
    return None
