"""The fonts of the renderer and their metrics: DejaVu Sans Mono (shipped in matplotlib's
mpl-data) for every character it has, then fallback fonts from PyPI packages for the rest:
Noto Sans CJK (noto-cjk-sans-jp-regular: Han, kana, Hangul) and Noto Emoji and Noto Sans
Symbols (manimgx-fonts). Coverage is read from each font's cmap (fontTools), so a character
no font has is known before anything is drawn: such a window is not rendered (the caller
keeps it as text and says why) rather than drawn with an empty box.

A cell is one character of the monospace grid; an East Asian wide or fullwidth character
takes two cells (as a terminal shows it), held in the display line by CELL_FILLER after it.
"""

from __future__ import annotations

import functools
import importlib.util
import unicodedata
from pathlib import Path

from PIL import ImageFont

from swevis.errors import SwevisError
from swevis.render.shown import invisible

FONT_FILE = "DejaVuSansMono.ttf"
DEFAULT_FONT = "DejaVu Sans Mono"  # render.font: this name, or the path of a monospace font file
# (package, file) of each fallback font, in the order they are tried
FALLBACK_FONTS = (
    ("noto_cjk_sans_jp_regular", "NotoSansCJKjp-Regular.otf"),
    ("manimgx_fonts", "NotoEmoji[wght].ttf"),
    ("manimgx_fonts", "NotoSansSymbols[wght].ttf"),
)
# the second cell of a wide character: a Unicode noncharacter, which no text carries and no
# font draws (a window that holds one anyway is refused as a missing glyph)
CELL_FILLER = "\ufdd0"


@functools.lru_cache(maxsize=1)
def font_path() -> str:
    spec = importlib.util.find_spec("matplotlib")
    if spec is None or not spec.submodule_search_locations:
        raise SwevisError("the renderer needs matplotlib installed (it ships DejaVu Sans Mono)")
    path = Path(list(spec.submodule_search_locations)[0]) / "mpl-data" / "fonts" / "ttf" / FONT_FILE
    if not path.is_file():
        raise SwevisError(f"font file not found: {path}")
    return str(path)


def primary_font(name: str = DEFAULT_FONT) -> str:
    """The file of the primary font: DejaVu Sans Mono by its name, another font by its path."""
    if name in ("", DEFAULT_FONT):
        return font_path()
    if not Path(name).is_file():
        raise SwevisError(f"render.font: no font file {name!r} (give {DEFAULT_FONT!r} or the path of a font file)")
    return name


@functools.lru_cache(maxsize=8)
def font_chain(primary: str = DEFAULT_FONT) -> tuple[str, ...]:
    """The font files in the order a character is looked up: the primary font (DejaVu Sans
    Mono unless render.font names another), then each fallback font whose package is installed."""
    paths = [primary_font(primary)]
    for package, name in FALLBACK_FONTS:
        spec = importlib.util.find_spec(package)
        if spec is not None and spec.submodule_search_locations:
            path = Path(list(spec.submodule_search_locations)[0]) / name
            if path.is_file():
                paths.append(str(path))
    return tuple(paths)


@functools.lru_cache(maxsize=8)
def _codepoints(path: str) -> frozenset[int]:
    # fontTools (a matplotlib dependency) reads the cmap without rasterizing anything
    from fontTools.ttLib import TTFont

    return frozenset(TTFont(path, lazy=True).getBestCmap())


@functools.lru_cache(maxsize=8192)
def font_index(ch: str, primary: str = DEFAULT_FONT) -> int | None:
    """The first font of `font_chain(primary)` that has a glyph for `ch`, or None."""
    for i, path in enumerate(font_chain(primary)):
        if ord(ch) in _codepoints(path):
            return i
    return None


def cells(ch: str) -> int:
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def missing_glyphs(text: str, primary: str = DEFAULT_FONT) -> list[str]:
    """The characters of `text` that no font of the chain draws (whitespace and invisible
    characters aside), each once, in order."""
    out: dict[str, None] = {}
    for ch in text:
        if ord(ch) > 0x7E and not ch.isspace() and not invisible(ch) and (
            ch == CELL_FILLER or font_index(ch, primary) is None
        ):
            out[ch] = None
    return list(out)


@functools.lru_cache(maxsize=256)
def font(size: float, index: int = 0, primary: str = DEFAULT_FONT):
    return ImageFont.truetype(font_chain(primary)[index], size)


@functools.lru_cache(maxsize=256)
def font_advance(size: float, primary: str = DEFAULT_FONT) -> float:
    """Advance width of one character (monospace) in px, from PIL's own layout."""
    return font(size, 0, primary).getlength("M" * 64) / 64.0
