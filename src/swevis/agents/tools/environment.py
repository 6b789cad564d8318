"""The tool environment of a phase, in mini-swe-agent's text action format.

Every action is one fenced command. A command whose first word names a tool of the current
phase runs the tool's handler (swevis.agents.tool_registry: a tool is a record declared
beside its handler); anything else runs in bash when the phase allows bash. The environment
composes what the tools need instead of inheriting it: the run's index and issue, the
phase's name and recorder, and the parts a mechanism keeps across calls (the working
memory, the reproduction, the verification, the graph), each looked up by its type.

Bad arguments (unknown tool, non-numeric lines, invalid plan JSON) raise mini-swe-agent's
FormatError, so the message goes back to the model and counts toward its format-error limit.
Light on purpose (mini-swe-agent and the index are imported where they are used): the tool
modules import this one, and the agents' modules name their tools while the DAG is built.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar

from swevis.agents.tool_registry import Tool, all_tools
from swevis.errors import InfrastructureError

Part = TypeVar("Part")


def format_error(message: str) -> Exception:
    from minisweagent.exceptions import FormatError

    return FormatError({"role": "user", "content": f"Format error: {message}", "extra": {"interrupt_type": "FormatError"}})


def submitted(content: str, **extra: Any) -> Exception:
    """The exception that ends a phase with `content` (mini-swe-agent's Submitted); `extra`
    goes into the phase's exit extra (a plan, a class, an answer)."""
    from minisweagent.exceptions import Submitted

    return Submitted({"role": "exit", "content": content, "extra": {"exit_status": "Submitted", "submission": content,
                                                                     **extra}})


def ok(text: str) -> dict[str, Any]:
    """A tool's successful observation (ending in a newline)."""
    return {"output": text if text.endswith("\n") else text + "\n", "returncode": 0, "exception_info": ""}


def failed(text: str) -> dict[str, Any]:
    """A tool's one-line failure (returncode 1)."""
    return {"output": text if text.endswith("\n") else text + "\n", "returncode": 1, "exception_info": ""}


def parse_heredoc(command: str, name: str) -> str:
    """The body of `name <<'TAG' ... TAG` (or everything after the first line)."""
    first, _, rest = command.partition("\n")
    m = re.search(r"<<-?\s*['\"]?(\w+)['\"]?", first)
    if not m:
        tail = first[len(name):].strip()
        return tail + ("\n" + rest if rest else "")
    tag = m.group(1)
    lines = rest.split("\n")
    body = []
    for line in lines:
        if line.strip() == tag:
            break
        body.append(line)
    return "\n".join(body)


def query_of(command: str, name: str) -> str:
    """A query tool's argument, its shell quoting undone ("" = none)."""
    rest = command.strip()[len(name):].strip()
    try:
        return " ".join(shlex.split(rest))
    except ValueError:
        return rest


class ToolEnvironment:
    """A mini-swe-agent environment: the phase's tools (records) on top of a base environment."""

    def __init__(
        self,
        base: Any,
        *,
        tools: Iterable[Tool],
        allow_bash: bool,
        issue_text: str = "",
        index_db: str | None = None,
        pristine_dir: str | None = None,
        wide: bool = False,
        index_options: dict | None = None,
        top_k: int | None = None,  # agents.top_k; only the query tools use it
        context: str = "",  # the phase (stage) the tools serve
        recorder: Any = None,  # the run's StepRecorder (its steps so far)
        parts: Iterable[Any] = (),  # what mechanisms keep across calls, one object of each type
    ):
        self.base = base
        self.config = base.config
        self.tools = {t.name: t for t in tools}
        self.allow_bash = allow_bash
        self.issue_text = issue_text
        self.index_db = index_db
        self.pristine_dir = pristine_dir
        self.wide = wide
        self.index_options = index_options or {}
        self.top_k = top_k
        self.context = context
        self.recorder = recorder
        self.parts = {type(p): p for p in parts if p is not None}
        self._index = None

    def part(self, kind: type[Part]) -> Part | None:
        """The part of type `kind` this phase was given, or None."""
        return self.parts.get(kind)

    # -- mini-swe-agent Environment protocol
    def get_template_vars(self, **kwargs) -> dict[str, Any]:
        return self.base.get_template_vars(**kwargs)

    def serialize(self) -> dict:
        return self.base.serialize()

    def execute(self, action: dict, cwd: str = "", *, timeout: int | None = None) -> dict[str, Any]:
        command = action.get("command", "")
        name = command.strip().split(None, 1)[0] if command.strip() else ""
        if name in self.tools:
            return self.tools[name].handler(self, command)
        if name in all_tools():
            raise format_error(f"the tool {name} is not available here; available: {', '.join(sorted(self.tools))}")
        if not self.allow_bash:
            raise format_error(
                f"unknown tool {name!r}; this phase has only these tools: {', '.join(sorted(self.tools))}"
            )
        return self.base.execute(action, cwd, timeout=timeout) if timeout else self.base.execute(action, cwd)

    def run(self, command: str) -> dict[str, Any]:
        """A command in the base environment (a reproduction, a test run)."""
        return self.base.execute({"command": command})

    # -- file access through the base environment (works for local and Docker alike)
    def read_file(self, path: str) -> str | None:
        return read_file_via(self.base, path)

    def index(self):
        """The repository index, opened on first use."""
        if self._index is None:
            if not self.index_db:
                raise RuntimeError("this environment has no repository index")
            from swevis.index import open_index

            self._index = open_index(self.index_db)
        return self._index


def read_file_via(env: Any, path: str) -> str | None:
    """A file of the environment's working tree as text, or None if it cannot be read.

    A local environment's files are read directly (a `cat` subprocess per code window was a
    third of a played-back trajectory's time); other environments go through `cat`."""
    cwd = getattr(getattr(env, "config", None), "cwd", "")
    if type(env).__name__ == "LocalEnvironment" and cwd:
        target = (Path(cwd) / path).resolve()
        if not target.is_file():
            return None
        try:
            return target.read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
    out = env.execute({"command": f"cat -- {shlex.quote(path)}"})
    return out.get("output") if out.get("returncode") == 0 else None


# Everything the agent changed, in a throwaway index (the agent's own index is left as it
# was): staged, unstaged, committed and new files that .gitignore does not ignore. Compiled
# bytecode is never part of a fix. The diff options pin what a user's git config could
# change (prefixes, renames, textconv), so the patch applies with `git apply` (or GNU
# patch -p1) to a fresh checkout at the base commit. Runs at the repository root.
PATCH_COMMAND = (
    'tmp=$(mktemp -d) || exit 1; trap \'rm -rf "$tmp"\' EXIT; '
    'cp "$(git rev-parse --git-path index)" "$tmp/index" 2>/dev/null; '
    'GIT_INDEX_FILE="$tmp/index" git add -A --ignore-errors -- . \':(exclude)*.py[co]\' >/dev/null 2>&1; '
    'GIT_INDEX_FILE="$tmp/index" git -c core.fileMode=false diff --cached --binary --no-color --no-ext-diff '
    "--no-textconv --no-renames --src-prefix=a/ --dst-prefix=b/ {base}"
)


def working_tree_diff(env: Any) -> str:
    """The submitted patch: the repository's working tree against the commit the run started
    from (``env.base_commit``, set by make_environment; HEAD for an environment without it).

    Files outside the repository (the agent's scratch in /tmp) are not in it. A patch that
    cannot be taken (a timeout, a broken git, a container that died) raises
    InfrastructureError: recorded as an empty patch it would be graded unresolved."""
    base = getattr(env, "base_commit", None) or "HEAD"
    out = env.execute({"command": PATCH_COMMAND.format(base=shlex.quote(base))})
    if out.get("returncode") != 0:
        said = (out.get("output") or "").strip().splitlines() or [out.get("exception_info") or "no output"]  # git: the reason first
        raise InfrastructureError(
            f"the patch could not be taken: git diff against {base} exited {out.get('returncode')}: {said[0].strip()[:300]}"
        )
    return out.get("output", "")
