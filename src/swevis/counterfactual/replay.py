"""Counterfactual cost of one recorded trajectory under each representation (paper section
3.1's attribution problem: the same actions, so the modality effect is separated from
trajectory variance). Two modes:

recorded (the default for foreign trajectories, see swevis.counterfactual.formats): the
  recorded conversation is reused as it is; the code windows its observations showed (found
  by swevis.agents.observation.output_windows from the command and the output) are rendered under each
  condition by the agents' own observation pipeline, and every call is accounted by the
  backbone's token accounting (the playback backend's estimate of the request). No
  environment, mirror or index. Given the repository at base_commit, each window is checked
  against it. Recorded mode also replays the working memory (swevis.agents.mechanisms.memory) in front
  of a condition: `mem` (text) and `mem+r<N>` (see ReplayCondition), and the page families
  `obs-r<N>` and `hist-r<N>` (swevis.agents.observation.pages) through the pipeline's `finish` (each
  observation) and `request` (each call's messages), as the live agents do.
re-execution (`counterfactual_costs`): the actions are run again in a fresh checkout by the real
  agent loop (our traj.json and mini-swe-agent's .traj.json; tool calls are turned back into
  mini's text action blocks).

In recorded mode each call's prompt also passes through the profile's provider prefix cache
(swevis.models.prefix_cache, in the playback model): its cached tokens and its cache-aware spend at the profile's
prices. Re-execution's playback model passes its calls through the same cache (the family's
rules as the schema sets them): its rows report both too.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from swevis.agents.observation.actions import classify_actions
from swevis.agents.mechanisms.memory import MemoryObservationPipeline, WorkingMemory
from swevis.agents.run.model_adapter import ACTION_REGEX
from swevis.agents.observation.observe import ObservationConfig, ObservationPipeline
from swevis.agents.observation.output_windows import RecordedWindow, identify_windows
from swevis.agents.run.runner import run_instance
from swevis.agents.run.spec import RunInputs
from swevis.agents.registry import agent_kind
from swevis.agents.settings import AgentSettings
from swevis.sandbox import resolved_environment
from swevis.agents.run.trajectory import exit_status_of
from swevis.counterfactual.ceiling import FamilyCeiling
from swevis.counterfactual.cache import call_billing, condition_totals
from swevis.counterfactual.formats import Step, Trajectory, read_trajectory
from swevis.conditions import MEMORY, REPLAY_PATTERN, TEXT, Condition, ConditionError
from swevis.errors import SwevisError
from swevis.models import ModelCallFailed, PlaybackExhausted, load_playback_source, resolve_profile
from swevis.models.playback import PlaybackModel
from swevis.models.spend import is_priced
from swevis.models.prefix_cache import CacheRule
from swevis.tokens import count_message_tokens, text_tokens

# Recorded observations pass through the pipeline as they are: the template adds nothing.
RECORDED_TEMPLATE = "{{ output.output }}"
MEMORY_CONTEXT = "agent"  # a recorded run is one conversation


@dataclass(frozen=True)
class ReplayCondition:
    """A condition of the counterfactual replay: an observation condition, with the working
    memory in front of it or not (`mem` is text with the memory, `mem+r3` r3 with it). The
    memory exists here only, so the agents' Condition (and their results folders) stay as they are."""

    observation: Condition
    memory: bool = False

    @classmethod
    def parse(cls, name: str) -> ReplayCondition:
        """text, r<N>, mem or mem+r<N>; anything else is a ConditionError naming the value."""
        if not isinstance(name, str) or not re.fullmatch(REPLAY_PATTERN, name):
            hint = "; write mem" if name == f"{MEMORY}+{TEXT}" else ""
            if isinstance(name, str) and not name.startswith(MEMORY):
                try:  # the condition grammar's own message, with its near-miss hint
                    Condition.parse(name)
                except ConditionError as exc:
                    raise ConditionError(f"{exc}; or mem, mem+r<N> (the working memory)") from None
            raise ConditionError(f"unknown condition {name!r}: use text, r<N>, mem or mem+r<N> (r3, mem+r3){hint}")
        if name == MEMORY:
            return cls(Condition(), True)
        memory = name.startswith(MEMORY + "+")
        return cls(Condition.parse(name[len(MEMORY) + 1 :] if memory else name), memory)

    def __str__(self) -> str:
        if not self.memory:
            return str(self.observation)
        return f"{MEMORY}+{self.observation}" if self.observation.visual else MEMORY


def replay_conditions_arg(value: str) -> list[ReplayCondition]:
    """argparse `type=` for a comma-separated list of distinct replay conditions."""
    names = [c.strip() for c in value.split(",") if c.strip()]
    if not names:
        raise argparse.ArgumentTypeError("no conditions given (e.g. text,r3,mem,mem+r3)")
    try:
        conditions = [ReplayCondition.parse(n) for n in names]
    except ConditionError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    repeated = sorted({str(c) for c in conditions if conditions.count(c) > 1})
    if repeated:
        raise argparse.ArgumentTypeError(f"condition {', '.join(repeated)} given more than once")
    return conditions


# the agent whose loop replays another agent's trajectory (SWE-agent, OpenHands, mini 1.x):
# mini-swe-agent's, one bash action a turn
FOREIGN_AGENT = "mini"

def _mini_turn(step: Step) -> str:
    """A recorded call as a turn in mini's text action format (```mswea_bash_command)."""
    if step.command is None or len(re.findall(ACTION_REGEX, step.response, re.DOTALL)) == 1:
        return step.response
    return f"{step.thought}\n\n```mswea_bash_command\n{step.command}\n```\n"


def replay_turns(path: str | Path) -> tuple[str, dict[str, list[str]], dict[str, Any]]:
    """(agent, turns per purpose in our text action format, the trajectory's own data).

    Ours and mini-swe-agent 2.x's keep their purposes and tool calls (as text blocks); the
    other formats give their recorded calls, each command in a mini action block."""
    traj = read_trajectory(path)
    data = json.loads(Path(path).read_text())
    if traj.format not in ("swevis", "mini-swe-agent-2"):
        return FOREIGN_AGENT, {"agent": [_mini_turn(s) for s in traj.steps]}, data if isinstance(data, dict) else {}
    source = load_playback_source(str(path))
    agent = data.get("agent", FOREIGN_AGENT) if traj.format == "swevis" else FOREIGN_AGENT
    turns: dict[str, list[str]] = {}
    for turn in source.turns:
        content = turn.content or ""
        if len(re.findall(ACTION_REGEX, content, re.DOTALL)) != 1 and turn.actions:
            commands = [a.get("command", "") for a in turn.actions if a.get("command")]
            if len(commands) == 1:
                content = f"{content}\n\n```mswea_bash_command\n{commands[0]}\n```\n"
        turns.setdefault(turn.purpose or "agent", []).append(content)
    if not turns:
        raise SwevisError(f"{path}: no assistant turns to replay")
    return agent, turns, data


def replay_workspace(traj_path: str | Path) -> str:
    """The checkout folder of a re-execution: fixed for a trajectory, so the repository root
    in its prompts is the same text in every condition and every replay (a mkdtemp name
    would change the counts), and of one length for every trajectory."""
    digest = hashlib.sha256(str(Path(traj_path).resolve()).encode()).hexdigest()[:12]
    return str(Path(tempfile.gettempdir()) / f"swevis-replay-{digest}")


def replay_agents_cfg(agents_cfg: dict | None, turns: dict[str, list[str]]) -> dict:
    """The agents section with limits that let every recorded turn replay: the recorded run
    had its own format-error and step limits, and the counterfactual replays what it did."""
    n = sum(len(t) for t in turns.values()) + 1
    cfg = dict(agents_cfg or {})
    for key in ("step_limit", "locator_step_limit", "editor_step_limit"):
        cfg[key] = max(int(cfg.get(key) or 0), n)
    cfg["max_format_errors"] = 0  # no limit
    return cfg


def counterfactual_costs(traj_path: str | Path, conditions: list[str], inputs: RunInputs, *,
                         scope: str = "normal") -> list[dict[str, Any]]:
    """One row per condition: prompt tokens, pages, exit status, and the ratio to text.

    Its RunSpecs are built from `inputs` by hand, not by make_run_spec: a counterfactual always
    replays and keeps no journal or ledger, and its workspace is its own (replay_workspace),
    not the cell's (a real run of the cell may be using that). Each row carries its step records."""
    conditions = [str(Condition.parse(str(c))) for c in conditions]  # a bad name fails before any run
    if not conditions:
        raise SwevisError("no conditions to account")
    agent, turns, data = replay_turns(traj_path)
    preloc = data.get("preloc")
    if agent_kind(agent).needs_preloc and preloc is None:
        raise SwevisError(f"{traj_path}: a {agent_kind(agent).title} trajectory needs its pre-localization package ('preloc') to replay")
    agents_cfg = replay_agents_cfg(inputs.agents_cfg, turns)
    inputs = dataclasses.replace(inputs, profile={**inputs.profile, "backend": "playback"}, agents_cfg=agents_cfg)
    workspace = replay_workspace(traj_path)
    # a counterfactual always replays, so `auto` is the host; SWE-bench's commands name /testbed
    if resolved_environment(AgentSettings.from_config(agents_cfg).environment, live_model=False) == "local":
        turns = {k: [t.replace("/testbed", f"{workspace}/repo") for t in v] for k, v in turns.items()}
    rows = []
    with tempfile.TemporaryDirectory(prefix="swevis-counterfactual-") as tmp:
        demo = Path(tmp) / "turns.json"
        demo.write_text(json.dumps({"format": "swevis-demo-1", "turns": turns}))
        for condition in conditions:
            traj = run_instance(inputs.spec(agent=agent, scope=scope, condition=condition, out_dir=str(Path(tmp) / condition),
                                            preloc=preloc, playback_source=str(demo), workspace=workspace))
            rows.append(
                {
                    "condition": condition,
                    "agent": agent,
                    "prompt_tokens": traj["totals"]["prompt_tokens"],
                    # the playback model's prefix cache (the profile's family, the schema's rules)
                    "cached_prompt_tokens": traj["totals"]["cached_prompt_tokens"],
                    "spend_cache_aware": traj["totals"]["cost"] if is_priced(inputs.profile) else None,
                    "calls": traj["totals"]["calls"],
                    "image_pages": traj["totals"]["image_pages"],
                    "exit_status": traj["exit_status"],
                    # the recorded turns ran out before the agent ended: the recording was cut short
                    "truncated": (traj.get("error") or "").startswith(PlaybackExhausted.__name__),
                    "steps": [_reexecuted_step(condition, s) for s in traj["steps"]],
                }
            )
    base = next((r["prompt_tokens"] for r in rows if r["condition"] == "text"), None)
    for r in rows:
        r["reduction_vs_text"] = round(base / r["prompt_tokens"], 3) if base and r["prompt_tokens"] else None
    return rows


def _reexecuted_step(condition: str, step: dict[str, Any]) -> dict[str, Any]:
    obs = step["observation"]
    windows = [obs["window"]] if obs.get("window") else list(obs.get("windows") or [])
    return {
        "condition": condition, "step": step["index"], "command": step["action"], "action_class": step["action_class"],
        "windows": [f"{w['path']}:{w['start']}-{w['end']}" for w in windows], "observation_kind": obs["kind"],
        "pages": int(obs.get("pages") or 0), "observation_tokens": int(obs.get("tokens") or 0),
        "prompt_tokens": int(step["usage"].get("prompt_tokens") or 0),
        "completion_tokens": int(step["usage"].get("completion_tokens") or 0),
    }


# ---------------------------------------------------------------- recorded mode


class RepoFiles:
    """The repository at base_commit, to check recorded windows against (paths as the agent
    typed them: relative, under /testbed, or under any other root the repository sits at)."""

    def __init__(self, root: str | Path):
        self.root = Path(root)
        self._lines: dict[str, list[str] | None] = {}

    def lines(self, path: str) -> list[str] | None:
        if path not in self._lines:
            self._lines[path] = self._read(path)
        return self._lines[path]

    def _read(self, path: str) -> list[str] | None:
        parts = [p for p in Path(path).parts if p not in ("/", ".")]
        for i in range(len(parts)):  # the shortest suffix of the path that is a file here
            candidate = self.root.joinpath(*parts[i:])
            if candidate.is_file():
                try:
                    return candidate.read_text(encoding="utf-8").splitlines()
                except (OSError, UnicodeDecodeError):
                    return None
        return None

    def count(self, path: str) -> int | None:
        lines = self.lines(path)
        return None if lines is None else len(lines)

    def matches(self, w: RecordedWindow) -> bool:
        lines = self.lines(w.path)
        return lines is not None and lines[w.start - 1 : w.end] == w.text.splitlines()


class _PlainRecord(ObservationPipeline):
    """Keeps the plain condition's (content, record) of the last window in `plain`: what the
    window would have cost without the memory in front, so the memory's saving can be told."""

    plain: tuple[Any, dict[str, Any]] | None = None

    def observe(self, command, output, template_vars=None):
        self.plain = super().observe(command, output, template_vars)
        return self.plain


class RecordedMemoryPipeline(MemoryObservationPipeline, _PlainRecord):
    """The live agents' memory pipeline (MemoryObservationPipeline: the same window memory,
    notes and never-dearer choices) over recorded windows; its base observe is _PlainRecord's."""


def replay_pipeline(condition: ReplayCondition, config: ObservationConfig, steps: list,
                    memory_cfg: dict | None) -> ObservationPipeline:
    """The observation pipeline of a replay condition; with the memory, `steps` (the records
    so far) numbers the steps its notes name, as the live recorder's steps do."""
    if not condition.memory:
        return ObservationPipeline(config, read_file=lambda path: None, observation_template=RECORDED_TEMPLATE)
    return RecordedMemoryPipeline(
        config, read_file=lambda path: None, observation_template=RECORDED_TEMPLATE,
        memory=WorkingMemory(memory_cfg), context=MEMORY_CONTEXT, recorder=SimpleNamespace(steps=steps),
    )


def observe_recorded_windows(
    pipeline: ObservationPipeline, observation: str, windows: list[RecordedWindow]
) -> tuple[Any, int, list[dict[str, Any]]]:
    """The observation under the pipeline's condition (ObservationPipeline.observe_in_place:
    pages under rN, the memory's notes); returns (content, image pages, a window_cost record
    per window; none under text without the memory)."""
    memory = isinstance(pipeline, RecordedMemoryPipeline)
    if not windows or (pipeline.config.ratio is None and not memory):
        return observation, 0, []
    return pipeline.observe_in_place(observation, windows)


def recorded_windows(traj: Trajectory, repo: RepoFiles | None = None) -> list[list[RecordedWindow]]:
    """The windows of each step's recorded observation, found in the command's output (its
    `output_span`, when a template surrounds it) and placed in the whole observation."""
    found = []
    for s in traj.steps:
        lo, hi = s.output_span or (0, len(s.observation or ""))
        output = s.observation[lo:hi] if s.observation is not None else None
        windows = identify_windows(s.command, output, returncode=s.returncode, file_lines=repo.count if repo else None)
        found.append([dataclasses.replace(w, span=(w.span[0] + lo, w.span[1] + lo)) for w in windows])
    return found


def _account_condition(traj: Trajectory, windows: list[list[RecordedWindow]], condition: str, chat: PlaybackModel,
                       pipeline: ObservationPipeline, records: list[dict[str, Any]]) -> str:
    """Replays the recorded calls under one condition, a record per call into `records`
    (the memory pipeline counts its steps there): the exit status."""
    messages: list[dict[str, Any]] = [dict(m) for m in traj.prefix] or [{"role": "user", "content": ""}]
    classes = classify_actions(s.command for s in traj.steps)  # a script run is classed by what it wrote
    observed = ReplayCondition.parse(condition).observation
    ceiling = FamilyCeiling(observed, pipeline.page_settings, chat.tokenizer, chat.image_family)
    history_seen: set[str] = set()  # the history pages sent so far (hist-rN's frozen blocks)
    for i, (step, step_windows) in enumerate(zip(traj.steps, windows)):
        try:
            sent = pipeline.request(messages)
            usage = chat.complete(sent, purpose="agent").record()["usage"]
            history = _page_urls(sent) - _page_urls(messages)
        except ModelCallFailed as exc:  # the image cap under image_policy reject: the run ends here
            return f"error: {exc.reason}"
        new_history_pages = len(history - history_seen)
        history_seen |= history
        eligible = ceiling.eligible()
        messages.append(step.message())
        pages, obs_tokens, kind, costs = 0, 0, "none", []
        if step.observation is not None:
            content, pages, costs = observe_recorded_windows(pipeline, step.observation, step_windows)
            content, record = pipeline.finish(content, {"pages": pages}, f"output of step {i + 1}")
            pages = int(record["pages"])
            messages.append({"role": "user", "content": content})
            obs_tokens = count_message_tokens([messages[-1]], chat.tokenizer, chat.image_family)
            kind = "image" if pages else "text"
        ceiling.add_call(step.message(), step.observation, costs)
        records.append({
            "condition": condition, "step": i, "command": step.command, "action_class": classes[i],
            "windows": [f"{w.path}:{w.start}-{w.end}" for w in step_windows], "observation_kind": kind,
            "pages": pages, "observation_tokens": obs_tokens, "prompt_tokens": int(usage["prompt_tokens"]),
            "completion_tokens": int(usage["completion_tokens"]), "window_costs": costs,
            "code_tokens": _code_tokens(step, step_windows, chat.tokenizer),
            "family": ceiling.family, "ceiling_eligible_tokens": eligible,
            "history_pages": len(history), "new_history_pages": new_history_pages,
            **call_billing(chat.profile, usage),
            "memory_hits": sum(c["memory"] in ("exact", "overlap") for c in costs),
            "memory_saved_tokens": sum(c["full_tokens"] - c["tokens"] for c in costs),
        })
    return _recorded_exit(traj)


def _page_urls(messages: list[dict[str, Any]]) -> set[str]:
    """The pages of a request, each by its data URL (a hist-rN request sends its old calls'
    blocks as pages; a frozen block's pages are the same bytes in every later request)."""
    return {str((p.get("image_url") or {}).get("url") if isinstance(p.get("image_url"), dict) else p.get("image_url"))
            for m in messages if isinstance(m.get("content"), list)
            for p in m["content"] if p.get("type") == "image_url"}


def _code_tokens(step: Step, windows: list[RecordedWindow], tokenizer: str) -> int:
    """k_j: the code windows' tokens as text in a step's observation, the same under every
    condition (the code share's numerator; swevis.counterfactual.ceiling)."""
    return sum(text_tokens(step.observation[w.span[0] : w.span[1]], tokenizer) for w in windows)


def _recorded_exit(traj: Trajectory) -> str:
    if traj.format.startswith("mini-swe-agent") and traj.exit_status:
        return exit_status_of(traj.exit_status)
    return str(traj.exit_status or "recorded")


def recorded_costs(
    traj_path: str | Path,
    conditions: list[str],
    *,
    model_name: str,
    profile: dict[str, Any],
    agents_cfg: dict | None = None,
    render_cfg: dict | None = None,
    repo_dir: str | Path | None = None,
    traj: Trajectory | None = None,
    prompt_cache: dict[str, dict[str, int]] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, Any]]:
    """(one row per condition, one record per call and condition, what was found: format,
    steps parsed, windows identified and, with `repo_dir`, how many match the repository; a
    diff hunk is the diff's text, not the file's, and never counts as matching).
    Conditions are replay conditions (text, r<N>, mem, mem+r<N>). `prompt_cache`: config
    counterfactual.prompt_cache (None: the schema's), whose family the profile's
    `prompt_cache` names: each call's cached tokens and cache-aware spend."""
    conditions = [ReplayCondition.parse(str(c)) for c in conditions]
    if not conditions:
        raise SwevisError("no conditions to account")
    rule = CacheRule.from_config(resolve_profile(model_name, profile)["prompt_cache"], prompt_cache, model_name)
    traj = traj or read_trajectory(traj_path)
    if traj.format == "swevis":
        raise SwevisError(f"trajectory {traj_path}: a swevis traj.json replays by re-execution; pass --reexecute")
    repo = RepoFiles(repo_dir) if repo_dir else None
    windows = recorded_windows(traj, repo)
    found = [w for ws in windows for w in ws]
    summary = {
        "format": traj.format, "instance_id": traj.instance_id, "steps": len(traj.steps), "parsed": traj.parsed,
        "windows": len(found),
        "windows_matching_repo": sum(repo.matches(w) for w in found if w.kind == "file") if repo else None,
    }
    settings = AgentSettings.from_config(agents_cfg)
    rows, per_step = [], []
    for condition in conditions:
        chat = PlaybackModel(model_name, {**profile, "backend": "playback"}, source=[s.message() for s in traj.steps] or [""],
                             prefix_cache=rule)
        config = ObservationConfig(
            condition=str(condition.observation), wide_margin=settings.wide_margin,
            max_window_chars=settings.max_window_chars, tokenizer=chat.tokenizer, image_family=chat.image_family,
            render=render_cfg or {}, draw_pages=False,  # accounting only: no model reads these pages
            pages=(agents_cfg or {}).get("pages") or {},
        )
        records: list[dict[str, Any]] = []
        pipeline = replay_pipeline(condition, config, records, (agents_cfg or {}).get("memory"))
        status = _account_condition(traj, windows, str(condition), chat, pipeline, records)
        per_step += records
        rows.append({
            "condition": str(condition), "agent": traj.format, "prompt_tokens": sum(r["prompt_tokens"] for r in records),
            "calls": len(records), "image_pages": sum(r["pages"] + r["new_history_pages"] for r in records),
            "exit_status": status, "truncated": traj.truncated,
        })
    base = next((r["prompt_tokens"] for r in rows if r["condition"] == "text"), None)
    for r in rows:
        r["reduction_vs_text"] = round(base / r["prompt_tokens"], 3) if base and r["prompt_tokens"] else None
    return condition_totals(rows, per_step), per_step, summary
