"""What produced a result: recorded in every result file (docs/DESIGN.md conventions)."""

from __future__ import annotations

import datetime as _dt
from pathlib import Path
from typing import Any

from swevis import __version__, fsutil
from swevis.config import config_hash


def provenance(config_section: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    record = {
        "swevis_version": __version__,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    if config_section is not None:
        record["config_hash"] = config_hash(config_section)
    record.update(extra)
    return record


def write_json_atomic(data: Any, path: str | Path) -> None:
    """Kept for callers that pass (data, path); new code calls swevis.fsutil.write_json_atomic."""
    fsutil.write_json_atomic(path, data)
