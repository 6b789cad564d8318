"""Prompt-token estimate of an OpenAI-format chat request (text + data-URL PNG images)."""

from __future__ import annotations

import base64
import binascii
import io
import struct

from PIL import Image

from swevis.errors import SwevisError
from swevis.tokens.image import image_tokens, message_overhead, reply_priming
from swevis.tokens.text import text_tokens

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class ImageSizeError(SwevisError):
    """An image content part whose size cannot be read."""


def png_size(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk, without decoding the image."""
    if len(data) < 24 or not data.startswith(PNG_SIGNATURE) or data[12:16] != b"IHDR":
        raise ImageSizeError("not a PNG (no PNG signature and IHDR chunk)")
    return struct.unpack(">II", data[16:24])


def data_url_size(url: str) -> tuple[int, int]:
    """Size of a base64 data-URL image; PNG is read from its header, other formats via PIL."""
    if not url.startswith("data:"):
        raise ImageSizeError(f"only data: URLs can be sized offline, got {url[:60]!r}")
    header, _, payload = url.partition(",")
    if ";base64" not in header:
        raise ImageSizeError(f"image data URL is not base64: {header[:60]!r}")
    try:
        head = base64.b64decode(payload[:64] + "=" * (-len(payload[:64]) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ImageSizeError(f"bad base64 in image data URL: {exc}") from exc
    if head.startswith(PNG_SIGNATURE):
        return png_size(head)
    try:
        with Image.open(io.BytesIO(base64.b64decode(payload))) as im:
            return im.size
    except Exception as exc:
        raise ImageSizeError(f"cannot read the image in a data URL ({header[:40]}): {exc}") from exc


def _part_tokens(part, tokenizer: str, image_family: str) -> int:
    if isinstance(part, str):
        return text_tokens(part, tokenizer)
    kind = part.get("type")
    if kind == "text":
        return text_tokens(part.get("text") or "", tokenizer)
    if kind == "image_url":
        ref = part.get("image_url")
        url = ref.get("url") if isinstance(ref, dict) else ref
        w, h = data_url_size(url or "")
        return image_tokens(w, h, image_family)
    raise ImageSizeError(f"unknown content part type {kind!r}")


def count_message_tokens(messages: list[dict], tokenizer: str, image_family: str) -> int:
    """Estimated prompt tokens of a chat request.

    Sum over messages of c0 (`message_overhead`) + content tokens (text by `tokenizer`,
    images by `image_tokens` of `image_family`, wrappers included) + tool-call names and
    arguments, plus the reply-priming tokens once. A live server's reported usage is the
    ground truth; this is the offline estimate.
    """
    c0 = message_overhead(image_family)
    total = reply_priming(image_family) if messages else 0
    for msg in messages:
        total += c0
        content = msg.get("content")
        if isinstance(content, str):
            total += text_tokens(content, tokenizer)
        elif isinstance(content, list):
            total += sum(_part_tokens(p, tokenizer, image_family) for p in content)
        elif content is not None:
            raise ImageSizeError(f"message content must be a string or a list, got {type(content).__name__}")
        for call in msg.get("tool_calls") or []:
            fn = call.get("function") or {}
            total += text_tokens(str(fn.get("name", "")), tokenizer)
            total += text_tokens(str(fn.get("arguments", "")), tokenizer)
    return total
