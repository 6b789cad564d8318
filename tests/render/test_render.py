"""Renderer: layout record, line numbers, pagination, budgets, the guard and bad input."""

import json
import random
from pathlib import Path

import polars as pl
import pytest

from swevis.config import filled_section, schema_defaults
from swevis.render import RenderError, RenderSettings, prepare_lines, read_window, render_window, save_pages
from swevis.render.ocr import char_accuracy, levenshtein
from swevis.render.raster import visible_rows
from swevis.render.wrap import CONTINUATION_MARK, break_points, segments
from swevis.errors import SwevisError
from swevis.analysis.single_read_io import study_costs, study_frontier, study_frontier_part, study_layouts, study_ocr, study_tables
from swevis.analysis.single_read_windows import matplotlib_source_root, package_windows, sample_windows
from swevis.tokens import FAMILIES, image_tokens, is_kept

MPL = Path(matplotlib_source_root())
AXES = MPL / "axes" / "_axes.py"


def _window(start, n):
    return read_window(AXES, start, start + n - 1)


@pytest.fixture(scope="module")
def win100():
    return _window(2000, 100)


def test_layout_record_and_pages(win100):
    res = render_window(str(AXES), 2000, win100, 3, "qwen3", "qwen3.5")
    L = res.layout
    assert L["start_line"] == 2000 and L["end_line"] == 2099 and L["lines"] == 100
    assert L["pages"] == len(res.pages) >= 1
    # pages are exactly what the model sees: on the 32 px grid, tokens from their real size
    assert res.image_tokens == sum(image_tokens(p.width, p.height, "qwen3.5") for p in res.pages)
    assert all(p.width % 32 == 0 and p.height % 32 == 0 for p in res.pages)
    assert [list(p.size) for p in res.pages] == L["page_sizes"]
    assert L["realized_ratio"] == pytest.approx(L["text_tokens"] / L["image_tokens"])
    assert L["font_px_seen"] >= L["guard_px"]


def test_pages_cut_at_line_boundaries_and_line_numbers(win100):
    res = render_window(str(AXES), 2000, win100, 1, "qwen3", "qwen3.5", {"max_page_height": 768})
    plan = res.plan
    assert plan.pages > 1
    spans = [c for page in plan.page_columns for c in page]
    assert spans[0][0] == 0 and spans[-1][1] == 100
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))  # contiguous, whole lines
    lines = prepare_lines(win100)
    first = visible_rows(lines, 2000, plan, 0, 0)[0]
    assert first.split()[0] == "2000"
    last_page = len(plan.page_columns) - 1
    last_col = len(plan.page_columns[last_page]) - 1
    gutters = [r[: plan.gutter].strip() for r in visible_rows(lines, 2000, plan, last_page, last_col)]
    numbered = [g for g in gutters if g != CONTINUATION_MARK]
    assert numbered[-1] == "2099"


@pytest.mark.parametrize("ratio", [2, 3])
def test_realized_ratio_within_15_percent(win100, ratio):
    res = render_window(str(AXES), 2000, win100, ratio, "qwen3", "qwen3.5")
    assert not res.layout["guard_bound"]
    assert abs(res.layout["realized_ratio"] / ratio - 1) <= 0.15


def test_guard_binds_and_is_reported(win100):
    res = render_window(str(AXES), 2000, win100, 7, "qwen3", "qwen3.5")
    L = res.layout
    # the guard measured for DejaVu Sans Mono supersampled with bicubic reduction
    # (swevis/data/legibility_guards.json)
    assert L["guard_bound"] and L["font_px"] >= L["guard_px"] == 5.75
    looser = render_window(str(AXES), 2000, win100, 7, "qwen3", "qwen3.5", {"min_font_px": 5.0}, rasterize=False)
    assert looser.layout["realized_ratio"] > L["realized_ratio"]


def test_token_floor_small_window():
    res = render_window(str(AXES), 10, _window(10, 10), 7, "qwen3", "qwen3.5", rasterize=False)
    assert res.layout["floor_bound"] and res.image_tokens == 66  # 256x256 minimum + wrapper


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_familys_pages_are_kept(win100, family):
    res = render_window(str(AXES), 2000, win100, 2, "qwen3", family)
    assert all(is_kept(p.width, p.height, family) for p in res.pages)
    assert res.image_tokens == sum(image_tokens(p.width, p.height, family) for p in res.pages)


def test_tabs_and_control_characters():
    # a form feed shows nothing, as in a terminal (swevis.render.shown)
    assert prepare_lines("\tx = 1\r\nif a:\n\t\tb\x0c\n") == ["    x = 1", "if a:", "        b"]


def test_long_lines_wrap(tmp_path):
    text = "x = '" + "a" * 5000 + "'\nprint(x)\n"
    res = render_window("long.py", 1, text, 2, "qwen3", "qwen3.5")
    assert res.plan.wrap <= RenderSettings().max_wrap
    rows = visible_rows(prepare_lines(text), 1, res.plan, 0, 0)
    assert "".join(r[res.plan.gutter :] for r in rows[:-1]).startswith("x = 'aaa")


def _wrapped_rows(line, width, path="w.py"):
    """The rows `line` wraps to at `width`, as text."""
    (breaks,) = break_points((line,), path)
    return [line[s:e] for s, e in segments(len(line), breaks, width)]


def test_wrap_breaks_before_tokens_never_inside_an_operator():
    line = "if first_value == second_value:"
    for width in range(8, len(line)):
        rows = _wrapped_rows(line, width)
        assert "".join(rows) == line
        assert all(not (a.endswith("=") and b.startswith("=")) for a, b in zip(rows, rows[1:]))
    # width 17 ends inside "==" when cut at the width; the break comes before the operator
    assert _wrapped_rows(line, 17) == ["if first_value ", "== second_value:"]


def test_wrap_keeps_identifiers_whole_unless_longer_than_the_row():
    line = "result = s1_transpose(matrix_a, matrix_b) + other_long_identifier_name"
    words = {"s1_transpose", "matrix_a", "matrix_b", "other_long_identifier_name", "result"}
    for width in range(26, len(line)):
        rows = _wrapped_rows(line, width)
        assert "".join(rows) == line and all(len(r) <= width for r in rows)
        pieces = {t for r in rows for t in r.replace("(", " ").replace(")", " ").replace(",", " ").split()}
        assert words <= pieces, (width, rows)
    # a single token longer than the row is cut at the width
    assert _wrapped_rows("x = " + "a" * 30, 12) == ["x = ", "a" * 12, "a" * 12, "a" * 6]


def test_wrap_inside_strings_and_comments_at_spaces():
    rows = _wrapped_rows("# a comment that is rather long for one row", 16)
    assert rows == ["# a comment ", "that is rather ", "long for one row"]


def test_continuation_rows_carry_the_mark(tmp_path):
    text = "value = compute_something(alpha_value, beta_value, gamma_value, delta_value) == expected\nok = 1\n"
    res = render_window("c.py", 7, text, 1, "qwen3", "qwen3.5", {"wrap_widths": [40], "max_wrap": 40})
    assert res.plan.wrap == 40
    rows = visible_rows(prepare_lines(text), 7, res.plan, 0, 0)
    g = res.plan.gutter
    assert [r[:g].strip() for r in rows] == ["7", CONTINUATION_MARK, CONTINUATION_MARK, "8"]
    assert "".join(r[g:] for r in rows[:3]) == text.splitlines()[0]
    assert [r[g:] for r in rows[1:3]] == ["beta_value, gamma_value, delta_value) ", "== expected"]
    assert res.image_tokens == sum(image_tokens(p.width, p.height, "qwen3.5") for p in res.pages)


def test_non_python_files_render(tmp_path):
    for name, text in [("a.rs", "fn main() {\n    println!(\"hi\");\n}\n"), ("notes.xyz", "plain text\n")]:
        res = render_window(name, 5, text, 1, "qwen3", "qwen3.5")
        assert res.pages and res.layout["start_line"] == 5


def test_bad_input(tmp_path):
    binary = tmp_path / "blob.bin"
    binary.write_bytes(b"\x89PNG\x00\x01\x02")
    with pytest.raises(RenderError, match="binary"):
        read_window(binary)
    latin = tmp_path / "latin.py"
    latin.write_bytes(b"x = '\xe9'\n")
    with pytest.raises(RenderError, match="UTF-8"):
        read_window(latin)
    empty = tmp_path / "empty.py"
    empty.write_text("")
    with pytest.raises(RenderError, match="empty"):
        read_window(empty)
    with pytest.raises(RenderError, match="empty window"):
        render_window("a.py", 1, "", 2, "qwen3", "qwen3.5")
    with pytest.raises(RenderError, match="binary"):
        render_window("a.py", 1, "a\x00b", 2, "qwen3", "qwen3.5")
    with pytest.raises(RenderError, match="ratio"):
        render_window("a.py", 1, "x = 1\n", 0, "qwen3", "qwen3.5")
    with pytest.raises(RenderError, match="starts at line"):
        read_window(AXES, 10**7, 10**7 + 3)


def test_save_pages(tmp_path, win100):
    res = render_window(str(AXES), 2000, win100, 3, "qwen3", "qwen3.5")
    paths = save_pages(res, tmp_path / "out")
    assert len(paths) == res.layout["pages"]
    assert (tmp_path / "out" / "page-layout.json").is_file()
    from PIL import Image

    assert Image.open(paths[0]).size == tuple(res.layout["page_sizes"][0])


def test_cli_render(tmp_path):
    from swevis.cli import main

    rc = main(["render", str(AXES), "--lines", "100-160", "--ratio", "2", "--model", "qwen3.5", "-o", str(tmp_path)])
    assert rc == 0 and list(tmp_path.glob("page-*.png"))
    assert main(["render", str(tmp_path / "missing.py")]) == 2


def test_window_sampler_is_seeded(tmp_path):
    (tmp_path / "pkg").mkdir()
    for i in range(3):
        (tmp_path / "pkg" / f"m{i}.py").write_text("".join(f"x{i}_{j} = {j}\n" for j in range(40 + i * 30)))
    (tmp_path / "pkg" / "bad.py").write_bytes(b"\xff\xfe\x00")
    a = sample_windows([tmp_path], [10, 50], 4, seed=7)
    b = sample_windows([tmp_path], [10, 50], 4, seed=7)
    assert [(w["path"], w["start_line"]) for w in a] == [(w["path"], w["start_line"]) for w in b]
    assert all(len(w["text"].splitlines()) == w["n_lines"] for w in a)
    assert {w["n_lines"] for w in a} == {10, 50}
    mpl = sample_windows([MPL], [500], 2, seed=1)
    assert all(w["n_lines"] == 500 for w in mpl)


def test_levenshtein_matches_dynamic_programming():
    def dp(a, b):
        prev = list(range(len(b) + 1))
        for i, ca in enumerate(a, 1):
            cur = [i]
            for j, cb in enumerate(b, 1):
                cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
            prev = cur
        return prev[-1]

    rng = random.Random(3)
    for _ in range(200):
        a = "".join(rng.choice("ab_.") for _ in range(rng.randrange(0, 90)))
        b = "".join(rng.choice("ab_.") for _ in range(rng.randrange(0, 90)))
        assert levenshtein(a, b) == dp(a, b)
    assert char_accuracy("ab c", "abc") == 1.0


@pytest.mark.slow
def test_ocr_reads_a_small_page_whole():
    from swevis.render.ocr import ocr_page_accuracy

    text = _window(3000, 12)
    res = render_window(str(AXES), 3000, text, 1, "qwen3", "qwen3.5", fonts=[10.0])
    assert ocr_page_accuracy(res, text, 0) >= 0.85



@pytest.mark.slow
def test_ocr_reads_a_tall_page_as_sent():
    """A page taller than 2000 px is read at the size it is sent: rapidocr's own reduction to
    2000 px would read these 9 px glyphs at about 5 px (about .5 on history pages). The page is
    320 rows tall, but only its last 80 carry text (OCR pays per text row): under the
    reduction those rows read at about .7, so the bound below still tells the two apart."""
    from swevis.render.ocr import ocr_page_accuracy

    text = "".join(f"[user] step {i}: the value of item_{i} is {i * 7} and was checked\n" if i >= 240 else "\n"
                   for i in range(320))
    res = render_window("h.txt", 1, text, 1, "qwen3", "qwen3.5", {"columns": [1], "wrap_widths": [64], "max_wrap": 64},
                        fonts=[9.0], numbers=[None] * 320)
    assert max(res.plan.page_sizes[0]) > 3000
    assert ocr_page_accuracy(res, text, 0) >= 0.9

def _perfect_reader(res, lines):
    """A stand-in for rapidocr that reads every rendered word exactly, gutter included, at
    the x centre the renderer drew it (so only the gutter handling is under test)."""
    plan = res.plan
    colw = (plan.gutter + plan.wrap) * plan.advance + 2.0 * plan.advance

    def words(image):
        page = next(i for i, p in enumerate(res.pages) if p is image)
        out = []
        for c in range(len(plan.page_columns[page])):
            for k, row in enumerate(visible_rows(lines, res.start_line, plan, page, c)):
                y = plan.margin + (k + 0.5) * plan.line_px
                pos = 0
                for word in row.split():
                    pos = row.index(word, pos)
                    x = plan.margin + c * colw + (pos + len(word) / 2) * plan.advance
                    out.append((y, x, word))
                    pos += len(word)
        return out

    return words


def test_page_accuracy_is_over_code_without_the_gutter(monkeypatch):
    """Numbers and continuation marks are in the gutter: a reader that reads every pixel right
    scores 1.0 (the old reference had the numbers in it), on a wrapped two-column page."""
    from swevis.render import ocr
    from swevis.render.ocr import ocr_page_accuracy

    text = "".join(f"value_{i} = compute(first_argument_{i}, second_argument_{i}) == expected_{i}\n" for i in range(40))
    res = render_window("w.py", 95, text, 1, "qwen3", "qwen3.5", {"wrap_widths": [40], "max_wrap": 40, "columns": [2]})
    assert res.plan.columns == 2 and res.plan.wrap == 40
    monkeypatch.setattr(ocr, "ocr_words", _perfect_reader(res, prepare_lines(text)))
    assert ocr_page_accuracy(res, text, 0) == 1.0
    # a reader that also reports a line number inside the code area is charged for it
    honest = _perfect_reader(res, prepare_lines(text))
    monkeypatch.setattr(ocr, "ocr_words", lambda im: honest(im) + [(res.plan.margin + 1.0, 300.0, "95")])
    assert ocr_page_accuracy(res, text, 0) < 1.0


def test_read_code_columns_drops_gutter_words_and_orders_columns(monkeypatch):
    from swevis.render import ocr

    words = [(5.0, 150.0, "b"), (5.0, 108.0, "12"), (5.0, 130.0, "a"), (5.0, 8.0, "7"), (5.0, 30.0, "x"),
             (17.0, 8.0, CONTINUATION_MARK), (17.0, 40.0, "y")]
    monkeypatch.setattr(ocr, "ocr_words", lambda image: words)
    assert ocr.read_code_columns(None, [(0.0, 20.0), (100.0, 120.0)], 12.0) == ["x\ny", "a b"]


def test_single_read_study_costs_tables_and_figure(tmp_path):
    """The cost study end to end on two windows: costs.parquet rows carry the layout, Table 4
    has one row per window size, and every output is written whole (no temporary files)."""
    code = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(30))
    windows = [
        {"window_id": f"w{n}", "source": "synthetic", "path": "mod.py", "start_line": 1, "text": "".join(code.splitlines(True)[:n]), "n_lines": n}
        for n in (10, 40)
    ]
    pl.DataFrame(windows).write_parquet(tmp_path / "windows.parquet")
    backbones = {"qwen3.5": {"tokenizer": "qwen3", "image_family": "qwen3.5"}}
    cfg = filled_section("single_read", {"ratios": [1, 3], "seed": 0, "ocr": {"enabled": False}})
    stats = _costs(tmp_path, cfg, backbones)
    assert stats["renders"] == 4 and stats["windows"] == 2 and stats["ocr_protocol"] is None
    assert stats["ocr_pages"] == 0 and stats["ocr_scope"] == "off"

    rows = pl.read_parquet(tmp_path / "costs.parquet").to_dicts()
    assert sorted((r["lines"], r["ratio"]) for r in rows) == [(10, 1.0), (10, 3.0), (40, 1.0), (40, 3.0)]
    for r in rows:
        assert r["backbone"] == "qwen3.5" and r["visual_tokens"] > 0 and r["pages"] >= 1 and r["ocr_accuracy"] is None
        assert r["budget"] == pytest.approx(r["text_tokens"] / r["ratio"])
    assert json.loads((tmp_path / "stats.json").read_text())["renders"] == 4

    out = tmp_path / "tables"
    study_tables(tmp_path / "costs.parquet", [1, 3], ["qwen3.5"], out / "table4.csv", [out / "table4-qwen.csv"],
                 [out / "ocr-qwen.csv"], out / "figure3.png")
    table = pl.read_csv(out / "table4.csv")
    assert table["Lines"].to_list() == [10, 40] and table["backbone"].to_list() == ["qwen3.5", "qwen3.5"]
    assert (out / "figure3.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert sorted(p.name for p in out.iterdir()) == ["figure3.png", "ocr-qwen.csv", "table4-qwen.csv", "table4.csv"]


def test_single_read_study_takes_its_settings_from_the_validated_section(tmp_path):
    """No setting of the study has a default of its own: a section missing a key is an
    error naming it (the old reader rasterized every page for a missing rasterize_all,
    the schema says false), and a filled one runs with the schema's values."""
    code = "".join(f"def f{i}(x):\n    return x + {i}\n" for i in range(10))
    windows = [{"window_id": "w", "source": "synthetic", "path": "mod.py", "start_line": 1, "text": code, "n_lines": 20}]
    pl.DataFrame(windows).write_parquet(tmp_path / "windows.parquet")
    backbones = {"qwen3.5": {"tokenizer": "qwen3", "image_family": "qwen3.5"}}
    partial = {"ratios": [1], "seed": 0, "render": {}, "ocr": {"enabled": True, "pages_per_cell": 1}}
    with pytest.raises(KeyError, match="rasterize_all"):
        study_layouts(tmp_path / "windows.parquet", partial, backbones, tmp_path / "l.parquet", tmp_path / "l.json")
    with pytest.raises(KeyError, match="full"):
        study_ocr(tmp_path / "windows.parquet", partial, "qwen3.5", backbones["qwen3.5"], tmp_path / "o.parquet")
    filled = filled_section("single_read", {"ratios": [1], "seed": 0, "ocr": {"enabled": False}})
    assert filled["rasterize_all"] is schema_defaults("single_read")["rasterize_all"] is False
    stats = _costs(tmp_path, filled, backbones)
    assert stats["renders"] == 1 and stats["raster_s"] < 1e-3  # the layout alone, no page drawn


def _costs(tmp_path, cfg, backbones, cache_dir=None):
    """The workflow's cost jobs in turn: layouts, one OCR job per backbone, the gather."""
    wins, layouts, lstats = tmp_path / "windows.parquet", tmp_path / "layouts.parquet", tmp_path / "layouts.json"
    study_layouts(wins, cfg, backbones, layouts, lstats)
    parts = [tmp_path / f"ocr-{b}.parquet" for b in backbones]
    for (b, profile), part in zip(backbones.items(), parts):
        study_ocr(wins, cfg, b, profile, part, cache_dir)
    return study_costs(layouts, lstats, parts, cfg, backbones, tmp_path / "costs.parquet", tmp_path / "stats.json")


def test_frontier_windows_come_from_installed_packages_by_a_seeded_rule(tmp_path, monkeypatch):
    from swevis.analysis import single_read as study

    wins = package_windows(["requests", "jinja2"], 30, 3, 1)
    assert [w["source"] for w in wins] == ["requests", "jinja2", "requests"]
    assert all(w["n_lines"] == 30 and len(w["text"].splitlines()) == 30 for w in wins)
    assert wins == package_windows(["requests", "jinja2"], 30, 3, 1)
    assert wins != package_windows(["requests", "jinja2"], 30, 3, 2)
    with pytest.raises(SwevisError, match="no_such_package_here"):
        package_windows(["no_such_package_here"], 30, 1, 1)

    read = []
    monkeypatch.setattr(study, "ocr_page_accuracy",
                        lambda res, text, page, cache, reader: read.append(res.layout["font_px"]) or 0.95)
    monkeypatch.setattr(study, "available_readers", lambda: ["rapidocr"])  # one reader, installed or not
    cfg = filled_section("single_read", {"seed": 3, "ocr": {"frontier_fonts": [7, 10], "frontier_windows": 2,
                                                          "frontier_pages": 1, "frontier_packages": ["requests", "jinja2"],
                                                          "sample_frontier_fonts": []}})
    backbones = {"qwen3.5": {"tokenizer": "qwen3", "image_family": "qwen3.5"}}
    study_frontier_part(cfg, "qwen3.5", backbones["qwen3.5"], tmp_path / "part.parquet")
    summary = study_frontier([tmp_path / "part.parquet"], cfg, backbones, tmp_path / "frontier.csv", tmp_path / "summary.json")
    rows = pl.read_csv(tmp_path / "frontier.csv").to_dicts()
    assert [r["font_px"] for r in rows] == [7, 10] and sorted(read) == [7, 10]
    assert all(r["sources"] == "jinja2,requests" and r["lines"] == 100 and r["ocr_n"] == r["ocr_picked"] == 1 for r in rows)
    assert "whole pages" in rows[0]["ocr_protocol"] and "without line numbers" in rows[0]["ocr_protocol"]
    assert rows[0]["realized_ratio_median"] > rows[1]["realized_ratio_median"]
    assert summary["per_backbone"]["qwen3.5"]["guard_px"] == 7


# ---------------------------------------------------------------- characters beyond DejaVu Sans Mono

def _glyph_ink(ch: str, size: float, index: int):
    """The bitmap one font draws for `ch` (PIL, the font file as the renderer loads it)."""
    from PIL import Image, ImageDraw

    from swevis.render.fonts import font

    img = Image.new("L", (int(size * 3), int(size * 2)), 255)
    ImageDraw.Draw(img).text((2, 2), ch, font=font(size, index), fill=0)
    return img.tobytes()


def test_the_bundled_cjk_file_renders_without_boxes():
    """Every character of tabulon's tests/test_wrap.py is in the cmap (fontTools) of the font
    that draws it, and its bitmap is ink that is not that font's missing-glyph box."""
    from fontTools.ttLib import TTFont

    from swevis.render.fonts import font_chain, font_index

    path = Path(__file__).resolve().parents[2] / "src/swevis/data/sample/repos/tabulon/tests/test_wrap.py"
    text = path.read_text(encoding="utf-8")
    wide = sorted({ch for ch in text if not ch.isascii()})
    assert wide, "the bundled file should hold CJK characters"
    res = render_window("tests/test_wrap.py", 1, text, 3.0, "qwen3.5", "qwen3-vl")
    size = res.layout["font_px"]
    for ch in wide:
        index = font_index(ch)
        assert index is not None, f"U+{ord(ch):04X} has no font"
        assert ord(ch) in TTFont(font_chain()[index], lazy=True).getBestCmap(), f"U+{ord(ch):04X} not in the cmap"
        ink = _glyph_ink(ch, size, index)
        assert ink != _glyph_ink("\U0010fffd", size, index), f"U+{ord(ch):04X} drawn as the missing-glyph box"
        assert min(ink) < 128, f"U+{ord(ch):04X} drawn blank"
    assert res.pages and res.layout["pages"] >= 1


def test_a_wide_character_takes_two_cells_and_is_read_once():
    from swevis.render.fonts import CELL_FILLER

    lines = prepare_lines('s = "東京"\ufeff  # ok\n')
    assert lines == [f's = "東{CELL_FILLER}京{CELL_FILLER}"  # ok']  # the BOM has no glyph: no cell
    res = render_window("a.py", 1, 's = "東京"  # ok\n', 1.0, "qwen3.5", "qwen3-vl")
    rows = visible_rows(prepare_lines('s = "東京"  # ok\n'), 1, res.plan, 0, 0)
    assert rows[0].split(" ", 1)[1] == 's = "東京"  # ok'


def test_a_character_no_font_draws_is_refused_not_boxed():
    from swevis.render import MissingGlyphs

    with pytest.raises(MissingGlyphs, match="U\\+10000"):
        render_window("a.py", 1, "LINEAR_B = '\U00010000'\n", 3.0, "qwen3.5", "qwen3-vl")


def test_an_observation_with_a_missing_glyph_stays_text_and_says_why():
    from swevis.agents.observation.observe import ObservationConfig, ObservationPipeline

    source = "".join(f"value_{i} = compute_something(argument_{i}, other={i})\n" for i in range(40))
    source += "LINEAR_B = '\U00010000'\n"
    pipeline = ObservationPipeline(ObservationConfig(condition="r3"), read_file=lambda p: source,
                                   observation_template="{{ output.output }}")
    content, record = pipeline.observe("cat a.py", {"returncode": 0, "output": source})
    assert content == source and record["kind"] == "text" and record["text_reason"] == "missing_glyph"
    pipeline.read_file = lambda p: source.replace("\U00010000", "x")
    content, record = pipeline.observe("cat a.py", {"returncode": 0, "output": source.replace("\U00010000", "x")})
    assert record["kind"] == "image"  # the same window without that character is drawn


def test_pages_cost_at_most_the_budget_when_a_layout_can():
    """The band's top is the budget (render.budget_is_cap): in the band, T_img <= T_text / r;
    the straddling band of before lets the objective buy a larger font above it."""
    root = Path(__file__).resolve().parents[2] / "src/swevis/data/sample/repos"
    files = sorted(p for p in root.rglob("*.py") if len(p.read_text().splitlines()) >= 80)[:6]
    over = 0
    for path in files:
        text = "".join(path.read_text().splitlines(keepends=True)[:80])
        for r in (2.0, 3.0):
            capped = render_window(path.name, 1, text, r, "qwen3", "qwen3.5", rasterize=False).layout
            if capped["search_mode"] == "band":
                assert capped["image_tokens"] <= capped["budget"] + 1e-9
            straddling = render_window(path.name, 1, text, r, "qwen3", "qwen3.5", {"budget_is_cap": False},
                                       rasterize=False).layout
            over += straddling["image_tokens"] > straddling["budget"]
    assert over > 0  # the cap changes what is chosen


def test_python_files_get_the_lexer_pygments_would_choose():
    """wrap._lexer takes Python's lexer from the language registry; the choice is Pygments' own."""
    from pygments.lexers import get_lexer_for_filename

    from swevis.render.wrap import lexer_for

    for path in ("pkg/mod.py", "stubs/mod.pyi", "setup.py"):
        assert type(lexer_for(path)) is type(get_lexer_for_filename(path.rsplit("/", 1)[-1]))
    assert type(lexer_for("Makefile")).__name__ == "MakefileLexer"  # other names still searched


def _search(text: str, **render):
    from swevis.render.layout import LayoutSearch

    lines = prepare_lines(text)
    settings = RenderSettings.from_config({"min_font_px": 5.0, **render})
    return LayoutSearch([len(l) for l in lines], break_points(tuple(lines), "w.py"), 2000, "qwen3.5", settings)


@pytest.mark.parametrize("font_px", [5.75, 6.0, 7.5])
@pytest.mark.parametrize("ncols", [1, 2, 3])
def test_a_wrap_fills_the_page_width_the_grid_rounds_up_to(win100, font_px, ncols):
    """render.wrap_fills_page: the listed wrap is widened while the page stays as wide; one
    character more would widen the page. The page costs no more and holds more per row."""
    filled, listed = _search(win100), _search(win100, wrap_fills_page=False)
    wrap = filled.filled_wrap(font_px, 40, ncols)
    assert listed.filled_wrap(font_px, 40, ncols) == 40
    assert wrap >= 40
    assert filled.page_width(font_px, wrap, ncols) == filled.page_width(font_px, 40, ncols)
    if wrap < filled.w.maxlen:
        assert filled.page_width(font_px, wrap + 1, ncols)[0] > filled.page_width(font_px, wrap, ncols)[0]
    a, b = filled.single_page(font_px, 40, ncols), listed.single_page(font_px, 40, ncols)
    assert a.wrap == wrap and b.wrap == 40
    assert a.tokens <= b.tokens
    assert a.page_sizes[0][0] == b.page_sizes[0][0]


def test_filled_wraps_never_cost_more_and_draw_inside_their_rows(win100):
    """Over the whole search, filling the grid's rounding never makes a window dearer, and
    every drawn row of the filled layout fits its wrap."""
    for r in (3, 5, 7):
        filled = render_window(str(AXES), 2000, win100, r, "qwen3", "qwen3.5", {})
        listed = render_window(str(AXES), 2000, win100, r, "qwen3", "qwen3.5", {"wrap_fills_page": False}, rasterize=False)
        if filled.layout["font_px"] == listed.layout["font_px"]:
            assert filled.layout["image_tokens"] <= listed.layout["image_tokens"]
        plan, lines = filled.plan, prepare_lines(win100)
        for page in range(plan.pages):
            for c in range(len(plan.page_columns[page])):
                rows = visible_rows(lines, 2000, plan, page, c)
                assert rows and max(len(row) for row in rows) <= plan.gutter + plan.wrap
