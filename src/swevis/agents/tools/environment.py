"""The tool layer of the agents that have tools, in mini-swe-agent's text action format.

Every action is one fenced command. A command whose first word names a tool of the current
phase runs the tool; anything else runs in bash when the phase allows bash:

    localize_issue [QUERY]          D_loc over the repository index (issue text + QUERY)
    pack_context [QUERY]            D_loc then D_pkg: file summaries, code windows, hints, tests
    view_code PATH [START [END]]    a source window with line numbers
    commit_plan <<'PLAN' ... PLAN   LET locator: end the phase with the plan Π(x) as JSON
    classify_issue CLASS            Prometheus's classifier: end the phase with the issue's class
    submit                          end the task; the patch is everything changed since base_commit

Bad arguments (unknown tool, non-numeric lines, invalid plan JSON) raise mini-swe-agent's
FormatError, so the message goes back to the model and counts toward its format-error limit.
"""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path
from typing import Any

from minisweagent.exceptions import FormatError, Submitted

from swevis.agents.observation.observe import number_lines
from swevis.errors import InfrastructureError
from swevis.index import open_index
from swevis.localize import by_kind, localize_issue, pack_context


PLAN_LIST_FIELDS = ("target_files", "target_symbols", "relevant_snippets", "propagation_targets", "evidence_refs")
PLAN_TEXT_FIELDS = ("reproduction_command", "notes")
PLAN_FIELDS = PLAN_LIST_FIELDS[:2] + ("reproduction_command",) + PLAN_LIST_FIELDS[2:4] + ("notes", "evidence_refs")


# Every tool of every phase (PLB, LET and its variants); any other command is bash.
TOOL_NAMES = frozenset({"localize_issue", "pack_context", "view_code", "commit_plan", "commit_reproduction", "classify_issue",
                        "choose_patch", "select_tests", "subquery", "remember", "submit",
                        # the knowledge-graph tools (swevis.agents.tools.graph)
                        "find_path", "list_dir", "find_nodes", "node_parent", "node_children", "callers", "callees",
                        "tests_for", "find_text", "next_chunk", "read_span"})


def tool_of(command: str | None) -> str:
    """The tool a command calls, or "bash"."""
    name = command.strip().split(None, 1)[0] if command and command.strip() else ""
    return name if name in TOOL_NAMES else "bash"


class PlanError(ValueError):
    """A committed plan that does not have the shape of Π(x)."""


def format_error(message: str) -> FormatError:
    return FormatError({"role": "user", "content": f"Format error: {message}", "extra": {"interrupt_type": "FormatError"}})


def _snippet(item: Any, i: int) -> dict[str, Any]:
    if isinstance(item, str):
        m = re.fullmatch(r"\s*(\S+?):(\d+)(?:-(\d+))?\s*", item)
        if not m:
            raise PlanError(f"relevant_snippets[{i}]: expected 'path:start-end', got {item!r}")
        start = int(m.group(2))
        return {"path": m.group(1), "start": start, "end": int(m.group(3) or start)}
    if isinstance(item, dict) and {"path", "start", "end"} <= set(item):
        try:
            start, end = int(item["start"]), int(item["end"])
        except (TypeError, ValueError):
            raise PlanError(f"relevant_snippets[{i}]: start and end must be line numbers") from None
        if start < 1 or end < start:
            raise PlanError(f"relevant_snippets[{i}]: bad line span {start}-{end}")
        return {"path": str(item["path"]), "start": start, "end": end, **({"why": str(item["why"])} if "why" in item else {})}
    raise PlanError(f"relevant_snippets[{i}]: expected {{path, start, end}} or 'path:start-end'")


def validate_plan(data: Any) -> dict[str, Any]:
    """Check and normalize Π(x) = (target_files, target_symbols, reproduction_command,
    relevant_snippets, propagation_targets, notes, evidence_refs)."""
    if not isinstance(data, dict):
        raise PlanError("the plan must be a JSON object")
    unknown = sorted(set(data) - set(PLAN_FIELDS))
    if unknown:
        raise PlanError(f"unknown plan field(s): {', '.join(unknown)}; the fields are {', '.join(PLAN_FIELDS)}")
    plan: dict[str, Any] = {}
    for key in PLAN_LIST_FIELDS:
        value = data.get(key, [])
        if not isinstance(value, list):
            raise PlanError(f"{key} must be a list")
        plan[key] = value
    for key in PLAN_TEXT_FIELDS:
        value = data.get(key, "")
        if not isinstance(value, str):
            raise PlanError(f"{key} must be a string")
        plan[key] = value
    if not plan["target_files"] or not all(isinstance(f, str) and f for f in plan["target_files"]):
        raise PlanError("target_files must list at least one file path")
    plan["target_symbols"] = [str(s) for s in plan["target_symbols"]]
    plan["relevant_snippets"] = [_snippet(s, i) for i, s in enumerate(plan["relevant_snippets"])]
    return plan


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


def format_candidates(candidates: list) -> str:
    out = []
    for kind, title in (("file", "files"), ("symbol", "symbols"), ("span", "spans")):
        items = by_kind(candidates, kind)
        if not items:
            continue
        out.append(f"== {title}")
        for i, c in enumerate(items, 1):
            where = c.path if c.start_line is None else f"{c.path}:{c.start_line}-{c.end_line}"
            name = f" {c.qualified_name}" if kind == "symbol" and c.qualified_name else ""
            why = "; ".join(c.evidence[:2])
            out.append(f"{i:2d}. {where}{name}  [{why}]")
    return "\n".join(out) if out else "no candidates found"


def format_package(package: dict[str, Any]) -> str:
    """The package without its code (the windows follow as text or pages)."""
    out = ["== files"]
    for f in package["files"]:
        imports = ", ".join(f["imports"][:8]) or "-"
        users = ", ".join(f["imported_by"][:8]) or "-"
        out.append(f"{f['path']} (module {f['module']}, {f['lines']} lines); imports: {imports}; imported by: {users}")
    if package["search_hints"]:
        out.append("== search hints: " + ", ".join(package["search_hints"]))
    if package["test_pointers"]:
        out.append("== tests")
        for t in package["test_pointers"]:
            out.append(f"{t['path']}: {', '.join(t['symbols']) or '(imports the module)'}")
    out.append(f"== code windows ({len(package['windows'])})")
    for w in package["windows"]:
        out.append(f"{w['path']}:{w['start']}-{w['end']} {', '.join(w['symbols'])}".rstrip())
    return "\n".join(out)


class ToolEnvironment:
    """A mini-swe-agent environment that adds the PLB/LET tools on top of a base environment."""

    def __init__(
        self,
        base: Any,
        *,
        tools: set[str],
        allow_bash: bool,
        issue_text: str = "",
        index_db: str | None = None,
        pristine_dir: str | None = None,
        wide: bool = False,
        index_options: dict | None = None,
        top_k: int | None = None,  # agents.top_k; only the query tools (LET) use it
    ):
        self.base = base
        self.config = base.config
        self.tools = set(tools)
        self.allow_bash = allow_bash
        self.issue_text = issue_text
        self.index_db = index_db
        self.pristine_dir = pristine_dir
        self.wide = wide
        self.index_options = index_options or {}
        self.top_k = top_k
        self._index = None

    # -- mini-swe-agent Environment protocol
    def get_template_vars(self, **kwargs) -> dict[str, Any]:
        return self.base.get_template_vars(**kwargs)

    def serialize(self) -> dict:
        return self.base.serialize()

    def execute(self, action: dict, cwd: str = "", *, timeout: int | None = None) -> dict[str, Any]:
        command = action.get("command", "")
        name = command.strip().split(None, 1)[0] if command.strip() else ""
        if name in self.tools:
            return getattr(self, f"_tool_{name}")(command)
        if name in TOOL_NAMES:
            raise format_error(f"the tool {name} is not available here; available: {', '.join(sorted(self.tools))}")
        if not self.allow_bash:
            raise format_error(
                f"unknown tool {name!r}; this phase has only these tools: {', '.join(sorted(self.tools))}"
            )
        return self.base.execute(action, cwd, timeout=timeout) if timeout else self.base.execute(action, cwd)

    # -- file access through the base environment (works for local and Docker alike)
    def read_file(self, path: str) -> str | None:
        return read_file_via(self.base, path)

    def _open_index(self):
        if self._index is None:
            if not self.index_db:
                raise RuntimeError("this environment has no repository index")
            self._index = open_index(self.index_db)
        return self._index

    def _query(self, command: str, name: str) -> str:
        rest = command.strip()[len(name):].strip()
        try:
            return " ".join(shlex.split(rest))
        except ValueError:
            return rest

    # -- tools
    def _tool_localize_issue(self, command: str) -> dict[str, Any]:
        query = self._query(command, "localize_issue") or None
        cands = localize_issue(self._open_index(), self.issue_text, query=query, top_k=self.top_k, options=self.index_options)
        return {"output": format_candidates(cands) + "\n", "returncode": 0, "exception_info": ""}

    def _tool_pack_context(self, command: str) -> dict[str, Any]:
        query = self._query(command, "pack_context") or None
        index = self._open_index()
        cands = localize_issue(index, self.issue_text, query=query, top_k=self.top_k, options=self.index_options)
        package = pack_context(
            index, cands, repo_dir=self.pristine_dir, wide=self.wide, issue_text=self.issue_text, options=self.index_options
        )
        return {
            "output": format_package(package) + "\n",
            "returncode": 0,
            "exception_info": "",
            "extra": {"windows": package["windows"]},
        }

    def _tool_view_code(self, command: str) -> dict[str, Any]:
        try:
            words = shlex.split(command)
        except ValueError as exc:
            raise format_error(f"view_code: {exc}") from None
        if len(words) < 2 or len(words) > 4:
            raise format_error("usage: view_code PATH [START [END]]")
        if not all(re.fullmatch(r"\d+", w) for w in words[2:]):
            raise format_error("view_code: START and END must be line numbers")
        path = words[1]
        start = int(words[2]) if len(words) > 2 else 1
        end = int(words[3]) if len(words) > 3 else None
        if start < 1 or (end is not None and end < start):
            raise format_error(f"view_code: bad line span {start}-{end}")
        text = self.read_file(path)
        if text is None:
            return {"output": f"view_code: {path}: no such file\n", "returncode": 1, "exception_info": ""}
        lines = text.splitlines()
        stop = len(lines) if end is None else min(end, len(lines))
        body = number_lines(lines[start - 1 : stop], start)
        if not body:
            return {"output": f"view_code: {path} has {len(lines)} lines\n", "returncode": 1, "exception_info": ""}
        return {"output": body, "returncode": 0, "exception_info": ""}

    def _tool_commit_plan(self, command: str) -> dict[str, Any]:
        body = parse_heredoc(command, "commit_plan")
        try:
            plan = validate_plan(json.loads(body))
        except json.JSONDecodeError as exc:
            raise format_error(f"commit_plan: the plan is not valid JSON ({exc.msg} at line {exc.lineno})") from None
        except PlanError as exc:
            raise format_error(f"commit_plan: {exc}") from None
        text = json.dumps(plan, indent=2)
        raise Submitted({"role": "exit", "content": text, "extra": {"exit_status": "Submitted", "submission": text, "plan": plan}})

    def _tool_classify_issue(self, command: str) -> dict[str, Any]:
        """End the classification stage with the class named (the agent routes what it does
        not know: an answer is never refused here, so a model's own word is recorded)."""
        answer = command.strip()[len("classify_issue"):].strip().strip("'\"`").strip()
        if not answer:
            raise format_error("usage: classify_issue CLASS (bug, feature, refactoring, documentation or question)")
        raise Submitted({"role": "exit", "content": answer, "extra": {"exit_status": "Submitted", "submission": answer,
                                                                      "issue_class": answer}})

    def _tool_submit(self, command: str) -> dict[str, Any]:
        patch = working_tree_diff(self.base)
        raise Submitted({"role": "exit", "content": patch, "extra": {"exit_status": "Submitted", "submission": patch}})


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
