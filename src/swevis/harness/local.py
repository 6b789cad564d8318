"""The local test runner: grade a patch without Docker, with swebench's own grading code.

Steps, as the official harness takes them: a fresh checkout at base_commit; apply the
candidate patch (git apply, then GNU patch with fuzz as swebench does); apply test_patch;
run the instance's test command; parse the log with swebench's log parser; grade
FAIL_TO_PASS / PASS_TO_PASS with swebench.harness.grading. Tests run on the host's Python
(the one running swevis), so this suits the bundled sample and repos whose tests need no
special environment; real SWE-bench images need the Docker harness.
"""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path
from typing import Any, Callable

from swevis.sandbox.environments import HOST_ENV, command_environ
from swevis.errors import SwevisError
from swevis.fsutil import write_json_atomic
from swevis.harness.cache import EvalCache, cached_evaluation
from swevis.harness.records import new_eval_record, raise_harness_errors, read_patch
from swevis.harness.support import register_deferred_specs
from swevis.paths import eval_path, harness_summary_path, run_path, run_subdir
from swevis.tasks.repos import checkout

log = logging.getLogger(__name__)

# Tried in order, as swebench's harness does (GIT_APPLY_CMDS in run_evaluation.py).
APPLY_COMMANDS: tuple[tuple[str, ...], ...] = (
    ("git", "apply", "--verbose"),
    ("patch", "--batch", "--fuzz=5", "-p1", "-i"),
)


# An evaluation whose test output held no result: an environment that cannot run the tests,
# or a patch that broke their collection (see grade_run, which asks the gold patch).
NO_TEST_RESULTS = "the log parser found no test results (did the test command run?)"
COLLECTION_FAILED = "no test results (collection failed)"


class HarnessError(SwevisError):
    """The evaluation itself could not run (not a verdict on the patch)."""


def installed_distributions() -> list[str]:
    """`name==version` of every distribution the test-running interpreter has, sorted: its
    pytest and packages run the tests as much as the interpreter does."""
    # each distribution's metadata read once: Distribution.name and .version parse it again
    # on every access (0.29 CPU s for 200 distributions here, every grading job)
    found = ((m["Name"], m["Version"]) for m in (d.metadata for d in metadata.distributions()))
    return sorted({f"{name.lower()}=={version}" for name, version in found if name})


def local_environment_id() -> str:
    """The local runner's environment: the host interpreter that runs the tests (a 2014
    repository can pass under Python 3.8 and fail to import under 3.11) and a hash of the
    distributions installed for it (another pytest can give another verdict)."""
    v = sys.version_info
    dists = hashlib.sha256("\n".join(installed_distributions()).encode()).hexdigest()[:16]
    return f"local:{sys.implementation.name}-{v.major}.{v.minor}.{v.micro}:dists-{dists}"


def resolve_test_cmd(row: dict[str, Any]) -> str:
    """The instance's own test_cmd, else swebench's spec for its repo and version plus the
    test files named by test_patch (as swebench's eval script builds it)."""
    if row.get("test_cmd"):
        return row["test_cmd"]
    # Lazy (here and below): swebench's harness takes ~2.0 s to import (python -X importtime).
    from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS
    from swebench.harness.test_spec.python import get_test_directives

    try:
        spec = MAP_REPO_VERSION_TO_SPECS[row["repo"]][row["version"]]
    except KeyError:
        raise HarnessError(
            f"{row['instance_id']}: no test_cmd in the row and swebench has no spec for "
            f"{row['repo']} version {row['version']}"
        ) from None
    test_cmd = spec["test_cmd"]
    test_cmd = " ".join(test_cmd) if isinstance(test_cmd, list) else test_cmd
    return " ".join([test_cmd, *get_test_directives(row)])


def resolve_log_parser(row: dict[str, Any]) -> Callable[[str, Any], dict[str, str]]:
    """The row's log_parser by name: swevis's own (swevis.harness.test_logs: "tap",
    "status_lines"), else swebench's Python one ("pytest" -> parse_log_pytest); without a
    name, swebench's parser for the repository."""
    from swebench.harness.log_parsers import MAP_REPO_TO_PARSER
    from swebench.harness.log_parsers import python as python_parsers

    from swevis.harness.test_logs import PARSERS

    name = row.get("log_parser")
    if name:
        parser = PARSERS.get(name) or getattr(python_parsers, f"parse_log_{name}", None)
        if parser is None:
            raise HarnessError(f"{row['instance_id']}: unknown log_parser {name!r}")
        return parser
    try:
        return MAP_REPO_TO_PARSER[row["repo"]]
    except KeyError:
        raise HarnessError(f"{row['instance_id']}: no log_parser in the row and swebench has none for {row['repo']}") from None


def _test_spec_or_none(row: dict[str, Any]) -> Any:
    """Some swebench parsers read the test spec; ours and pytest's do not need one."""
    from swebench.harness.constants import MAP_REPO_VERSION_TO_SPECS

    if row["repo"] in MAP_REPO_VERSION_TO_SPECS:
        from swebench.harness.test_spec.test_spec import make_test_spec

        return make_test_spec(row)
    return None


def apply_patch(patch: str, repo_dir: Path) -> tuple[bool, str]:
    """Apply a diff in `repo_dir`; returns (applied, how or why not)."""
    if not patch.strip():
        return False, "empty patch"
    patch_file = repo_dir / ".swevis-patch.diff"
    patch_file.write_text(patch if patch.endswith("\n") else patch + "\n")
    reasons = []
    try:
        for cmd in APPLY_COMMANDS:
            if shutil.which(cmd[0]) is None:
                continue
            proc = subprocess.run([*cmd, str(patch_file)], cwd=repo_dir, capture_output=True, text=True)
            if proc.returncode == 0:
                return True, " ".join(cmd)
            reasons.append(f"{' '.join(cmd)}: {(proc.stderr or proc.stdout).strip()[-500:]}")
            # GNU patch may leave partial hunks behind; start the next attempt clean.
            subprocess.run(["git", "checkout", "--quiet", "--", "."], cwd=repo_dir, capture_output=True)
        return False, "patch does not apply: " + " | ".join(reasons)
    finally:
        patch_file.unlink(missing_ok=True)


def reset_test_files(row: dict[str, Any], repo_dir: Path) -> None:
    """`git checkout base_commit -- <files test_patch touches>`; files new in test_patch are
    removed if a candidate patch created them."""
    for path in dict.fromkeys(re.findall(r"^diff --git a/(\S+) b/", row["test_patch"], re.M)):
        proc = subprocess.run(
            ["git", "checkout", "--quiet", row["base_commit"], "--", path], cwd=repo_dir, capture_output=True
        )
        if proc.returncode != 0:  # not in the base commit: test_patch creates it
            (repo_dir / path).unlink(missing_ok=True)


def _host_env() -> dict[str, str]:
    """The tests' environment: the agents' allowlist, since the code under test is the model's
    and whatever it prints lands in test_output.txt; `python` is the interpreter running swevis."""
    return command_environ() | HOST_ENV


def evaluate_patch(
    row: dict[str, Any],
    patch: str,
    mirror: str | Path,
    *,
    log_path: str | Path | None = None,
    timeout_s: float = 1800,
    work_root: str | Path | None = None,
    patch_optional: bool = False,
) -> dict[str, Any]:
    """Grade `patch` on instance `row`; returns the eval record (see module docstring).

    `infra_failure` is true when the evaluation could not produce a verdict (test_patch does
    not apply, the test command timed out or gave no test results); `resolved` is then false.
    An empty patch is unresolved without running tests, unless `patch_optional`: then the
    tests run on the base commit plus test_patch (how the bundled tasks prove that
    FAIL_TO_PASS really fails before the fix).
    """
    record = new_eval_record(row["instance_id"], "local")
    start = time.monotonic()
    if not patch.strip() and not patch_optional:
        record.update(patch_apply="empty patch", duration_s=0.0)  # no checkout needed
        return record
    with tempfile.TemporaryDirectory(prefix="swevis-eval-", dir=work_root) as tmp:
        repo_dir = checkout(mirror, row["base_commit"], Path(tmp) / "repo")
        if patch_optional and not patch.strip():
            applied, how = True, "no patch (base commit)"
        else:
            applied, how = apply_patch(patch, repo_dir)
        record["patch_applied"], record["patch_apply"] = applied, how
        if not applied:
            record["duration_s"] = round(time.monotonic() - start, 3)
            return record
        # As the official harness does: the test files go back to the base commit before
        # test_patch, so a candidate patch that touched them cannot block it.
        reset_test_files(row, repo_dir)
        ok, why = apply_patch(row["test_patch"], repo_dir)
        if not ok:
            # test_patch goes onto the base versions of its files: the task data or the
            # checkout is broken, whatever the candidate patch did
            record.update(infra_failure=True, harness_error=True, error=f"test_patch does not apply: {why}",
                          duration_s=round(time.monotonic() - start, 3))
            return record
        test_cmd = resolve_test_cmd(row)
        record["test_cmd"] = test_cmd
        output = _run_test_command(test_cmd, repo_dir, timeout_s, record)
        if log_path:
            Path(log_path).parent.mkdir(parents=True, exist_ok=True)
            Path(log_path).write_text(f"$ {test_cmd}\n{output}")
        if not record["infra_failure"]:
            _grade_test_output(row, output, record)
    record["duration_s"] = round(time.monotonic() - start, 3)
    return record


def _run_test_command(test_cmd: str, repo_dir: Path, timeout_s: float, record: dict[str, Any]) -> str:
    """Run the test command in the checkout; records its return code (a timeout is an
    infrastructure failure) and returns its output."""
    try:
        proc = subprocess.run(
            ["bash", "-c", test_cmd],
            cwd=repo_dir,
            env=_host_env(),
            capture_output=True,
            text=True,
            timeout=timeout_s,
        )
        output, returncode = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as exc:
        output = (exc.stdout or b"").decode(errors="replace") if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        record.update(infra_failure=True, harness_error=True, error=f"test command timed out after {timeout_s:.0f} s")
        returncode = None
    record["returncode"] = returncode
    return output


def _grade_test_output(row: dict[str, Any], output: str, record: dict[str, Any]) -> None:
    """swebench's grading of the test output: the FAIL_TO_PASS/PASS_TO_PASS report and the verdict."""
    # Lazy: importing swebench's harness takes ~2.0 s (python -X importtime); agents import
    # this module for evaluate_patch without grading anything.
    from swebench.harness.constants import FAIL_TO_PASS, PASS_TO_PASS, ResolvedStatus
    from swebench.harness.grading import get_eval_tests_report, get_resolution_status

    register_deferred_specs()  # the bundled specs, before swebench's maps are read

    status_map = resolve_log_parser(row)(output, _test_spec_or_none(row))
    report = get_eval_tests_report(status_map, {FAIL_TO_PASS: row["FAIL_TO_PASS"], PASS_TO_PASS: row["PASS_TO_PASS"]})
    resolution = get_resolution_status(report)
    record.update(
        tests={FAIL_TO_PASS: report[FAIL_TO_PASS], PASS_TO_PASS: report[PASS_TO_PASS]},
        resolution=resolution,
        resolved=resolution == ResolvedStatus.FULL.value,
    )
    if not status_map:
        record.update(infra_failure=True, error=NO_TEST_RESULTS)


def grade_with_retries(
    row: dict[str, Any], patch: str, mirror: str, log_path: Path, settings: dict[str, Any], *, patch_optional: bool = False
) -> dict[str, Any]:
    """evaluate_patch, again up to `retries` times while it is an infrastructure failure."""
    for attempt in range(1, int(settings["retries"]) + 2):
        record = evaluate_patch(
            row, patch, mirror, log_path=log_path, timeout_s=float(settings["timeout_s"]), patch_optional=patch_optional
        )
        record["attempts"] = attempt
        if not record["infra_failure"]:
            break
        log.warning("%s attempt %d: infrastructure failure: %s", row["instance_id"], attempt, record["error"])
    return record


def grade_run(
    row: dict[str, Any], patch: str, mirror: str, log_dir: Path, settings: dict[str, Any], cache: EvalCache, environment: str
) -> dict[str, Any]:
    """grade_with_retries for one agent run, its test logs in `log_dir`. No test results after the patch applied is the
    patch's outcome (it broke their collection) when the gold patch gets results from the
    same command: unresolved, with `reason` saying so. Else it stays an infrastructure failure."""
    record = grade_with_retries(row, patch, mirror, log_dir / "test_output.txt", settings)
    if record["error"] != NO_TEST_RESULTS:
        return record
    gold = cached_evaluation(
        cache, row, row["patch"], "local", environment,
        lambda: grade_with_retries(row, row["patch"], mirror, log_dir / "gold_test_output.txt", settings),
    )
    if gold["harness_error"]:
        return {**record, "harness_error": True, "error": f"{NO_TEST_RESULTS}; the gold patch: {gold['error']}"}
    if gold["infra_failure"]:  # the environment gives no results at all: no verdict, not scored
        return record
    return {**record, "infra_failure": False, "error": None, "reason": COLLECTION_FAILED}


def evaluate_condition_local(
    condition_dir: str | Path,
    rows: list[dict[str, Any]],
    mirrors: dict[str, str],
    *,
    settings: dict[str, Any],
    repeats: int = 1,
) -> dict[str, Any]:
    """Grade every run (instances x repeats) of one condition with the local runner, in one process.

    Writes each run's eval.json (and its test log beside it) below `harness/evals/`
    (swevis.paths.eval_path) and
    `harness/harness_summary.json` like the Docker harness. Identical patches of one
    instance share one evaluation through the evaluation cache; an infrastructure failure
    is retried `retries` times and never cached; a harness failure left after the retries
    (a timed-out test command, a test_patch that does not apply) raises InfrastructureError. `mirrors` maps repo -> bare mirror;
    `settings` is the config's harness section.
    """
    condition_dir = Path(condition_dir)
    cache = EvalCache(settings.get("cache_dir"))
    environment = local_environment_id()
    records = {}
    for row, repeat in ((row, r) for row in rows for r in range(int(repeats))):
        patch = read_patch(run_path(condition_dir, row["instance_id"], repeat, "patch.diff").parent)
        mirror = mirrors[row["repo"]]
        logs = eval_path(condition_dir, row["instance_id"], repeat).parent
        record = cached_evaluation(
            cache, row, patch, "local", environment,
            lambda row=row, patch=patch, mirror=mirror, logs=logs: grade_run(row, patch, mirror, logs, settings, cache, environment),
        )
        records[(row["instance_id"], repeat)] = record
    raise_harness_errors(str(condition_dir), {run_subdir(*run): r for run, r in records.items()})
    for (instance, repeat), record in records.items():
        write_json_atomic(eval_path(condition_dir, instance, repeat), record)
    summary = {
        "harness": "local",
        "environment": environment,
        "n": len(records),
        "resolved": sum(1 for r in records.values() if r["resolved"]),
        "infra_failures": sorted(run_subdir(*run) for run, r in records.items() if r["infra_failure"]),
        "cached": sum(1 for r in records.values() if r.get("cached")),
    }
    write_json_atomic(harness_summary_path(condition_dir), summary)
    return summary
