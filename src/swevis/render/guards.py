"""The readability guard per font: measured, not one constant.

`swevis/data/legibility_guards.json` is measured by benchmarks/bench_legibility.py
(`--write-guards` writes a copy outside the package, reviewed and then copied here:
docs/single-read.md, "The guard table"): for each measured way of drawing (font, font_mode,
line_height, stroke_px, highlight, rows_on_patch_grid), the smallest font size whose median whole-page
OCR accuracy (rapidocr, swevis.render.ocr's protocol) reached the table's threshold. The
renderer takes its guard from here unless `render.min_font_px` sets one; a way of drawing
the table has not measured is an error that says how to measure it, never a guess.
"""

from __future__ import annotations

import functools
import json
from importlib.resources import files
from pathlib import Path

from swevis.config import DRAWING_KEYS
from swevis.errors import SwevisError
from swevis.render.fonts import DEFAULT_FONT

GUARD_TABLE = "legibility_guards.json"


def font_key(font: str) -> str:
    """A font as the table names it: DejaVu Sans Mono by name, another font by its file name."""
    return DEFAULT_FONT if font in ("", DEFAULT_FONT) else Path(font).name


def drawing_key(settings: dict) -> tuple:
    """The table key of a way of drawing (a mapping with DRAWING_KEYS)."""
    return (font_key(settings["font"]), settings["font_mode"], round(float(settings["line_height"]), 4),
            round(float(settings["stroke_px"]), 4), bool(settings["highlight"]), bool(settings["rows_on_patch_grid"]))


@functools.lru_cache(maxsize=1)
def guard_table() -> dict:
    """The shipped table: {"threshold": .., "rows": [{DRAWING_KEYS..., "min_font_px": ..}, ...], ...}."""
    return json.loads(files("swevis").joinpath("data", GUARD_TABLE).read_text())


def measured_guard(settings: dict) -> float:
    """The measured guard (px as the model sees the page) of this way of drawing."""
    table = guard_table()
    want = drawing_key(settings)
    for row in table["rows"]:
        if drawing_key(row) == want:
            if row.get("min_font_px") is None:
                shown = _shown(want)
                raise SwevisError(
                    f"render.min_font_px: {shown} was measured ({GUARD_TABLE}: {row.get('measured')}) and no "
                    f"size reached a median OCR of {table['threshold']}; set render.min_font_px or draw otherwise"
                )
            return float(row["min_font_px"])
    shown = _shown(want)
    raise SwevisError(
        f"render.min_font_px: no measured readability guard for {shown} in {GUARD_TABLE} "
        f"(median OCR >= {table['threshold']}); measure it with benchmarks/bench_legibility.py "
        f"or set render.min_font_px"
    )


def smallest_clearing(medians: dict[float, float | None], threshold: float) -> float | None:
    """The guard a measurement justifies: the smallest size from which every larger measured
    size's median is >= threshold (a size without a median says nothing), or None. The guard
    table, the frontier and the benchmarks all decide a guard by this one rule."""
    guard = None
    for size in sorted((s for s, m in medians.items() if m is not None), reverse=True):
        if medians[size] < threshold:
            break
        guard = size
    return guard


def _shown(key: tuple) -> str:
    """A way of drawing as an error message names it (built only for an error: every render
    asks for its guard)."""
    return ", ".join(f"{k}={v!r}" for k, v in zip(DRAWING_KEYS, key))
