"""Rasterize a chosen layout: Pygments highlighting, the configured font (DejaVu Sans Mono by default)
with fallbacks, repository line numbers,
wrapped rows at token boundaries with a continuation mark in the gutter."""

from __future__ import annotations

import functools

from PIL import Image, ImageDraw

from swevis.render.fonts import CELL_FILLER, cells, font, font_index
from swevis.render.layout import Layout
from swevis.render.wrap import CONTINUATION_MARK, lexer_for

BACKGROUND = (255, 255, 255)
GUTTER = (96, 96, 96)
DEFAULT = (16, 16, 16)

# High-contrast palette: every colour is dark enough to stay legible at 6-8 px glyphs.
_PALETTE = [
    ("Comment", (90, 90, 90)),
    ("Keyword", (0, 0, 170)),
    ("Name.Builtin", (110, 0, 130)),
    ("Name.Function", (0, 70, 120)),
    ("Name.Class", (0, 70, 120)),
    ("Name.Decorator", (120, 60, 0)),
    ("Name.Exception", (150, 0, 0)),
    ("Literal.String", (0, 100, 0)),
    ("Literal.Number", (150, 0, 0)),
    ("Operator.Word", (0, 0, 170)),
]


@functools.lru_cache(maxsize=512)
def _colour(ttype) -> tuple[int, int, int]:
    name = str(ttype).removeprefix("Token.")
    best, best_len = DEFAULT, -1
    for prefix, colour in _PALETTE:
        if (name == prefix or name.startswith(prefix + ".")) and len(prefix) > best_len:
            best, best_len = colour, len(prefix)
    return best


def highlight(lines: list[str], path: str) -> list[list[tuple[int, str, tuple[int, int, int]]]]:
    """Per line: (column, text, colour) runs; the lexer is inferred from the filename."""
    lexer = lexer_for(path)
    text = "\n".join(lines)
    out: list[list[tuple[int, str, tuple[int, int, int]]]] = [[] for _ in lines]
    li, col = 0, 0
    for ttype, value in lexer.get_tokens(text):
        colour = _colour(ttype)
        parts = value.split("\n")
        for k, part in enumerate(parts):
            if k:
                li, col = li + 1, 0
            if part and li < len(out):
                runs = out[li]
                if runs and runs[-1][2] == colour and runs[-1][0] + len(runs[-1][1]) == col:
                    runs[-1] = (runs[-1][0], runs[-1][1] + part, colour)
                else:
                    runs.append((col, part, colour))
                col += len(part)
    # a lexer may drop or alter characters; the rendered text must be the source exactly
    for i, line in enumerate(lines):
        if "".join(t for _, t, _ in out[i]) != line:
            out[i] = [(0, line, DEFAULT)] if line else []
    return out


# "supersample" draws at this many times the send size, then reduces with a box filter,
# "supersample-bicubic" with Pillow's bicubic resampling (sharper: at 5.75 px it reads .935
# where the box filter reads .918, bench_legibility on 16 windows); a page is drawn in bands of
# BAND_PX rows (send size) at a time, so the 16-times larger canvas never holds a whole page
# (a 1312 x 4096 page would take 260 MB of RGB at once)
SUPERSAMPLE = 4
BAND_PX = 256
HALO_PX = 4  # > the bicubic kernel's reach at 4x (2 send px)
SUPERSAMPLED = {"supersample": None, "supersample-bicubic": Image.Resampling.BICUBIC}


def rasterize(lines: list[str], start_line: int, path: str, layout: Layout, band_px: int = BAND_PX) -> list[Image.Image]:
    """The pages of a layout, drawn as render.font_mode, stroke_px and highlight say."""
    runs = highlight(lines, path) if layout.highlight else [[(0, line, DEFAULT)] if line else [] for line in lines]
    scale = SUPERSAMPLE if layout.font_mode in SUPERSAMPLED else 1
    # a resampling filter reads its neighbours: each band is drawn with HALO_PX more rows on
    # both sides (within the page), reduced, and cut back, so bands equal one whole canvas
    halo = HALO_PX if SUPERSAMPLED.get(layout.font_mode) is not None else 0
    pages = []
    for (pw, ph), cols in zip(layout.page_sizes, layout.page_columns):
        page = Image.new("RGB", (pw, ph), BACKGROUND)
        step = band_px if scale > 1 else ph  # drawn at send size: one band, the page
        for top in range(0, ph, step):
            band = (max(0, top - halo), min(top + step + halo, ph))
            img = Image.new("RGB", (pw * scale, (band[1] - band[0]) * scale), BACKGROUND)
            draw = ImageDraw.Draw(img)
            if layout.font_mode == "bilevel":
                draw.fontmode = "1"
            for ci, ab in enumerate(cols):
                _draw_column(draw, lines, runs, start_line, layout, ci, ab, scale, band)
            small = _reduce(img, scale, layout.font_mode)
            page.paste(small.crop((0, top - band[0], pw, min(top + step, ph) - band[0])), (0, top))
        pages.append(page)
    return pages


def _reduce(img: Image.Image, scale: int, font_mode: str) -> Image.Image:
    """A band drawn at `scale` x the send size, at the send size."""
    if scale == 1:
        return img
    resample = SUPERSAMPLED[font_mode]
    if resample is None:
        return img.reduce(scale)  # the box filter
    # one axis at a time, rows first: Pillow's one-call resize of a whole page and of its bands
    # differ by up to 15 levels at glyph edges (seen on a 2,432-row canvas), each pass alone is
    # the same on a band and on the page
    rows = img.resize((img.width // scale, img.height), resample)
    return rows.resize((rows.width, img.height // scale), resample)


def _draw_column(draw, lines, runs, start_line: int, layout: Layout, ci: int, ab: tuple[int, int], scale: int,
                 band: tuple[int, int]) -> None:
    """One text column: the gutter and the code of lines a..b that reach into the band of page
    rows `band` (send px), coordinates x `scale` from the band's top."""
    adv = layout.advance
    colw = (layout.gutter + layout.wrap) * adv + 2.0 * adv
    x0 = layout.margin + ci * colw
    xc = x0 + layout.gutter * adv
    fnt = font(layout.font_px * scale, 0, layout.font)
    stroke = layout.stroke_px * scale
    dy = band[0] * scale  # an integer: the band's pixels are the whole page's, exactly
    reach = 2 * layout.line_px + layout.stroke_px  # a glyph's ink may overhang its row
    row = 0
    for i in range(*ab):
        segs = layout.line_rows(i, lines[i])
        for r, (s, e) in enumerate(segs):
            y = layout.row_y(row + r)
            if not band[0] - reach < y < band[1] + reach:
                continue
            draw.text((x0 * scale, y * scale - dy), _gutter_text(layout, layout.number(start_line, i), r), font=fnt,
                      fill=GUTTER, stroke_width=stroke, stroke_fill=GUTTER)
            for col, text, colour in runs[i]:
                lo, hi = max(s, col), min(e, col + len(text))
                seg = text[lo - col : hi - col] if lo < hi else ""
                if seg.strip():
                    _draw_run(draw, xc + (lo - s) * adv, y, seg, layout, colour, scale, dy)
        row += len(segs)


def _draw_run(draw, x: float, y: float, text: str, layout: Layout, colour, scale: int = 1, dy: int = 0) -> None:
    """Draw one run of cells: the characters the primary font has in one call, any other in
    the first fallback font that has it, scaled down to fit its cells if it is wider
    (coordinates x `scale`, less `dy` rows)."""
    stroke = {"stroke_width": layout.stroke_px * scale, "stroke_fill": colour}
    size0 = layout.font_px * scale
    if text.isascii():
        draw.text((x * scale, y * scale - dy), text, font=font(size0, 0, layout.font), fill=colour, **stroke)
        return
    adv, plain = layout.advance * scale, ""
    x, y = x * scale, y * scale - dy
    for k, ch in enumerate(text + "\0"):
        index = 0 if ch == "\0" or ch == CELL_FILLER else font_index(ch, layout.font)
        if index == 0 and ch != "\0":
            plain += ch
            continue
        if plain.replace(CELL_FILLER, " ").strip():
            draw.text((x + (k - len(plain)) * adv, y), plain.replace(CELL_FILLER, " "),
                      font=font(size0, 0, layout.font), fill=colour, **stroke)
        plain = ""
        if ch == "\0":
            break
        size = size0
        width = font(size, index, layout.font).getlength(ch)
        if width > cells(ch) * adv:
            size = size * cells(ch) * adv / width
        draw.text((x + k * adv, y + (size0 - size) / 2), ch, font=font(size, index, layout.font), fill=colour, **stroke)


def _gutter_text(layout: Layout, number: int | None, row: int) -> str:
    """The gutter of a rendered row: the line number, the continuation mark on a wrapped row,
    nothing on a separator row between windows that share pages."""
    digits = layout.gutter - 1
    if number is None:
        return " " * digits
    return (str(number) if row == 0 else CONTINUATION_MARK).rjust(digits)


def visible_rows(lines: list[str], start_line: int, layout: Layout, page: int, column: int) -> list[str]:
    """The text of each rendered row of one column: gutter (number or continuation mark), a
    space, then the code of the row (a wide character once, without its filler cell); the
    gutter is `layout.gutter` characters wide."""
    a, b = layout.page_columns[page][column]
    rows = []
    for i in range(a, b):
        line = lines[i]
        for r, (s, e) in enumerate(layout.line_rows(i, line)):
            rows.append(_gutter_text(layout, layout.number(start_line, i), r) + " " + line[s:e].replace(CELL_FILLER, ""))
    return rows
