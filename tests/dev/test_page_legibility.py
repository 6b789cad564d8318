"""swevis_dev.page_legibility (benchmarks/bench_page_legibility.py) on a fixture trajectory: the
replay's pages are recorded (and only those sent), drawn as the very images the replay sends,
sampled with a seed, and a page counts at its lower reading."""

import base64
import dataclasses
from pathlib import Path

import pytest

from swevis.agents.observation import pages as page_module
from swevis.config import load_config
from swevis.render import tesseract
from swevis_dev import page_legibility as bench

ROOT = Path(__file__).resolve().parents[2]
TRAJ = ROOT / "tests" / "fixtures" / "trajectories" / "mini1__swevis-samples__ledgerkit-117.traj.json"
NOT_INSTALLED = "tesseract-ocr is not installed here (Debian: apt-get install tesseract-ocr; .ci/run installs it)"


@pytest.fixture(scope="module")
def cfg():
    return load_config(ROOT / "config.yaml")


@pytest.fixture(scope="module")
def hist_items(cfg):
    return bench.sent_texts(str(TRAJ), "hist-r3", "qwen3.5", cfg)


def test_the_history_block_sent_as_pages_is_recorded_and_the_hook_closed(hist_items):
    # the block's pieces between its ruler lines (agents.pages.hist_run_chars), each sent as pages
    assert hist_items and all(i["label"].startswith("history-1-4.") for i in hist_items)
    assert all(i["pages"] >= 1 for i in hist_items) and "[assistant]" in hist_items[0]["text"]
    assert page_module._observers == []  # the capture hook is closed after the replay


def test_a_block_kept_as_text_is_not_a_page(cfg, monkeypatch):
    monkeypatch.setattr(page_module.TextPages, "message_tokens", lambda self, content: 10**9)  # pages never cheaper
    assert bench.sent_texts(str(TRAJ), "hist-r3", "qwen3.5", cfg) == []


def test_the_drawn_pages_are_the_images_the_replay_would_send(hist_items, cfg):
    item = hist_items[0]
    _, res = bench.draw(item)
    assert item["how"].min_font_px == cfg["agents"]["pages"]["hist_min_font_px"]  # drawn under the history guard
    sent = dataclasses.replace(item["how"], draw_pages=True).pages(item["text"], item["label"], "calls")
    urls = [p["image_url"]["url"] for p in sent.parts if p.get("type") == "image_url"]
    assert [base64.b64decode(u.split(",", 1)[1]) for u in urls] == res.png_bytes()


def test_the_sample_is_seeded_and_a_page_counts_at_its_lower_reading():
    items = [{"pages": 3}, {"pages": 1}, {"pages": 2}]
    picks = bench.sample_pages(items, 4, 7)
    assert picks == bench.sample_pages(items, 4, 7) and len(set(picks)) == 4
    assert all(p < items[i]["pages"] for i, p in picks)
    assert len(bench.sample_pages(items, 99, 7)) == 6
    rows = [{"rapidocr": a, "tesseract": b, "both": min(a, b), "font_px": 9.0} for a, b in
            [(0.99, 0.95), (0.97, 0.91), (0.80, 0.96)]]
    s = bench.summary("hist-r3", 6, rows, 0.93)
    assert (s["rapidocr"], s["tesseract"], s["both"]) == (0.97, 0.95, 0.91)
    assert s["share"] == pytest.approx(1 / 3) and s["fonts"] == [9.0]
    assert s["both_ci"] == (0.8, 0.95)  # 3 pages: no order-statistic interval narrower than min-max


def test_the_median_interval_narrows_with_the_pages_read():
    rows = [{"rapidocr": v, "tesseract": v, "both": v, "font_px": 8.0} for v in [i / 40 for i in range(40)]]
    s = bench.summary("obs-r3", 40, rows, 0.93)
    assert s["both"] == pytest.approx(0.4875) and s["both_ci"] == (13 / 40, 26 / 40) and s["ci_level"] >= 0.95
    assert "0.325-0.650 (96%)" in bench._line(s)


@pytest.mark.slow
@pytest.mark.skipif(not tesseract.available(), reason=NOT_INSTALLED)
def test_both_readers_read_a_fixture_history_page(hist_items):
    (row,) = bench.read_pages(hist_items, [(0, 0)], None)
    assert row["both"] == min(row["rapidocr"], row["tesseract"])
    assert row["rapidocr"] > 0.8 and row["tesseract"] > 0.8, row
