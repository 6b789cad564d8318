"""Shared evaluations: identical patches of one instance are graded once (common under playback,
where conditions produce the same patch), keyed by everything that can change a verdict."""

from __future__ import annotations

import hashlib
import json
import logging
from importlib.metadata import version
from pathlib import Path
from typing import Any, Callable

from swevis.fsutil import write_json_atomic

log = logging.getLogger(__name__)

# Bump when swevis's grading changes in a way that can change a verdict: every cached
# evaluation and validation made before is then graded again.
HARNESS_SCHEMA = "swevis-harness-2"
swebench_version = version("swebench")  # its grading decides verdicts (read without importing it)


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
