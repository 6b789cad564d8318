"""What produced a result: recorded in every result file (docs/DESIGN.md conventions)."""

from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from swevis import __version__


def provenance(config_section: dict[str, Any] | None = None, **extra: Any) -> dict[str, Any]:
    from swevis.config import config_hash

    record = {
        "swevis_version": __version__,
        "created": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
    }
    if config_section is not None:
        record["config_hash"] = config_hash(config_section)
    record.update(extra)
    return record


def write_json_atomic(data: Any, path: str | Path) -> None:
    """Write JSON so that a crash never leaves a half-written file that looks complete."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w") as fh:
            json.dump(data, fh, indent=2, sort_keys=True, default=str)
            fh.write("\n")
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
