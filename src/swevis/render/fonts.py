"""The monospace font (DejaVu Sans Mono, shipped in matplotlib's mpl-data) and its metrics."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

from PIL import ImageFont

from swevis.errors import SwevisError

FONT_FILE = "DejaVuSansMono.ttf"


@functools.lru_cache(maxsize=1)
def font_path() -> str:
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise SwevisError("the renderer needs matplotlib installed (it ships DejaVu Sans Mono)")
    path = Path(list(spec.submodule_search_locations)[0]) / "mpl-data" / "fonts" / "ttf" / FONT_FILE
    if not path.is_file():
        raise SwevisError(f"font file not found: {path}")
    return str(path)


@functools.lru_cache(maxsize=256)
def font(size: float):
    return ImageFont.truetype(font_path(), size)


@functools.lru_cache(maxsize=256)
def font_advance(size: float) -> float:
    """Advance width of one character (monospace) in px, from PIL's own layout."""
    return font(size).getlength("M" * 64) / 64.0
