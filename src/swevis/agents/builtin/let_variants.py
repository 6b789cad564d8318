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
* **reproduction**: a stage between the locator and the editor (phase ``reproduction``,
  bash + ``view_code`` + ``commit_reproduction CMD``). ``commit_reproduction`` runs CMD and
  accepts it only when it fails for a reason other than a broken script (a syntax, import
  or missing-file error); then the stage ends and the reproduction (command, its files,
  the failing output) becomes the editor's repair objective. A stage that runs out of its
  step budget is recorded as *not reproduced* and the editor proceeds without one.
* **verification**: ``submit`` first runs the reproduction (it must now pass) and a focused
  regression set: the test functions that the index's test pointers (``RepoIndex.tests_for``)
  give for the symbols the patch modifies (:mod:`swevis.agents.mechanisms.regression`, shared with the
  other agents that verify a patch), run with the runner of the instance's own test command
  (its row's ``test_cmd``), else the language's default runner. A failing
  verification returns its report to the editor instead of submitting, at most
  ``verify_rounds`` times; after that the patch is submitted with its last verification
  recorded as failed.
"""

from __future__ import annotations

import functools
import logging
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from minisweagent.exceptions import Submitted

from swevis.agents.mechanisms.memory import MemoryObservationPipeline, MemoryToolEnvironment, WorkingMemory, memory_summary
from swevis.agents.mechanisms.memory_store import MemorySettings, store_path
from swevis.agents.observation.observe import ObservationPipeline
from swevis.agents.prompts import render_prompt
from swevis.agents.mechanisms.regression import candidate_tests, regression_command, reproduction_runner
from swevis.index.languages import extensions, language_for
from swevis.agents.registry import is_variant
from swevis.agents.run.resume import ResumingRecorder
from swevis.agents.tools.environment import format_error, working_tree_diff
from swevis.agents.observation.volatile import normalize as normalize_volatile
from swevis.config import typed_section
from swevis.paths import run_subdir

log = logging.getLogger(__name__)

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
# LET's fixed regression rule: a modified symbol no test names is followed at most this many
# call edges to its callers (swevis.agents.mechanisms.regression.candidate_tests)
REGRESSION_HOPS = 2
# a failure of the script itself, not of the code under test
_BROKEN_ERRORS = {"SyntaxError", "IndentationError", "TabError", "ModuleNotFoundError", "ImportError", "NameError"}
_BROKEN_TEXT = re.compile(r"can't open file|command not found|No such file or directory: '[^']*reproduc")


def broken_reproduction(output: str) -> bool:
    """True when a failing reproduction failed because the script itself is broken."""
    raised = re.findall(r"^(\w+(?:Error|Exception))\b", output, re.M)
    return bool(raised and raised[-1] in _BROKEN_ERRORS) or bool(_BROKEN_TEXT.search(output))


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


def _tail(text: str, n: int) -> str:
    return text if len(text) <= n else "...(truncated)...\n" + text[-n:]


class VariantToolEnvironment(MemoryToolEnvironment):
    """The LET tool environment with the variant hooks (memory, reproduction, verification)."""

    def __init__(
        self,
        base: Any,
        *,
        flags: VariantSettings,
        memory: WorkingMemory | None,
        context: str,
        recorder: Any,
        reproduction: dict[str, Any] | None = None,
        task_row: dict[str, Any] | None = None,
        **kwargs: Any,
    ):
        super().__init__(base, memory=memory, context=context, recorder=recorder, **kwargs)
        self.flags = flags
        self.task_row = task_row  # the instance's row: its own test command runs the regression tests
        self.reproduction = reproduction  # the accepted reproduction (editor) or None
        self.attempts: list[dict[str, Any]] = []  # commit_reproduction calls (reproduction stage)
        self.verifications: list[dict[str, Any]] = []

    def _run(self, command: str) -> dict[str, Any]:
        return self.base.execute({"command": command})

    # -- reproduction stage
    def _tool_commit_reproduction(self, command: str) -> dict[str, Any]:
        cmd = command.strip()[len("commit_reproduction"):].strip()
        if not cmd:
            raise format_error("usage: commit_reproduction COMMAND (e.g. commit_reproduction python reproduce_issue.py)")
        out = self._run(cmd)
        text = normalize_volatile(out.get("output", ""))  # it reaches the editor's prompt: stable for the cache
        rc = out.get("returncode")
        files = {}
        for word in shlex.split(cmd) if cmd else []:
            if word.endswith((".sh", *extensions("code"))):
                content = self.read_file(word)
                if content is not None:
                    files[word] = content
        attempt = {"command": cmd, "returncode": rc, "output": _tail(text, self.flags.output_chars), "files": files}
        self.attempts.append(attempt)
        if rc == 0:
            attempt["verdict"] = "passes"
            msg = (
                f"[reproduction] `{cmd}` exited 0: it does not reproduce the reported failure. Make it fail "
                "for the reported reason (assert the behaviour the issue expects) and commit it again.\n" + text
            )
            return {"output": msg, "returncode": 1, "exception_info": ""}
        if broken_reproduction(text):
            attempt["verdict"] = "broken"
            msg = (
                f"[reproduction] `{cmd}` failed, but because the reproduction itself is broken (a syntax, import "
                "or missing-file error), not for the reported reason. Fix the script and commit it again.\n" + text
            )
            return {"output": msg, "returncode": 1, "exception_info": ""}
        attempt["verdict"] = "reproduced"
        summary = f"reproduced: `{cmd}` exits {rc}"
        raise Submitted(
            {"role": "exit", "content": summary, "extra": {"exit_status": "Submitted", "submission": summary, "reproduction": attempt}}
        )

    # -- verification
    def verify(self) -> dict[str, Any]:
        limit = self.flags.output_chars
        result: dict[str, Any] = {"round": len(self.verifications) + 1, "passed": True}
        if self.reproduction:
            out = self._run(self.reproduction["command"])
            ok = out.get("returncode") == 0
            result["reproduction"] = {
                "command": self.reproduction["command"], "returncode": out.get("returncode"), "passed": ok,
                "output": _tail(out.get("output", ""), limit),
            }
            result["passed"] &= ok
        reg = self.run_regression(self.regression_selection(working_tree_diff(self.base)))
        result["passed"] &= reg["passed"]
        result["regression"] = reg
        return result

    def run_regression(self, selection: dict[str, Any]) -> dict[str, Any]:
        """Run a selection's tests (its test ids, else its test files) on the working tree;
        no test to run passes."""
        targets = selection["tests"] or selection["files"]
        reg: dict[str, Any] = {**selection, "command": None, "returncode": None, "passed": True}
        if targets:
            # the runner of the instance's own test command, else the language's default
            language = language_for(targets[0].split("::", 1)[0])
            cmd = regression_command(targets, self.task_row)
            out = self._run(cmd)
            rc = out.get("returncode")
            passed = language.test_passed(rc) if language is not None else rc == 0
            reg.update(command=cmd, returncode=rc, passed=passed, output=_tail(out.get("output", ""), self.flags.output_chars))
        return reg

    def regression_selection(self, diff: str) -> dict[str, Any]:
        """The regression tests of the patch `diff`: the index's tests of the modified symbols
        (LET's fixed rule; an agent with a selection stage narrows them further)."""
        try:
            return candidate_tests(
                self._open_index(), diff, self.read_file, limit=self.flags.regression_limit, hops=REGRESSION_HOPS
            )
        except Exception as exc:  # no index: verify with the reproduction only
            log.warning("verification: no regression selection (%s: %s)", type(exc).__name__, exc)
            return {"symbols": [], "tests": [], "files": [], "error": f"{type(exc).__name__}: {exc}"}

    def _report(self, res: dict[str, Any], rounds_left: int) -> str:
        out = ["[verification] the patch did not pass verification; it was NOT submitted."]
        rep = res.get("reproduction")
        if rep:
            state = "passes" if rep["passed"] else f"still fails (exit {rep['returncode']})"
            out.append(f"reproduction `{rep['command']}`: {state}")
            if not rep["passed"]:
                out.append(rep["output"])
        reg = res["regression"]
        if reg.get("command"):
            state = "pass" if reg["passed"] else f"FAIL (exit {reg['returncode']})"
            out.append(f"regression tests for {', '.join(reg['symbols']) or 'the modified code'}: {state}")
            out.append(f"$ {reg['command']}")
            if not reg["passed"]:
                out.append(reg["output"])
        out.append(f"Fix the patch and submit again ({rounds_left} verification round(s) left before submit is accepted as is).")
        return "\n".join(out) + "\n"

    def _tool_submit(self, command: str) -> dict[str, Any]:
        if self.flags.verification:
            res = self.verify()
            failed_before = sum(1 for v in self.verifications if not v["passed"])
            self.verifications.append(res)
            rounds = self.flags.verify_rounds
            if not res["passed"] and failed_before < rounds:
                res["outcome"] = "returned_to_editor"
                return {"output": self._report(res, rounds - failed_before - 1), "returncode": 1, "exception_info": ""}
            res["outcome"] = "submitted" if res["passed"] else "submitted_unverified"
        return super()._tool_submit(command)


def memory_pipeline(memory: WorkingMemory | None, phase: str, recorder: Any) -> Callable[..., ObservationPipeline]:
    """The observation pipeline of a phase: the memory in front of it when memory is on (the
    LET variants' and Prometheus's stages)."""
    if memory is None:
        return ObservationPipeline
    return functools.partial(MemoryObservationPipeline, memory=memory, context=phase, recorder=recorder)


def make_memory(flags: VariantSettings, issue_text: str, agents_cfg: dict[str, Any], spec: Any = None,
                recorder: Any = None) -> WorkingMemory | None:
    """The trajectory's working memory (variants with memory on): agents.memory, the
    variant's memory_options over it. With the run's spec, its store is a file (the run
    folder's, or the repository's shared one) and a resumed run (its recorder re-runs the
    journal's steps) keeps its records of the journaled steps; without, it is in memory."""
    if not flags.memory:
        return None
    options = {**(agents_cfg.get("memory") or {}), **flags.memory_options}
    if spec is None:
        return WorkingMemory(options, issue_text=issue_text)
    settings = MemorySettings.from_config(options)
    path = store_path(spec.out_dir, settings, repo=spec.row["repo"], commit=spec.row["base_commit"])
    run = "/".join([spec.model_name, f"{spec.agent}-{spec.scope}", spec.condition, run_subdir(spec.row["instance_id"], spec.repeat)])
    journaled = len(recorder.prior) if isinstance(recorder, ResumingRecorder) else 0
    return WorkingMemory(options, issue_text=issue_text, store_path=path, run=run, resume_from_step=journaled)


def reproduction_objective(repro: dict[str, Any] | None, attempts: list[dict[str, Any]]) -> str:
    """The editor's repair objective (appended to its task message)."""
    return render_prompt("let_repro_objective", reproduction=repro, attempts=len(attempts))


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
        self.memory = make_memory(self.flags, issue_text, agents_cfg, spec, recorder)
        self.recorder = recorder
        self.task_row = spec.row if spec is not None else None
        self.reproduction: dict[str, Any] | None = None  # the accepted one, the editor's objective
        self.repro_env: VariantToolEnvironment | None = None
        self.editor_env: VariantToolEnvironment | None = None

    def pipeline(self, phase: str) -> Callable[..., ObservationPipeline]:
        return memory_pipeline(self.memory, phase, self.recorder)

    def tool_env(self, base: Any, *, tools: set[str], allow_bash: bool, context: str, **kwargs: Any) -> VariantToolEnvironment:
        env = VariantToolEnvironment(
            base, tools=tools, allow_bash=allow_bash, flags=self.flags, memory=self.memory, context=context,
            recorder=self.recorder, reproduction=self.reproduction if context == "editor" else None,
            task_row=self.task_row, **kwargs,
        )
        if context == "reproduction":
            self.repro_env = env
        elif context == "editor":
            self.editor_env = env
        return env

    def editor_addendum(self, run_phase: Callable[..., dict], base: Any, *, issue: str, plan_text: str,
                        values: dict[str, Any], visual: bool, tool_kwargs: dict[str, Any]) -> str:
        """Run the reproduction stage (when on) through `run_phase`; return what the editor's
        task message gets appended (the repair objective, the verification note)."""
        addendum = ""
        if self.flags.reproduction:
            env = self.tool_env(base, tools={"view_code", "commit_reproduction"}, allow_bash=True,
                                context="reproduction", **tool_kwargs)
            limit = self.flags.reproduction_step_limit
            result = run_phase(
                env=env, phase="reproduction", purpose="reproduction",
                system=render_prompt("let_repro_system", test_runner=reproduction_runner(self.task_row), **values),
                instance=render_prompt("let_repro_instance", issue=issue, plan=plan_text, step_limit=limit, **values),
                step_limit=limit, visual=visual,
            )
            self.reproduction = result.get("reproduction")
            addendum += reproduction_objective(self.reproduction, env.attempts)
        if self.flags.verification:
            addendum += render_prompt("let_verify_note", reproduction=self.reproduction)
        return addendum

    def record(self, steps: list[dict[str, Any]]) -> dict[str, Any]:
        return variant_record(
            self.flags, self.memory, steps, self.reproduction, self.repro_env.attempts if self.repro_env else None,
            self.editor_env.verifications if self.editor_env else None,
        )
