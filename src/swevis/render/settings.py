"""Renderer settings: the discrete search space, the objective weights and the readability guard.

Defaults are the shipped `single_read.render` section of config.yaml; `RenderSettings.from_config`
takes that mapping (unknown keys are an error, so a typo does not pass silently).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields

from swevis.errors import SwevisError
from swevis.render.fonts import primary_font
from swevis.render.guards import DRAWING_KEYS, measured_guard


FONT_MODES = ("antialias", "bilevel", "supersample", "supersample-bicubic")


def _fonts() -> tuple[float, ...]:
    # quarter pixels where the guards lie (a quarter pixel is ~8% of a character's area at 6
    # px), half pixels above: 5.0, 5.25, ..., 7.0, 7.5, ..., 20.0 px
    return tuple(x / 4 for x in range(20, 28)) + tuple(x / 2 for x in range(14, 41))


@dataclass(frozen=True)
class RenderSettings:
    # search space
    font_sizes: tuple[float, ...] = field(default_factory=_fonts)
    wrap_widths: tuple[int, ...] = (40, 48, 56, 64, 72, 80, 96, 120)
    max_wrap: int = 160  # longest rendered row in characters; longer lines always wrap
    # each wrap width is widened to fill the page width the patch grid rounds it up to
    # (False: the wrap widths as listed, the layout of appendix B)
    wrap_fills_page: bool = True
    columns: tuple[int, ...] = (1, 2, 3)
    page_heights: tuple[int, ...] = (768, 1024, 1536, 2048, 3072, 4096)  # caps that paginate
    max_page_height: int = 4096  # taller single pages are paginated
    max_pages: int = 64
    # fixed rendering settings (appendix B)
    line_height: float = 1.2
    margin_frac: float = 0.01  # of the page width, every side
    tab_size: int = 4
    column_gap_chars: float = 2.0
    # readability guard: minimum glyph size (font px as the model sees the page); None: the
    # guard measured for this font and way of drawing (swevis/data/legibility_guards.json)
    min_font_px: float | None = None
    # objective of appendix B: w_tok |T/B - 1| + w_fill (1 - phi) + w_page (p - 1) + w_font ln(f_max/f)
    ratio_tolerance: float = 0.12  # band of T around B the objective must stay inside if it can
    # the band's top is the budget itself: [B/(1+tol), B] (a window's pages cost at most the
    # budget when a layout can); False: [B/(1+tol), B/(1-tol)], the band straddles it
    budget_is_cap: bool = True
    w_tok: float = 1.0
    w_fill: float = 0.25
    w_page: float = 0.02
    w_font: float = 2.0
    # appearance
    style: str = "swevis-contrast"
    font: str = "DejaVu Sans Mono"  # or the path of a monospace font file (the guard is measured per font)
    # how glyphs are drawn (benchmarks/bench_legibility.py measures each choice):
    # "antialias" (FreeType's hinted greyscale), "bilevel" (hinted, one bit a pixel),
    # "supersample" (drawn at 4x and reduced with a box filter: greyscale without the
    # hinting's snapping to the send-size pixel grid) or "supersample-bicubic" (drawn at 4x,
    # reduced with bicubic resampling: sharper). On 16 windows, 2026-12-02, DejaVu Sans Mono
    # reads a median .935 at 5.75 px bicubic, where the box filter reads .918 (.936 at 6 px)
    font_mode: str = "supersample-bicubic"
    stroke_px: float = 0.0  # extra stroke around each glyph (bolder strokes), px at send size
    highlight: bool = True  # Pygments colours; False draws all code in one dark colour
    # rows sit on the family's merged-patch grid (32 px for Qwen3/3.5): a whole number of
    # rows per grid cell, so no text row straddles a merged patch
    rows_on_patch_grid: bool = False

    @classmethod
    def from_config(cls, mapping: dict | None) -> "RenderSettings":
        mapping = dict(mapping or {})
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(mapping) - known)
        if unknown:
            raise SwevisError(f"unknown renderer setting(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
        for key in ("font_sizes", "wrap_widths", "columns", "page_heights"):
            if key in mapping:
                mapping[key] = tuple(mapping[key])
        s = cls(**mapping)
        s.validate()
        return s

    def validate(self) -> None:
        if not self.font_sizes or min(self.font_sizes) <= 0:
            raise SwevisError("render.font_sizes must be a non-empty list of positive sizes")
        if not self.columns or min(self.columns) < 1:
            raise SwevisError("render.columns must be a non-empty list of integers >= 1")
        if self.max_wrap < 8:
            raise SwevisError("render.max_wrap must be at least 8 characters")
        if not 0 <= self.margin_frac < 0.25:
            raise SwevisError("render.margin_frac must be in [0, 0.25)")
        if self.font_mode not in FONT_MODES:
            raise SwevisError(f"render.font_mode must be one of {', '.join(FONT_MODES)}, got {self.font_mode!r}")
        if self.stroke_px < 0:
            raise SwevisError("render.stroke_px must be >= 0")
        primary_font(self.font)  # a font file that is not there fails here, naming the key

    def guard_px(self) -> float:
        """The readability guard: render.min_font_px when set, else the measured one."""
        if self.min_font_px is not None:
            return float(self.min_font_px)
        return measured_guard({k: getattr(self, k) for k in DRAWING_KEYS})

    def to_dict(self) -> dict:
        d = asdict(self)
        for k, v in d.items():
            if isinstance(v, tuple):
                d[k] = list(v)
        return d
