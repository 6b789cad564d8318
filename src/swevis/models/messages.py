"""Message preparation shared by the backends: API keys only, and the image cap.

Image-cap policy (``max_images_per_request``, ``image_policy: drop_oldest``): the whole
history is resent on every call, and servers such as vLLM limit images per prompt. When a
request holds more than K image parts, the newest K are kept and every older one is
replaced, in place, by a text part::

    [image omitted: <swevis_label>, shown earlier]      (when the image part has a label)
    [image omitted: image 3 of this conversation, shown earlier]   (otherwise)

"Newest" is message order, then part order within a message. The replacement depends only
on the messages, so the same history always gives the same request (and cache key).
K = 0 drops every image; K = None (the default) keeps all. With ``image_policy: reject`` a
request over the cap raises instead.
"""

from __future__ import annotations

import base64
import copy
from typing import Any

# Keys of a chat message the OpenAI API accepts. Anything else (mini-swe-agent's "extra",
# our own bookkeeping) stays in the trajectory and is not sent.
API_MESSAGE_KEYS = ("role", "content", "name", "tool_calls", "tool_call_id")
LABEL_KEY = "swevis_label"


def is_image_part(part: Any) -> bool:
    return isinstance(part, dict) and part.get("type") == "image_url"


def _clean_part(part: Any) -> Any:
    if isinstance(part, dict):
        return {k: v for k, v in part.items() if not str(k).startswith("swevis_")}
    return part


def prepare_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A deep copy with only API keys per message; image labels kept for the cap (removed later)."""
    out = []
    for i, msg in enumerate(messages):
        if not isinstance(msg, dict) or "role" not in msg:
            raise ValueError(f"message {i} is not a chat message with a 'role'")
        clean = {k: copy.deepcopy(msg[k]) for k in API_MESSAGE_KEYS if k in msg}
        if clean.get("content") is None and "tool_calls" not in clean:
            clean["content"] = ""
        out.append(clean)
    return out


def count_images(messages: list[dict[str, Any]]) -> int:
    return sum(
        1 for msg in messages if isinstance(msg.get("content"), list) for part in msg["content"] if is_image_part(part)
    )


def placeholder_text(part: dict[str, Any], ordinal: int) -> str:
    label = part.get(LABEL_KEY)
    what = str(label) if label else f"image {ordinal} of this conversation"
    return f"[image omitted: {what}, shown earlier]"


def apply_image_cap(messages: list[dict[str, Any]], cap: int | None) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Keep the newest ``cap`` image parts, replace older ones by placeholders; strip labels.

    Returns the new messages and ``{"sent": n, "omitted": m}``. The input is not modified.
    """
    total = count_images(messages)
    omit = 0 if cap is None else max(0, total - cap)
    ordinal = 0
    out = []
    for msg in messages:
        content = msg.get("content")
        if not isinstance(content, list):
            out.append(msg)
            continue
        parts = []
        for part in content:
            if is_image_part(part):
                ordinal += 1
                if ordinal <= omit:
                    parts.append({"type": "text", "text": placeholder_text(part, ordinal)})
                    continue
            parts.append(_clean_part(part))
        out.append({**msg, "content": parts})
    return out, {"sent": total - omit, "omitted": omit}


def content_text(content: Any, part_types: tuple[str, ...] | None = ("text", "output_text")) -> str:
    """The text of a message content (string, list of parts, or None). `part_types` are the
    parts whose text counts (an API response's text parts); None takes every part's text and
    bare strings in the list, as recorded trajectories of other tools hold them."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_part_text(p, part_types) for p in content)
    return str(content)


def _part_text(part: Any, part_types: tuple[str, ...] | None) -> str:
    if not isinstance(part, dict):
        return "" if part_types is not None else str(part)
    if part_types is not None and part.get("type") not in part_types:
        return ""
    return part.get("text", "")


def image_part(png: bytes, label: str | None = None) -> dict[str, Any]:
    """An image content part carrying ``png`` as a base64 data URL (label: for the image cap)."""
    if not png.startswith(b"\x89PNG\r\n\x1a\n"):
        raise ValueError("image_part expects PNG bytes")
    part: dict[str, Any] = {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode("ascii")},
    }
    if label:
        part[LABEL_KEY] = label
    return part
