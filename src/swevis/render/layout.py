"""Analytic layout search: choose font size, wrap width, columns and pages for a budget.

Everything here is arithmetic on font metrics (advance width from PIL's `getlength` of
DejaVu Sans Mono, line height 1.2 x font size), so the search never rasterizes; only the
chosen layout is drawn (raster.py).

A layout theta = (font f, wrap width w in characters, columns c, page-height cap). Source
lines longer than w wrap onto continuation rows at token boundaries (wrap.py; the gutter of
a continuation row carries a mark, not a number); a line is never split across columns or
pages. Pages are sized on the family's grid (its `swevis.tokens.ImageFamily` record)
so the provider's processor keeps them as they are, and the last page is trimmed to its
content. The objective is appendix B's, made explicit:

    L(theta) = w_tok |T_img/B - 1| + w_fill (1 - phi) + w_page (p - 1) + w_font ln(f_max / f_eff)

with B = T_text / r, phi = occupied character cells / available cells, p = pages and
f_eff = the font size as the model sees it. Layouts whose f_eff is below the readability
guard are not admissible. Among admissible layouts whose T_img lies in the band
[B/(1+tol), B] (render.budget_is_cap; else [B/(1+tol), B/(1-tol)]) the objective decides;
if none lies in the band, the admissible layout closest to the budget from below is taken
when the budget can be undercut, else the cheapest admissible layout (the guard or the family's token floor binds; both are flagged).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from swevis.render.fonts import DEFAULT_FONT, font_advance
from swevis.render.settings import RenderSettings
from swevis.render.wrap import row_counts, segments
from swevis.tokens import image_family


@dataclass
class Layout:
    font_px: float
    advance: float
    line_px: float
    wrap: int
    gutter: int  # characters: line-number digits + 1 separator
    columns: int
    margin: int
    page_sizes: list[tuple[int, int]]
    # per page, per column: (first line index, end line index) into the window's lines
    page_columns: list[list[tuple[int, int]]]
    tokens: int
    fill: float
    font_eff: float
    breaks: list[tuple[int, ...]]  # per line, the columns a continuation row may start at
    page_cap: int | None = None
    loss: float = 0.0
    in_band: bool = False
    extra: dict = field(default_factory=dict)
    font: str = DEFAULT_FONT  # render.font: the primary font's name or file
    # per display line, the number its gutter shows (None: a separator row, no number);
    # None: the window's lines numbered from its start line
    numbers: list[int | None] | None = None
    top: int | None = None  # px above the first row (None: the margin)
    row_grid: int = 0  # rows on a grid of this many px (render.rows_on_patch_grid), 0: off
    # how the glyphs are drawn (render.font_mode, stroke_px, highlight; raster.py)
    font_mode: str = "antialias"
    stroke_px: float = 0.0
    highlight: bool = True

    def row_y(self, row: int) -> float:
        """The top of rendered row `row` of a column: on the grid, whole pixels, so that rows
        that share a grid cell never reach into the next one."""
        top = self.margin if self.top is None else self.top
        if self.row_grid:
            return top + math.floor(row * self.line_px + 1e-6)
        return top + row * self.line_px

    def number(self, start_line: int, i: int) -> int | None:
        """The gutter number of display line i."""
        return start_line + i if self.numbers is None else self.numbers[i]

    @property
    def pages(self) -> int:
        return len(self.page_sizes)

    def line_rows(self, i: int, line: str) -> list[tuple[int, int]]:
        """The rendered rows of line `i` of the window as (start, end) columns."""
        return segments(len(line), self.breaks[i], self.wrap)


class _Window:
    """Per-window quantities shared by every candidate."""

    def __init__(self, lengths: list[int], breaks: list[tuple[int, ...]], last_number: int, settings: RenderSettings):
        self.lengths = np.asarray(lengths, dtype=np.int64)
        self.breaks = breaks
        self.n = len(lengths)
        self.gutter = len(str(last_number)) + 1
        self.maxlen = int(max(1, self.lengths.max(initial=1)))
        self.settings = settings
        self._rows: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._pack: dict[tuple[int, int, int, int], list[tuple[int, int]] | None] = {}
        self._balanced: dict[tuple[int, int, int, int], tuple[int, list[tuple[int, int]]]] = {}

    def wraps(self) -> list[int]:
        s = self.settings
        ws = {w for w in s.wrap_widths if w < self.maxlen and w <= s.max_wrap}
        ws.add(min(self.maxlen, s.max_wrap))
        return sorted(ws)

    def rows(self, wrap: int) -> tuple[np.ndarray, np.ndarray]:
        if wrap not in self._rows:
            r = np.asarray(row_counts(self.lengths.tolist(), self.breaks, wrap), dtype=np.int64)
            self._rows[wrap] = (r, np.concatenate([[0], np.cumsum(r)]))
        return self._rows[wrap]

    def pack(self, wrap: int, a: int, b: int, cap: int) -> list[tuple[int, int]] | None:
        """Greedy columns of lines a..b with at most `cap` rows each (None if a line is taller)."""
        key = (wrap, a, b, cap)
        if key in self._pack:
            return self._pack[key]
        rows, cum = self.rows(wrap)
        if cap < int(rows[a:b].max(initial=1)):
            self._pack[key] = None
            return None
        cols = []
        i = a
        while i < b:
            j = int(np.searchsorted(cum, cum[i] + cap, side="right")) - 1
            j = min(max(j, i + 1), b)
            cols.append((i, j))
            i = j
        self._pack[key] = cols
        return cols

    def balanced(self, wrap: int, a: int, b: int, ncols: int) -> tuple[int, list[tuple[int, int]]]:
        """Smallest row capacity that packs lines a..b into <= ncols columns, and the packing."""
        key = (wrap, a, b, ncols)
        if key not in self._balanced:
            self._balanced[key] = self._balance(wrap, a, b, ncols)
        return self._balanced[key]

    def _balance(self, wrap: int, a: int, b: int, ncols: int) -> tuple[int, list[tuple[int, int]]]:
        rows, cum = self.rows(wrap)
        total = int(cum[b] - cum[a])
        lo = max(int(rows[a:b].max(initial=1)), -(-total // ncols))
        hi = total
        best = self.pack(wrap, a, b, hi)
        while lo < hi:
            mid = (lo + hi) // 2
            cols = self.pack(wrap, a, b, mid)
            if cols is not None and len(cols) <= ncols:
                hi, best = mid, cols
            else:
                lo = mid + 1
        if hi != total or best is None:
            best = self.pack(wrap, a, b, hi)
        return hi, best


def _grid_ceil(x: float, step: int) -> int:
    return int(math.ceil(x / step - 1e-9)) * step


class LayoutSearch:
    """The discrete search for one window under one image family.

    lengths: characters per display line; breaks: per line, the columns a continuation row
    may start at (swevis.render.wrap.break_points).
    """

    def __init__(
        self, lengths: list[int], breaks: list[tuple[int, ...]], start_line: int, family: str, settings: RenderSettings,
        numbers: list[int | None] | None = None,
    ):
        self.numbers = numbers
        last = max((n for n in numbers if n is not None), default=1) if numbers else start_line + len(lengths) - 1
        self.w = _Window(lengths, breaks, last, settings)
        self.s = settings
        self.family = image_family(family)
        self.grid = self.family.page_grid()
        self.f_max = max(settings.font_sizes)
        self.evaluated = 0

    # ---- geometry ----------------------------------------------------------------------
    def pitch(self, f: float) -> float:
        """Line pitch in px: line_height x f, or on the merged-patch grid a whole number of
        rows per grid cell (the nearest to line_height x f)."""
        lh = self.s.line_height * f
        if not self.s.rows_on_patch_grid:
            return lh
        g = self.grid.step_h
        return g / max(1, round(g / lh))

    def top(self, margin: int) -> int:
        """Space above the first row: the margin, rounded up to the grid when rows sit on it."""
        return _grid_ceil(margin, self.grid.step_h) if self.s.rows_on_patch_grid else margin

    def page_width(self, f: float, wrap: int, ncols: int) -> tuple[int, int]:
        adv = font_advance(f, self.s.font)
        text_w = ncols * (self.w.gutter + wrap) * adv + (ncols - 1) * self.s.column_gap_chars * adv
        width = max(self.grid.min_w, _grid_ceil(text_w / (1 - 2 * self.s.margin_frac) + 1, self.grid.step_w))
        margin = int(self.s.margin_frac * width)
        return width, margin

    def filled_wrap(self, f: float, wrap: int, ncols: int) -> int:
        """The widest wrap whose page is as wide as `wrap`'s (render.wrap_fills_page): the page
        width is rounded up to the patch grid anyway, so the rounding's columns hold text
        instead of blank (never wider than the longest line or max_wrap)."""
        if not self.s.wrap_fills_page:
            return wrap
        width, _ = self.page_width(f, wrap, ncols)
        adv = font_advance(f, self.s.font)
        room = (width - 1) * (1 - 2 * self.s.margin_frac) / adv - (ncols - 1) * self.s.column_gap_chars
        w = max(wrap, min(int(room / ncols + 1e-9) - self.w.gutter, self.s.max_wrap, max(wrap, self.w.maxlen)))
        while w > wrap and self.page_width(f, w, ncols)[0] != width:  # float edge of the formula
            w -= 1
        return w

    def page_height(self, f: float, rows: int, width: int, margin: int) -> int:
        lh = self.pitch(f)
        h = max(self.grid.min_h, _grid_ceil(rows * lh + self.top(margin) + margin + 0.25 * f, self.grid.step_h))
        if width * h < self.grid.min_pixels:
            h = _grid_ceil(self.grid.min_pixels / width, self.grid.step_h)
        return h

    def fits(self, width: int, height: int) -> bool:
        g = self.grid
        return (
            width <= g.max_w
            and height <= min(g.max_h, self.s.max_page_height)
            and width * height <= g.max_pixels
            and max(width, height) / min(width, height) <= 200
        )

    def _finish(self, f, wrap, ncols, width, margin, pages, cap) -> Layout | None:
        """pages: list of (columns [(a,b)...], rows capacity used) -> Layout with exact tokens."""
        self.evaluated += 1
        sizes, cols_out = [], []
        tokens = 0
        scale = 1.0
        avail = 0
        rows_arr, cum = self.w.rows(wrap)
        for cols, k in pages:
            n_c = len(cols)
            pw = width if n_c == ncols else self.page_width(f, wrap, n_c)[0]
            ph = self.page_height(f, k, pw, margin)
            if not self.fits(pw, ph):
                return None
            sizes.append((pw, ph))
            cols_out.append(cols)
            t, (qw, qh) = self.family.tokens_and_size(pw, ph)
            tokens += t
            scale = min(scale, qw / pw, qh / ph)
            avail += n_c * k * (self.w.gutter + wrap)
        if len(sizes) > self.s.max_pages:
            return None
        used = int(self.w.lengths.sum()) + self.w.gutter * int(cum[-1])
        fill = min(1.0, used / avail) if avail else 0.0
        return Layout(
            font_px=f,
            advance=font_advance(f, self.s.font),
            font=self.s.font,
            line_px=self.pitch(f),
            top=self.top(margin),
            row_grid=self.grid.step_h if self.s.rows_on_patch_grid else 0,
            font_mode=self.s.font_mode,
            stroke_px=self.s.stroke_px,
            highlight=self.s.highlight,
            wrap=wrap,
            gutter=self.w.gutter,
            columns=ncols,
            margin=margin,
            page_sizes=sizes,
            page_columns=cols_out,
            tokens=tokens,
            fill=fill,
            font_eff=f * scale,
            breaks=self.w.breaks,
            page_cap=cap,
            numbers=self.numbers,
        )

    def single_page(self, f: float, wrap: int, ncols: int) -> Layout | None:
        if ncols > self.w.n:
            return None
        wrap = self.filled_wrap(f, wrap, ncols)
        k, cols = self.w.balanced(wrap, 0, self.w.n, ncols)
        width, margin = self.page_width(f, wrap, len(cols))
        return self._finish(f, wrap, len(cols), width, margin, [(cols, k)], None)

    def multi_page(self, f: float, wrap: int, ncols: int, cap_px: int) -> Layout | None:
        wrap = self.filled_wrap(f, wrap, ncols)
        width, margin = self.page_width(f, wrap, ncols)
        lh = self.pitch(f)
        cap_rows = int((cap_px - self.top(margin) - margin - 0.25 * f) // lh)
        if cap_rows < 1:
            return None
        cols = self.w.pack(wrap, 0, self.w.n, cap_rows)
        if cols is None or len(cols) <= ncols:
            return None
        pages = []
        full = (len(cols) - 1) // ncols  # pages before the last
        for p in range(full):
            group = cols[p * ncols : (p + 1) * ncols]
            pages.append((group, cap_rows))
        a = cols[full * ncols][0]
        rest = len(cols) - full * ncols
        k, last = self.w.balanced(wrap, a, self.w.n, rest)
        pages.append((last, k))
        if len(pages) > self.s.max_pages:
            return None
        return self._finish(f, wrap, ncols, width, margin, pages, cap_px)

    # ---- the search --------------------------------------------------------------------
    def estimates(self, fonts: np.ndarray, wraps: list[int], cols: list[int]) -> np.ndarray:
        """Analytic single-page token estimates, shape (fonts, wraps x cols): page area over
        pixels per token, floored at the family's smallest image. No packing, no rasterizing."""
        adv = np.array([font_advance(float(f), self.s.font) for f in fonts])
        lh = np.array([self.pitch(float(f)) for f in fonts])
        floor = self.family.image_tokens(self.grid.min_w, self.grid.min_h)
        out = []
        for wrap in wraps:
            rows = float(self.w.rows(wrap)[1][-1])
            for c in cols:
                text_w = c * (self.w.gutter + wrap) * adv + (c - 1) * self.s.column_gap_chars * adv
                width = np.ceil(text_w / (1 - 2 * self.s.margin_frac) / self.grid.step_w) * self.grid.step_w
                height = (rows / c) * lh + 2 * self.s.margin_frac * width
                out.append(np.maximum(width * height / self.family.px_per_token, floor))
        return np.stack(out, axis=1)

    def shortlist(self, budget: float, fonts: list[float], guard: float) -> list[float]:
        """Fonts worth an exact evaluation for this budget, from the analytic estimates."""
        s = self.s
        wraps = self.w.wraps()
        cols = [c for c in s.columns if c <= self.w.n] or [1]
        f_arr = np.array(fonts, dtype=float)
        est = self.estimates(f_arr, wraps, cols).min(axis=1)
        lo, hi = budget / (1 + s.ratio_tolerance), budget / (1 - s.ratio_tolerance)
        keep = set(f_arr[(est >= lo * 0.75) & (est <= hi * 1.3)].tolist())
        below = f_arr[est < lo * 0.75]
        if below.size:
            keep.add(float(below.max()))  # the closest font from below
        adm = f_arr[f_arr >= guard - 1e-9]
        if adm.size:
            keep |= set(np.sort(adm)[:2].tolist())  # the cheapest admissible fonts
        keep.add(float(f_arr.min()))  # tells whether the guard binds
        return sorted(keep)

    def candidates(self, budget: float, fonts: list[float] | None = None, guard: float = 0.0) -> list[Layout]:
        s = self.s
        fonts = sorted(fonts if fonts is not None else s.font_sizes)
        fonts = self.shortlist(budget, fonts, guard)
        wraps = self.w.wraps()
        cols = [c for c in s.columns if c <= self.w.n] or [1]
        out: list[Layout] = []
        caps = [h for h in s.page_heights if h <= s.max_page_height]
        for f in fonts:
            for wrap in wraps:
                for c in cols:
                    lay = self.single_page(f, wrap, c)
                    if lay is not None:
                        out.append(lay)
                        continue
                    if f < guard - 1e-9 and out:
                        continue
                    # no single page holds this shape within the family's limits and
                    # max_page_height: paginate under each page-height cap (page counts)
                    for cap in caps:
                        lay = self.multi_page(f, wrap, c, cap)
                        if lay is not None:
                            out.append(lay)
        return out

    def choose(self, budget: float, fonts: list[float] | None = None, guard: float | None = None) -> tuple[Layout, dict]:
        s = self.s
        guard = s.guard_px() if guard is None else guard
        cands = self.candidates(budget, fonts, guard)
        if not cands:
            raise ValueError("no layout fits the page limits of this image family")
        lo, hi = budget / (1 + s.ratio_tolerance), budget if s.budget_is_cap else budget / (1 - s.ratio_tolerance)
        f_max = self.f_max
        for lay in cands:
            lay.in_band = lo <= lay.tokens <= hi
            lay.loss = (
                s.w_tok * abs(lay.tokens / budget - 1)
                + s.w_fill * (1 - lay.fill)
                + s.w_page * (lay.pages - 1)
                + s.w_font * math.log(f_max / max(lay.font_eff, 1e-6))
            )
        adm = [c for c in cands if c.font_eff >= guard - 1e-9]
        if not adm:
            raise ValueError(f"no layout keeps glyphs at or above the guard of {guard} px")
        min_all = min(c.tokens for c in cands)
        min_adm = min(c.tokens for c in adm)
        band = [c for c in adm if c.in_band]
        if band:
            best = min(band, key=lambda c: c.loss)
            mode = "band"
        else:
            under = [c for c in adm if c.tokens < lo]
            if under:  # budget can be undercut but not met: closest from below, then loss
                top = max(c.tokens for c in under)
                best = min((c for c in under if c.tokens == top), key=lambda c: c.loss)
                mode = "under"
            else:  # everything admissible costs more than the band: cheapest admissible
                best = min((c for c in adm if c.tokens == min_adm), key=lambda c: c.loss)
                mode = "over"
        guard_bound = mode == "over" and min_all < min_adm
        floor_bound = mode == "over" and not guard_bound
        info = {
            "mode": mode,
            "guard_bound": guard_bound,
            "floor_bound": floor_bound,
            "candidates": len(cands),
            "min_tokens_any": min_all,
            "min_tokens_admissible": min_adm,
        }
        return best, info
