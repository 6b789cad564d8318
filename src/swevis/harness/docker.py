"""The official SWE-bench harness (swebench 4.x) in Docker, one run per condition.

For one condition folder `results/runs/<model>/<agent>-<scope>/<condition>/`:

1. collect the condition's predictions from `<instance>/patch.diff` and write them in
   swebench's format ({instance_id, model_name_or_path, model_patch}) to
   `<condition>/harness/predictions.jsonl`, with our instance rows as `dataset.json`;
2. run `swebench.harness.run_evaluation.main` in-process with run_id
   `swevis-<model>-<agent>-<scope>-<condition>` and its working folder set to
   `<condition>/harness/`, so swebench's logs (`logs/run_evaluation/<run_id>/<model>/<instance>/`
   with report.json, run_instance.log, test_output.txt) and its run report
   (`<model>.<run_id>.json`) all land under the condition's folder;
3. convert each instance's outcome into our eval.json (harness "docker"):
   report.json -> resolved / tests / resolution; "Patch Apply Failed" in run_instance.log ->
   unresolved with the reason; anything else (crash, timeout, no test output) ->
   `infra_failure` and `harness_error` true, retried `retries` times, then the job fails
   with InfrastructureError naming the instance;
4. empty patches are unresolved without Docker ("empty patch", as the local runner says).

Identical patches of one instance share one evaluation (swevis.harness.cache, which the
local runner uses too).

Docker is reached only through `docker.from_env()` (as swebench does); tests replace it
with a fake client. Nothing here pulls or builds images by itself: with the default
namespace "swebench" the harness uses prebuilt instance images, which must be present or
pullable by the Docker engine.
"""

from __future__ import annotations

import contextlib
import copy
import json
import logging
import re
import resource
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterable

import docker

from swevis.errors import InfrastructureError, SwevisError
from swevis.paths import HARNESS_DIRNAME, ConditionKey, eval_path, harness_summary_path, portable, run_path
from swevis.sandbox.images import docker_environment_id, instance_image_name
from swevis.harness.cache import EvalCache, evaluation_cache_key
from swevis.harness.records import new_eval_record, raise_harness_errors, read_patch
from swevis.fsutil import write_atomic, write_json_atomic

log = logging.getLogger(__name__)

PREDICTIONS_NAME = "predictions.jsonl"
DATASET_NAME = "dataset.json"

class DockerHarnessError(InfrastructureError):
    """The Docker harness could not run at all (no engine, a crashed run); not a verdict."""


def instance_environment_ids(
    rows: list[dict[str, Any]],
    settings: dict[str, Any],
    client_factory: Callable[[], Any] | None = None,
    mirrors: dict[str, str] | None = None,
) -> dict[str, str]:
    """{instance id: environment id}: the local image's id (a re-pushed `latest` is another
    image), else the image's tag, said so in the id and the log (not pulled yet, no engine)."""
    try:
        with _docker_client_factory(client_factory):
            images = docker.from_env().images
    except Exception as exc:  # docker.errors.DockerException and transport errors
        log.warning("no Docker engine to inspect images (%s): evaluations keyed by image tags", exc)
        images = None
    ids = {}
    for row in rows:
        name = instance_image_name(row, settings, mirrors)
        try:
            ids[row["instance_id"]] = f"docker:{name}@{images.get(name).id}" if images else f"docker:{name}@tag-only"
        except docker.errors.APIError as exc:  # ImageNotFound: not pulled or built yet
            log.info("image %s not inspected (%s): its evaluation is keyed by the tag", name, exc.__class__.__name__)
            ids[row["instance_id"]] = f"docker:{name}@tag-only"
    return ids


# ---------------------------------------------------------------- names and inputs


def harness_dir(condition_dir: str | Path) -> Path:
    return Path(condition_dir) / HARNESS_DIRNAME


def instance_log_dir(condition_dir: str | Path, run_id: str, model_name: str, instance_id: str, repeat: int = 0) -> Path:
    """Where swebench's run_instance writes report.json, run_instance.log, test_output.txt."""
    hdir = harness_dir(condition_dir) / (f"repeat-{repeat}" if repeat else "")
    return hdir / "logs" / "run_evaluation" / run_id / model_name.replace("/", "__") / instance_id


def condition_predictions(
    condition_dir: str | Path, instance_ids: Iterable[str], model_name: str, repeat: int = 0
) -> list[dict[str, str]]:
    """swebench predictions of a condition, one per instance folder (of one repeat)."""
    return [
        {
            "instance_id": iid,
            "model_name_or_path": model_name,
            "model_patch": read_patch(run_path(condition_dir, iid, repeat, "patch.diff").parent),
        }
        for iid in instance_ids
    ]


def write_predictions(predictions: list[dict[str, str]], path: str | Path) -> Path:
    return write_atomic(path, "".join(json.dumps(p, sort_keys=True) + "\n" for p in predictions))


def write_dataset(rows: list[dict[str, Any]], path: str | Path) -> Path:
    """Our instance rows as the local JSON dataset swebench's load_swebench_dataset reads."""
    return write_atomic(path, json.dumps(rows, indent=1, default=str))


# ---------------------------------------------------------------- evaluation cache


# ---------------------------------------------------------------- report -> eval.json


def _base_record(instance_id: str) -> dict[str, Any]:
    return new_eval_record(instance_id, "docker")


def _tail(text: str, n: int = 800) -> str:
    text = text.strip()
    return text if len(text) <= n else "…" + text[-n:]


def _apply_command(instance_log: str) -> str | None:
    """The GIT_APPLY_CMDS entry that worked: the first one not reported as failed."""
    # Lazy (here and below): swebench's harness takes ~2.0 s to import (python -X importtime),
    # and the analysis imports this module (through harness.validate) without grading.
    from swebench.harness.run_evaluation import GIT_APPLY_CMDS

    failed = {cmd for cmd in GIT_APPLY_CMDS if f"Failed to apply patch to container: {cmd}\n" in instance_log + "\n"}
    for cmd in GIT_APPLY_CMDS:
        if cmd not in failed:
            return cmd
    return None


def report_to_eval(instance_id: str, log_dir: str | Path, *, timeout_s: float | None = None) -> dict[str, Any]:
    """Our eval record from swebench's per-instance log folder (report.json + logs)."""
    from swebench.harness.constants import (
        APPLY_PATCH_FAIL,
        FAIL_TO_PASS,
        LOG_INSTANCE,
        LOG_REPORT,
        PASS_TO_PASS,
    )
    from swebench.harness.grading import get_resolution_status

    log_dir = Path(log_dir)
    record = _base_record(instance_id)
    record["log_dir"] = portable(log_dir)  # relative: the results folder moves between machines
    instance_log_path = log_dir / LOG_INSTANCE
    instance_log = instance_log_path.read_text(errors="replace") if instance_log_path.exists() else ""
    report_path = log_dir / LOG_REPORT

    if report_path.exists():
        try:
            report = json.loads(report_path.read_text())[instance_id]
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            record.update(infra_failure=True, harness_error=True,
                          error=f"{portable(report_path)}: unreadable swebench report ({exc})")
            return record
        record["report_path"] = portable(report_path)
        record["patch_applied"] = True
        record["patch_apply"] = _apply_command(instance_log) or "applied"
        status = report.get("tests_status")
        if not report.get("patch_successfully_applied") or not status:
            # run_instance applied the patch, but swebench found no test output section (the
            # eval script died, or the log holds its reset/error/timeout markers): the machinery,
            # since a patch that breaks collection still gives a section swebench grades unresolved.
            record.update(infra_failure=True, harness_error=True,
                          error="the test log has no test results (eval script failed); see test_output.txt")
            return record
        record["tests"] = {FAIL_TO_PASS: status.get(FAIL_TO_PASS), PASS_TO_PASS: status.get(PASS_TO_PASS)}
        record["resolution"] = get_resolution_status(status)
        record["resolved"] = bool(report.get("resolved"))
        return record

    if APPLY_PATCH_FAIL in instance_log:
        reason = instance_log.split(APPLY_PATCH_FAIL, 1)[1]
        reason = reason.split("Traceback (most recent call last)", 1)[0]
        reason = re.split(r"\n\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", reason, maxsplit=1)[0].strip(":\n ")
        record["patch_apply"] = "patch does not apply: " + _tail(reason, 500)
        return record

    if "timed out after" in instance_log or "Timeout error" in instance_log:
        record.update(infra_failure=True, harness_error=True,
                      error=f"test run timed out after {timeout_s} s" if timeout_s else "test run timed out")
        return record
    if not instance_log:
        record.update(infra_failure=True, harness_error=True, error=f"evaluation did not run: no {instance_log_path}")
        return record
    error_lines = [ln for ln in instance_log.splitlines() if "Error" in ln or "error" in ln]
    record.update(
        infra_failure=True,
        harness_error=True,
        error="evaluation crashed: " + _tail("\n".join(error_lines[-5:]) or instance_log, 500) + f" (see {instance_log_path})",
    )
    return record


def empty_patch_record(instance_id: str) -> dict[str, Any]:
    record = _base_record(instance_id)
    record["patch_apply"] = "empty patch"
    return record


# ---------------------------------------------------------------- running the harness


@contextlib.contextmanager
def _docker_client_factory(factory: Callable[[], Any] | None):
    """Temporarily make `docker.from_env` return `factory()` (the test boundary)."""
    if factory is None:
        yield
        return
    original = docker.from_env
    docker.from_env = lambda *a, **k: factory()
    try:
        yield
    finally:
        docker.from_env = original


def check_engine() -> None:
    """Fail early, clearly, when no Docker engine answers."""
    try:
        docker.from_env().ping()
    except Exception as exc:  # docker.errors.DockerException and transport errors
        raise DockerHarnessError(
            f"no Docker engine reachable ({exc.__class__.__name__}: {exc}); use harness.kind: local or start Docker"
        ) from None


def _run_swebench(
    workdir: Path,
    dataset_path: Path,
    predictions_path: Path,
    instance_ids: list[str],
    run_id: str,
    settings: dict[str, Any],
    mirrors: dict[str, str],
) -> None:
    """swebench's own entry point, run with `workdir` as its working folder, the bundled
    repositories' specs registered and the files its test specs read served from `mirrors`."""
    from swebench.harness import run_evaluation

    from swevis.sandbox.specs import offline_spec_files, register_bundled_specs

    register_bundled_specs(json.loads(dataset_path.read_text()))

    open_files = settings.get("open_file_limit")
    if open_files is None:
        # main() sets soft and hard limit to this value; never lower our hard limit.
        open_files = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        if open_files == resource.RLIM_INFINITY:
            open_files = 65536
    with contextlib.chdir(workdir), offline_spec_files(mirrors):
        run_evaluation.main(
            dataset_name=str(dataset_path),
            split="test",
            instance_ids=instance_ids,
            predictions_path=str(predictions_path),
            max_workers=int(settings["max_workers"]),
            force_rebuild=bool(settings["force_rebuild"]),
            cache_level=settings["cache_level"],
            clean=bool(settings["clean"]),
            open_file_limit=int(open_files),
            run_id=run_id,
            timeout=int(settings["timeout_s"]),
            namespace=settings["namespace"],
            rewrite_reports=False,
            modal=False,
            instance_image_tag=settings["instance_image_tag"],
            env_image_tag=settings["env_image_tag"],
            report_dir=".",
        )


def evaluate_condition_docker(
    condition_dir: str | Path,
    rows: list[dict[str, Any]],
    *,
    model: str,
    agent: str,
    scope: str,
    condition: str,
    settings: dict[str, Any],
    client_factory: Callable[[], Any] | None = None,
    repeats: int = 1,
    mirrors: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Evaluate every run of one condition (instances x repeats) with the official harness.

    `mirrors` ({repo: bare mirror}) serve the files swebench's test specs would fetch from
    GitHub (swevis.sandbox.specs), so grading with prebuilt images needs no network.

    Repeat k > 0 (folders <instance>/repeat-k/) is a separate harness run with run_id
    suffix `-repeat-k` and its own `harness/repeat-k/` folder; the summary adds them up.
    `settings` is the config's `harness` section as the schema validated it (defaults filled in).
    """
    condition_dir = Path(condition_dir).resolve()
    runs = [
        _HarnessRun(
            condition_dir=condition_dir,
            hdir=harness_dir(condition_dir) / (f"repeat-{r}" if r else ""),
            run_id=ConditionKey(model, agent, scope, condition).run_id + (f"-repeat-{r}" if r else ""),
            model=model,
            repeat=r,
            settings=settings,
            mirrors=mirrors or {},
        )
        for r in range(int(repeats))
    ]
    summaries = [_evaluate_repeat(run, rows, client_factory) for run in runs]
    if len(summaries) == 1:
        summary = summaries[0]
    else:
        summary = {
            "run_id": [s["run_id"] for s in summaries],
            "harness_dir": summaries[0]["harness_dir"],
            "n": sum(s["n"] for s in summaries),
            "resolved": sum(s["resolved"] for s in summaries),
            "infra_failures": sorted(i for s in summaries for i in s["infra_failures"]),
            "attempts": max(s["attempts"] for s in summaries),
            **{k: sum(s[k] for s in summaries) for k in ("evaluated", "cached", "empty")},
        }
    write_json_atomic(harness_summary_path(condition_dir), summary)
    return summary


def _evaluate_repeat(run: "_HarnessRun", rows: list[dict[str, Any]], client_factory: Callable[[], Any] | None) -> dict[str, Any]:
    """One harness run over the instance folders of one repeat.

    `rows` are the SWE-bench rows (results/instances.jsonl) of the condition's instances;
    each must have a run folder `<condition_dir>/<instance_id>/` with patch.diff. Writes
    each run's eval.json below `harness/evals/` (swevis.paths.eval_path) and returns a summary
    {run_id, n, resolved, infra_failures, evaluated, cached, empty, attempts, harness_dir}.
    `client_factory` replaces docker.from_env (tests).
    """
    condition_dir, settings, repeat, model = run.condition_dir, run.settings, run.repeat, run.model
    run.hdir.mkdir(parents=True, exist_ok=True)
    cache_dir = settings["cache_dir"]
    cache = EvalCache(Path(cache_dir).resolve() if cache_dir else None)
    environments = instance_environment_ids(rows, settings, client_factory, run.mirrors)
    row_of = {r["instance_id"]: r for r in rows}
    ids = [r["instance_id"] for r in rows]
    if len(set(ids)) != len(ids):
        raise SwevisError(f"{condition_dir}: duplicate instance ids in the rows")

    predictions = condition_predictions(condition_dir, ids, model, repeat)
    write_predictions(predictions, run.predictions_path)
    write_dataset(rows, run.dataset_path)
    patches = {p["instance_id"]: p["model_patch"] for p in predictions}

    keys = {iid: evaluation_cache_key(row_of[iid], patches[iid], "docker", environments[iid]) for iid in ids}
    records, counts, pending = _verdicts_without_docker(ids, patches, keys, cache)
    attempts_used, attempt_of = 0, {}
    if pending:
        with _docker_client_factory(client_factory):
            check_engine()
            attempts_used, attempt_of = _run_with_retries(run, pending, records)

    for iid in attempt_of:  # verdicts are cached first, so a failed job keeps them for its rerun
        records[iid].update(cache_key=keys[iid], cached=False, attempts=attempt_of[iid])
        cache.put(keys[iid], {k: v for k, v in records[iid].items() if k not in ("cache_key", "cached", "attempts")})
        counts["evaluated"] += 1
    raise_harness_errors(run.run_id, records)
    for iid in ids:
        records[iid]["run_id"] = run.run_id
        write_json_atomic(eval_path(condition_dir, iid, repeat), records[iid])

    summary = {
        "run_id": run.run_id,
        "harness_dir": portable(run.hdir),
        "n": len(ids),
        "resolved": sum(1 for r in records.values() if r["resolved"]),
        "infra_failures": sorted(iid for iid, r in records.items() if r["infra_failure"]),
        "attempts": attempts_used,
        "environment": docker_environment_id(settings),
        "images": environments,
        **counts,
    }
    return copy.deepcopy(summary)


@dataclass(frozen=True)
class _HarnessRun:
    """Where one swebench run of one repeat reads its inputs and writes its logs."""

    condition_dir: Path
    hdir: Path
    run_id: str
    model: str
    repeat: int
    settings: dict[str, Any]
    mirrors: dict[str, str]

    @property
    def predictions_path(self) -> Path:
        return self.hdir / PREDICTIONS_NAME

    @property
    def dataset_path(self) -> Path:
        return self.hdir / DATASET_NAME

    def log_dir(self, instance_id: str) -> Path:
        return instance_log_dir(self.condition_dir, self.run_id, self.model, instance_id, self.repeat)


def _verdicts_without_docker(
    ids: list[str], patches: dict[str, str], keys: dict[str, str], cache: EvalCache
) -> tuple[dict[str, dict[str, Any]], dict[str, int], list[str]]:
    """Records of empty patches and cache hits, the counts, and the instances left to run."""
    records: dict[str, dict[str, Any]] = {}
    counts = {"evaluated": 0, "cached": 0, "empty": 0}
    pending: list[str] = []
    for iid in ids:
        if not patches[iid].strip():
            records[iid] = {**empty_patch_record(iid), "cache_key": keys[iid], "cached": False}
            counts["empty"] += 1
            continue
        hit = cache.get(keys[iid])
        if hit is not None:
            records[iid] = {**hit, "instance_id": iid, "cache_key": keys[iid], "cached": True}
            counts["cached"] += 1
            continue
        pending.append(iid)
    return records, counts, pending


def _run_with_retries(
    run: _HarnessRun, pending: list[str], records: dict[str, dict[str, Any]]
) -> tuple[int, dict[str, int]]:
    """Run swebench on `pending`, then again on its infrastructure failures, `retries` times;
    fills `records` and returns the attempts used and the attempt that gave each verdict."""
    retries = int(run.settings["retries"])
    attempts_used = 0
    attempt_of: dict[str, int] = {}
    for attempt in range(1 + retries):
        if not pending:
            break
        attempts_used = attempt + 1
        if attempt > 0:
            _keep_failed_attempt_logs(run, pending, attempt)
        start = time.monotonic()
        try:
            _run_swebench(run.hdir, run.dataset_path, run.predictions_path, pending, run.run_id, run.settings, run.mirrors)
        except Exception as exc:  # the whole run crashed: no verdict for anyone
            log.error("swebench run %s crashed: %s", run.run_id, exc)
            if attempt == retries:
                raise DockerHarnessError(
                    f"swebench run {run.run_id} crashed {attempt + 1} time(s): {exc.__class__.__name__}: {exc}"
                ) from None
            for iid in pending:
                rec = _base_record(iid)
                rec.update(infra_failure=True, harness_error=True, error=f"harness run crashed: {exc}")
                records[iid] = rec
        else:
            for iid in pending:
                records[iid] = report_to_eval(iid, run.log_dir(iid), timeout_s=run.settings["timeout_s"])
        log.info("run %s attempt %d: %d instances in %.1f s", run.run_id, attempt + 1, len(pending), time.monotonic() - start)
        for iid in pending:
            attempt_of[iid] = attempt + 1
        pending = [iid for iid in pending if records[iid]["infra_failure"]]
    return attempts_used, attempt_of


def _keep_failed_attempt_logs(run: _HarnessRun, pending: list[str], attempt: int) -> None:
    """A failed earlier attempt keeps its logs beside the new one."""
    for iid in pending:
        ldir = run.log_dir(iid)
        if ldir.exists():
            shutil.move(str(ldir), str(ldir.with_name(f"{iid}.attempt-{attempt}")))
