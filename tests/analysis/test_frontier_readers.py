"""The frontier read by two readers: a page counts readable only if both clear the threshold,
each reader's frontier and guard are reported beside the both-reader ones, with the median's
interval, and frontier_summary.json names the readers."""

import json

import pytest

from swevis.analysis import single_read as study
from swevis.analysis.single_read_io import study_frontier, study_frontier_part
from swevis.analysis.single_read_windows import package_windows
from swevis.analysis.stats import median_ci
from swevis.config import filled_section
from swevis.render import RenderSettings

QWEN = {"qwen3.5": {"tokenizer": "qwen3", "image_family": "qwen3.5"}}


def _scripted_readers(monkeypatch, table):
    """OCR replaced by `table[reader][font][k]`, the k-th page each reader reads at a font."""
    seen: dict = {}

    def accuracy(res, text, page, cache, reader):
        f = res.layout["font_px"]
        k = seen.setdefault((reader, f), 0)
        seen[(reader, f)] += 1
        return table[reader][f][k]

    monkeypatch.setattr(study, "ocr_page_accuracy", accuracy)
    return seen


@pytest.fixture(scope="module")
def windows():
    return package_windows(["jinja2", "pygments"], 30, 3, 5)  # neither is a SWE-bench repository


def _frontier(windows, fonts, readers, pages=3):
    ocr = filled_section("single_read", {"ocr": {"frontier_pages": pages, "sample_frontier_pages": pages,
                                                 "sample_frontier_fonts": []}})["ocr"]
    return study.frontier(windows, fonts, QWEN, RenderSettings.from_config({}), ocr, seed=1, readers=readers)


def test_a_page_counts_at_its_lowest_reader_so_two_good_medians_can_make_a_bad_one(monkeypatch, windows):
    """Each reader alone reads a median .95, but they fail on different pages: two of three
    pages have a reader below .93, so the both-reader median is not readable."""
    _scripted_readers(monkeypatch, {"rapidocr": {7.0: [0.95, 0.80, 0.95]}, "tesseract": {7.0: [0.80, 0.95, 0.95]}})
    row = _frontier(windows, [7.0], ["rapidocr", "tesseract"])[0]
    assert row["rapidocr_median"] == row["tesseract_median"] == 0.95
    assert row["ocr_median"] == 0.80 and row["ocr_min"] == 0.80 and row["ocr_n"] == 3
    assert row["ocr_readers"] == "rapidocr+tesseract" and "tesseract" in row["ocr_protocol"]
    assert row["rapidocr_pages"] == "0.9500;0.8000;0.9500" and row["tesseract_pages"] == "0.8000;0.9500;0.9500"
    assert (row["ocr_ci_low"], row["ocr_ci_high"]) == (0.80, 0.95)  # 3 pages: min to max
    summary = study.frontier_summary([row], guard_threshold=0.93)["qwen3.5"]
    assert summary["best_ratio_at_ocr_0.93"] is None and summary["guard_px"] is None
    assert summary["per_reader"]["rapidocr"]["guard_px"] == summary["per_reader"]["tesseract"]["guard_px"] == 7.0
    assert summary["agreement"]["agree_at_threshold"] == pytest.approx(1 / 3)


def test_the_frontier_and_guard_per_reader_and_for_both(monkeypatch, windows):
    """rapidocr clears .93 from 6 px, Tesseract from 7 px: each reader's guard and best ratio
    are its own, the both-reader ones those of 7 px; one reader alone is its own frontier."""
    good, poor = [0.95, 0.96, 0.94], [0.85, 0.90, 0.86]
    _scripted_readers(monkeypatch, {"rapidocr": {6.0: good, 7.0: good, 8.0: good},
                                    "tesseract": {6.0: poor, 7.0: good, 8.0: good}})
    rows = _frontier(windows, [6.0, 7.0, 8.0], ["rapidocr", "tesseract"])
    ratio = {r["font_px"]: r["realized_ratio_median"] for r in rows}
    assert ratio[6.0] > ratio[7.0] > ratio[8.0]
    s = study.frontier_summary(rows, guard_threshold=0.93)["qwen3.5"]
    assert s["readers"] == ["rapidocr", "tesseract"]
    assert (s["guard_px"], s["best_ratio_at_ocr_0.93"], s["font_at_ocr_0.93"]) == (7.0, ratio[7.0], 7.0)
    rapid, tess = s["per_reader"]["rapidocr"], s["per_reader"]["tesseract"]
    assert (rapid["guard_px"], rapid["best_ratio_at_ocr_0.93"]) == (6.0, ratio[6.0])
    assert (tess["guard_px"], tess["best_ratio_at_ocr_0.93"]) == (7.0, ratio[7.0])
    assert rapid["best_ratio_at_ocr_0.93_ci"] == [ratio[6.0], ratio[6.0]]  # .94 is the lowest page: sure
    assert tess["best_ratio_at_ocr_0.90_ci"] == [ratio[7.0], ratio[6.0]]  # 6 px reaches .90 only at its high end
    assert s["guard_px_ci"] == [7.0, 7.0] and s["pages_per_font"] == 3
    agree = s["agreement"]
    assert agree["pages"] == 9 and agree["agree_at_threshold"] == pytest.approx(6 / 9)
    assert agree["per_font"]["6"]["median_difference"] == pytest.approx(-0.08)  # of -.10, -.06, -.08

    monkeypatch.setattr(study, "ocr_page_accuracy", lambda res, text, page, cache, reader: 0.95)
    alone = _frontier(windows, [6.0], ["rapidocr"])[0]
    assert alone["ocr_median"] == alone["rapidocr_median"] == 0.95 and alone["tesseract_median"] is None
    s1 = study.frontier_summary([alone], guard_threshold=0.93)["qwen3.5"]
    assert s1["readers"] == ["rapidocr"] and "agreement" not in s1 and list(s1["per_reader"]) == ["rapidocr"]


def test_frontier_summary_json_names_tesseract_when_it_reads(tmp_path, monkeypatch):
    _scripted_readers(monkeypatch, {"rapidocr": {7.0: [0.95]}, "tesseract": {7.0: [0.94]}})
    monkeypatch.setattr(study, "available_readers", lambda: ["rapidocr", "tesseract"])
    cfg = filled_section("single_read", {"seed": 3, "ocr": {"frontier_fonts": [7], "frontier_windows": 1, "frontier_pages": 1,
                                                          "frontier_packages": ["jinja2"], "sample_frontier_fonts": []}})
    study_frontier_part(cfg, "qwen3.5", QWEN["qwen3.5"], tmp_path / "part.parquet")
    study_frontier([tmp_path / "part.parquet"], cfg, QWEN, tmp_path / "frontier.csv", tmp_path / "summary.json")
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["readers"] == ["rapidocr", "tesseract"] and "every reader" in summary["readable_page"]
    entry = summary["per_backbone"]["qwen3.5"]
    assert entry["per_reader"]["tesseract"]["best_ratio_at_ocr_0.93"] == entry["best_ratio_at_ocr_0.93"] > 1
    assert entry["best_ratio_at_ocr_0.93_ci"] == [entry["best_ratio_at_ocr_0.93"]] * 2


def test_the_medians_interval_comes_from_order_statistics():
    assert median_ci([]) == (None, None, None, None)
    med, low, high, level = median_ci([0.9, 0.8, 0.95, 0.97, 0.91, 0.93])
    assert (med, low, high) == (pytest.approx(0.92), 0.8, 0.97) and level == pytest.approx(1 - 2 / 64)
    med, low, high, level = median_ci(range(1, 21))
    assert (med, low, high) == (10.5, 6, 15) and level == pytest.approx(0.9586, abs=1e-4)  # the textbook n=20 interval
    assert median_ci([0.5, 0.7], level=0.95)[1:3] == (0.5, 0.7)  # too few values: min to max, low coverage


def test_the_workflow_names_the_readers_the_renderer_finds(monkeypatch):
    """The frontier rule's `readers` param (read while the DAG is built, without importing the
    renderer) lists what swevis.render.ocr reads with, installed or not; so installing
    Tesseract changes the param, and Snakemake reruns the frontier."""
    import shutil

    from swevis.render.ocr import available_readers
    from swevis.workflow import ocr_readers

    assert ocr_readers() == available_readers()
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    assert ocr_readers() == available_readers() == ["rapidocr"]
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: f"/usr/bin/{name}")
    assert ocr_readers() == available_readers() == ["rapidocr", "tesseract"]


def test_the_frontier_part_reads_with_the_readers_it_is_given(tmp_path, monkeypatch):
    seen = []
    monkeypatch.setattr(study, "ocr_page_accuracy", lambda res, text, page, cache, reader: seen.append(reader) or 0.95)
    cfg = filled_section("single_read", {"seed": 3, "ocr": {"frontier_fonts": [7], "frontier_windows": 1, "frontier_pages": 1,
                                                          "frontier_packages": ["jinja2"], "sample_frontier_fonts": []}})
    rows = study_frontier_part(cfg, "qwen3.5", QWEN["qwen3.5"], tmp_path / "part.parquet", readers=["rapidocr"])
    assert seen == ["rapidocr"] and rows[0]["ocr_readers"] == "rapidocr" and rows[0]["tesseract_median"] is None


def test_a_new_tesseract_read_setting_reruns_the_frontier_parts(monkeypatch):
    """The frontier's parts take how Tesseract reads (tesseract.READ in words) as a param, so a
    new setting rereads their pages; without the program the param is None."""
    import dataclasses
    import shutil
    from pathlib import Path

    from swevis.render import tesseract
    from swevis.workflow import tesseract_reading

    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    assert tesseract_reading() is None
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: f"/usr/bin/{name}")
    shipped = tesseract_reading()
    assert shipped == tesseract.READ.describe()
    monkeypatch.setattr(tesseract, "READ", dataclasses.replace(tesseract.READ, gamma=1.0))
    assert tesseract_reading() != shipped
    rules = (Path(__file__).resolve().parents[2] / "rules" / "single_read.smk").read_text()
    part = rules[rules.index("rule single_read_frontier_part:"):rules.index("rule single_read_frontier:")]
    assert "tesseract=tesseract_reading()" in part
