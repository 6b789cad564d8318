"""LET variants: working memory, bug reproduction and patch verification.

A variant is a named set of flags in config (``agents.variants``)::

    agents:
      variants:
        let-mem:    {memory: true}
        let-repro:  {reproduction: true}
        let-verify: {verification: true}
        let-all:    {memory: true, reproduction: true, verification: true}

and runs as the agent of that name (``results/runs/<model>/let-mem-normal/r3/...``).
Everything not switched on is plain LET, so a variant differs from LET only in its flags.

* **memory** (:mod:`swevis.agents.mechanisms.memory`): one working memory for the whole trajectory,
  consulted by the query tools and by the observation pipeline of every phase.
* **reproduction** (:mod:`swevis.agents.mechanisms.reproduction`): a stage between the
  locator and the editor (phase ``reproduction``, bash + ``view_code`` +
  ``commit_reproduction CMD``); the accepted reproduction becomes the editor's repair
  objective. A stage that runs out of its step budget is recorded as *not reproduced* and
  the editor proceeds without one.
* **verification** (:mod:`swevis.agents.mechanisms.verification`): the editor's ``submit``
  first runs the reproduction and the regression tests of the patch, at most
  ``verify_rounds`` times back to the editor.

Each mechanism is a module of its own that Prometheus composes too.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, fields
from typing import Any

from swevis.agents.mechanisms.memory import (WorkingMemory, make_memory, memory_pipeline, memory_summary,
                                             remembering_tools)
from swevis.agents.mechanisms.regression import reproduction_runner
from swevis.agents.mechanisms.reproduction import COMMIT_REPRODUCTION, Reproduction, reproduction_objective
from swevis.agents.mechanisms.verification import Verification, verifying
from swevis.agents.observation.observe import ObservationPipeline
from swevis.agents.prompts import render_prompt
from swevis.agents.registry import is_variant
from swevis.agents.tool_registry import Tool
from swevis.agents.tools.environment import ToolEnvironment
from swevis.agents.tools.finish import SUBMIT
from swevis.agents.tools.index import VIEW_CODE
from swevis.config import typed_section

FLAGS = ("memory", "reproduction", "verification")
# the name a variant's entry is validated under when the agent is plain LET (no entry)
_PLAIN = "let-plain"
# example variants (config.yaml's), for tests and demonstrations; the schema's default is none
DEFAULT_VARIANTS: dict[str, dict[str, Any]] = {
    "let-mem": {"memory": True},
    "let-repro": {"reproduction": True},
    "let-verify": {"verification": True},
    "let-all": {"memory": True, "reproduction": True, "verification": True},
}
@dataclass(frozen=True)
class VariantSettings:
    """One LET variant's entry of ``agents.variants`` (all flags off for plain LET), typed."""

    memory: bool
    reproduction: bool
    verification: bool
    reproduction_step_limit: int
    verify_rounds: int
    regression_limit: int
    output_chars: int
    memory_options: dict[str, Any]

    def __getitem__(self, key: str) -> Any:
        """Read like the config entry it comes from (flags["memory"])."""
        return getattr(self, key)


def variant_flags(agent: str, agents_cfg: dict[str, Any]) -> VariantSettings:
    """The flags of a LET variant, filled through the schema (all off for plain LET).

    Looked up in ``agents_cfg['variant']`` (the workflow may pass just this agent's entry)
    or ``agents_cfg['variants'][agent]``."""
    entry: dict[str, Any] | None = {}
    if is_variant(agent):
        entry = agents_cfg.get("variant")
        if entry is None:
            entry = (agents_cfg.get("variants") or {}).get(agent)
    if entry is None:
        configured = ", ".join(sorted(agents_cfg.get("variants") or {})) or "none"
        raise ValueError(f"agent {agent!r} is not a configured LET variant (agents.variants: {configured})")
    names = [f.name for f in fields(VariantSettings)]
    unknown = sorted(set(entry) - set(names))
    if unknown:
        raise ValueError(f"agents.variants.{agent}: unknown key(s) {', '.join(unknown)}")
    return typed_section(VariantSettings, "agents", entry, within=("variants", _PLAIN))


def variant_record(flags: VariantSettings, memory: WorkingMemory | None, steps: list[dict[str, Any]],
                   reproduction: dict[str, Any] | None, repro_attempts: list[dict[str, Any]] | None,
                   verifications: list[dict[str, Any]] | None) -> dict[str, Any]:
    """traj.json's ``variant`` block: the flags and what each mechanism did."""
    rec: dict[str, Any] = {"flags": {k: bool(flags[k]) for k in FLAGS}}
    if memory is not None:
        rec["memory"] = {
            **memory_summary(steps),
            "units": len(memory.units),
            "query_records": len(memory.records),
            "resent_lines": memory.resent_lines,
            "embedder": memory.embedder_name,
            "weights": memory.weights,
            "threshold": memory.threshold,
        }
    if flags.reproduction:
        rec["reproduction"] = {
            "reproduced": reproduction is not None,
            "accepted": reproduction,
            "attempts": repro_attempts or [],
        }
    if flags.verification:
        rec["verification"] = verifications or []
    return rec


class LetVariant:
    """What a variant adds to LET's run (swevis.agents.run.runner): the working memory in every
    phase, the reproduction stage before the editor, verification at submit, traj.json's
    ``variant`` block. Plain LET runs without one, so the baseline never loads this module."""

    def __init__(self, agent: str, agents_cfg: dict[str, Any], issue_text: str, recorder: Any, spec: Any = None):
        self.flags = variant_flags(agent, agents_cfg)
        self.memory = make_memory(self.flags.memory, issue_text, agents_cfg, options=self.flags.memory_options, spec=spec,
                                  recorder=recorder)
        self.recorder = recorder
        self.task_row = spec.row if spec is not None else None
        self.reproduction: dict[str, Any] | None = None  # the accepted one, the editor's objective
        self.repro_stage: Reproduction | None = None
        self.editor_check: Verification | None = None

    def pipeline(self, phase: str) -> Callable[..., ObservationPipeline]:
        return memory_pipeline(self.memory, phase, self.recorder)

    def tool_env(self, base: Any, *, tools: Iterable[Tool], allow_bash: bool, context: str,
                 **kwargs: Any) -> ToolEnvironment:
        """A phase's tools with the variant's mechanisms composed in: the memory in front of
        the query tools, the reproduction stage's part, verification at the editor's submit."""
        tools = remembering_tools(tools) if self.memory is not None else tuple(tools)
        parts: list[Any] = [self.memory]
        if context == "reproduction":
            self.repro_stage = Reproduction(output_chars=self.flags.output_chars)
            parts.append(self.repro_stage)
        if self.flags.verification and any(t.name == SUBMIT.name for t in tools):
            check = Verification(reproduction=self.reproduction if context == "editor" else None,
                                 task_row=self.task_row, verify_rounds=self.flags.verify_rounds,
                                 regression_limit=self.flags.regression_limit, output_chars=self.flags.output_chars)
            tools = tuple(verifying(t) if t.name == SUBMIT.name else t for t in tools)
            parts.append(check)
            if context == "editor":
                self.editor_check = check
        return ToolEnvironment(base, tools=tools, allow_bash=allow_bash, context=context, recorder=self.recorder,
                               parts=parts, **kwargs)

    def editor_addendum(self, run_phase: Callable[..., dict], base: Any, *, issue: str, plan_text: str,
                        values: dict[str, Any], visual: bool, tool_kwargs: dict[str, Any]) -> str:
        """Run the reproduction stage (when on) through `run_phase`; return what the editor's
        task message gets appended (the repair objective, the verification note)."""
        addendum = ""
        if self.flags.reproduction:
            env = self.tool_env(base, tools=(VIEW_CODE, COMMIT_REPRODUCTION), allow_bash=True,
                                context="reproduction", **tool_kwargs)
            limit = self.flags.reproduction_step_limit
            result = run_phase(
                env=env, phase="reproduction", purpose="reproduction",
                system=render_prompt("let_repro_system", test_runner=reproduction_runner(self.task_row), **values),
                instance=render_prompt("let_repro_instance", issue=issue, plan=plan_text, step_limit=limit, **values),
                step_limit=limit, visual=visual,
            )
            self.reproduction = result.get("reproduction")
            addendum += reproduction_objective(self.reproduction, self.repro_stage.attempts)
        if self.flags.verification:
            addendum += render_prompt("let_verify_note", reproduction=self.reproduction)
        return addendum

    def record(self, steps: list[dict[str, Any]]) -> dict[str, Any]:
        return variant_record(
            self.flags, self.memory, steps, self.reproduction, self.repro_stage.attempts if self.repro_stage else None,
            self.editor_check.verifications if self.editor_check else None,
        )
