"""Counterfactual cost of one recorded trajectory: the same actions, re-executed in a fresh
checkout, with the observations re-rendered under each condition (paper section 3.1's
attribution problem: this separates the modality effect from trajectory variance).

Reads our traj.json and mini-swe-agent's .traj.json (text or tool-call format: tool calls
are turned back into mini's text action blocks, so the same agent loop replays them).
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from swevis.agents.model_adapter import ACTION_REGEX
from swevis.agents.runner import RunSpec, run_instance
from swevis.conditions import Condition
from swevis.errors import SwevisError
from swevis.models import load_replay_source


def replay_turns(path: str | Path) -> tuple[str, dict[str, list[str]], dict[str, Any]]:
    """(agent, turns per purpose in our text action format, the trajectory's own data)."""
    data = json.loads(Path(path).read_text())
    source = load_replay_source(str(path))
    agent = data.get("agent", "mini") if data.get("format") == "swevis-traj-1" else "mini"
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


def counterfactual_costs(
    traj_path: str | Path,
    conditions: list[str],
    *,
    model_name: str,
    profile: dict[str, Any],
    row: dict[str, Any],
    mirror: str,
    index_db: str | None,
    pristine_dir: str | None,
    scope: str = "normal",
    agents_cfg: dict | None = None,
    localize_cfg: dict | None = None,
    render_cfg: dict | None = None,
) -> list[dict[str, Any]]:
    """One row per condition: prompt tokens, pages, exit status, and the ratio to text.

    Its RunSpecs are built by hand, not by make_run_spec: a counterfactual always replays
    and keeps no journal, ledger or fixed workspace (a real run of the cell may be using it)."""
    conditions = [str(Condition.parse(str(c))) for c in conditions]  # a bad name fails before any run
    if not conditions:
        raise SwevisError("no conditions to account")
    agent, turns, data = replay_turns(traj_path)
    preloc = data.get("preloc")
    if agent == "plb" and preloc is None:
        raise SwevisError(f"{traj_path}: a PLB trajectory needs its pre-localization package ('preloc') to replay")
    replay_profile = {**profile, "backend": "replay"}
    rows = []
    with tempfile.TemporaryDirectory(prefix="swevis-counterfactual-") as tmp:
        demo = Path(tmp) / "turns.json"
        demo.write_text(json.dumps({"format": "swevis-demo-1", "turns": turns}))
        for condition in conditions:
            traj = run_instance(
                RunSpec(
                    model_name, replay_profile, agent, scope, condition, row, mirror, str(Path(tmp) / condition),
                    index_db=index_db, pristine_dir=pristine_dir, preloc=preloc, agents_cfg=agents_cfg or {},
                    localize_cfg=localize_cfg or {}, render_cfg=render_cfg or {}, replay_source=str(demo),
                )
            )
            rows.append(
                {
                    "condition": condition,
                    "agent": agent,
                    "prompt_tokens": traj["totals"]["prompt_tokens"],
                    "calls": traj["totals"]["calls"],
                    "image_pages": traj["totals"]["image_pages"],
                    "exit_status": traj["exit_status"],
                }
            )
    base = next((r["prompt_tokens"] for r in rows if r["condition"] == "text"), None)
    for r in rows:
        r["reduction_vs_text"] = round(base / r["prompt_tokens"], 3) if base and r["prompt_tokens"] else None
    return rows
