"""Dataset rows to the SWE-bench row swevis uses.

SWE-bench (Verified, Multilingual) rows already are one. SWE-PolyBench rows
(AmazonScience/SWE-PolyBench, its _500 and _Verified subsets) name the same things
otherwise, and a row is read as one when it has `F2P` and no `FAIL_TO_PASS`:

| SWE-PolyBench | swevis row |
|---|---|
| `F2P`, `P2P` (Python list literals) | `FAIL_TO_PASS`, `PASS_TO_PASS` |
| `test_command` | `test_cmd` (the grading command, as the bundled rows give it) |
| `language` ("Java", "TypeScript") | `language` (the index's name: java, typescript) |
| no `hints_text`, `version`, `environment_setup_commit` | "", "", base_commit |

Other columns (`Dockerfile`, `modified_nodes`, ...) are kept as they are.
"""

from __future__ import annotations

import ast
from typing import Any

from swevis.errors import TaskValidationError

# SWE-PolyBench's name -> the SWE-bench name
POLYBENCH_RENAMES = {"F2P": "FAIL_TO_PASS", "P2P": "PASS_TO_PASS", "test_command": "test_cmd"}


def is_polybench(row: dict[str, Any]) -> bool:
    return "F2P" in row and "FAIL_TO_PASS" not in row


def _literal_list(value: Any, origin: str, row_number: int, field: str) -> Any:
    """A list from SWE-PolyBench's `str(list)` text; anything else is left to validate_row."""
    if not isinstance(value, str) or not value.lstrip().startswith("["):
        return value
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        raise TaskValidationError(
            f"{origin}, row {row_number}, field '{field}': not a list literal of test ids"
        ) from None


def polybench_row(row: dict[str, Any], origin: str, row_number: int) -> dict[str, Any]:
    """A SWE-PolyBench row in the SWE-bench schema (see the module's table)."""
    out = {k: v for k, v in row.items() if k not in POLYBENCH_RENAMES}
    for theirs, ours in POLYBENCH_RENAMES.items():
        if theirs in row:
            out[ours] = row[theirs]
    for field, theirs in (("FAIL_TO_PASS", "F2P"), ("PASS_TO_PASS", "P2P")):
        if field in out:
            out[field] = _literal_list(out[field], origin, row_number, theirs)
    out.setdefault("hints_text", "")
    out.setdefault("version", "")
    if out.get("environment_setup_commit") is None and row.get("base_commit"):
        out["environment_setup_commit"] = row["base_commit"]
    return out


def swebench_row(row: Any, origin: str, row_number: int) -> Any:
    """The row in the SWE-bench schema (a SWE-PolyBench row is renamed; others as they are)."""
    if isinstance(row, dict) and is_polybench(row):
        return polybench_row(row, origin, row_number)
    return row
