"""What an action is: its class (read, search, edit, test, other) and, for code-reading
commands, the code window it shows (file and line span).

The classes are the paper's Appendix A classes. A compound command (`a && b`, `a; b`) takes
the strongest class of its parts in the order edit > test > read > search > other: `sed -i
... && pytest` is an edit. In a pipeline (`a | b`) the first command decides: `cat f | grep
x` reads a file. Tool calls of the LET agent have fixed classes.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

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

_READERS = {"cat", "head", "tail", "nl", "less", "more", "bat", "view", "xxd", "od"}
_SEARCHERS = {"grep", "egrep", "fgrep", "rg", "ag", "ack", "find", "ls", "tree", "fd", "locate", "which", "wc", "file"}
_EDITORS = {"patch", "ed", "ex", "apply_patch", "truncate", "touch", "mv", "cp", "rm", "mkdir"}
_TEST_WORDS = re.compile(r"(^|[\s/])(pytest|py\.test|tox|nox|unittest|runtests\.py|nosetests|trial)(\s|$)|\btest\w*\.py\b|\breproduc\w*\.py\b|\brepro\w*\.py\b")
_WRITE_REDIRECT = re.compile(r"(?<![0-9&])>{1,2}\s*(?!/dev/null)(?!&)\S+")
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


def _split_top(command: str, separators: tuple[str, ...]) -> list[str]:
    """Split on shell operators outside quotes and heredoc bodies (first line only)."""
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
    """Drop env assignments, `cd X` is handled by the splitter, and wrappers like timeout."""
    while words and (re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*=.*", words[0]) or words[0] in {"timeout", "time", "env", "sudo", "nice"}):
        if words[0] == "timeout" and len(words) > 1:
            words = words[2:]
        else:
            words = words[1:]
    return words


def _classify_simple(segment: str, full: str) -> str:
    words = _strip_prefixes(_words(segment))
    if not words:
        return "other"
    cmd = words[0].rsplit("/", 1)[-1]
    if cmd in TOOL_CLASSES:
        return TOOL_CLASSES[cmd]
    if cmd == "sed":
        return "edit" if any(w == "-i" or w.startswith("-i") or w == "--in-place" for w in words[1:]) else "read"
    if cmd in ("perl",) and any(w.startswith("-pi") or w == "-i" for w in words[1:]):
        return "edit"
    if cmd == "tee":
        return "edit"
    if cmd in ("python", "python3") or re.fullmatch(r"python3?(\.\d+)?", cmd):
        if "<<" in full and _python_edits(full):
            return "edit"
        if len(words) > 2 and words[1] == "-c" and _python_edits(words[2]):
            return "edit"
        return "test"
    if cmd == "git":
        sub = words[1] if len(words) > 1 else ""
        if sub in ("apply", "checkout", "restore", "stash", "am", "revert", "reset"):
            return "edit"
        if sub == "grep":
            return "search"
        if sub in ("show", "blame"):
            return "read"
        if sub in ("log",):
            return "search"
        return "other"
    if _TEST_WORDS.search(segment) or cmd in ("make",) and "test" in words:
        return "test"
    if cmd in ("cat", "echo", "printf") and _WRITE_REDIRECT.search(segment.split("<<")[0]):
        return "edit"
    if cmd == "cat" and "<<" in segment and ">" in segment:
        return "edit"
    if cmd in _EDITORS:
        return "edit"
    if cmd in _READERS or cmd == "awk" and "NR" in segment:
        return "read"
    if cmd in _SEARCHERS:
        return "search"
    return "other"


def classify_action(command: str | None) -> str:
    """The action class of one command (see module docstring)."""
    if not command or not command.strip():
        return "other"
    if SUBMIT_MARKER in command:
        return "other"  # mini-swe-agent's submit command
    best = "other"
    for segment in _split_top(command.strip(), ("&&", "||", ";")):
        pipeline = _split_top(segment, ("|",))
        head = pipeline[0] if pipeline else segment
        # `cd dir && ...` contributes nothing
        if _words(head)[:1] == ["cd"]:
            continue
        cls = _classify_simple(head, command)
        if any(_WRITE_REDIRECT.search(p) for p in pipeline[1:]) and cls in ("read", "search", "other"):
            cls = "other"
        if _PRIORITY[cls] < _PRIORITY[best]:
            best = cls
    return best


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
