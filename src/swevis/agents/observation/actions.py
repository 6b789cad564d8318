"""What an action is: its class (read, search, edit, test, other) and, for code-reading
commands, the code window it shows (file and line span).

The classes are the paper's Appendix A classes. A command is read as the shell reads it
(swevis.agents.observation.shell): split into statements on newlines, `;`, `&`, `&&` and `||`; each
statement a pipeline (`a | b`). A heredoc's body is data for the statement that opened it,
never commands, and comments are dropped; a compound's keywords are not commands (`do cmd`
runs cmd, `done` none). A command takes the strongest class of its statements in the order
edit > test > read > search > other: `sed -i ... && pytest` is an edit. In a pipeline the
first command decides, with two exceptions: a read filtered by grep (`cat f | grep x`) is a
search, and a pipeline whose output goes into a file (`echo x | cat > f`) is an edit unless
it runs code or captures `git diff`. The runners of every indexed language are tests as pytest
is: mvn, gradle and their wrappers (a goal that only lists dependencies or tasks is other),
`npm test`/`yarn test`/`pnpm run X` (installing with them is other), npx and the binaries it
runs (jest, mocha, vitest, tsc), `node --test` and node scripts, `go test`/`go build`/`go vet`
(`go get`, `go mod` are other), `cargo test`/`build`/`check` (`cargo fmt` is an edit).
Only commands are test words, never file names: writing `reproduce_issue.py` is an
edit, running it is a test, `cat tests/test_x.py` is a read; but running a script that an earlier action
wrote and that rewrites repository files is an edit (`classify_actions` over a trajectory). Tool calls of the LET agent
have fixed classes, as have the file tools of SWE-agent and OpenHands (`str_replace_editor`,
SWE-agent's `open`/`goto`/`scroll_*`, `find_file`/`search_*`, `edit`/`create`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from swevis.agents.observation.shell import (SimpleCommand, Statement, command_words, folder_after, pipeline_read,
                                             plain_statements, statements)
from swevis.agents.tool_registry import tool_class

ACTION_CLASSES = ("read", "search", "edit", "test", "other")
SUBMIT_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
_PRIORITY = {"edit": 0, "test": 1, "read": 2, "search": 3, "other": 4}

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
# test runners of other languages, run by name (or through npx: `npx jest`)
_RUNNERS |= {"jest", "mocha", "vitest", "jasmine", "ava", "karma", "tap", "tsc", "ts-node", "tsx", "javac", "rustc"}
# build tools whose goals compile and test the project; asking only what it has is other
_BUILD_TOOLS = {"mvn", "mvnw", "gradle", "gradlew"}
_BUILD_QUERIES = re.compile(r"dependency:\S*|help:\S*|dependencies|tasks|projects|properties")
# package managers: installing is other, running a script of the project (`npm test`,
# `yarn test`, `pnpm run lint`) or a package's binary (`yarn jest`) runs its code
_PACKAGE_MANAGERS = {"npm", "yarn", "pnpm", "bun"}
_PACKAGE_INSTALLS = {"install", "i", "ci", "add", "remove", "uninstall", "rm", "update", "upgrade", "link", "init",
                     "config", "cache", "view", "info", "ls", "list", "outdated", "audit", "why", "pack", "publish"}
# go's and cargo's subcommands that compile or run the code (`go test`, `cargo test`)
_GO_RUNS = {"test", "run", "build", "vet", "generate"}
_CARGO_RUNS = {"test", "run", "build", "check", "bench", "clippy", "nextest", "miri"}
# a Node script that writes files (as _PY_WRITES for Python)
_JS_WRITES = re.compile(r"\bwriteFile(?:Sync)?\(|\bappendFile(?:Sync)?\(|\bcreateWriteStream\(")
_SHELLS = {"bash", "sh", "zsh"}
_INSTALLERS = {"pip", "pip3", "apt-get", "apt", "conda", "uv"}
# shell keywords that open or close a compound without running a command (`for x in ...`,
# `done`), and builtins that change only the shell's state
_NO_COMMAND = {"for", "select", "case", "done", "fi", "esac", "}", "cd", "pushd", "popd", "export", "source", "."}
# files that, by convention, have no suffix: a viewer on one reads it, not a folder
_SUFFIXLESS_FILES = {"Makefile", "makefile", "GNUmakefile", "Dockerfile", "LICENSE", "README", "AUTHORS", "CHANGES", "NEWS",
                     "COPYING", "Gemfile", "Rakefile", "Jenkinsfile", "Vagrantfile", "Procfile"}
# an output redirection to a file (not 2>, not >&1, not /dev/null), on text without quotes
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


def _classify_python(args: list[str], bodies: list[str], scripts: Mapping[str, str]) -> str:
    """Running Python is a test, unless it installs packages or its script writes files;
    the script is the -c code, the heredoc, or the file it runs as an earlier action wrote it."""
    if args[:2] == ["-m", "pip"]:
        return "other"
    script = args[args.index("-c") + 1] if "-c" in args[:-1] else "\n".join(bodies)
    if not script and args and not args[0].startswith("-"):
        script = scripts.get(args[0].rsplit("/", 1)[-1], "")
    return "edit" if script and _python_edits(script) else "test"


def _classify_language_tool(cmd: str, args: list[str], bodies: list[str]) -> str | None:
    """The class of a build tool, package manager or language toolchain (mvn, gradle, npm,
    yarn, pnpm, bun, node, deno, go, cargo), or None for any other command."""
    goals = [a for a in args if not a.startswith("-")]
    if cmd in _BUILD_TOOLS:
        return "other" if goals and all(_BUILD_QUERIES.fullmatch(g) for g in goals) else "test"
    if cmd in _PACKAGE_MANAGERS:
        return "other" if not goals or goals[0] in _PACKAGE_INSTALLS else "test"  # a bare `yarn` installs
    if cmd in ("node", "deno"):
        script = args[args.index("-e") + 1] if "-e" in args[:-1] else "\n".join(bodies)
        return "edit" if _JS_WRITES.search(script) else ("test" if args or bodies else "other")
    if cmd == "go":
        return "test" if goals[:1] and goals[0] in _GO_RUNS else "other"
    if cmd == "cargo":
        if goals[:1] == ["fmt"]:
            return "edit" if "--check" not in args else "test"
        return "test" if goals[:1] and goals[0] in _CARGO_RUNS else "other"
    return None


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


def _classify_simple(words: list[str], stage: SimpleCommand | None, bodies: list[str], scripts: Mapping[str, str]) -> str:
    """The class of one simple command (words without prefixes) given the stage it is (None:
    a later stage of a pipeline), the heredoc bodies it reads and the scripts earlier
    actions wrote."""
    cmd, args = words[0].rsplit("/", 1)[-1], words[1:]
    text = stage.text if stage else ""
    if (declared := tool_class(cmd)) is not None:  # a tool's record says its class
        return declared
    if cmd in EDITOR_TOOLS:
        return _classify_editor(args)
    if cmd in ACI_CLASSES and not text.lstrip().startswith(("./", "/")):
        return ACI_CLASSES[cmd]
    if any(a in ("--version", "--help") for a in args) or args in (["-V"], ["-h"]):
        return "other"  # asking a program about itself
    if cmd in _SHELLS:
        if args[:1] == ["-c"] and len(args) > 1:
            return classify_action(args[1], scripts)
        return "test" if args or bodies or (stage and any(r.op == "<" for r in stage.redirects)) else "other"
    if cmd in ("xargs", "npx", "pnpx", "bunx"):  # they run the command they are given
        rest = [a for a in args if not a.startswith("-")]
        return _classify_simple(rest, stage, bodies, scripts) if rest else "other"
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
    tool = _classify_language_tool(cmd, args, bodies)
    if tool is not None:
        return tool
    if cmd in _EDITORS:
        return "edit"
    if cmd in _READERS:
        files = [a for a in args if not a.startswith("-")]
        return "other" if bodies and not files else "read"  # `cat <<EOF` prints its heredoc
    if cmd == "awk":
        return "read" if "NR" in text else "other"
    if cmd in _SEARCHERS:
        return "search"
    if "/" in words[0] or cmd.endswith((".py", ".sh")):
        return "test"  # a program run by its path: ./tests/runtests.py, bin/test, ./repro.sh
    return "other"


def _classify_statement(statement: Statement, scripts: Mapping[str, str]) -> str | None:
    """The class of one pipeline (see module docstring); None for `cd`, assignments and the
    keywords of a compound (`for x in ...`, `done`)."""
    stages = [command_words(s.words) for s in statement.stages]
    writes = any(s.files_written() for s in statement.stages)
    if not stages[0]:
        return "edit" if writes else None  # `> f` empties f
    if stages[0][0] in _NO_COMMAND:
        return None
    cls = _classify_simple(stages[0], statement.stages[0], statement.bodies, scripts)
    later = [w for w in stages[1:] if w]
    if cls == "read" and any(w[0].rsplit("/", 1)[-1] in _GREPS for w in later):
        cls = "search"
    if cls in ("read", "search", "other"):
        runs = [_classify_simple(w, None, [], scripts) for w in later]
        if "test" in runs:
            cls = "test"
        # `git diff > patch.txt` captures the submission; it does not change the repository
        captures = stages[0][0] == "git"
        if "edit" in runs or (not captures and writes):
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
    for statement in statements(command):
        cls = _classify_statement(statement, scripts or {})
        if cls is not None and _PRIORITY[cls] < _PRIORITY[best]:
            best = cls
    return best


def scripts_written(command: str | None) -> dict[str, str]:
    """The files a command writes whole, by file name, with their text: a heredoc into a
    file (`cat > F <<EOF`, `cat <<EOF > F`, `tee F <<EOF`) or the editor's `create F
    --file_text T`. A later `python F` runs that text."""
    out: dict[str, str] = {}
    for statement in statements(command or ""):
        words = command_words(statement.stages[0].words)
        if words[:2] == ["str_replace_editor", "create"] and len(words) == 5 and words[3] == "--file_text":
            out[words[2].rsplit("/", 1)[-1]] = words[4]
        if not statement.bodies or not words or words[0] not in ("cat", "tee"):
            continue
        targets = statement.stages[0].files_written()
        name = targets[0] if words[0] == "cat" and targets else (words[1] if words[0] == "tee" and len(words) > 1 else None)
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


def detect_code_read(command: str | None) -> CodeRead | None:
    """The code window a code-reading command shows, known from the command alone, or None
    for any other command.

    A read of one file of the working tree (swevis.agents.observation.shell.pipeline_read: `cat [-n] F`,
    `sed -n 'A,Bp' F`, `head`/`tail` with line counts, `nl [-ba] F`, awk NR ranges,
    `view_code F A B`, and a reader's filters `| sed -n 'A,Bp'`, `| head`, `| tail`,
    `| nl -ba`), optionally after `cd DIR &&`; the path is the one the command names (the
    agents' `cd` is to the repository's root). Anything else (several files, grep, diffs,
    `git show REV:F`, output into a file) is not a code window here; output_windows finds
    windows in the output of some of them.
    """
    found = plain_statements(command) if command else None
    if not found or any(len(stages) != 1 or folder_after(stages[0], None) is None for stages in found[:-1]):
        return None
    read = pipeline_read(found[-1])
    if read is None or not read.path or read.grep or read.special or read.revision:
        return None
    numbered = read.numbers is not None
    if read.last_n is not None:
        return CodeRead(read.path, -read.last_n, None, numbered) if read.end is None else None
    return CodeRead(read.path, read.first, read.end, numbered) if read.first is not None else None
