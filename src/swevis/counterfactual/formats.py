"""Readers of recorded agent trajectories in the public formats, one small reader a format.

Each reader returns one `Trajectory`: the recorded conversation as model calls (the
assistant turn, its bash command if it had one, the observation that followed), the
messages before the first call (system prompt, task), the exit status and the format's
name. `read_trajectory` detects the format; an unknown or malformed file is a one-line
`TrajectoryFormatError`, so the CLI never prints a table for a file it could not read.

Formats (as their tools write them):
  mini-swe-agent-2  `.traj.json`, trajectory_format mini-swe-agent-1.1: messages with
                    role/content and `extra.actions`; commands in ```mswea_bash_command blocks
                    or, for tool-calling models, `tool_calls` answered by role "tool".
  mini-swe-agent-1  `.traj.json`, trajectory_format mini-swe-agent-1: messages with
                    role/content, commands in ```bash blocks, info.exit_status/submission.
                    (A bare list of mini's messages is either version, by its blocks.)
  swe-agent         `.traj`: "trajectory" steps of {response, thought, action, observation}
                    and the prompt messages in "history" (or the history alone, its
                    assistant messages carrying their `action`).
  openhands         an event log: a list of events (or a mapping with "history", as a line of
                    OpenHands' output.jsonl), actions {"action": "run", "args": {"command",
                    "thought"}} answered by {"observation": "run", "cause": id, "content",
                    "extras"}; file views ("read", args path/view_range) become
                    `str_replace_editor view` commands, other edits `str_replace_editor
                    create|str_replace|insert ...`; early (2024) logs have no ids, sources or
                    args (an action's arguments at its top level, its observation next).
  swevis            our own traj.json (format swevis-traj-1), replayed by re-execution.
"""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from swevis.agents.observation.actions import SUBMIT_MARKER
from swevis.agents.run.trajectory import TRAJ_FORMAT
from swevis.errors import SwevisError
from swevis.models.messages import content_text

MSWEA2_BLOCK = re.compile(r"```mswea_bash_command\s*\n(.*?)\n```", re.DOTALL)
MSWEA1_BLOCK = re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL)
# the shell prompt early OpenHands releases left at the end of a command's output
OPENHANDS_PROMPT = re.compile(r"\r?\n?[\w.-]+@[\w.-]+:[^\n]*[#$] ?$")


class TrajectoryFormatError(SwevisError):
    """A trajectory file of no known format, or of a known one but malformed."""


@dataclass(frozen=True)
class Step:
    """One model call of the recorded run: what the model answered, the command in it
    (None: no parsable action, e.g. a format error) and the observation that followed
    (None: the run ended on this call)."""

    response: str
    command: str | None
    observation: str | None
    thought: str = ""
    returncode: int | None = None
    tool_calls: list[dict] | None = None  # a tool-calling model's calls, as recorded
    # where the command's own output sits in `observation` (None: all of it); SWE-agent
    # shows the output inside a template, and code windows are found in the output alone
    output_span: tuple[int, int] | None = None

    def message(self) -> dict[str, Any]:
        """The assistant message of this call, as the model sent it."""
        if self.tool_calls:
            return {"role": "assistant", "content": self.response, "tool_calls": self.tool_calls}
        return {"role": "assistant", "content": self.response}


@dataclass
class Trajectory:
    format: str
    instance_id: str | None
    steps: list[Step]
    exit_status: str | None
    prefix: list[dict[str, str]] = field(default_factory=list)  # messages before the first call
    submission: str | None = None

    @property
    def parsed(self) -> int:
        """Steps whose command was recovered."""
        return sum(1 for s in self.steps if s.command is not None)

    @property
    def truncated(self) -> bool:
        """Whether the recording stops before the run ended: a mini-swe-agent run that says it
        submitted (or says nothing) but whose last recorded call did not submit. mini ends a
        run on the submitting call, so a file cut short after any other call ends there. Other
        formats keep no such mark; a run that hit a limit ended, it was not cut short."""
        if not self.format.startswith("mini-swe-agent") or self.exit_status not in (None, "Submitted"):
            return False
        last = self.steps[-1] if self.steps else None
        return last is None or SUBMIT_MARKER not in (last.command or "")


def _text(content: Any) -> str:
    """Message content as text: a string, or the text of every part of a content list."""
    return content_text(content, part_types=None)


def _one_block(pattern: re.Pattern, text: str) -> str | None:
    blocks = pattern.findall(text)
    return blocks[0] if len(blocks) == 1 else None


def _returncode(observation: str | None) -> int | None:
    m = re.search(r"<returncode>(-?\d+)</returncode>", observation or "")
    return int(m.group(1)) if m else None


def _messages(data: dict, origin: str) -> list[dict]:
    messages = data.get("messages")
    if not isinstance(messages, list) or not all(isinstance(m, dict) and "role" in m for m in messages):
        raise TrajectoryFormatError(f"trajectory {origin}: 'messages' must be a list of messages with a role")
    return messages


def _tool_call_command(message: dict) -> str | None:
    calls = message.get("tool_calls") or []
    commands = []
    for call in calls:
        args = (call.get("function") or {}).get("arguments") if isinstance(call, dict) else None
        try:
            parsed = json.loads(args) if isinstance(args, str) else args
        except json.JSONDecodeError:
            parsed = None
        if isinstance(parsed, dict) and isinstance(parsed.get("command"), str):
            commands.append(parsed["command"])
    return commands[0] if len(commands) == 1 else None


def _chat_steps(messages: list[dict], command_of: Callable[[dict], str | None]) -> tuple[list[dict], list[Step]]:
    """(prefix, steps) of an OpenAI-style conversation: every assistant message is a call,
    the user/tool messages after it are its observation."""
    first = next((i for i, m in enumerate(messages) if m["role"] == "assistant"), len(messages))
    prefix = [{"role": m["role"], "content": _text(m.get("content"))} for m in messages[:first]]
    steps: list[Step] = []
    i = first
    while i < len(messages):
        msg = messages[i]
        j = i + 1
        while j < len(messages) and messages[j]["role"] != "assistant":
            j += 1
        following = [_text(m.get("content")) for m in messages[i + 1 : j] if m["role"] in ("user", "tool")]
        observation = "\n".join(following) if following else None
        response = _text(msg.get("content"))
        calls = [{"type": "function", "function": c.get("function") or {}} for c in msg.get("tool_calls") or []
                 if isinstance(c, dict)]
        steps.append(Step(response, command_of(msg), observation, thought=response, returncode=_returncode(observation),
                          tool_calls=calls or None))
        i = j
    return prefix, steps


def _mini_command_v2(message: dict) -> str | None:
    actions = (message.get("extra") or {}).get("actions")
    if isinstance(actions, list) and len(actions) == 1 and isinstance(actions[0], dict):
        command = actions[0].get("command")
        if isinstance(command, str):
            return command
    return _tool_call_command(message) or _one_block(MSWEA2_BLOCK, _text(message.get("content")))


def _mini_command_v1(message: dict) -> str | None:
    return _one_block(MSWEA1_BLOCK, _text(message.get("content")))


def _info(data: dict) -> dict:
    info = data.get("info")
    return info if isinstance(info, dict) else {}


def read_mini(data: dict, origin: str, version: int) -> Trajectory:
    """mini-swe-agent 1.x (```bash) or 2.x (```mswea_bash_command, tool calls)."""
    prefix, steps = _chat_steps(_messages(data, origin), _mini_command_v2 if version == 2 else _mini_command_v1)
    info = _info(data)
    iid = data.get("instance_id") or info.get("instance_id")
    return Trajectory(f"mini-swe-agent-{version}", iid if isinstance(iid, str) else None, steps,
                      info.get("exit_status"), prefix, info.get("submission"))


def _swe_agent_command(message: dict) -> str | None:
    action = message.get("action")
    return action.strip() if isinstance(action, str) and action.strip() else None


def read_swe_agent(data: dict, origin: str) -> Trajectory:
    """SWE-agent's .traj: one step a trajectory entry, the prompt from `history`; a file with
    the history alone (its messages carry their `action`) is read from the history."""
    history = data.get("history") if isinstance(data.get("history"), list) else []
    history = [m for m in history if isinstance(m, dict) and "role" in m]
    info = _info(data)
    replay = data.get("replay_config") if isinstance(data.get("replay_config"), dict) else {}
    iid = info.get("instance_id") or replay.get("instance_id")
    if "trajectory" not in data:
        prefix, steps = _chat_steps(history, _swe_agent_command)
        return Trajectory("swe-agent", iid, steps, info.get("exit_status"), prefix, info.get("submission"))
    entries = data.get("trajectory")
    if not isinstance(entries, list) or not all(isinstance(e, dict) and "action" in e for e in entries):
        raise TrajectoryFormatError(f"trajectory {origin}: SWE-agent 'trajectory' must be a list of steps with an action")
    prefix, shown = _chat_steps(history, _swe_agent_command)
    if len(shown) != len(entries):  # a history that is not this run's turn for turn: the raw entries alone
        shown = [None] * len(entries)
    steps = []
    for e, seen in zip(entries, shown):
        command = _swe_agent_command(e)
        thought = _text(e.get("thought"))
        response = _text(e.get("response")) or f"{thought}\n\n```\n{command or ''}\n```"
        output = None if e.get("observation") is None else _text(e.get("observation"))
        observation, span = _as_shown(output, seen.observation if seen else None)
        steps.append(Step(response, command, observation, thought, output_span=span))
    return Trajectory("swe-agent", iid, steps, info.get("exit_status"), prefix, info.get("submission"))


def _as_shown(output: str | None, shown: str | None) -> tuple[str | None, tuple[int, int] | None]:
    """The observation as the model read it, and where the command's output sits in it:
    SWE-agent's history holds the output inside its template (`(Open file: ...)`, `(Current
    directory: ...)`, the prompt), which costs prompt tokens too. The raw output alone when
    the history does not hold it."""
    if output is None or not shown:
        return output, None
    if not output.strip():  # SWE-agent says so in words ("ran successfully and did not produce any output")
        return shown, (0, 0)
    for part in (output, output.strip()):
        at = shown.find(part)
        if at >= 0:
            return shown, (at, at + len(part))
    return output, None


def _openhands_events(data: Any, origin: str) -> tuple[list[dict], dict]:
    meta = data if isinstance(data, dict) else {}
    events = data.get("history") if isinstance(data, dict) else data
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        raise TrajectoryFormatError(f"trajectory {origin}: an OpenHands event log must be a list of events")
    return events, meta


def _openhands_args(event: dict) -> dict:
    """An event's arguments: its "args", or (early releases, e.g. the resolver's output) the
    event itself, which then carries them at the top level."""
    args = event.get("args")
    return args if isinstance(args, dict) else event


def _tool_arguments(event: dict) -> dict:
    """The arguments of the tool call an action came from (tool_call_metadata), or {}."""
    meta = event.get("tool_call_metadata")
    choices = ((meta or {}).get("model_response") or {}).get("choices") if isinstance(meta, dict) else None
    message = (choices[0] or {}).get("message") if isinstance(choices, list) and choices else None
    for call in (message or {}).get("tool_calls") or []:
        if isinstance(call, dict) and call.get("id", meta.get("tool_call_id")) == meta.get("tool_call_id"):
            args = (call.get("function") or {}).get("arguments")
            try:
                parsed = json.loads(args) if isinstance(args, str) else args
            except json.JSONDecodeError:
                return {}
            return parsed if isinstance(parsed, dict) else {}
    return {}


def _model_text(event: dict) -> str:
    """The text the model wrote beside the tool call an action came from, or ""."""
    meta = event.get("tool_call_metadata")
    choices = ((meta or {}).get("model_response") or {}).get("choices") if isinstance(meta, dict) else None
    message = (choices[0] or {}).get("message") if isinstance(choices, list) and choices else None
    return _text((message or {}).get("content"))


def _editor_command(args: dict, event: dict) -> str | None:
    """A file edit as the editor's command line (SWE-agent's form): `str_replace_editor
    create|str_replace|insert|undo_edit PATH [--file_text T] [--old_str O] [--new_str N]
    [--insert_line K]`; the LLM-based edit (content, start, end) as `edit_file PATH ...`.
    The editor's subcommand is in the args, else in the recorded tool call or its IPython
    translation (early 2025 logs record neither command nor text in the args)."""
    path = args.get("path")
    if not isinstance(path, str):
        return None
    call = {**_tool_arguments(event), **{k: v for k, v in args.items() if v not in (None, "")}}
    translated = re.search(r"'command':\s*'(\w+)'", str(args.get("translated_ipython_code") or ""))
    sub = call.get("command") or (translated.group(1) if translated else None)
    if not sub:
        if not isinstance(args.get("content"), str):
            return None
        bounds = [f"--{k} {args[k]}" for k in ("start", "end") if isinstance(args.get(k), int)]
        return " ".join([f"edit_file {shlex.quote(path)}", *bounds, f"--content {shlex.quote(args['content'])}"])
    words = ["str_replace_editor", str(sub), shlex.quote(path)]
    for key in ("file_text", "old_str", "new_str", "insert_line"):
        if call.get(key) not in (None, "") or (key == "new_str" and sub in ("str_replace", "insert") and key in call):
            words += [f"--{key}", shlex.quote(str(call.get(key) or ""))]
    return " ".join(words)


def _openhands_command(action: str, args: dict, event: dict) -> str | None:
    """The shell command of a "run" action; a file view ("read", or "edit" with command
    view) as the viewer's command line `str_replace_editor view PATH [--view_range A B]`;
    another edit as the editor's command line (`_editor_command`)."""
    if action == "run":
        return args["command"] if isinstance(args.get("command"), str) else None
    is_view = action == "read" or (action == "edit" and args.get("command") == "view")
    if is_view and isinstance(args.get("path"), str):
        rng = args.get("view_range")
        if isinstance(rng, list) and len(rng) == 2 and all(isinstance(x, int) for x in rng):
            return f"str_replace_editor view {shlex.quote(args['path'])} --view_range {rng[0]} {rng[1]}"
        return f"str_replace_editor view {shlex.quote(args['path'])}"
    return _editor_command(args, event) if action == "edit" else None


def _exit_code(obs: dict | None) -> int | None:
    """The exit code an observation records: extras.metadata (2025), extras (2024) or the
    observation itself (early releases)."""
    extras = (obs or {}).get("extras") if isinstance((obs or {}).get("extras"), dict) else {}
    metadata = extras.get("metadata") if isinstance(extras.get("metadata"), dict) else {}
    for code in (metadata.get("exit_code"), extras.get("exit_code"), (obs or {}).get("exit_code")):
        if isinstance(code, int):
            return code
    return None


def _observation_text(obs: dict | None) -> str | None:
    """What a call saw: the observation's content, without the shell prompt early releases
    appended to a command's output (it is the terminal's, not the command's)."""
    if obs is None:
        return None
    text = _text(obs.get("content"))
    return OPENHANDS_PROMPT.sub("", text) if obs.get("observation") == "run" and "source" not in obs else text


def _source(event: dict, started: bool) -> str:
    """Who sent an event; early logs name no source: a message before the first call is the
    user's task, every other action the agent's."""
    if isinstance(event.get("source"), str):
        return event["source"]
    return "user" if event.get("action") == "message" and not started else "agent"


def read_openhands(data: Any, origin: str) -> Trajectory:
    """OpenHands' event log: each agent action is a call; the observation whose `cause` is
    the action's id (else the next observation) is what it saw. Bookkeeping events (recall,
    agent state) are neither prompt nor calls."""
    events, meta = _openhands_events(data, origin)
    by_cause = {e.get("cause"): e for e in events if "observation" in e and e.get("cause") is not None}
    prefix, steps = [], []
    for k, e in enumerate(events):
        if "action" not in e or e["action"] in ("recall", "change_agent_state"):
            continue
        args = _openhands_args(e)
        source = _source(e, bool(steps))
        if e["action"] == "system" and not steps:  # the system prompt, as OpenHands logs it
            prefix.append({"role": "system", "content": _text(args.get("content") or e.get("message"))})
            continue
        if source == "user":  # the task; later user messages are not the agent's calls
            if not steps:
                prefix.append({"role": "user", "content": _text(args.get("content") or e.get("message"))})
            continue
        if source != "agent" or e["action"] == "system":
            continue
        obs = by_cause.get(e.get("id")) if e.get("id") is not None else None
        if obs is None and k + 1 < len(events) and "observation" in events[k + 1]:
            obs = events[k + 1]
        command = _openhands_command(e["action"], args, e)
        thought = _text(args.get("thought")) or _model_text(e)
        shown = {"action": e["action"], **{k: v for k, v in args.items() if k not in ("action", "thought")}}
        detail = command if command is not None else json.dumps(shown, sort_keys=True, default=str)
        steps.append(Step(f"{thought}\n\n{detail}".strip(), command, _observation_text(obs), thought, _exit_code(obs)))
    if not steps:
        raise TrajectoryFormatError(f"trajectory {origin}: the OpenHands event log has no agent actions")
    instance = meta.get("instance")
    iid = meta.get("instance_id") or (instance.get("instance_id") if isinstance(instance, dict) else None)
    status = "finished" if any(e.get("action") == "finish" for e in events) else None
    return Trajectory("openhands", iid if isinstance(iid, str) else None, steps, status, prefix)


def detect_format(data: Any) -> str | None:
    """The format name of parsed trajectory data, or None."""
    if isinstance(data, dict):
        fmt = str(data.get("trajectory_format", ""))
        if fmt == "mini-swe-agent-1":
            return "mini-swe-agent-1"
        if fmt.startswith("mini-swe-agent"):
            return "mini-swe-agent-2"
        if data.get("format") == TRAJ_FORMAT:
            return "swevis"
        if isinstance(data.get("trajectory"), list):
            return "swe-agent"
        history = data.get("history") if isinstance(data.get("history"), list) else []
        if history and all(isinstance(m, dict) and "role" in m for m in history) and any("action" in m for m in history):
            return "swe-agent"  # SWE-agent's history alone: chat messages that carry their action
        if any(isinstance(e, dict) and "role" not in e and ("action" in e or "observation" in e) for e in history):
            return "openhands"
    if isinstance(data, list) and data and all(isinstance(e, dict) and "role" in e for e in data):
        # mini-swe-agent's bare message list (its test data, early releases): the blocks tell the version
        text = "".join(_text(m.get("content")) for m in data if m["role"] == "assistant")
        return "mini-swe-agent-2" if "```mswea_bash_command" in text or "```bash" not in text else "mini-swe-agent-1"
    if isinstance(data, list) and data and all(isinstance(e, dict) for e in data) and any(
        "action" in e or "observation" in e for e in data
    ):
        return "openhands"
    return None


def _load(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise TrajectoryFormatError(f"trajectory {path} cannot be read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise TrajectoryFormatError(f"trajectory {path} is not UTF-8 text (byte {exc.start})") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        records = _json_lines(text)
        if records is None:
            raise TrajectoryFormatError(f"trajectory {path} is not JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}") from None
    if len(records) != 1:  # OpenHands' evaluation writes output.jsonl, one instance a line
        raise TrajectoryFormatError(f"trajectory {path} is JSON Lines with {len(records)} records: write one instance a file")
    return records[0]


def _json_lines(text: str) -> list | None:
    """The records of a JSON Lines text, or None if a line is not JSON."""
    try:
        return [json.loads(line) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError:
        return None


def instance_from_name(path: Path) -> str | None:
    """The instance id a file name carries (<id>.traj.json, <id>.traj, <id>.json)."""
    for suffix in (".traj.json", ".traj", ".json"):
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)] or None
    return None


def read_trajectory(path: str | Path) -> Trajectory:
    """The trajectory at `path` in whichever known format it is (see the module docstring)."""
    p = Path(path)
    if not p.is_file():
        raise TrajectoryFormatError(f"trajectory {p} {'is not a file' if p.exists() else 'does not exist'}")
    data = _load(p)
    fmt = detect_format(data)
    if fmt is None:
        raise TrajectoryFormatError(
            f"trajectory {p}: unknown format (not mini-swe-agent 1.x/2.x, SWE-agent .traj, OpenHands events or swevis traj.json)"
        )
    if fmt == "swevis":
        traj = Trajectory("swevis", data.get("instance_id"), [], data.get("exit_status"))
    elif fmt.startswith("mini-swe-agent"):
        traj = read_mini(data if isinstance(data, dict) else {"messages": data}, str(p), int(fmt[-1]))
    elif fmt == "swe-agent":
        traj = read_swe_agent(data, str(p))
    else:
        traj = read_openhands(data, str(p))
    if fmt != "swevis" and not traj.steps:
        raise TrajectoryFormatError(f"trajectory {p} ({fmt}): no model calls recorded")
    if traj.instance_id is None:
        traj.instance_id = instance_from_name(p)
    return traj


TRAJECTORY_SUFFIXES = (".traj.json", ".traj", ".json")


def trajectory_files(path: str, out: Path | None) -> list[Path]:
    """The file, or every trajectory file below the folder (not those in the output folder
    `out`, if there is one)."""
    p = Path(path)
    if not p.exists():
        raise SwevisError(f"trajectory {p} does not exist")
    if p.is_file():
        return [p]
    out = None if out is None else out.resolve()
    files = sorted(f for f in p.rglob("*") if f.is_file() and f.name.endswith(TRAJECTORY_SUFFIXES)
                   and (out is None or out not in f.resolve().parents))
    if not files:
        raise SwevisError(f"trajectory folder {p} holds no {', '.join('*' + s for s in TRAJECTORY_SUFFIXES)} files")
    return files
