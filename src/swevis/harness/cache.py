"""What both harnesses share: the eval.json record, and shared evaluations (identical patches
of one instance are graded once; common under replay, where conditions produce the same patch)."""

from __future__ import annotations

import hashlib
import json
import logging
from importlib.metadata import version
from pathlib import Path
from typing import Any, Callable

from swevis.errors import InfrastructureError, SwevisError
from swevis.fsutil import write_json_atomic

log = logging.getLogger(__name__)

# Bump when swevis's grading changes in a way that can change a verdict: every cached
# evaluation and validation made before is then graded again.
HARNESS_SCHEMA = "swevis-harness-2"
swebench_version = version("swebench")  # its grading decides verdicts (read without importing it)


def new_eval_record(instance_id: str, harness: str) -> dict[str, Any]:
    """An eval.json record before any verdict: unresolved, nothing applied, no error.

    `infra_failure`: no verdict (retried, never cached). `harness_error` marks the subset
    where the harness itself could not run (timeout, crash, no engine or image, a test_patch
    that does not apply, an eval script that died), as opposed
    to an environment that runs but cannot grade (no test results even for the gold patch).
    `reason`: why a verdict is unresolved when the record's other fields do not say it.
    """
    return {
        "instance_id": instance_id,
        "harness": harness,
        "resolved": False,
        "patch_applied": False,
        "patch_apply": None,
        "infra_failure": False,
        "harness_error": False,
        "error": None,
        "reason": None,
        "tests": None,
        "resolution": None,
    }


def _normalize_patch(patch: str) -> str:
    text = (patch or "").replace("\r\n", "\n")
    return text.rstrip("\n") + "\n" if text.strip() else ""


def _test_list(value: Any) -> list[str]:
    """FAIL_TO_PASS / PASS_TO_PASS as a list (rows hold them as lists or JSON strings)."""
    return json.loads(value) if isinstance(value, str) else list(value or [])


def verdict_inputs(row: dict[str, Any], patch: str, harness: str, environment: str) -> dict[str, Any]:
    """Everything that decides a verdict: the candidate patch, the task row's tests and test
    command, the base commit, the environment (image or host interpreter) and the harness
    version. A change to any of them must grade the patch again."""
    return {
        "schema": HARNESS_SCHEMA,
        "swebench": swebench_version,
        "harness": harness,
        "environment": environment,
        "instance_id": row["instance_id"],
        "repo": row.get("repo"),
        "version": row.get("version"),
        "base_commit": row.get("base_commit"),
        "test_patch": _normalize_patch(row.get("test_patch") or ""),
        "FAIL_TO_PASS": _test_list(row.get("FAIL_TO_PASS")),
        "PASS_TO_PASS": _test_list(row.get("PASS_TO_PASS")),
        "test_cmd": row.get("test_cmd"),
        "log_parser": row.get("log_parser"),
        "patch": _normalize_patch(patch),
    }


def evaluation_cache_key(row: dict[str, Any], patch: str, harness: str, environment: str) -> str:
    """Key of one evaluation (sha256 of verdict_inputs). Identical patches of one instance
    share it; line endings and the trailing newline of patches do not matter."""
    blob = json.dumps(verdict_inputs(row, patch, harness, environment), sort_keys=True).encode()
    return hashlib.sha256(blob).hexdigest()


def validation_cache_key(row: dict[str, Any], harness: str, environment: str) -> str:
    """Key of one environment validation: the verdict inputs of the gold patch, tagged."""
    blob = json.dumps(["validation", verdict_inputs(row, row.get("patch") or "", harness, environment)], sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


class EvalCache:
    """A small on-disk cache of eval records, `<root>/<key[:2]>/<key>.json`.

    Only verdicts are stored (never infrastructure failures), so a crash is retried.
    `root=None` disables the cache.
    """

    def __init__(self, root: str | Path | None):
        self.root = Path(root) if root else None

    def _path(self, key: str) -> Path:
        assert self.root is not None
        return self.root / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        if self.root is None:
            return None
        path = self._path(key)
        if not path.exists():
            return None
        try:
            return json.loads(path.read_text())
        except (OSError, json.JSONDecodeError):
            log.warning("ignoring unreadable eval cache entry %s", path)
            return None

    def put(self, key: str, record: dict[str, Any]) -> None:
        if self.root is None or record.get("infra_failure"):
            return
        write_json_atomic(self._path(key), record)


def cached_evaluation(
    cache: EvalCache,
    row: dict[str, Any],
    patch: str,
    harness: str,
    environment: str,
    compute: Callable[[], dict[str, Any]],
) -> dict[str, Any]:
    """Return the cached record of (row, patch, harness, environment) or compute and store it.

    The local runner uses it as `cached_evaluation(cache, row, patch, "local", env, grade)`.
    """
    key = evaluation_cache_key(row, patch, harness, environment)
    hit = cache.get(key)
    if hit is not None:
        return {**hit, "cache_key": key, "cached": True}
    record = compute()
    record = {**record, "cache_key": key, "cached": False}
    cache.put(key, record)
    return record


def raise_harness_errors(what: str, records: dict[str, dict[str, Any]]) -> None:
    """No verdict where the harness itself failed (after its retries): the job fails with one
    line naming the instances, writes no output, and the next run grades them again."""
    failed = sorted(iid for iid, r in records.items() if r.get("harness_error"))
    if failed:
        more = f" (and {len(failed) - 1} more: {', '.join(failed[1:6])})" if len(failed) > 1 else ""
        raise InfrastructureError(f"{what}: harness failure on {failed[0]}: {records[failed[0]]['error']}{more}")


class MissingPatchError(SwevisError):
    """A run folder without patch.diff: its agent run did not finish."""


def read_patch(run_dir: str | Path) -> str:
    """The patch of one run folder (both harnesses); a missing patch.diff is an error naming the file."""
    path = Path(run_dir) / "patch.diff"
    if not path.exists():
        raise MissingPatchError(f"{path}: missing (the agent run did not finish?)")
    return path.read_text(encoding="utf-8", errors="replace")
