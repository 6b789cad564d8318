"""Patch verification: `submit` first runs the reproduction (it must now pass) and a focused
regression set, the test functions the index's test pointers give for the symbols the patch
modifies (swevis.agents.mechanisms.regression), run with the runner of the instance's own
test command, else the language's default. A failing verification returns its report to
the model instead of submitting, at most `verify_rounds` times; after that the patch is
submitted with its last verification recorded as failed. LET's variants and Prometheus
compose it alike: the phase's environment holds a `Verification` part, and `verifying`
wraps the submit tool. An agent that narrows the regression set (Prometheus: the model's
subset, then the tests that passed before the fix) gives the part its `narrow`; the rounds
record the set that ran.
"""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass, field, replace
from typing import Any, Callable

from swevis.agents.mechanisms.regression import NoRegressionCommand, candidate_tests, regression_command
from swevis.agents.mechanisms.reproduction import tail
from swevis.agents.tool_registry import Tool
from swevis.agents.tools.environment import working_tree_diff
from swevis.index.languages import language_for

log = logging.getLogger(__name__)

# LET's fixed regression rule: a modified symbol no test names is followed at most this many
# call edges to its callers (swevis.agents.mechanisms.regression.candidate_tests)
REGRESSION_HOPS = 2


@dataclass(kw_only=True)
class Verification:
    """A phase's part: the accepted reproduction (or None), the instance's row (its own test
    command runs the regression tests), the caps, and the verifications so far. With
    `regression` off (Prometheus's ablation) the regression set is always empty."""

    reproduction: dict[str, Any] | None
    task_row: dict[str, Any] | None
    verify_rounds: int
    regression_limit: int
    output_chars: int
    regression: bool = True
    # (env, diff, selection) -> the selection to run: an agent's own narrowing, None for LET's rule
    narrow: Callable[[Any, str, dict[str, Any]], dict[str, Any]] | None = None
    verifications: list[dict[str, Any]] = field(default_factory=list)

    def verify(self, env: Any) -> dict[str, Any]:
        result: dict[str, Any] = {"round": len(self.verifications) + 1, "passed": True}
        if self.reproduction:
            out = env.run(self.reproduction["command"])
            ok = out.get("returncode") == 0
            result["reproduction"] = {
                "command": self.reproduction["command"], "returncode": out.get("returncode"), "passed": ok,
                "output": tail(out.get("output", ""), self.output_chars),
            }
            result["passed"] &= ok
        diff = working_tree_diff(env.base)
        selection = self.regression_selection(env, diff)
        if self.narrow is not None:
            selection = self.narrow(env, diff, selection)
        reg = self.run_regression(env, selection)
        result["passed"] &= reg["passed"] is not False  # tests that could not run fail no patch; the record says why
        result["regression"] = reg
        return result

    def run_regression(self, env: Any, selection: dict[str, Any]) -> dict[str, Any]:
        """Run a selection's tests (its test ids, else its test files) on the working tree;
        no test to run passes. Tests no command can be built for are not checked: `passed` is
        None and `not_run` says why."""
        targets = selection["tests"] or selection["files"]
        reg: dict[str, Any] = {**selection, "command": None, "returncode": None, "passed": True}
        if targets:
            # the runner of the instance's own test command, else the language's default
            language = language_for(targets[0].split("::", 1)[0])
            try:
                cmd = regression_command(targets, self.task_row)
            except NoRegressionCommand as exc:
                log.warning("verification: regression tests not run (%s)", exc)
                return {**reg, "passed": None, "not_run": str(exc)}
            out = env.run(cmd)
            rc = out.get("returncode")
            passed = language.test_passed(rc) if language is not None else rc == 0
            reg.update(command=cmd, returncode=rc, passed=passed, output=tail(out.get("output", ""), self.output_chars))
        return reg

    def regression_selection(self, env: Any, diff: str) -> dict[str, Any]:
        """The regression tests of the patch `diff`: the index's tests of the modified symbols
        (LET's fixed rule; an agent with a selection stage narrows them further)."""
        if not self.regression:
            return {"symbols": [], "tests": [], "files": [], "skipped": "regression tests off"}
        try:
            return candidate_tests(
                env.index(), diff, env.read_file, limit=self.regression_limit, hops=REGRESSION_HOPS
            )
        except Exception as exc:  # no index: verify with the reproduction only
            log.warning("verification: no regression selection (%s: %s)", type(exc).__name__, exc)
            return {"symbols": [], "tests": [], "files": [], "error": f"{type(exc).__name__}: {exc}"}


def report(res: dict[str, Any], rounds_left: int) -> str:
    """What a failed verification tells the model."""
    out = ["[verification] the patch did not pass verification; it was NOT submitted."]
    rep = res.get("reproduction")
    if rep:
        state = "passes" if rep["passed"] else f"still fails (exit {rep['returncode']})"
        out.append(f"reproduction `{rep['command']}`: {state}")
        if not rep["passed"]:
            out.append(rep["output"])
    reg = res["regression"]
    if reg.get("not_run"):
        out.append(f"regression tests: not run ({reg['not_run']})")
    if reg.get("command"):
        state = "pass" if reg["passed"] else f"FAIL (exit {reg['returncode']})"
        out.append(f"regression tests for {', '.join(reg['symbols']) or 'the modified code'}: {state}")
        out.append(f"$ {reg['command']}")
        if not reg["passed"]:
            out.append(reg["output"])
    out.append(f"Fix the patch and submit again ({rounds_left} verification round(s) left before submit is accepted as is).")
    return "\n".join(out) + "\n"


def verifying(submit: Tool) -> Tool:
    """The submit tool that verifies the patch first (the phase's Verification part)."""
    return replace(submit, handler=functools.partial(_verified_submit, submit))


def _verified_submit(submit: Tool, env: Any, command: str) -> dict[str, Any]:
    check: Verification = env.part(Verification)
    res = check.verify(env)
    failed_before = sum(1 for v in check.verifications if not v["passed"])
    check.verifications.append(res)
    rounds = check.verify_rounds
    if not res["passed"] and failed_before < rounds:
        res["outcome"] = "returned_to_editor"
        return {"output": report(res, rounds - failed_before - 1), "returncode": 1, "exception_info": ""}
    res["outcome"] = "submitted" if res["passed"] else "submitted_unverified"
    return submit.handler(env, command)


def passing_before_fix(env: Any, check: Verification, targets: list[str], baseline: dict[str, bool]) -> list[str]:
    """The targets (test ids or files) that pass on the repository before the fix: the
    authors' filter, so that a test that already fails fails no patch. The working tree's
    changes (tracked and untracked) are stashed while the tests run and restored after.
    `baseline` keeps each target's result for the run, so a target runs before the fix once:
    all unknown targets together, one by one only when they fail together. Targets no command
    can run are all kept: the check after the fix records why they were not run."""
    unknown = [t for t in targets if t not in baseline]
    if unknown:
        dirty = bool((env.run("git status --porcelain").get("output") or "").strip())
        if dirty and env.run("git stash push -u -q").get("returncode") != 0:
            raise RuntimeError("the pre-fix regression run could not set the patch aside (git stash)")
        try:
            together = check.run_regression(env, {"tests": unknown, "files": []})["passed"]
            if together is None:  # no command runs them, before the fix or after: the check after says why
                return [t for t in targets if baseline.get(t, True)]
            if together:
                baseline.update(dict.fromkeys(unknown, True))
            else:
                for target in unknown:
                    baseline[target] = bool(check.run_regression(env, {"tests": [target], "files": []})["passed"])
        finally:
            if dirty and env.run("git stash pop -q").get("returncode") != 0:
                raise RuntimeError("the patch set aside for the pre-fix regression run could not be restored")
    return [t for t in targets if baseline[t]]
