"""The single-read study split into jobs: layouts undrawn, OCR pages drawn alone and read once
(cached by page content), the default OCR sample a subset of the full measurement's pages."""

import hashlib

import polars as pl
import pytest

from swevis.analysis import single_read as study
from swevis.analysis.single_read import (
    OCR_MEASURED,
    OCR_NOT_SAMPLED,
    draw_page,
    layout_rows,
    merge_ocr,
    ocr_picks,
    ocr_rows,
    table4,
)
from swevis.analysis.single_read_io import study_costs, study_layouts, study_ocr, study_tables
from swevis.analysis.single_read_windows import matplotlib_source_root, sample_windows
from swevis.config import filled_section
from swevis.render import RenderSettings, render_window
from swevis.render import ocr as ocr_module
from swevis.render.ocr import OcrCache, ocr_page_accuracy
from swevis.tokens import image_tokens

BACKBONES = {
    "qwen3.5": {"tokenizer": "qwen3", "image_family": "qwen3.5"},
    "kimi-k2.5": {"tokenizer": "qwen3", "image_family": "kimi-k2.5"},
}
TOKEN_COLUMNS = ["window_id", "lines", "ratio", "backbone", "text_tokens", "budget", "visual_tokens", "pages",
                 "font_px", "font_px_seen", "resolution", "page_sizes", "columns", "wrap", "fill", "realized_ratio",
                 "guard_bound", "floor_bound", "search_mode"]


@pytest.fixture(scope="module")
def windows():
    """Real code: a seeded sample of matplotlib's installed source, three sizes."""
    return sample_windows([matplotlib_source_root()], [10, 40, 120], 2, seed=11)


def _image_words(image):
    """A deterministic stand-in for rapidocr: one word per image, from its pixels."""
    return [(1.0, 1.0, hashlib.sha1(image.tobytes()).hexdigest()[:8])]


def test_drawn_and_undrawn_layouts_give_the_same_tokens_and_sizes(windows, monkeypatch):
    """Token counts depend on a page's size alone: the study's rows are the same whether every
    page is drawn (rasterize_all) or none is, and the drawn pages have the recorded sizes and
    the recorded image tokens. Each of layout_rows' renders is kept as it returns it, so every
    render of both passes is checked, at every ratio, without drawing any of them again."""
    settings = RenderSettings.from_config({})
    ratios = [1.0, 3.0, 7.0]
    renders: dict[bool, list] = {True: [], False: []}

    def kept(*args, rasterize, **kwargs):
        res = render_window(*args, rasterize=rasterize, **kwargs)
        renders[rasterize].append((args[5], res))  # (image family, the render)
        return res

    monkeypatch.setattr(study, "render_window", kept)
    drawn, _ = layout_rows(windows, ratios, BACKBONES, settings, rasterize_all=True)
    undrawn, stats = layout_rows(windows, ratios, BACKBONES, settings, rasterize_all=False)
    assert stats["raster_s"] < 1e-2 and len(undrawn) == len(windows) * len(ratios) * len(BACKBONES)
    assert [{k: r[k] for k in TOKEN_COLUMNS} for r in drawn] == [{k: r[k] for k in TOKEN_COLUMNS} for r in undrawn]
    assert len(renders[True]) == len(renders[False]) == len(undrawn)
    for (family, res), (_, bare) in zip(renders[True], renders[False]):
        assert bare.pages == [] and bare.layout == res.layout
        assert res.pages and [list(p.size) for p in res.pages] == res.layout["page_sizes"]
        assert sum(image_tokens(p.width, p.height, family) for p in res.pages) == res.layout["image_tokens"]


def test_a_page_drawn_alone_is_the_page_of_the_whole_render(windows):
    settings = RenderSettings.from_config({"max_page_height": 1024})
    w = max(windows, key=lambda w: w["n_lines"])
    res = render_window(w["path"], w["start_line"], w["text"], 1.0, "qwen3", "qwen3.5", settings, fonts=[14.0])
    assert len(res.pages) > 1  # a multi-page render, so the page index matters
    bare = render_window(w["path"], w["start_line"], w["text"], 1.0, "qwen3", "qwen3.5", settings, fonts=[14.0],
                         rasterize=False)
    for p in range(len(res.pages)):
        one = draw_page(bare, w["text"], p, settings)
        assert [i for i, im in enumerate(one.pages) if im is not None] == [p]
        assert one.pages[p].tobytes() == res.pages[p].tobytes()


def test_the_default_sample_reads_a_subset_of_the_full_measurements_pages(windows, monkeypatch):
    """The same seeded pages either way; without `full`, the cells of larger windows are
    'not sampled' in the table, and a measured cell reads what the full measurement reads."""
    monkeypatch.setattr(ocr_module, "ocr_words", _image_words)
    settings = RenderSettings.from_config({})
    full = filled_section("single_read", {"ocr": {"full": True}})["ocr"]
    sample = filled_section("single_read", {"ocr": {"sample_max_lines": 40}})["ocr"]
    assert sample["full"] is False  # the schema's default
    ratios = [1.0, 5.0]
    b = BACKBONES["qwen3.5"]
    p_full = ocr_picks(windows, ratios, "qwen3.5", b, settings, full, seed=3)
    p_sample = ocr_picks(windows, ratios, "qwen3.5", b, settings, sample, seed=3)
    drop = lambda picks: [{k: v for k, v in p.items() if k != "measure"} for p in picks]  # noqa: E731
    assert drop(p_full) == drop(p_sample) and len(p_full) == 3 * len(ratios)
    assert [p["measure"] for p in p_sample] == [p["lines"] <= 40 for p in p_sample]
    rows_full, s_full = ocr_rows(windows, p_full, "qwen3.5", b, settings, None)
    rows_sample, s_sample = ocr_rows(windows, p_sample, "qwen3.5", b, settings, None)
    assert s_full["ocr_pages"] == 6 and s_sample["ocr_pages"] == 4 and s_sample["ocr_not_sampled"] == 2
    for f, s in zip(rows_full, rows_sample):
        assert s["ocr_accuracy"] in (None, f["ocr_accuracy"])
        assert s["ocr_status"] == (OCR_MEASURED if s["ocr_accuracy"] is not None else OCR_NOT_SAMPLED)
    layouts, _ = layout_rows(windows, ratios, {"qwen3.5": b}, settings, rasterize_all=False)
    tok_full, ocr_full = table4(merge_ocr(layouts, rows_full), "qwen3.5", ratios)
    tok_sample, ocr_sample = table4(merge_ocr(layouts, rows_sample), "qwen3.5", ratios)
    assert tok_full == tok_sample
    assert [r["ocr_pages"] for r in ocr_sample] == [2, 2, 0] and [r["ocr_pages"] for r in ocr_full] == [2, 2, 2]
    assert ocr_sample[2]["r1"] == ocr_sample[2]["r5"] == "not sampled"
    assert ocr_sample[:2] == ocr_full[:2] and ocr_full[2]["r1"].endswith("(n=1)")


def test_ocr_cache_reads_each_page_once_and_keys_on_content_and_engine(tmp_path, windows, monkeypatch):
    reads = []
    monkeypatch.setattr(ocr_module, "ocr_words", lambda image: reads.append(1) or _image_words(image))
    settings = RenderSettings.from_config({})
    w = windows[0]
    res = render_window(w["path"], w["start_line"], w["text"], 1.0, "qwen3", "qwen3.5", settings)
    cache = OcrCache(tmp_path / "ocr")
    first = ocr_page_accuracy(res, w["text"], 0, cache)
    again = ocr_page_accuracy(res, w["text"], 0, OcrCache(tmp_path / "ocr"))  # a rerun: a new job
    assert first == again == ocr_page_accuracy(res, w["text"], 0) and len(reads) == 2  # cached once, then direct
    assert len(list((tmp_path / "ocr").rglob("*.json"))) == 1 and cache.misses == 1
    other = render_window(w["path"], w["start_line"], w["text"], 7.0, "qwen3", "qwen3.5", settings)
    assert cache.key(other.pages[0]) != cache.key(res.pages[0])
    monkeypatch.setattr(ocr_module, "rapidocr_version", lambda: "99.0")  # a new engine reads again
    key_new_engine = cache.key(res.pages[0])
    monkeypatch.undo()
    assert key_new_engine != cache.key(res.pages[0])


def test_the_split_jobs_write_the_tables_and_say_what_ocr_covered(tmp_path, windows, monkeypatch):
    """layouts + one OCR job per backbone + gather, as the workflow runs them; a rerun of the
    OCR jobs reads every page from the cache."""
    reads = []
    monkeypatch.setattr(ocr_module, "ocr_words", lambda image: reads.append(1) or _image_words(image))
    pl.DataFrame(windows).write_parquet(tmp_path / "windows.parquet")
    cfg = filled_section("single_read", {"ratios": [1, 3], "seed": 5, "ocr": {"sample_max_lines": 40}})
    study_layouts(tmp_path / "windows.parquet", cfg, BACKBONES, tmp_path / "layouts.parquet", tmp_path / "l.json")
    parts = [tmp_path / f"ocr-{b}.parquet" for b in BACKBONES]
    for (b, profile), part in zip(BACKBONES.items(), parts):
        stats = study_ocr(tmp_path / "windows.parquet", cfg, b, profile, part, tmp_path / "cache")
        assert stats["ocr_pages"] == 4 and stats["ocr_cache_misses"] == 4
    n_read = len(reads)
    rerun = study_ocr(tmp_path / "windows.parquet", cfg, "qwen3.5", BACKBONES["qwen3.5"], parts[0], tmp_path / "cache")
    assert rerun["ocr_cache_hits"] == 4 and len(reads) == n_read
    stats = study_costs(tmp_path / "layouts.parquet", tmp_path / "l.json", parts, cfg, BACKBONES,
                        tmp_path / "costs.parquet", tmp_path / "stats.json")
    assert stats["renders"] == 24 and stats["ocr_pages"] == 8 and stats["ocr_not_sampled"] == 4
    assert "up to 40 lines" in stats["ocr_scope"]
    status = pl.read_parquet(tmp_path / "costs.parquet")["ocr_status"].to_list()
    assert (status.count(None), status.count("measured"), status.count("not sampled")) == (12, 8, 4)
    out = tmp_path / "t"
    study_tables(tmp_path / "costs.parquet", [1, 3], list(BACKBONES), out / "table4.csv",
                 [out / f"t-{b}.csv" for b in BACKBONES], [out / f"o-{b}.csv" for b in BACKBONES], out / "f.png")
    o = pl.read_csv(out / "o-qwen3.5.csv")
    assert o["ocr_pages"].to_list() == [2, 2, 0] and o["r1"].to_list()[2] == "not sampled"


def _counted_frontier(monkeypatch, n_windows: int, accuracy: float):
    """study.frontier on `n_windows` matplotlib windows for qwen3.5 with OCR replaced by a
    constant `accuracy`: (the paths of the pages read, a function (fonts, ocr) -> rows)."""
    read = []
    monkeypatch.setattr(study, "ocr_page_accuracy",
                        lambda res, text, page, cache, reader: read.append(res.path) or accuracy)
    monkeypatch.setattr(study, "available_readers", lambda: ["rapidocr"])  # one reader, installed or not
    wins = sample_windows([matplotlib_source_root()], [30], n_windows, seed=2)
    settings = RenderSettings.from_config({})
    b = {"qwen3.5": BACKBONES["qwen3.5"]}
    return read, lambda fonts, ocr: study.frontier(wins, fonts, b, settings, ocr, seed=1)


def test_frontier_sample_reads_the_first_picks_in_window_order(monkeypatch):
    read, frontier = _counted_frontier(monkeypatch, 4, 0.9)
    full = filled_section("single_read", {"ocr": {"full": True, "frontier_pages": 3}})["ocr"]
    sample = filled_section("single_read", {"ocr": {"frontier_pages": 3, "sample_frontier_pages": 1,
                                                    "sample_frontier_fonts": [6]}})["ocr"]
    rows_full = frontier([6.0], full)  # a font of the sample
    read_full, read[:] = list(read), []
    rows_sample = frontier([6.0], sample)
    assert read == read_full[:1] and len(read_full) == 3
    assert rows_full[0]["ocr_n"] == 3 and rows_sample[0]["ocr_n"] == 1
    assert rows_full[0]["ocr_picked"] == rows_sample[0]["ocr_picked"] == 3
    same = [k for k in rows_full[0] if not k.startswith(("ocr_", "rapidocr_", "tesseract_"))]
    assert {k: rows_full[0][k] for k in same} == {k: rows_sample[0][k] for k in same}


def test_frontier_sample_reads_only_the_sampled_fonts_and_the_guard_skips_the_others(monkeypatch):
    read, frontier = _counted_frontier(monkeypatch, 3, 0.95)
    sample = filled_section("single_read", {"ocr": {"sample_frontier_fonts": [7, 9], "frontier_pages": 2,
                                                    "sample_frontier_pages": 1}})["ocr"]
    full = filled_section("single_read", {"ocr": {"full": True, "sample_frontier_fonts": [7, 9], "frontier_pages": 2}})["ocr"]
    rows = frontier([7.0, 8.0, 9.0], sample)
    assert [r["ocr_n"] for r in rows] == [1, 0, 1] and len(read) == 2
    assert rows[1]["ocr_median"] is None and rows[1]["realized_ratio_median"] > 0
    rows_full = frontier([7.0, 8.0, 9.0], full)
    assert [r["ocr_n"] for r in rows_full] == [2, 2, 2]  # full ignores the font sample
    assert [r["realized_ratio_median"] for r in rows] == [r["realized_ratio_median"] for r in rows_full]
    summary = study.frontier_summary(rows, guard_threshold=0.9)["qwen3.5"]
    assert summary["guard_px"] == 7.0  # the unread 8 px neither passes nor breaks the run of passing fonts
