"""Bug reproduction: a stage whose `commit_reproduction CMD` runs CMD and accepts it only when
it fails for a reason other than a broken script (a syntax, import or missing-file error);
then the stage ends and the reproduction (command, its files, the failing output) becomes
the repair objective of the stages after it. LET's variants and Prometheus run it alike.

    commit_reproduction COMMAND     end the stage with COMMAND as the reproduction

The phase's environment holds a `Reproduction` part: its attempts and how much output each
keeps. Light on purpose, like every module that declares tools.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from swevis.agents.observation.volatile import normalize as normalize_volatile
from swevis.agents.tool_registry import Tool
from swevis.agents.tools.environment import format_error, submitted

# a failure of the script itself, not of the code under test
_BROKEN_ERRORS = {"SyntaxError", "IndentationError", "TabError", "ModuleNotFoundError", "ImportError", "NameError"}
_BROKEN_TEXT = re.compile(r"can't open file|command not found|No such file or directory: '[^']*reproduc")


def broken_reproduction(output: str) -> bool:
    """True when a failing reproduction failed because the script itself is broken."""
    raised = re.findall(r"^(\w+(?:Error|Exception))\b", output, re.M)
    return bool(raised and raised[-1] in _BROKEN_ERRORS) or bool(_BROKEN_TEXT.search(output))


def tail(text: str, n: int) -> str:
    """The last `n` characters of a command's output, marked when cut."""
    return text if len(text) <= n else "...(truncated)...\n" + text[-n:]


class Reproduction:
    """A reproduction stage's part: the `commit_reproduction` calls so far."""

    def __init__(self, *, output_chars: int):
        self.output_chars = output_chars
        self.attempts: list[dict[str, Any]] = []


def commit_reproduction(env: Any, command: str) -> dict[str, Any]:
    from swevis.index.languages import extensions

    stage: Reproduction = env.part(Reproduction)
    cmd = command.strip()[len(COMMIT_REPRODUCTION.name):].strip()
    if not cmd:
        raise format_error(f"usage: {COMMIT_REPRODUCTION.usage}")
    out = env.run(cmd)
    text = normalize_volatile(out.get("output", ""))  # it reaches the editor's prompt: stable for the cache
    rc = out.get("returncode")
    files = {}
    for word in shlex.split(cmd) if cmd else []:
        if word.endswith((".sh", *extensions("code"))):
            content = env.read_file(word)
            if content is not None:
                files[word] = content
    attempt = {"command": cmd, "returncode": rc, "output": tail(text, stage.output_chars), "files": files}
    stage.attempts.append(attempt)
    if rc == 0:
        attempt["verdict"] = "passes"
        msg = (
            f"[reproduction] `{cmd}` exited 0: it does not reproduce the reported failure. Make it fail "
            "for the reported reason (assert the behaviour the issue expects) and commit it again.\n" + text
        )
        return {"output": msg, "returncode": 1, "exception_info": ""}
    if broken_reproduction(text):
        attempt["verdict"] = "broken"
        msg = (
            f"[reproduction] `{cmd}` failed, but because the reproduction itself is broken (a syntax, import "
            "or missing-file error), not for the reported reason. Fix the script and commit it again.\n" + text
        )
        return {"output": msg, "returncode": 1, "exception_info": ""}
    attempt["verdict"] = "reproduced"
    raise submitted(f"reproduced: `{cmd}` exits {rc}", reproduction=attempt)


def reproduction_objective(repro: dict[str, Any] | None, attempts: list[dict[str, Any]]) -> str:
    """The repair objective the stage after the reproduction gets (appended to its task message)."""
    from swevis.agents.prompts import render_prompt

    return render_prompt("let_repro_objective", reproduction=repro, attempts=len(attempts))


COMMIT_REPRODUCTION = Tool(
    "commit_reproduction", "other",
    "commit_reproduction COMMAND (e.g. commit_reproduction python reproduce_issue.py)", commit_reproduction,
)
TOOLS = (COMMIT_REPRODUCTION,)
