"""Run one agent on one instance under one condition: mini, PLB or LET.

All three reuse mini-swe-agent's DefaultAgent loop (templates, step limits, format-error
limit, submission, exit statuses) with swevis's model adapter, observation pipeline and
environments. LET runs it twice: the locator (its transcript is discarded at the handoff)
and the editor, which starts from the committed plan.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")

from minisweagent.agents.default import DefaultAgent  # noqa: E402
from minisweagent.exceptions import FormatError, Submitted  # noqa: E402

from swevis import __version__  # noqa: E402
from swevis.agents.environments import make_environment  # noqa: E402
from swevis.agents.model_adapter import SwevisAgentModel  # noqa: E402
from swevis.agents.observe import ObservationConfig, ObservationPipeline  # noqa: E402
from swevis.agents.prompts import mini_swebench_config, render_prompt  # noqa: E402
from swevis.agents.tools import ToolEnvironment, read_file_via, working_tree_diff  # noqa: E402
from swevis.agents.trajectory import TRAJ_FORMAT, StepRecorder, exit_status_of, image_free  # noqa: E402
from swevis.agents.variants import (  # noqa: E402
    VariantToolEnvironment,
    is_let,
    make_memory,
    reproduction_objective,
    variant_flags,
    variant_record,
)
from swevis.errors import InfrastructureError, RepoError  # noqa: E402
from swevis.models import ContextLengthExceeded, ModelCallFailed, ReplayExhausted  # noqa: E402
from swevis.models.spend import CostLimitExceeded  # noqa: E402

log = logging.getLogger(__name__)

LOCATOR_TOOLS = {"localize_issue", "pack_context", "view_code", "commit_plan"}
EDITOR_TOOLS = {"localize_issue", "pack_context", "view_code", "submit"}

AGENT_DEFAULTS: dict[str, Any] = {
    "step_limit": 250,
    "locator_step_limit": 40,
    "editor_step_limit": 120,
    "max_format_errors": 3,
    "wide_margin": 20,
    "max_window_chars": 10000,
    "let_editor_visual": False,
    "environment": "local",
    "command_timeout_s": 60,
    "allow_live_on_host": False,
    "docker_network": False,
    "docker_cpus": None,
    "docker_memory": None,
    "env_passthrough": [],
    "top_k": 10,
    "resume": True,
    # spend caps (swevis.models.spend); None = no cap
    "max_trajectory_tokens": None,
    "max_trajectory_calls": None,
    "max_trajectory_cost": None,
    "max_condition_tokens": None,
    "max_condition_calls": None,
    "max_condition_cost": None,
}


@dataclass
class RunSpec:
    """Everything one trajectory needs; the workflow builds it from config and file inputs."""

    model_name: str
    profile: dict[str, Any]
    agent: str  # mini | plb | let
    scope: str  # normal | wide
    condition: str  # text | rN
    row: dict[str, Any]
    mirror: str
    out_dir: str
    index_db: str | None = None
    pristine_dir: str | None = None
    preloc: dict[str, Any] | None = None
    agents_cfg: dict[str, Any] = field(default_factory=dict)
    index_cfg: dict[str, Any] = field(default_factory=dict)
    render_cfg: dict[str, Any] = field(default_factory=dict)
    cache_dir: str | None = None
    replay_source: Any = None
    journal_path: str | None = None
    workspace: str | None = None  # fixed checkout folder (local env); None: a temporary one
    ledger_path: str | None = None  # the condition's spend ledger (live models); see swevis.models.spend
    repeat: int = 0

    def opt(self, key: str) -> Any:
        return self.agents_cfg.get(key, AGENT_DEFAULTS[key])


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
TRAJECTORY_OUTCOMES = (ContextLengthExceeded, CostLimitExceeded, ReplayExhausted, ModelCallFailed)


def _run_phase(
    *, spec: RunSpec, chat: Any, env: Any, recorder: StepRecorder, phase: str, purpose: str,
    system: str, instance: str, step_limit: int, visual: bool, observation_template: str, format_error_template: str,
    extra_vars: dict[str, Any] | None = None, templates_are_text: bool = True, memory: Any = None,
) -> tuple[dict[str, Any], list[dict]]:
    """One DefaultAgent run; returns (exit extra, messages). `memory`: the LET variants'
    working memory (swevis.agents.memory), consulted before every observation."""
    pipeline_cls, pipeline_kw = ObservationPipeline, {}
    if memory is not None:
        from swevis.agents.memory import MemoryObservationPipeline

        pipeline_cls, pipeline_kw = MemoryObservationPipeline, {"memory": memory, "context": phase, "recorder": recorder}
    pipeline = pipeline_cls(
        ObservationConfig(
            condition=spec.condition,
            scope=spec.scope,
            wide_margin=int(spec.opt("wide_margin")),
            max_window_chars=int(spec.opt("max_window_chars")),
            tokenizer=spec.profile.get("tokenizer", "qwen3"),
            image_family=spec.profile.get("image_family", "qwen3.5"),
            render=spec.render_cfg,
            visual_enabled=visual,
        ),
        # file reads for windows go to the base environment (the locator has no bash)
        read_file=env.read_file if isinstance(env, ToolEnvironment) else (lambda path: read_file_via(env, path)),
        observation_template=observation_template,
        **pipeline_kw,
    )
    model = SwevisAgentModel(
        chat, pipeline, recorder, phase=phase, purpose=purpose, format_error_template=format_error_template
    )
    if templates_are_text:
        # Our prompts are rendered already; hand them to mini as values so nothing in an
        # issue text is ever interpreted as Jinja.
        agent_system, agent_instance = "{{ swevis_system }}", "{{ swevis_instance }}"
        extra_vars = {**(extra_vars or {}), "swevis_system": system, "swevis_instance": instance}
    else:
        agent_system, agent_instance = system, instance
    agent = _Agent(
        model,
        env,
        system_template=agent_system,
        instance_template=agent_instance,
        step_limit=step_limit,
        cost_limit=0,
        max_consecutive_format_errors=int(spec.opt("max_format_errors")),
    )
    try:
        result = agent.run(**(extra_vars or {}))
    except InfrastructureError:
        raise  # EndpointFailed / MissingAPIKey are ModelCallFailed / ModelError too: never an outcome
    except TRAJECTORY_OUTCOMES as exc:
        status = "ContextLengthExceeded" if isinstance(exc, ContextLengthExceeded) else type(exc).__name__
        result = {"exit_status": status, "submission": "", "error": f"{type(exc).__name__}: {exc}"}
        log.warning("%s phase ended by %s", phase, result["error"])
    messages = [{**m, "content": image_free(m.get("content")), "phase": phase} for m in agent.messages]
    return result, messages


def _start_environment(spec: RunSpec, live: bool) -> tuple[Any, str, Any]:
    """make_environment, with a start that fails on the machinery (no docker executable or
    engine, an image that will not run, a checkout that cannot be made) raised as
    InfrastructureError: the job fails and is retried, it is no outcome of the agent. A
    refusal by configuration (EnvironmentRefused, an unknown environment) stays as raised."""
    kind = spec.opt("environment")
    try:
        return make_environment(
            kind,
            spec.row,
            mirror=spec.mirror,
            timeout_s=int(spec.opt("command_timeout_s")),
            live_model=live,
            allow_live_on_host=bool(spec.opt("allow_live_on_host")),
            docker_network=bool(spec.opt("docker_network")),
            docker_cpus=spec.opt("docker_cpus"),
            docker_memory=spec.opt("docker_memory"),
            workspace=spec.workspace,
            secret_env_names=[spec.profile.get("api_key_env") or "SWEVIS_API_KEY"],
            env_passthrough=spec.opt("env_passthrough"),
        )
    except (OSError, subprocess.SubprocessError, RepoError) as exc:
        detail = str(exc)
        stderr = getattr(exc, "stderr", None)  # docker's own words, e.g. "Cannot connect to the Docker daemon"
        if isinstance(stderr, str) and stderr.strip():
            detail += f"; {stderr.strip().splitlines()[-1]}"
        reason = " ".join(detail.split())
        raise InfrastructureError(f"agent environment {kind} for {spec.row['instance_id']} did not start: {reason}") from exc


def _ranker_provenance(index_cfg: dict | None) -> str:
    """Which symbol ranking D_loc used in this run. The re-ranker's weights are package data,
    not an input of paid runs (the trigger policy): an upgrade that refits them does not rerun
    them, and this says which weights a run saw."""
    from swevis.localize.rerank import describe

    return describe((index_cfg or {}).get("ranker", "learned"))


def prelocalize(
    row: dict[str, Any], chat: Any, *, index_db: str, pristine_dir: str, index_cfg: dict[str, Any], top_k: int = 10
) -> dict[str, Any]:
    """PLB's offline pre-localization: D_loc + D_pkg + one model call that writes the package."""
    from swevis.agents.observe import number_lines
    from swevis.agents.tools import format_candidates, format_package
    from swevis.index import open_index
    from swevis.localize import localize_issue, pack_context

    ranker = _ranker_provenance(index_cfg)  # before any model call: never lost, never raises

    with open_index(index_db) as index:
        cands = localize_issue(index, row["problem_statement"], top_k=top_k, options=index_cfg)
        package = pack_context(index, cands, repo_dir=pristine_dir, issue_text=row["problem_statement"], options=index_cfg)
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


def clear_outputs(out_dir: str | Path) -> Path:
    """Remove an earlier run's traj.json and patch.diff: a run that fails leaves none, so no
    one takes the old ones for its result (Snakemake removes a job's outputs itself)."""
    out = Path(out_dir)
    for name in ("traj.json", "patch.diff"):
        (out / name).unlink(missing_ok=True)
    return out


def run_instance(spec: RunSpec) -> dict[str, Any]:
    """Run the trajectory, write traj.json and patch.diff into spec.out_dir, return the traj.

    An InfrastructureError (endpoint, API key, environment) propagates and leaves neither
    file, not even an earlier run's, so the job fails and the next run retries it; the
    journal keeps the steps that finished, so the retry pays only for the missing calls."""
    from swevis.models import make_model

    out = clear_outputs(spec.out_dir)
    started = time.time()
    ranker = _ranker_provenance(spec.index_cfg)  # recorded before any paid call; never raises
    chat = make_model(spec.model_name, spec.profile, cache_dir=spec.cache_dir, replay_source=spec.replay_source)
    live = spec.profile.get("backend") != "replay"
    # Resume (swevis.agents.resume) and spend caps (swevis.models.spend): the live model sits
    # behind the spend guard, and behind the journal's recorded turns when a killed run resumes.
    from swevis.agents.resume import TrajectoryJournal, journal_identity
    from swevis.models.spend import SpendCaps, SpendGuard, SpendLedger, spend_of_usage

    guard_profile = chat.profile  # resolved: prices for the trajectory's cost
    journal = TrajectoryJournal(spec.journal_path, journal_identity(spec), resume=live and bool(spec.opt("resume")))
    guard = SpendGuard(
        chat,
        trajectory_caps=SpendCaps.from_config("trajectory", spec.agents_cfg),
        condition_caps=SpendCaps.from_config("condition", spec.agents_cfg) if live else None,
        ledger=SpendLedger(spec.ledger_path) if live and spec.ledger_path else None,
        prior=journal.prior_spend(chat.profile),
        instance=spec.row["instance_id"],
    )
    chat = journal.wrap(guard)
    recorder = journal.recorder()
    mini_cfg = mini_swebench_config()
    # nothing that can fail runs between creating the environment and the try that closes it
    env, repo_root, workspace = _start_environment(spec, live)
    obs_template = mini_cfg["model"]["observation_template"]
    fmt_template = mini_cfg["model"]["format_error_template"]
    issue = spec.row["problem_statement"]
    messages: list[dict] = []
    plan = None
    variant_info = None
    phases_exit: dict[str, str] = {}
    error = None
    try:
        if spec.agent == "mini":
            agent_cfg = mini_cfg["agent"]
            system = agent_cfg["system_template"].replace("/testbed", repo_root)
            instance = agent_cfg["instance_template"].replace("/testbed", repo_root)
            result, msgs = _run_phase(
                spec=spec, chat=chat, env=env, recorder=recorder, phase="main", purpose="agent",
                system=system, instance=instance, step_limit=int(spec.opt("step_limit")), visual=True,
                observation_template=obs_template, format_error_template=fmt_template,
                extra_vars={"task": issue}, templates_are_text=False,
            )
            messages += msgs
            final = result
        elif spec.agent == "plb":
            if spec.preloc is None:
                raise ValueError("PLB needs its pre-localization package")
            env_t = ToolEnvironment(env, tools={"submit"}, allow_bash=True)
            values = {"repo_root": repo_root, "scope": spec.scope}
            result, msgs = _run_phase(
                spec=spec, chat=chat, env=env_t, recorder=recorder, phase="main", purpose="agent",
                system=render_prompt("plb_system", **values),
                instance=render_prompt("plb_instance", issue=issue, package=spec.preloc["package"], **values),
                step_limit=int(spec.opt("step_limit")), visual=True,
                observation_template=obs_template, format_error_template=fmt_template,
            )
            messages += msgs
            final = result
        elif is_let(spec.agent):  # LET and its variants (swevis.agents.variants: let-mem, let-repro, ...)
            common = dict(
                issue_text=issue, index_db=spec.index_db, pristine_dir=spec.pristine_dir, wide=spec.scope == "wide",
                index_options=spec.index_cfg, top_k=int(spec.opt("top_k")),
            )
            values = {"repo_root": repo_root, "scope": spec.scope}
            flags = variant_flags(spec.agent, spec.agents_cfg)
            memory = make_memory(flags, issue, spec.agents_cfg)
            repro, repro_env, editor_env = None, None, None

            def tool_env(tools: set[str], allow_bash: bool, context: str, **kw: Any) -> VariantToolEnvironment:
                return VariantToolEnvironment(
                    env, tools=tools, allow_bash=allow_bash, flags=flags, memory=memory, context=context,
                    recorder=recorder, **common, **kw,
                )

            loc_limit = int(spec.opt("locator_step_limit"))
            loc_result, msgs = _run_phase(
                spec=spec, chat=chat, env=tool_env(LOCATOR_TOOLS, False, "locator"), memory=memory,
                recorder=recorder, phase="locator", purpose="locator",
                system=render_prompt("let_locator_system", **values),
                instance=render_prompt("let_locator_instance", issue=issue, step_limit=loc_limit, **values),
                step_limit=loc_limit, visual=True,
                observation_template=obs_template, format_error_template=fmt_template,
            )
            messages += msgs  # kept in traj.json for analysis; the editor never sees them
            phases_exit["locator"] = exit_status_of(loc_result.get("exit_status", ""))
            plan = loc_result.get("plan")
            if loc_result.get("error"):
                final = loc_result
            else:
                plan_text = json.dumps(plan, indent=2) if plan else "(the locator committed no plan)"
                addendum = ""
                if flags["reproduction"]:  # optional first editor stage: reproduce the failure
                    repro_env = tool_env({"view_code", "commit_reproduction"}, True, "reproduction")
                    r_limit = int(flags["reproduction_step_limit"])
                    r_result, msgs = _run_phase(
                        spec=spec, chat=chat, env=repro_env, recorder=recorder, phase="reproduction",
                        purpose="reproduction", system=render_prompt("let_repro_system", **values),
                        instance=render_prompt("let_repro_instance", issue=issue, plan=plan_text, step_limit=r_limit, **values),
                        step_limit=r_limit, visual=bool(spec.opt("let_editor_visual")), memory=memory,
                        observation_template=obs_template, format_error_template=fmt_template,
                    )
                    messages += msgs
                    phases_exit["reproduction"] = exit_status_of(r_result.get("exit_status", ""))
                    repro = r_result.get("reproduction")
                    addendum += reproduction_objective(repro, repro_env.attempts)
                if flags["verification"]:
                    addendum += render_prompt("let_verify_note", reproduction=repro)
                ed_limit = int(spec.opt("editor_step_limit"))
                editor_env = tool_env(EDITOR_TOOLS, True, "editor", reproduction=repro)
                result, msgs = _run_phase(
                    spec=spec, chat=chat, env=editor_env, memory=memory,
                    recorder=recorder, phase="editor", purpose="editor",
                    system=render_prompt("let_editor_system", **values),
                    instance=render_prompt("let_editor_instance", issue=issue, plan=plan_text, step_limit=ed_limit, **values)
                    + addendum,
                    step_limit=ed_limit, visual=bool(spec.opt("let_editor_visual")),
                    observation_template=obs_template, format_error_template=fmt_template,
                )
                messages += msgs
                phases_exit["editor"] = exit_status_of(result.get("exit_status", ""))
                final = result
            if spec.agent != "let":
                variant_info = variant_record(
                    flags, memory, recorder.steps, repro, repro_env.attempts if repro_env else None,
                    editor_env.verifications if editor_env else None,
                )
        else:
            raise ValueError(f"unknown agent {spec.agent!r}")
        error = final.get("error")
        patch = working_tree_diff(env)
    finally:
        if workspace is not None:
            workspace.close()
        elif hasattr(env, "cleanup"):
            env.cleanup()
    exit_status = exit_status_of(final.get("exit_status", ""))
    phases = recorder.phase_totals()
    if spec.preloc is not None:
        u = spec.preloc["usage"]["usage"]
        phases = {"preloc": {"prompt_tokens": u["prompt_tokens"], "completion_tokens": u["completion_tokens"], "calls": 1, "steps": 0}, **phases}
    totals = recorder.totals()
    if spec.preloc is not None:
        totals["prompt_tokens"] += phases["preloc"]["prompt_tokens"]
        totals["completion_tokens"] += phases["preloc"]["completion_tokens"]
        totals["calls"] += 1
    usages = [s["usage"] for s in recorder.steps] + ([phases["preloc"]] if spec.preloc is not None else [])
    totals["cost"] = round(sum(spend_of_usage(guard_profile, u).cost for u in usages), 6)
    evidence_phases = ("locator",) if is_let(spec.agent) else None
    traj = {
        "format": TRAJ_FORMAT,
        "instance_id": spec.row["instance_id"],
        "model": spec.model_name,
        "model_id": spec.profile.get("model_id", ""),
        "backend": spec.profile.get("backend", "replay"),
        "agent": spec.agent,
        "scope": spec.scope,
        "condition": spec.condition,
        "repeat": spec.repeat,
        "exit_status": exit_status,
        "phase_exit_status": phases_exit,
        "error": error,
        "steps": recorder.steps,
        "phases": phases,
        "totals": totals,
        "evidence": {
            "viewed_windows": recorder.viewed_windows(evidence_phases),
            "committed_snippets": [[s["path"], s["start"], s["end"]] for s in (plan or {}).get("relevant_snippets", [])],
        },
        "plan": plan,
        "variant": variant_info,
        "preloc": {"package": spec.preloc["package"], "usage": spec.preloc["usage"]} if spec.preloc else None,
        "messages": messages,
        "provenance": {
            "swevis_version": __version__,
            "environment": spec.opt("environment"),
            "tokenizer": spec.profile.get("tokenizer"),
            "image_family": spec.profile.get("image_family"),
            "agents_config": {k: spec.opt(k) for k in AGENT_DEFAULTS},
            "localizer_ranker": ranker,
            "wall_time_s": round(time.time() - started, 2),
            "resume": journal.info(),
            "spend": {"trajectory": guard.spent.to_dict(), "ledger": spec.ledger_path},
        },
    }
    from swevis.provenance import write_json_atomic

    out.mkdir(parents=True, exist_ok=True)
    (out / "patch.diff").write_text(patch)
    write_json_atomic(traj, out / "traj.json")
    if (error or "").startswith("CostLimitExceeded"):
        log.warning("journal %s kept: a rerun continues this trajectory after the cap is raised", spec.journal_path)
    else:
        journal.discard()  # the trajectory is complete
    return traj
