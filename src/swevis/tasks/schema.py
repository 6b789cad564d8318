"""The SWE-bench instance schema, and validation with errors that name the file, row and field.

Rows from Hugging Face carry FAIL_TO_PASS / PASS_TO_PASS as JSON-encoded strings; rows from
our files may carry real lists. `validate_row` normalizes both to lists of strings.
"""

from __future__ import annotations

import datetime
import json
import re
from typing import Any

from swevis.errors import TaskValidationError

# The classic SWE-bench (Verified) columns.
REQUIRED_FIELDS: tuple[str, ...] = (
    "instance_id",
    "repo",
    "base_commit",
    "problem_statement",
    "hints_text",
    "created_at",
    "patch",
    "test_patch",
    "FAIL_TO_PASS",
    "PASS_TO_PASS",
    "version",
    "environment_setup_commit",
)
# Fields swebench's per-repo specs cannot supply for repositories it does not know.
# `language`: the index's name of the row's language (swevis.tasks.languages; none: Python).
OPTIONAL_FIELDS: tuple[str, ...] = ("test_cmd", "log_parser", "difficulty", "language")

_INSTANCE_ID = re.compile(r"[A-Za-z0-9_.\-]+__[A-Za-z0-9_.\-]+-\d+")
_REPO = re.compile(r"[A-Za-z0-9_.\-]+/[A-Za-z0-9_.\-]+")
_SHA = re.compile(r"[0-9a-f]{40}")


def _fail(origin: str, row_number: int, field: str, message: str) -> TaskValidationError:
    return TaskValidationError(f"{origin}, row {row_number}, field '{field}': {message}")


def _test_list(value: Any, origin: str, row_number: int, field: str) -> list[str]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise _fail(origin, row_number, field, f"not a JSON list of test ids ({exc.msg})")
    if hasattr(value, "tolist"):  # numpy arrays from parquet
        value = value.tolist()
    if not isinstance(value, list) or not all(isinstance(t, str) for t in value):
        raise _fail(origin, row_number, field, "must be a list of test ids (strings)")
    return list(value)


def validate_row(row: Any, origin: str, row_number: int) -> dict[str, Any]:
    """Check one instance row and return a normalized copy.

    `origin` names the file or dataset, `row_number` counts from 1, so the error message
    points the user at the exact place to fix.
    """
    if not isinstance(row, dict):
        raise TaskValidationError(f"{origin}, row {row_number}: expected an object, got {type(row).__name__}")
    for field in REQUIRED_FIELDS:
        if field not in row or row[field] is None:
            raise _fail(origin, row_number, field, "missing")
    out = dict(row)
    for field in REQUIRED_FIELDS:
        if field in ("FAIL_TO_PASS", "PASS_TO_PASS"):
            continue
        value = out[field]
        if not isinstance(value, str):
            if field == "version" and isinstance(value, (int, float)):
                out[field] = str(value)
                continue
            if field == "created_at" and isinstance(value, datetime.datetime):
                # `datasets` and parquet may type timestamps; keep SWE-bench's ISO text.
                out[field] = value.isoformat()
                continue
            raise _fail(origin, row_number, field, f"must be a string, got {type(value).__name__}")
    if not _INSTANCE_ID.fullmatch(out["instance_id"]):
        raise _fail(origin, row_number, "instance_id", f"{out['instance_id']!r} is not of the form owner__name-NUMBER")
    if not _REPO.fullmatch(out["repo"]):
        raise _fail(origin, row_number, "repo", f"{out['repo']!r} is not of the form owner/name")
    if not _SHA.fullmatch(out["base_commit"]):
        raise _fail(origin, row_number, "base_commit", f"{out['base_commit']!r} is not a 40-hex commit id")
    if not out["problem_statement"].strip():
        raise _fail(origin, row_number, "problem_statement", "empty")
    if not out["patch"].strip():
        raise _fail(origin, row_number, "patch", "empty (the gold patch is needed for coverage and checks)")
    out["FAIL_TO_PASS"] = _test_list(out["FAIL_TO_PASS"], origin, row_number, "FAIL_TO_PASS")
    out["PASS_TO_PASS"] = _test_list(out["PASS_TO_PASS"], origin, row_number, "PASS_TO_PASS")
    if not out["FAIL_TO_PASS"]:
        raise _fail(origin, row_number, "FAIL_TO_PASS", "empty: an instance needs at least one failing test")
    for field in ("test_cmd", "log_parser", "language"):
        if field in out and out[field] is not None and not isinstance(out[field], str):
            raise _fail(origin, row_number, field, "must be a string")
    return out
