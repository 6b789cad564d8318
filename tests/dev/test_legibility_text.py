"""swevis_dev.legibility_text (benchmarks/bench_legibility_text.py): the non-code fixtures (a test
log, tracebacks, listings) render as plain text and are read whole by each reader, a text
counted at its lowest reader, medians per size and kind."""

import pytest

from swevis.render import RenderSettings
from swevis_dev import legibility_text as bench


def test_the_fixtures_are_the_three_kinds_of_re_sent_text():
    items = bench.texts_of(sorted(bench.FIXTURES.glob("*.txt")), 0, 1)
    assert [i["kind"] for i in items] == ["listing", "pytest_log", "traceback"]
    assert all(40 <= len(i["text"].splitlines()) <= 120 for i in items)
    assert "Traceback (most recent call last):" in items[2]["text"] and "FAILED tests/" in items[1]["text"]


def test_each_reader_reads_every_page_and_a_text_counts_at_its_lowest(monkeypatch):
    read = []

    def scripted(res, text, page, cache, reader):
        read.append((reader, page, res.layout["font_px"]))
        return {"rapidocr": 0.96, "tesseract": 0.90}[reader]

    monkeypatch.setattr(bench, "ocr_page_accuracy", scripted)
    items = bench.texts_of(sorted(bench.FIXTURES.glob("*.txt")), 0, 1)
    settings = RenderSettings.from_config({})
    rows = [bench.read_text(i, size, "qwen3.5", settings, ["rapidocr", "tesseract"]) for size in (6.0, 8.0) for i in items]
    assert all(r["rapidocr"] == 0.96 and r["tesseract"] == 0.90 and r["both"] == 0.90 for r in rows)
    assert len(read) == 2 * sum(r["pages"] for r in rows) and {f for _, _, f in read} == {6.0, 8.0}
    small = {r["name"]: r["realized_ratio"] for r in rows if r["size_px"] == 6.0}
    assert all(small[r["name"]] > r["realized_ratio"] for r in rows if r["size_px"] == 8.0)  # smaller text, cheaper
    summary = bench.summary(rows, ["rapidocr", "tesseract"])
    assert [(s["size_px"], s["kind"]) for s in summary][:4] == [(6.0, "listing"), (6.0, "pytest_log"), (6.0, "traceback"),
                                                                (6.0, "all non-code")]
    assert summary[3]["texts"] == 3 and summary[3]["both"] == 0.90
