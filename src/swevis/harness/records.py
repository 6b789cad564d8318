"""The eval.json record both backends write, and the checks around it: a missing patch, and a
harness failure that must fail the job rather than become a verdict; and the reader of the
environment validation report (the summaries read it without the harness's engines)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from swevis.errors import InfrastructureError, SwevisError

VALIDATION_FORMAT = "swevis-validation-1"


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


def read_validation(path: str | Path) -> dict[str, Any]:
    """A validation report; a missing or foreign file is an error naming it."""
    path = Path(path)
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as exc:
        raise SwevisError(f"{path}: unreadable environment validation ({exc})") from None
    if not isinstance(data, dict) or data.get("format") != VALIDATION_FORMAT:
        raise SwevisError(f"{path}: not an environment validation report ({VALIDATION_FORMAT})")
    return data
