"""On-disk response cache: a rerun, or a restart after a crash, never pays twice for a call.

Key: SHA-256 of the canonical JSON (sorted keys, no whitespace, UTF-8) of the request body
as POSTed to ``/chat/completions`` -- model id, the prepared messages (after the image
cap, so images are part of the key byte for byte), temperature, the max-output field and
every other sampling parameter sent (top_p, seed, stop, tools, tool_choice, extra_body) --
wrapped with a cache-format version. The base URL and headers (so the API key) are not
part of the key: the model id names the model, and a server that moved to another port
still hits.

Only deterministic requests are cached (temperature == 0).

Storage: one JSON file per key, ``<cache_dir>/<key[:2]>/<key>.json``, holding the key, the
model id, a short request summary (no message content, no headers) and the server's
response body. Writes go to a temporary file in the same folder and are renamed into
place (atomic on POSIX), so concurrent processes never see half a file; two processes
racing on the same key both write a complete, equivalent entry and the last rename wins.
An unreadable entry counts as a miss and is overwritten.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from pathlib import Path
from typing import Any

from swevis.fsutil import write_atomic

log = logging.getLogger(__name__)

CACHE_FORMAT = "swevis-response-cache-1"


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def request_key(body: dict[str, Any]) -> str:
    """The cache key of a request body (see the module doc)."""
    blob = canonical_json({"format": CACHE_FORMAT, "request": body}).encode("utf-8")
    return hashlib.sha256(blob).hexdigest()


class ResponseCache:
    def __init__(self, cache_dir: str | Path):
        self.dir = Path(cache_dir)

    def path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        path = self.path(key)
        try:
            entry = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            log.warning("response cache entry %s is unreadable (%s); treating it as a miss", path, exc)
            return None
        if not isinstance(entry, dict) or entry.get("key") != key or not isinstance(entry.get("response"), dict):
            log.warning("response cache entry %s is malformed; treating it as a miss", path)
            return None
        return entry

    def put(self, key: str, response: dict[str, Any], *, summary: dict[str, Any]) -> Path:
        path = self.path(key)
        entry = {
            "format": CACHE_FORMAT,
            "key": key,
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "request": summary,
            "response": response,
        }
        return write_atomic(path, json.dumps(entry, ensure_ascii=False).encode("utf-8"), fsync=True)

    def __len__(self) -> int:
        """Stored entries; a write in progress (a hidden temporary file) is not one."""
        return sum(1 for p in self.dir.glob("*/*.json") if not p.name.startswith(".")) if self.dir.exists() else 0
