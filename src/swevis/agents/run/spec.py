"""RunSpec: everything one trajectory needs, and the one way the workflow, the pre-localization
and `swevis agent run` build it (playback source, response cache, journal, ledger, workspace)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from swevis.agents.run.demos import demo_path
from swevis.agents.registry import check_condition
from swevis.agents.settings import AgentSettings, RunFolders
from swevis.sandbox import resolved_environment
from swevis.models import is_live
from swevis.paths import ResultsLayout, RunKey


@dataclass
class RunSpec:
    """Everything one trajectory needs; `make_run_spec` builds it from config and file inputs."""

    model_name: str
    profile: dict[str, Any]
    agent: str  # a registered agent or its variant <agent>-<suffix> (swevis.agents.registry)
    scope: str  # normal | wide
    condition: str  # text or a page family's r<N> (swevis.conditions)
    row: dict[str, Any]
    mirror: str
    out_dir: str
    index_db: str | None = None
    pristine_dir: str | None = None
    preloc: dict[str, Any] | None = None
    agents_cfg: dict[str, Any] = field(default_factory=dict)
    localize_cfg: dict[str, Any] = field(default_factory=dict)
    render_cfg: dict[str, Any] = field(default_factory=dict)
    cache_dir: str | None = None
    playback_source: Any = None
    journal_path: str | None = None
    workspace: str | None = None  # fixed checkout folder (local env); None: a temporary one
    ledger_path: str | None = None  # the condition's spend ledger (live models); see swevis.models.spend
    repeat: int = 0
    # the harness keys naming the instance image a docker run uses (namespace, image tags);
    # None or missing keys: the schema's, as the Docker harness would grade in
    harness_cfg: dict[str, Any] | None = None
    settings: AgentSettings = field(init=False)

    def __post_init__(self) -> None:
        check_condition(self.agent, self.condition)  # a page family the agent cannot run
        settings = AgentSettings.from_config(self.agents_cfg)
        # `auto` resolved once, here: the runner, the journal and traj.json see local or docker
        self.settings = replace(settings, environment=resolved_environment(settings.environment, self.live))

    @property
    def live(self) -> bool:
        return is_live(self.profile)


@dataclass(frozen=True)
class RunInputs:
    """What every run of one model on one instance reads, whatever its agent, scope and
    condition: the model and its profile, the instance's row, mirror, checkout and index, and
    the config sections. The workflow's runs (make_run_spec) and the counterfactual replay
    take it whole; `spec` spreads it into a RunSpec."""

    model: str
    profile: dict[str, Any]
    row: dict[str, Any]
    mirror: str
    agents_cfg: dict[str, Any] = field(default_factory=dict)
    localize_cfg: dict[str, Any] = field(default_factory=dict)
    render_cfg: dict[str, Any] = field(default_factory=dict)
    index_db: str | None = None
    pristine_dir: str | None = None

    def spec(self, *, agent: str, scope: str, condition: str, out_dir: str, **rest: Any) -> RunSpec:
        """The RunSpec of one cell's run of these inputs; `rest`: RunSpec's other fields."""
        return RunSpec(
            model_name=self.model, profile=self.profile, agent=agent, scope=scope, condition=condition, row=self.row,
            mirror=self.mirror, out_dir=out_dir, index_db=self.index_db, pristine_dir=self.pristine_dir,
            agents_cfg=self.agents_cfg, localize_cfg=self.localize_cfg, render_cfg=self.render_cfg, **rest,
        )


def make_run_spec(
    inputs: RunInputs,
    *,
    agent: str,
    scope: str,
    condition: str,
    out_dir: str,
    preloc: dict[str, Any] | None = None,
    repeat: int = 0,
    demo: str | None = None,
    harness_cfg: dict[str, Any] | None = None,
) -> RunSpec:
    """The RunSpec of one run. A playback profile plays back `demo`, else the agent's bundled
    demonstration; a repeat asks a live model again, so it gets its own response cache; the
    journal, ledger and workspace sit where ResultsLayout puts them (below agents.*_dir)."""
    folders = RunFolders.from_config(inputs.agents_cfg)
    instance = inputs.row["instance_id"]
    playback = None
    if not is_live(inputs.profile):
        playback = demo or str(demo_path(agent, instance, folders.demos_dir))
    cache_dir = folders.cache_dir if repeat == 0 else str(Path(folders.cache_dir) / f"repeat-{repeat}")
    layout = ResultsLayout()
    run = RunKey(inputs.model, agent, scope, condition, instance, repeat)
    return inputs.spec(
        agent=agent, scope=scope, condition=condition, out_dir=out_dir, preloc=preloc, cache_dir=cache_dir,
        playback_source=playback, repeat=repeat, harness_cfg=harness_cfg,
        # The journal survives a killed job (it is no rule output): run_instance resumes from it
        # (live models) and deletes it once traj.json is written. See swevis.agents.run.resume.
        journal_path=layout.run_journal(folders.journal_dir, run),
        ledger_path=layout.spend_ledger(folders.ledger_dir, run.cell),
        # one flat folder per run, named by digits rather than by agent and condition
        workspace=layout.run_workspace(folders.workspace_dir, run),
    )
