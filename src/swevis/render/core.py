"""render_window: a code window -> PNG pages + a layout record for the budget T_text / r."""

from __future__ import annotations

import functools
import hashlib
import io
import json
import struct
import time
import zlib
from dataclasses import dataclass, field
from pathlib import Path

from PIL import Image

from swevis import __version__
from swevis.errors import SwevisError
from swevis.fsutil import write_atomic
from swevis.render import raster
from swevis.render.fonts import CELL_FILLER, DEFAULT_FONT, cells, missing_glyphs
from swevis.render.layout import Layout, LayoutSearch
from swevis.render.settings import RenderSettings
from swevis.render.shown import shown_text
from swevis.render.wrap import break_points
from swevis.tokens import message_overhead, text_tokens, tokenizer_info


class RenderError(SwevisError):
    """A window that cannot be rendered: binary or undecodable, empty, bad ratio or range."""


class MissingGlyphs(RenderError):
    """A window with characters no font of the renderer draws: drawn, they would be empty
    boxes, so the window is not rendered (its observation stays text and says why)."""

    def __init__(self, path: str, chars: list[str]):
        shown = ", ".join(f"U+{ord(c):04X}" for c in chars[:8]) + (" ..." if len(chars) > 8 else "")
        super().__init__(f"{path}: no font draws {len(chars)} character(s) of the window ({shown})")
        self.chars = chars


@dataclass
class RenderResult:
    path: str
    start_line: int
    pages: list  # PIL images
    layout: dict
    image_tokens: int
    text_tokens: int
    timings: dict = field(default_factory=dict)
    plan: Layout | None = None
    # a digest of what the pages show (lines, gutter numbers, layout): the pages' identity
    # where they are not drawn (blank_png_bytes), so a prefix cache can tell two pages apart
    content_id: str = ""

    def png_bytes(self) -> list[bytes]:
        out = []
        for page in self.pages:
            buf = io.BytesIO()
            page.save(buf, format="PNG", optimize=False)
            out.append(buf.getvalue())
        return out

    def blank_png_bytes(self) -> list[bytes]:
        """Blank pages of the sizes the pages have (drawn or not): what token accounting
        needs, since an image's prompt tokens depend on its size alone. Each carries the
        render's content_id and its page number in a text chunk, so two blank pages are the
        same bytes only when the drawn ones would be (a prefix cache compares images by them)."""
        return [with_text_chunk(blank_png(int(w), int(h)), "swevis-page", f"{self.content_id}:{i}")
                for i, (w, h) in enumerate(self.layout["page_sizes"])]


def with_text_chunk(png: bytes, key: str, text: str) -> bytes:
    """`png` with a tEXt chunk `key`=`text` right after its IHDR chunk (the image and its size
    are unchanged; readers of the size find IHDR where they expect it)."""
    data = key.encode("latin-1") + b"\0" + text.encode("latin-1")
    chunk = struct.pack(">I", len(data)) + b"tEXt" + data + struct.pack(">I", zlib.crc32(b"tEXt" + data))
    end_of_ihdr = 8 + 4 + 4 + 13 + 4  # signature, length, type, IHDR data, CRC
    return png[:end_of_ihdr] + chunk + png[end_of_ihdr:]


def content_id(lines: list[str], numbers: list[int | None] | None, layout: dict) -> str:
    """A digest of what a render's pages show: its lines, gutter numbers and layout record."""
    shown = json.dumps({"lines": lines, "numbers": numbers, "layout": layout}, sort_keys=True, default=str)
    return hashlib.sha256(shown.encode()).hexdigest()[:32]


@functools.lru_cache(maxsize=256)
def blank_png(width: int, height: int) -> bytes:
    """A white bilevel PNG of this size (cached: the layout search reuses a few page sizes)."""
    buf = io.BytesIO()
    Image.new("1", (width, height), 1).save(buf, format="PNG")
    return buf.getvalue()


def prepare_lines(text: str, tab_size: int = 4) -> list[str]:
    """Window text -> display lines: the text a page shows (swevis.render.shown: escape
    sequences and control characters as a terminal shows them, invisible characters
    dropped), tabs expanded to tab stops of `tab_size`, a wide character followed by
    CELL_FILLER (its second cell). NUL is refused: a text holding it is binary."""
    if "\x00" in text:
        raise RenderError("window contains NUL bytes: binary content is not rendered")
    return _display_lines(shown_text(text), tab_size)


def _display_lines(shown: str, tab_size: int) -> list[str]:
    """prepare_lines of a text already as shown (renderable_text's)."""
    if shown.endswith("\n"):
        shown = shown[:-1]
    lines = []
    for line in shown.split("\n"):
        line = line.expandtabs(tab_size)
        if not line.isascii():
            line = "".join(ch + CELL_FILLER * (cells(ch) - 1) for ch in line)
        lines.append(line)
    return lines


def read_window(path: str | Path, start_line: int = 1, end_line: int | None = None) -> str:
    """Lines start_line..end_line (1-based, inclusive) of a text file; refuses binary files."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise RenderError(f"{path}: cannot read: {exc.strerror or exc}") from exc
    if b"\x00" in data[:8192] or b"\x00" in data:
        raise RenderError(f"{path}: binary file (contains NUL bytes), not rendered")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise RenderError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason}), not rendered") from exc
    lines = text.splitlines(keepends=True)
    if not lines:
        raise RenderError(f"{path}: empty file, nothing to render")
    if start_line < 1:
        raise RenderError(f"{path}: line numbers start at 1, got {start_line}")
    end = len(lines) if end_line is None else end_line
    if end < start_line:
        raise RenderError(f"{path}: empty line range {start_line}-{end}")
    if start_line > len(lines):
        raise RenderError(f"{path}: has {len(lines)} lines, the window starts at line {start_line}")
    return "".join(lines[start_line - 1 : end])


def render_window(
    path: str,
    start_line: int,
    text: str,
    ratio: float,
    tokenizer: str,
    image_family: str,
    settings: RenderSettings | dict | None = None,
    *,
    fonts: list[float] | None = None,
    guard: float | None = None,
    rasterize: bool = True,
    numbers: list[int | None] | None = None,
) -> RenderResult:
    """Render a code window (first line `start_line` of `path`) for the budget B = T_text/ratio.

    The layout record holds the font size, page sizes, columns, wrap width, pages, text
    and image tokens, the realized ratio T_text/T_img and whether the readability guard
    (`guard_bound`) or the family's token floor (`floor_bound`) kept it from the budget.
    `fonts`/`guard` restrict the search (used by the readability frontier). A window with a
    character no font draws raises MissingGlyphs (a RenderError) before any layout.
    `numbers` gives each line's gutter number (None: a separator row), for several windows
    drawn on shared pages; by default the lines are numbered from `start_line`.
    """
    if isinstance(settings, dict) or settings is None:
        settings = RenderSettings.from_config(settings)
    text = _checked_window(path, start_line, text, ratio)
    shown = renderable_text(f"{path}:{start_line}", text, settings.font)
    try:
        return _render_shown(path, int(start_line), shown, float(ratio), tokenizer, image_family, settings, fonts, guard,
                             rasterize, numbers)
    except SwevisError:  # a render error, or a configuration error (unknown tokenizer or family) that is not the text's
        raise
    except Exception as exc:  # any other failure of a page path is a RenderError: its caller keeps the text and says why
        raise RenderError(f"{path}:{start_line}: drawing failed: {type(exc).__name__}: {exc}") from exc


def renderable_text(where: str, text: str, font: str = DEFAULT_FONT) -> str:
    """The text a page of `text` shows (swevis.render.shown), or a RenderError that says why
    no page can show it: binary (NUL), a character no font draws (MissingGlyphs), nothing
    left to show. What render_window checks first; a sampler of windows checks it too."""
    if "\x00" in text:
        raise RenderError(f"{where}: window contains NUL bytes: binary content is not rendered")
    shown = shown_text(text)
    missing = missing_glyphs(shown, font) if not shown.isascii() else []
    if missing:
        raise MissingGlyphs(where.rsplit(":", 1)[0], missing)
    if not shown.strip("\n"):
        raise RenderError(f"{where}: the window shows nothing (only control characters)")
    return shown


def _render_shown(path: str, start_line: int, shown: str, ratio: float, tokenizer: str, image_family: str,
                  settings: RenderSettings, fonts: list[float] | None, guard: float | None, rasterize: bool,
                  numbers: list[int | None] | None) -> RenderResult:
    """render_window on the text its pages show."""
    t0 = time.perf_counter()
    lines = _display_lines(shown, settings.tab_size)  # the rule applied once, by renderable_text
    t_text = text_tokens(shown, tokenizer)
    budget = max(1e-9, t_text / ratio)
    t1 = time.perf_counter()
    if numbers is not None and len(numbers) != len(lines):
        raise RenderError(f"{path}: {len(numbers)} line numbers for {len(lines)} lines")
    breaks = break_points(tuple(lines), path)
    search = LayoutSearch([len(l) for l in lines], breaks, start_line, image_family, settings, numbers)
    try:
        plan, info = search.choose(budget, fonts=fonts, guard=guard)
    except ValueError as exc:
        raise RenderError(f"{path}:{start_line}: {exc}") from exc
    t2 = time.perf_counter()
    pages = []
    if rasterize:
        pages = raster.rasterize(lines, start_line, path, plan)
    t3 = time.perf_counter()
    layout = _layout_record(path, start_line, len(lines), ratio, tokenizer, image_family, t_text, budget,
                            plan, info, settings.guard_px() if guard is None else guard)
    timings = {"tokenize_s": t1 - t0, "search_s": t2 - t1, "raster_s": t3 - t2}
    return RenderResult(path, start_line, pages, layout, plan.tokens, t_text, timings, plan,
                        content_id(lines, numbers, layout))


def _checked_window(path: str, start_line: int, text: str | bytes, ratio: float) -> str:
    """The window text as str, or a RenderError naming the file for bad text, ratio or line."""
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise RenderError(f"{path}: window is not UTF-8 text ({exc.reason})") from exc
    if not isinstance(text, str):
        raise RenderError(f"{path}: window text must be str, got {type(text).__name__}")
    if not (isinstance(ratio, (int, float)) and ratio > 0 and ratio == ratio and ratio != float("inf")):
        raise RenderError(f"ratio must be a positive number, got {ratio!r}")
    if int(start_line) != start_line or start_line < 1:
        raise RenderError(f"start_line must be a positive integer, got {start_line!r}")
    if not text.strip("\n") and not text.strip():
        raise RenderError(f"{path}:{start_line}: empty window, nothing to render")
    return text


def _layout_record(
    path: str, start_line: int, n_lines: int, ratio: float, tokenizer: str, image_family: str,
    t_text: int, budget: float, plan: Layout, info: dict, guard_px: float,
) -> dict:
    """The layout record of a render: what was asked, what the search chose and why."""
    realized = t_text / plan.tokens if plan.tokens else float("inf")
    return {
        "path": path,
        "start_line": start_line,
        "end_line": start_line + n_lines - 1,
        "lines": n_lines,
        "ratio": ratio,
        "tokenizer": tokenizer,
        "counted_by": tokenizer_info(tokenizer)["counted_by"],
        "image_family": image_family,
        "text_tokens": t_text,
        "budget": budget,
        "image_tokens": plan.tokens,
        "message_overhead_c0": message_overhead(image_family),
        "realized_ratio": realized,
        "font": plan.font,
        "font_px": plan.font_px,
        "font_px_seen": plan.font_eff,
        "line_px": plan.line_px,
        "wrap": plan.wrap,
        "columns": plan.columns,
        "pages": plan.pages,
        "page_sizes": [list(s) for s in plan.page_sizes],
        "resolution": f"{plan.page_sizes[0][0]}x{plan.page_sizes[0][1]}",
        "page_cap": plan.page_cap,
        "fill": plan.fill,
        "loss": plan.loss,
        "guard_px": guard_px,
        "guard_bound": info["guard_bound"],
        "floor_bound": info["floor_bound"],
        "search_mode": info["mode"],
        "candidates": info["candidates"],
    }


def save_pages(result: RenderResult, out_dir: str | Path, stem: str = "page") -> list[str]:
    """Write the pages as PNG files (and layout.json) into out_dir; returns the PNG paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for i, data in enumerate(result.png_bytes(), start=1):
        p = out / f"{stem}-{i:02d}.png"
        write_atomic(p, data)
        paths.append(str(p))
    record = dict(result.layout, swevis_version=__version__, files=[Path(p).name for p in paths])
    (out / f"{stem}-layout.json").write_text(json.dumps(record, indent=2) + "\n")
    return paths
