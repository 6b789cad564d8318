"""On-disk response cache: a rerun, or a restart after a crash, never pays twice for a call.

Key: SHA-256 of the canonical JSON (sorted keys, no whitespace, UTF-8) of the endpoint and
the request body as POSTed to ``/chat/completions`` -- model id, the prepared messages
(after the image cap, so images are part of the key byte for byte), temperature, the
max-output field and every other sampling parameter sent (top_p, seed, stop, tools,
tool_choice, extra_body) -- wrapped with a key format. The endpoint is the profile's
base_url (scheme and host lower-cased, credentials and a trailing "/" left out): the same
model id at another server may be other weights, another quantization or another chat
template, so its answers are not ours to serve. Headers (so the API key) are not part of it.

A profile with ``cache_shared_across_endpoints: true`` says its servers are one model:
its key leaves the endpoint out, and is then exactly the key of format
``swevis-response-cache-1``, under which every entry was written before the endpoint
became part of the key. Such entries name no endpoint, so only a profile that shares
answers across endpoints reads them; any other profile asks its server again
(``OpenAIChatModel`` says so once when it passes one over).

Only deterministic requests are cached (temperature == 0).

Storage: one JSON file per key, ``<cache_dir>/<key[:2]>/<key>.json``, holding the key, the
endpoint (null for a shared entry), the model id, a short request summary (no message
content, no headers) and the server's response body, redacted (swevis.redaction). Writes go
to a temporary file in the same folder and are renamed into place (atomic on POSIX), so
concurrent processes never see half a file; two processes racing on the same key both
write a complete, equivalent entry and the last rename wins. An unreadable entry counts as
a miss and is overwritten.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from swevis.fsutil import write_atomic
from swevis.redaction import redact

log = logging.getLogger(__name__)

CACHE_FORMAT = "swevis-response-cache-2"  # the file layout, and the key format that names the endpoint
ANY_ENDPOINT_KEY_FORMAT = "swevis-response-cache-1"  # the key format without an endpoint


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def endpoint_id(base_url: str) -> str:
    """The endpoint a cache key names: `base_url` without credentials or a trailing "/",
    scheme and host lower-cased (the path's case is the server's business)."""
    parts = urlsplit(base_url.strip())
    try:
        port = parts.port
    except ValueError:  # not a URL the client would reach; the text itself, then
        return base_url.strip().rstrip("/")
    host = parts.hostname or ""
    host = f"[{host}]" if ":" in host else host
    netloc = host + (f":{port}" if port is not None else "")
    return urlunsplit((parts.scheme.lower(), netloc, parts.path.rstrip("/"), parts.query, ""))


def request_key(body: dict[str, Any], endpoint: str | None) -> str:
    """The cache key of a request body sent to `endpoint` (a base_url); None: the key every
    endpoint shares, that of format swevis-response-cache-1 (see the module doc)."""
    if endpoint is None:
        blob = {"format": ANY_ENDPOINT_KEY_FORMAT, "request": body}
    else:
        blob = {"format": CACHE_FORMAT, "endpoint": endpoint_id(endpoint), "request": body}
    return hashlib.sha256(canonical_json(blob).encode("utf-8")).hexdigest()


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

    def __contains__(self, key: str) -> bool:
        return self.path(key).is_file()

    def put(self, key: str, response: dict[str, Any], *, summary: dict[str, Any], endpoint: str | None) -> Path:
        """Store `response` under `key`; `endpoint`: the base_url the key names (None: shared)."""
        path = self.path(key)
        entry = {
            "format": CACHE_FORMAT,
            "key": key,
            "endpoint": None if endpoint is None else endpoint_id(endpoint),
            "created": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "request": summary,
            "response": response,
        }
        text = redact(json.dumps(entry, ensure_ascii=False))  # bytes skip write_atomic's redaction
        return write_atomic(path, text.encode("utf-8"), fsync=True)

    def __len__(self) -> int:
        """Stored entries; a write in progress (a hidden temporary file) is not one."""
        return sum(1 for p in self.dir.glob("*/*.json") if not p.name.startswith(".")) if self.dir.exists() else 0
