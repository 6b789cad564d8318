"""Read and write results/instances.jsonl (one validated SWE-bench row per line)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from swevis.errors import TaskSourceError
from swevis.fsutil import write_atomic
from swevis.tasks.schema import validate_row


def load_instances(path: str | Path) -> list[dict[str, Any]]:
    """Rows of an instances.jsonl file, validated; errors name the file and the line."""
    path = Path(path)
    if not path.exists():
        raise TaskSourceError(f"instances file {path} does not exist")
    rows = []
    with path.open() as fh:
        for number, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise TaskSourceError(f"{path}, row {number}: invalid JSON ({exc.msg})") from None
            rows.append(validate_row(row, str(path), number))
    return rows


def study_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of the study's sample: instances.jsonl also holds the probe sets' rows (tagged
    ``probe_set``), which only the matrix entries naming them run and no study table counts."""
    return [row for row in rows if not row.get("probe_set")]


def probe_rows(rows: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of the probe sets (tagged ``probe_set`` by the sampling checkpoint)."""
    return [row for row in rows if row.get("probe_set")]


def write_instances(rows: Iterable[dict[str, Any]], path: str | Path) -> None:
    """Write atomically: a crash never leaves a half-written instances file behind."""
    write_atomic(path, "".join(json.dumps(row, sort_keys=True) + "\n" for row in rows))


def rows_of_layout(instances: str | Path) -> list[dict[str, Any]]:
    """The rows of an instances.jsonl and of the localized_instances.jsonl beside it (when the
    workflow wrote one): every instance the mirror and checkout jobs may be asked for."""
    from swevis.paths import ResultsLayout

    localized = Path(ResultsLayout(str(Path(instances).parent)).localized_instances())
    return [*load_instances(instances), *(load_instances(localized) if localized.exists() else [])]
