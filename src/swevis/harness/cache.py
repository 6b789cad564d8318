"""What both harnesses share: the eval.json record, and shared evaluations (identical patches
of one instance are graded once; common under replay, where conditions produce the same patch)."""

from __future__ import annotations

import hashlib
import json
import logging
from pathlib import Path
from typing import Any, Callable

from swevis.errors import SwevisError
from swevis.provenance import write_json_atomic

log = logging.getLogger(__name__)


def new_eval_record(instance_id: str, harness: str) -> dict[str, Any]:
    """An eval.json record before any verdict: unresolved, nothing applied, no error."""
    return {
        "instance_id": instance_id,
        "harness": harness,
        "resolved": False,
        "patch_applied": False,
        "patch_apply": None,
        "infra_failure": False,
        "error": None,
        "tests": None,
        "resolution": None,
    }


def _normalize_patch(patch: str) -> str:
    text = (patch or "").replace("\r\n", "\n")
    return text.rstrip("\n") + "\n" if text.strip() else ""


def evaluation_cache_key(instance_id: str, patch: str, harness: str = "docker") -> str:
    """Key of one evaluation: harness kind, instance and the patch (line endings and the
    trailing newline normalized). Identical patches of one instance share it."""
    blob = json.dumps([harness, instance_id, _normalize_patch(patch)]).encode()
    return hashlib.sha256(blob).hexdigest()


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
        write_json_atomic(record, self._path(key))


def cached_evaluation(
    cache: EvalCache,
    instance_id: str,
    patch: str,
    harness: str,
    compute: Callable[[], dict[str, Any]],
) -> dict[str, Any]:
    """Return the cached record of (instance, patch, harness) or compute and store it.

    The local runner path uses it as
    `cached_evaluation(cache, iid, patch, "local", lambda: evaluate_patch(row, patch, mirror))`.
    """
    key = evaluation_cache_key(instance_id, patch, harness)
    hit = cache.get(key)
    if hit is not None:
        return {**hit, "cache_key": key, "cached": True}
    record = compute()
    record = {**record, "cache_key": key, "cached": False}
    cache.put(key, record)
    return record


class MissingPatchError(SwevisError):
    """A run folder without patch.diff: its agent run did not finish."""


def read_patch(run_dir: str | Path) -> str:
    """The patch of one run folder (both harnesses); a missing patch.diff is an error naming the file."""
    path = Path(run_dir) / "patch.diff"
    if not path.exists():
        raise MissingPatchError(f"{path}: missing (the agent run did not finish?)")
    return path.read_text(encoding="utf-8", errors="replace")
