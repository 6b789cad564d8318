"""The agents' limits and environment settings (config section ``agents``), typed.

Built once per run from the validated section; the schema (src/swevis/data/config.schema.yaml) is
the one source of their defaults, filled through it when a caller passes a partial dict.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from swevis.config import typed_section



@dataclass(frozen=True)
class AgentSettings:
    """What one trajectory reads from ``agents``; recorded in traj.json's provenance."""

    step_limit: int
    locator_step_limit: int
    editor_step_limit: int
    max_format_errors: int
    wide_margin: int
    max_window_chars: int
    let_editor_visual: bool
    environment: str
    command_timeout_s: int
    allow_live_on_host: bool
    docker_network: bool
    docker_cpus: float | None
    docker_memory: str | None
    docker_pids: int | None
    env_passthrough: tuple[str, ...]
    top_k: int
    resume: bool
    max_trajectory_tokens: int | None
    max_trajectory_calls: int | None
    max_trajectory_cost: float | None
    max_condition_tokens: int | None
    max_condition_calls: int | None
    max_condition_cost: float | None

    @classmethod
    def from_config(cls, agents_cfg: dict[str, Any] | None) -> AgentSettings:
        """From the ``agents`` section (validated, or partial: filled through the schema); the
        workflow's agents params also carry a variant's entry (swevis.agents.builtin.let_variants), left out."""
        return typed_section(cls, "agents", agents_cfg)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, as traj.json's provenance and the journal identity record them."""
        return {**asdict(self), "env_passthrough": list(self.env_passthrough)}


@dataclass(frozen=True)
class RunFolders:
    """Where runs keep their working files outside results/ (config ``agents``)."""

    cache_dir: str
    workspace_dir: str
    journal_dir: str
    ledger_dir: str
    demos_dir: str | None

    @classmethod
    def from_config(cls, agents_cfg: dict[str, Any] | None) -> RunFolders:
        return typed_section(cls, "agents", agents_cfg)

