"""Demonstrations: recorded assistant turns for the bundled instances, one file per agent and
instance (data/demos/<agent>/<instance_id>.yaml), played back by the playback backend."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from swevis.agents.run.model_adapter import ACTION_REGEX
from swevis.errors import SwevisError
from swevis.models.playback import based_on_chain, merge_based_on

DEMOS_DIR = Path(__file__).resolve().parents[2] / "data" / "demos"


def demo_path(agent: str, instance_id: str, demos_dir: str | Path | None = None) -> Path:
    path = Path(demos_dir or DEMOS_DIR) / agent / f"{instance_id}.yaml"
    if not path.exists():
        raise SwevisError(f"no demonstration for agent {agent} on {instance_id} ({path})")
    return path


def demo_files(agent: str, instance_id: str, demos_dir: str | Path | None = None) -> list[Path]:
    """The demonstration of (agent, instance) and every file it is based on: what a playback run
    reads, so the workflow reruns it when any of them changes."""
    return [path for path, _ in based_on_chain(demo_path(agent, instance_id, demos_dir))]


def load_demo(path: str | Path) -> dict[str, Any]:
    """A demonstration as the playback backend sees it (``based_on`` resolved)."""
    return merge_based_on(based_on_chain(path))


def demo_commands(demo: dict[str, Any], purpose: str) -> list[str]:
    """The command of every turn of one purpose, in order."""
    turns = demo["turns"][purpose]
    out = []
    for turn in turns:
        text = turn if isinstance(turn, str) else turn["content"]
        found = re.findall(ACTION_REGEX, text, re.DOTALL)
        out.append(found[0].strip() if len(found) == 1 else "")
    return out
