"""Run one agent on one instance under one condition: the agent the registry names
(swevis.agents.registry: the built-in agents, their variants, or an agents.modules one).

Every agent reuses mini-swe-agent's DefaultAgent loop (templates, step limits, format-error
limit, submission, exit statuses) with swevis's model adapter, observation pipeline and
environments, one `AgentRun.phase` per model conversation; the agent's own module says
which phases (its `run`). This module starts the run and assembles traj.json
(`assemble_trajectory`).
"""

from __future__ import annotations

import json
import logging
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minisweagent.agents.default import DefaultAgent
from minisweagent.exceptions import FormatError, Submitted

from swevis import __version__
from swevis.agents.run.chat import ChatStack, guarded_backend, open_chat_stack
from swevis.sandbox.environments import make_environment
from swevis.agents.observation.observe import ObservationConfig, ObservationPipeline, number_lines
from swevis.agents.prompts import mini_swebench_config, render_prompt
from swevis.agents.registry import AgentKind, agent_kind
from swevis.agents.settings import AgentSettings
from swevis.agents.run.spec import RunSpec, make_run_spec
from swevis.agents.tools.environment import ToolEnvironment, read_file_via, working_tree_diff
from swevis.agents.tools.index import format_candidates, format_package
from swevis.agents.run.trajectory import TRAJ_FORMAT, StepRecorder, exit_status_of, image_free
from swevis.config import filled_section
from swevis.errors import InfrastructureError, RepoError
from swevis.fsutil import write_atomic
from swevis.index import open_index
from swevis.localize import localize_issue, pack_context
from swevis.localize.rerank import describe as describe_ranker
from swevis.models import ContextLengthExceeded, ModelCallFailed, PlaybackExhausted
from swevis.models.spend import CostLimitExceeded, spend_of_usage
from swevis.provenance import write_json_atomic

log = logging.getLogger(__name__)

__all__ = ["RunSpec", "clear_outputs", "make_run_spec", "prelocalize", "prelocalize_run", "run_instance"]

class _Agent(DefaultAgent):
    """DefaultAgent plus one hook: an action that ends the phase (submit, commit_plan) or that
    a tool rejects (a format error) still gets its step record."""

    def execute_actions(self, message: dict) -> list[dict]:
        actions = message.get("extra", {}).get("actions", [])
        command = actions[-1]["command"] if actions else ""
        try:
            return super().execute_actions(message)
        except Submitted:
            self.model.record_final_action(command)
            raise
        except FormatError:
            self.model.record_final_action(command, format_error=True)
            raise


# What ends a trajectory as an outcome of the agent, recorded in traj.json with its exit
# status (the tables count it): a spend cap (cost_limit; the journal is kept so a raised cap
# continues), a recorded demonstration that ran out, and a conversation that outgrew what
# the model accepts -- its context window (context_length) or, under image_policy reject,
# its image cap (ModelCallFailed too_many_images). Those two are deterministic at
# temperature 0: a retry would build the same prompt and be refused again, and how fast the
# prompt grows is what the conditions (text vs rendered code) measure. Format errors, step
# limits and no submission end inside mini's loop and never raise. Everything else is no
# outcome of the agent and fails the job without a traj.json: InfrastructureError (the
# endpoint, the key, the environment; retried by the next run) and swevis's own bugs.
TRAJECTORY_OUTCOMES = (ContextLengthExceeded, CostLimitExceeded, PlaybackExhausted, ModelCallFailed)


@dataclass
class AgentRun:
    """One trajectory in progress: what every phase of every agent shares."""

    spec: RunSpec
    stack: ChatStack
    env: Any
    repo_root: str
    recorder: StepRecorder
    kind: AgentKind  # the agent being run (registry)
    variant: Any = None  # the agent's hooks (AgentKind.make_hooks: LET's variants, Prometheus's memory)
    record: dict[str, Any] = field(default_factory=dict)  # top-level traj.json keys the agent adds
    messages: list[dict] = field(default_factory=list)
    phase_exit: dict[str, str] = field(default_factory=dict)
    templates: dict[str, str] = field(default_factory=dict)

    def phase(self, *, env: Any, phase: str, purpose: str, system: str, instance: str, step_limit: int,
              visual: bool, extra_vars: dict[str, Any] | None = None, templates_are_text: bool = True) -> dict[str, Any]:
        """One DefaultAgent run; returns its exit extra and keeps its messages (all of them go
        into traj.json for analysis; LET's editor never sees the locator's)."""
        pipeline = self._pipeline(env, phase, visual)
        model = self.stack.adapter(pipeline, self.recorder, phase=phase, purpose=purpose,
                                   format_error_template=self.templates["format_error_template"])
        if templates_are_text:
            # Our prompts are rendered already; hand them to mini as values so nothing in an
            # issue text is ever interpreted as Jinja.
            extra_vars = {**(extra_vars or {}), "swevis_system": system, "swevis_instance": instance}
            system, instance = "{{ swevis_system }}", "{{ swevis_instance }}"
        agent = _Agent(model, env, system_template=system, instance_template=instance, step_limit=step_limit,
                       cost_limit=0, max_consecutive_format_errors=self.spec.settings.max_format_errors)
        try:
            result = agent.run(**(extra_vars or {}))
        except InfrastructureError:
            raise  # EndpointFailed / MissingAPIKey are ModelCallFailed / ModelError too: never an outcome
        except TRAJECTORY_OUTCOMES as exc:
            status = "ContextLengthExceeded" if isinstance(exc, ContextLengthExceeded) else type(exc).__name__
            result = {"exit_status": status, "submission": "", "error": f"{type(exc).__name__}: {exc}"}
            log.warning("%s phase ended by %s", phase, result["error"])
        self.messages += [{**m, "content": image_free(m.get("content")), "phase": phase} for m in agent.messages]
        self.phase_exit[phase] = exit_status_of(result.get("exit_status", ""))
        return result

    def _pipeline(self, env: Any, phase: str, visual: bool) -> ObservationPipeline:
        spec, settings = self.spec, self.spec.settings
        make = ObservationPipeline if self.variant is None else self.variant.pipeline(phase)
        return make(
            ObservationConfig(
                condition=spec.condition, scope=spec.scope, wide_margin=settings.wide_margin,
                max_window_chars=settings.max_window_chars, tokenizer=self.stack.profile["tokenizer"],
                image_family=self.stack.profile["image_family"], render=spec.render_cfg,
                visual_enabled=visual, pages=spec.agents_cfg.get("pages") or {},
            ),
            # file reads for windows go to the base environment (the locator has no bash)
            read_file=env.read_file if isinstance(env, ToolEnvironment) else (lambda path: read_file_via(env, path)),
            observation_template=self.templates["observation_template"],
        )


def _start_environment(spec: RunSpec, profile: dict[str, Any]) -> tuple[Any, str, Any]:
    """make_environment, with a start that fails on the machinery (no docker executable or
    engine, an image that will not run, a checkout that cannot be made) raised as
    InfrastructureError: the job fails and is retried, it is no outcome of the agent. A
    refusal by configuration (EnvironmentRefused, an unknown environment) stays as raised."""
    settings = spec.settings
    kind = settings.environment
    try:
        return make_environment(
            kind,
            spec.row,
            mirror=spec.mirror,
            timeout_s=settings.command_timeout_s,
            live_model=spec.live,
            allow_live_on_host=settings.allow_live_on_host,
            docker_network=settings.docker_network,
            docker_cpus=settings.docker_cpus,
            docker_memory=settings.docker_memory,
            docker_pids=settings.docker_pids,
            harness=spec.harness_cfg,
            workspace=spec.workspace,
            secret_env_names=[profile["api_key_env"]],
            env_passthrough=list(settings.env_passthrough),
        )
    except (OSError, subprocess.SubprocessError, RepoError) as exc:
        detail = str(exc)
        stderr = getattr(exc, "stderr", None)  # docker's own words, e.g. "Cannot connect to the Docker daemon"
        if isinstance(stderr, str) and stderr.strip():
            detail += f"; {stderr.strip().splitlines()[-1]}"
        reason = " ".join(detail.split())
        raise InfrastructureError(f"agent environment {kind} for {spec.row['instance_id']} did not start: {reason}") from exc


def ranker_provenance(localize_cfg: dict | None) -> str:
    """Which symbol ranking D_loc used in this run. The re-ranker's weights are package data,
    not an input of paid runs (the trigger policy): an upgrade that refits them does not rerun
    them, and this says which weights a run saw."""
    given = {"ranker": localize_cfg["ranker"]} if localize_cfg and "ranker" in localize_cfg else {}
    return describe_ranker(filled_section("localize", given)["ranker"])


def prelocalize(
    row: dict[str, Any], chat: Any, *, index_db: str, pristine_dir: str, localize_cfg: dict[str, Any],
    top_k: int | None = None,
) -> dict[str, Any]:
    """PLB's offline pre-localization: D_loc + D_pkg + one model call that writes the package.
    `top_k`: candidates per kind (None: the schema's agents.top_k)."""
    if top_k is None:
        top_k = AgentSettings.from_config({}).top_k
    ranker = ranker_provenance(localize_cfg)  # before any model call: never lost, never raises

    with open_index(index_db) as index:
        cands = localize_issue(index, row["problem_statement"], top_k=top_k, options=localize_cfg)
        package = pack_context(index, cands, repo_dir=pristine_dir, issue_text=row["problem_statement"], options=localize_cfg)
    windows_text = "\n".join(
        f"[window {w['path']}:{w['start']}-{w['end']}]\n"
        + number_lines(w["text"].splitlines(), w["start"])
        for w in package["windows"]
    )
    messages = [
        {"role": "system", "content": render_prompt("preloc_system")},
        {
            "role": "user",
            "content": render_prompt(
                "preloc_instance",
                issue=row["problem_statement"],
                candidates=format_candidates(cands),
                package=format_package(package) + "\n" + windows_text,
            ),
        },
    ]
    response = chat.complete(messages, purpose="preloc")
    return {
        "instance_id": row["instance_id"],
        "localizer_ranker": ranker,
        "candidates": [c.to_dict() for c in cands],
        "windows": [{k: w[k] for k in ("path", "start", "end", "symbols")} for w in package["windows"]],
        "package": response.content,
        "usage": response.record(),
        "messages": messages + [{"role": "assistant", "content": response.content}],
    }


def prelocalize_run(spec: RunSpec) -> dict[str, Any]:
    """PLB's pre-localization for the run `spec` describes: its model (the run's playback
    source or response cache), index, checkout and top_k. The call goes through the run's
    spend guard (its caps, the condition's ledger) as every trajectory call does; no journal:
    it is one call, and a rerun after a failure has nothing recorded to resume."""
    chat = guarded_backend(spec)
    return prelocalize(
        spec.row, chat, index_db=spec.index_db, pristine_dir=spec.pristine_dir, localize_cfg=spec.localize_cfg,
        top_k=spec.settings.top_k,
    )


def clear_outputs(out_dir: str | Path) -> Path:
    """Remove an earlier run's traj.json and patch.diff: a run that fails leaves none, so no
    one takes the old ones for its result (Snakemake removes a job's outputs itself)."""
    out = Path(out_dir)
    for name in ("traj.json", "patch.diff"):
        (out / name).unlink(missing_ok=True)
    return out


def _hooks(spec: RunSpec, kind: AgentKind, recorder: StepRecorder) -> Any:
    """The run's hooks (its memory, a variant's stages) the agent builds, or None."""
    return kind.make_hooks(spec, recorder) if kind.make_hooks is not None else None


def _usage(spec: RunSpec, recorder: StepRecorder, profile: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(phases, totals) of the trajectory, PLB's pre-localization call included, each phase's
    and the whole trajectory's with its cost (the profile's prices, cached prompt tokens at
    the cached-input price: swevis.models.spend; 0 without prices)."""
    phases = recorder.phase_totals()
    totals = recorder.totals()
    usages = [s["usage"] for s in recorder.steps]
    if spec.preloc is not None:
        u = spec.preloc["usage"]["usage"]
        preloc = {"prompt_tokens": u["prompt_tokens"], "cached_prompt_tokens": int(u.get("cached_prompt_tokens") or 0),
                  "completion_tokens": u["completion_tokens"], "calls": 1, "steps": 0}
        phases = {"preloc": preloc, **phases}
        totals["prompt_tokens"] += preloc["prompt_tokens"]
        totals["cached_prompt_tokens"] += preloc["cached_prompt_tokens"]
        totals["completion_tokens"] += preloc["completion_tokens"]
        totals["calls"] += 1
        usages.append(preloc)
    totals["cost"] = round(sum(spend_of_usage(profile, u).cost for u in usages), 6)
    for phase, p in phases.items():  # each stage's spend (its calls and tokens are counted above)
        p["cost"] = round(spend_of_usage(profile, p).cost, 6)
    return phases, totals


def assemble_trajectory(run: AgentRun, final: dict[str, Any], plan: dict[str, Any] | None, *, ranker: str,
                        started: float) -> dict[str, Any]:
    """traj.json of a finished run."""
    spec, recorder, stack = run.spec, run.recorder, run.stack
    phases, totals = _usage(spec, recorder, stack.profile)
    kind = run.kind
    traj = {
        "format": TRAJ_FORMAT,
        "instance_id": spec.row["instance_id"],
        "model": spec.model_name,
        "model_id": stack.profile["model_id"],
        "backend": stack.profile["backend"],
        "agent": spec.agent,
        "scope": spec.scope,
        "condition": spec.condition,
        "repeat": spec.repeat,
        "exit_status": exit_status_of(final.get("exit_status", "")),
        "phase_exit_status": run.phase_exit,
        "error": final.get("error"),
        "steps": recorder.steps,
        "phases": phases,
        "totals": totals,
        "evidence": {
            "viewed_windows": recorder.viewed_windows(kind.evidence_phases),
            "committed_snippets": [[s["path"], s["start"], s["end"]] for s in (plan or {}).get("relevant_snippets", [])],
        },
        "plan": plan,
        "variant": run.variant.record(recorder.steps) if run.variant is not None else None,
        "preloc": {"package": spec.preloc["package"], "usage": spec.preloc["usage"]} if spec.preloc else None,
        "messages": run.messages,
        "provenance": {
            "swevis_version": __version__,
            "environment": spec.settings.environment,
            "tokenizer": stack.profile["tokenizer"],
            "image_family": stack.profile["image_family"],
            "agents_config": spec.settings.to_dict(),
            "localizer_ranker": ranker,
            "wall_time_s": round(time.time() - started, 2),
            "resume": stack.journal.info(),
            "spend": {"trajectory": stack.guard.spent.to_dict(), "ledger": spec.ledger_path},
        },
    }
    clash = sorted(set(run.record) & set(traj))
    if clash:
        raise ValueError(f"agent {kind.name} records traj.json key(s) swevis writes: {', '.join(clash)}")
    return {**traj, **run.record}


def run_instance(spec: RunSpec) -> dict[str, Any]:
    """Run the trajectory, write traj.json and patch.diff into spec.out_dir, return the traj.

    An InfrastructureError (endpoint, API key, environment) propagates and leaves neither
    file, not even an earlier run's, so the job fails and the next run retries it; the
    journal keeps the steps that finished, so the retry pays only for the missing calls."""
    out = clear_outputs(spec.out_dir)
    started = time.time()
    ranker = ranker_provenance(spec.localize_cfg)  # recorded before any paid call; never raises
    stack = open_chat_stack(spec)
    recorder = stack.journal.recorder()
    templates = {k: mini_swebench_config()["model"][k] for k in ("observation_template", "format_error_template")}
    kind = agent_kind(spec.agent)
    variant = _hooks(spec, kind, recorder)
    # nothing that can fail runs between creating the environment and the try that closes it
    env, repo_root, workspace = _start_environment(spec, stack.profile)
    try:
        run = AgentRun(spec, stack, env, repo_root, recorder, kind=kind, variant=variant, templates=templates)
        final, plan = kind.run(run)
        patch = working_tree_diff(env)
    finally:
        if workspace is not None:
            workspace.close()
        elif hasattr(env, "cleanup"):
            env.cleanup()
    traj = assemble_trajectory(run, final, plan, ranker=ranker, started=started)
    out.mkdir(parents=True, exist_ok=True)
    write_atomic(out / "patch.diff", patch)  # redacted, like every record
    write_json_atomic(traj, out / "traj.json")
    if (traj["error"] or "").startswith("CostLimitExceeded"):
        log.warning("journal %s kept: a rerun continues this trajectory after the cap is raised", spec.journal_path)
    else:
        stack.journal.discard()  # the trajectory is complete
    return traj
