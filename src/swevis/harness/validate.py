"""Environment validation: an instance counts in accuracy only where its environment can
grade it, i.e. the gold patch resolves and the empty patch does not.

A user trial graded the gold patch of psf__requests-1921 unresolved on the local runner
(2014 code importing `collections.MutableMapping` under Python 3.11): an environment failure
had become a model failure. So every instance is validated once per harness and
environment (the verdicts are cached like evaluations, keyed by validation_cache_key, and
shared by every condition); one that fails is reported by id and left out of accuracy,
never counted as unresolved. When the harness itself cannot run (timeout, crash, no Docker
engine or image) there is no verdict: the job fails with InfrastructureError, writes no
report, and the next run retries it.

The report (one JSON file per harness):
{format, harness, environment, n, n_valid, n_invalid, invalid: {id: reason},
 instances: {id: {valid, reason, gold, empty, cached, ...}}}.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any, Callable

from swevis.errors import InfrastructureError
from swevis.harness.cache import EvalCache, validation_cache_key
from swevis.harness.records import VALIDATION_FORMAT
from swevis.harness.docker import evaluate_condition_docker, instance_environment_ids
from swevis.sandbox.images import docker_environment_id
from swevis.harness.local import grade_with_retries, local_environment_id
from swevis.harness.support import check_gradable
from swevis.fsutil import write_json_atomic
from swevis.paths import eval_path, run_path

log = logging.getLogger(__name__)


# The Docker stand-in for the empty patch (swebench skips empty predictions): it adds one
# file no test reads, so the tests run on the base commit plus test_patch.
NOOP_PATCH = (
    "diff --git a/.swevis-validation b/.swevis-validation\n"
    "new file mode 100644\n"
    "--- /dev/null\n"
    "+++ b/.swevis-validation\n"
    "@@ -0,0 +1 @@\n"
    "+environment validation: no change to the code\n"
)


def _brief(record: dict[str, Any] | None) -> dict[str, Any] | None:
    """The fields of an eval record a reader of the validation report needs."""
    if record is None:
        return None
    keys = ("resolved", "resolution", "patch_applied", "patch_apply", "infra_failure", "error", "tests", "cache_key")
    return {k: record.get(k) for k in keys}


def _failing(record: dict[str, Any], kind: str) -> list[str]:
    return ((record.get("tests") or {}).get(kind) or {}).get("failure") or []


def _gold_problem(gold: dict[str, Any]) -> str | None:
    """Why the gold patch does not resolve (None when it does)."""
    if gold["resolved"]:
        return None
    if gold.get("infra_failure"):
        return f"gold patch: tests could not be graded ({gold.get('error')})"
    if not gold.get("patch_applied"):
        return f"gold patch: {gold.get('patch_apply')}"
    f2p, p2p = _failing(gold, "FAIL_TO_PASS"), _failing(gold, "PASS_TO_PASS")
    return (
        f"gold patch not resolved ({gold.get('resolution')}): "
        f"{len(f2p)} FAIL_TO_PASS and {len(p2p)} PASS_TO_PASS test(s) fail, e.g. {(f2p + p2p)[:2]}"
    )


def instance_validation(
    row: dict[str, Any], harness: str, environment: str, gold: dict[str, Any], empty: dict[str, Any]
) -> dict[str, Any]:
    """The verdict on one instance's environment from its gold and empty evaluations."""
    harness_errors = [r["error"] for r in (gold, empty) if r.get("harness_error")]
    if harness_errors:
        raise InfrastructureError(f"{row['instance_id']}: validation could not run: {harness_errors[0]}")
    reason = _gold_problem(gold)
    if reason is None and empty["resolved"]:
        reason = "the empty patch resolves: FAIL_TO_PASS already passes without a fix"
    return {
        "instance_id": row["instance_id"],
        "harness": harness,
        "environment": environment,
        "valid": reason is None,
        "reason": reason,
        "gold": _brief(gold),
        "empty": _brief(empty),
    }


def _validate_rows(
    rows: list[dict[str, Any]],
    harness: str,
    environment: str,
    environments: dict[str, str],
    cache: EvalCache,
    grade_pending: Callable[[list[dict[str, Any]]], dict[str, tuple[dict, dict]]],
) -> dict[str, Any]:
    """Cached verdicts, and grade_pending(rows) -> {id: (gold, empty)} for the others.
    `environment` names the harness's environment in the report; `environments` holds each
    instance's own (its image), which keys its verdict.

    Verdicts are cached as they come; harness failures are collected and raised together
    after the others are stored, so a rerun grades only what failed."""
    records: dict[str, dict[str, Any]] = {}
    pending = []
    for row in rows:
        hit = cache.get(validation_cache_key(row, harness, environments[row["instance_id"]]))
        if hit is not None:
            records[row["instance_id"]] = {**hit, "cached": True}
        else:
            pending.append(row)
    graded = grade_pending(pending) if pending else {}
    failures = []
    for row in pending:
        gold, empty = graded[row["instance_id"]]
        try:
            record = instance_validation(row, harness, environments[row["instance_id"]], gold, empty)
        except InfrastructureError as exc:
            failures.append(str(exc))
            continue
        cache.put(validation_cache_key(row, harness, environments[row["instance_id"]]), record)
        records[row["instance_id"]] = {**record, "cached": False}
    if failures:
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        raise InfrastructureError(f"environment validation, {harness}: {failures[0]}{more}")
    return validation_report(harness, environment, [records[r["instance_id"]] for r in rows])


def validation_report(harness: str, environment: str, records: list[dict[str, Any]]) -> dict[str, Any]:
    invalid = {r["instance_id"]: r["reason"] for r in records if not r["valid"]}
    return {
        "format": VALIDATION_FORMAT,
        "harness": harness,
        "environment": environment,
        "n": len(records),
        "n_valid": len(records) - len(invalid),
        "n_invalid": len(invalid),
        "invalid": invalid,
        "instances": {r["instance_id"]: r for r in records},
    }


def validate_local(
    rows: list[dict[str, Any]], mirrors: dict[str, str], settings: dict[str, Any], work_dir: str | Path
) -> dict[str, Any]:
    """Validate with the local runner; test logs go to `<work_dir>/<id>.{gold,empty}.log`.
    The empty run is the base commit plus test_patch (evaluate_patch's patch_optional)."""
    work_dir = Path(work_dir)

    def grade(pending):
        out = {}
        for row in pending:
            iid, mirror = row["instance_id"], mirrors[row["repo"]]
            gold = grade_with_retries(row, row["patch"], mirror, work_dir / f"{iid}.gold.log", settings)
            empty = grade_with_retries(row, "", mirror, work_dir / f"{iid}.empty.log", settings, patch_optional=True)
            out[iid] = (gold, empty)
        return out

    environment = local_environment_id()
    environments = {r["instance_id"]: environment for r in rows}
    return _validate_rows(rows, "local", environment, environments, EvalCache(settings.get("cache_dir")), grade)


def validate_docker(
    rows: list[dict[str, Any]],
    settings: dict[str, Any],
    work_dir: str | Path,
    *,
    client_factory: Callable[[], Any] | None = None,
    mirrors: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Validate with the official harness: two harness runs under `work_dir` (gold/ and
    empty/, each laid out like a condition folder), the empty patch being NOOP_PATCH;
    `settings` is the validated harness section, `mirrors` serve swebench's spec files."""
    work_dir = Path(work_dir).resolve()

    def grade(pending):
        evals = {}
        for name, patch_of in (("gold", lambda r: r["patch"]), ("empty", lambda r: NOOP_PATCH)):
            cdir = work_dir / name
            for row in pending:
                patch = run_path(cdir, row["instance_id"], 0, "patch.diff")
                patch.parent.mkdir(parents=True, exist_ok=True)
                patch.write_text(patch_of(row))
            evaluate_condition_docker(cdir, pending, model="validation", agent=name, scope="env", condition="check",
                               settings=settings, client_factory=client_factory, mirrors=mirrors)
            evals[name] = {r["instance_id"]: json.loads(eval_path(cdir, r["instance_id"]).read_text()) for r in pending}
        return {iid: (evals["gold"][iid], evals["empty"][iid]) for iid in evals["gold"]}

    cache_dir = settings["cache_dir"]
    environments = instance_environment_ids(rows, settings, client_factory, mirrors)
    cache = EvalCache(Path(cache_dir).resolve() if cache_dir else None)
    return _validate_rows(rows, "docker", docker_environment_id(settings), environments, cache, grade)


def validate_environments(
    rows: list[dict[str, Any]],
    settings: dict[str, Any],
    work_dir: str | Path,
    *,
    mirrors: dict[str, str],
    client_factory: Callable[[], Any] | None = None,
) -> dict[str, Any]:
    """The validation report of `rows` with the backend `settings["kind"]` names (the one entry
    point; validate_local and validate_docker are its two backends). A row the backend cannot
    grade is refused before any checkout or container (swevis.harness.support)."""
    check_gradable(rows, settings["kind"])
    if settings["kind"] == "docker":
        return validate_docker(rows, settings, work_dir, client_factory=client_factory, mirrors=mirrors)
    return validate_local(rows, mirrors, settings, work_dir)


def write_validation(report: dict[str, Any], path: str | Path) -> Path:
    write_json_atomic(path, report)
    return Path(path)

