"""How glyphs are drawn (render.font_mode, stroke_px, highlight, rows_on_patch_grid) and the
readability guard measured per font and way of drawing (swevis.render.guards)."""

import numpy as np
import pytest

from swevis.errors import SwevisError
from swevis.render import RenderSettings, read_window, render_window
from swevis.render import guards
from swevis.render.guards import guard_table, measured_guard
from swevis.render.raster import BACKGROUND, DEFAULT, GUTTER
from swevis.analysis.single_read_windows import matplotlib_source_root

AXES = f"{matplotlib_source_root()}/axes/_axes.py"


@pytest.fixture(scope="module")
def win40():
    return read_window(AXES, 2000, 2039)


def _render(text, **render):
    return render_window(AXES, 2000, text, 3, "qwen3", "qwen3.5", {"min_font_px": 5.0, **render}, fonts=[7.0])


def _colours(img) -> set[tuple[int, int, int]]:
    return {tuple(int(v) for v in c) for c in np.unique(np.asarray(img).reshape(-1, 3), axis=0)}


def test_bilevel_monochrome_pages_hold_only_the_three_inks(win40):
    page = _render(win40, font_mode="bilevel", highlight=False).pages[0]
    assert _colours(page) == {BACKGROUND, DEFAULT, GUTTER}
    # antialiased pages have the greys between ink and paper, highlighted ones the palette
    assert len(_colours(_render(win40, font_mode="antialias", highlight=False).pages[0])) > 3
    assert len(_colours(_render(win40, highlight=False).pages[0])) > 3  # supersampled
    assert len(_colours(_render(win40, font_mode="bilevel").pages[0])) > 3


def test_supersample_draws_the_same_page_size_without_hinting(win40):
    plain, smooth = _render(win40, font_mode="antialias"), _render(win40, font_mode="supersample")
    assert smooth.layout["page_sizes"] == plain.layout["page_sizes"]
    assert smooth.pages[0].size == plain.pages[0].size
    assert np.asarray(smooth.pages[0]).tobytes() != np.asarray(plain.pages[0]).tobytes()
    # about as much ink either way (the same glyphs, differently rasterized)
    ink = [255 - np.asarray(r.pages[0].convert("L"), dtype=float).mean() for r in (plain, smooth)]
    assert ink[1] == pytest.approx(ink[0], rel=0.35)


def test_stroke_adds_ink(win40):
    ink = [255 - np.asarray(_render(win40, stroke_px=s).pages[0].convert("L"), dtype=float).mean() for s in (0, 0.5)]
    assert ink[1] > 1.2 * ink[0]


def test_rows_on_the_patch_grid_never_straddle_a_merged_patch(win40):
    res = _render(win40, rows_on_patch_grid=True)
    plan = res.plan
    assert 32 / plan.line_px == round(32 / plan.line_px)  # a whole number of rows per 32-px cell
    assert plan.line_px == 8.0  # 7 px x 1.2 = 8.4 -> 4 rows a cell
    rows = sum(len(plan.line_rows(i, line)) for i, line in enumerate(win40.splitlines()))
    for r in range(rows):
        top = plan.row_y(r)
        assert top // 32 == (top + plan.line_px - 1) // 32, (r, top)
    assert all(w % 32 == 0 and h % 32 == 0 for w, h in res.layout["page_sizes"])
    off = _render(win40).plan
    assert off.line_px == pytest.approx(8.4) and off.row_y(3) == pytest.approx(off.margin + 3 * 8.4)


def test_the_guard_is_measured_per_font_and_way_of_drawing():
    table = guard_table()
    default = RenderSettings()
    row = next(r for r in table["rows"] if r["font"] == "DejaVu Sans Mono" and r["font_mode"] == default.font_mode
               and r["line_height"] == default.line_height and not r["rows_on_patch_grid"] and r["highlight"]
               and r["stroke_px"] == 0)
    assert default.guard_px() == row["min_font_px"] > 0
    # the table's measurements back its guard: every measured size from the guard up reads
    assert all(acc >= table["threshold"] for size, acc in row["measured"].items() if float(size) >= row["min_font_px"])
    assert RenderSettings.from_config({"min_font_px": 9.5}).guard_px() == 9.5
    modes = {r["font_mode"]: r["min_font_px"] for r in table["rows"] if r["font"] == "DejaVu Sans Mono"
             and r["line_height"] == 1.2 and r["highlight"] and not r["rows_on_patch_grid"] and r["stroke_px"] == 0}
    assert len(set(modes.values())) > 1  # not one constant


def test_an_unmeasured_font_is_an_error_not_a_guess(tmp_path):
    font = tmp_path / "Other.ttf"
    font.write_bytes(b"")
    with pytest.raises(SwevisError, match="bench_legibility.py"):
        measured_guard({"font": str(font), "font_mode": "antialias", "line_height": 1.2, "stroke_px": 0.0,
                        "highlight": True, "rows_on_patch_grid": False})
    with pytest.raises(SwevisError, match="font_mode"):
        RenderSettings.from_config({"font_mode": "subpixel"})


def test_a_way_of_drawing_that_never_reads_says_so(monkeypatch):
    row = {"font": "Tiny.ttf", "font_mode": "bilevel", "line_height": 1.2, "stroke_px": 0.0, "highlight": True,
           "rows_on_patch_grid": False, "min_font_px": None, "measured": {"6.0": 0.37}}
    monkeypatch.setattr(guards, "guard_table", lambda: {"threshold": 0.93, "rows": [row]})
    with pytest.raises(SwevisError, match="no size reached a median OCR of 0.93"):
        measured_guard({**row, "font": "/fonts/Tiny.ttf"})
    row["min_font_px"] = 7.5
    assert measured_guard({**row, "font": "/fonts/Tiny.ttf"}) == 7.5


@pytest.mark.parametrize("font_mode", ["supersample", "supersample-bicubic"])
@pytest.mark.parametrize("stroke_px", [0.0, 0.3])
def test_supersampled_pages_drawn_in_bands_equal_one_canvas(win40, stroke_px, font_mode):
    """Bands bound the 16-times canvas's memory; they must not change a pixel, not even where a
    row or a fallback glyph (CJK, emoji) crosses a band's edge, nor where the bicubic filter
    reads rows of the next band."""
    from swevis.render import prepare_lines, raster

    text = win40 + "\n    label = '中文字符 ✓ 🙂'  # fallback glyphs\n" * 3
    res = _render(text, stroke_px=stroke_px, rows_on_patch_grid=True, font_mode=font_mode)
    lines = prepare_lines(text)
    whole = raster.rasterize(lines, 2000, AXES, res.plan, band_px=10**6)
    for band_px in (7, 64):
        banded = raster.rasterize(lines, 2000, AXES, res.plan, band_px=band_px)
        assert [p.size for p in banded] == [p.size for p in whole]
        assert all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(banded, whole)), band_px
    assert all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(res.pages, whole))
