"""Atomic file writes: a reader (or the next run after a crash) sees the old file or the new one,
never a half-written file that looks complete.

Every write goes to a temporary file in the destination's own folder (so os.replace is a
rename on one file system) and is renamed over the destination only once it is complete; on
any error the temporary file is removed and the destination is left as it was.
"""

from __future__ import annotations

import json
import os
import secrets
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

from swevis.redaction import redact


def user_cache_dir(*parts: str) -> Path:
    """swevis's folder in the user's cache, `parts` below it: `$SWEVIS_CACHE_DIR` when that is
    an absolute path (the test suite points it at a temporary folder), else
    `$XDG_CACHE_HOME/swevis` when that is one, else `~/.cache/swevis`. A relative path in
    either variable is ignored, as the XDG spec says of XDG_CACHE_HOME: it would name another
    folder in every working directory."""
    own = os.environ.get("SWEVIS_CACHE_DIR", "")
    if os.path.isabs(own):
        return Path(own).joinpath(*parts)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base.joinpath("swevis", *parts)


def temp_path_for(path: Path) -> Path:
    """A fresh hidden name next to `path` that keeps its suffix (writers such as matplotlib
    choose the format by suffix); unique per call, so concurrent writers never share one."""
    return path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp{path.suffix}")


@contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path for a writer that takes a file name (polars, matplotlib); rename
    it onto `path` when the block ends without error, remove it otherwise."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = temp_path_for(path)
    try:
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_atomic(path: str | Path, data: str | bytes, *, fsync: bool = False) -> Path:
    """Write text or bytes to `path` atomically; `fsync` also forces the data to disk before
    the rename (for records that must survive a power loss, not only a crash). Text is
    redacted (swevis.redaction): no registered secret reaches a record file. Bytes (images,
    databases) are written as they are."""
    path = Path(path)
    if isinstance(data, str):
        data = redact(data)
    with atomic_path(path) as tmp:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
        with os.fdopen(fd, "wb" if isinstance(data, bytes) else "w") as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
    return path


def write_json_atomic(path: str | Path, obj: Any, *, fsync: bool = False) -> Path:
    """Write `obj` as a result JSON file (indented, sorted keys, trailing newline) atomically;
    values JSON does not know (dates, paths) are written as their str()."""
    text = json.dumps(obj, indent=2, sort_keys=True, default=str) + "\n"
    return write_atomic(path, text, fsync=fsync)
