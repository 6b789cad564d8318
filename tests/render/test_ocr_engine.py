"""rapidocr's engine settings (swevis.render.ocr.RAPIDOCR_ENGINE) change what a page costs to
read, never what is read: the OCR cache keys a page's words without them."""

import pytest

from swevis.analysis.single_read_windows import matplotlib_source_root
from swevis.render import read_window, render_window
from swevis.render import ocr


def _session_options(engine):
    return [m.session.session.get_session_options() for m in (engine.text_det, engine.text_cls, engine.text_rec)]


@pytest.mark.slow
def test_the_memory_arena_is_applied_and_reads_the_words_rapidocrs_default_reads(monkeypatch):
    from rapidocr import RapidOCR

    path = f"{matplotlib_source_root()}/axes/_axes.py"
    text = read_window(path, 3000, 3011)
    page = render_window(path, 3000, text, 1, "qwen3", "qwen3.5", fonts=[6.0]).pages[0]
    words = ocr.ocr_words(page)
    assert all(o.enable_cpu_mem_arena and o.intra_op_num_threads == 1 for o in _session_options(ocr._engine()))

    without = RapidOCR(params={**ocr.RAPIDOCR_ENGINE, **ocr.RAPIDOCR_LIMITS,
                               "EngineConfig.onnxruntime.enable_cpu_mem_arena": False})
    monkeypatch.setattr(ocr, "_engine", lambda: without)
    assert len(words) > 20 and ocr.ocr_words(page) == words
    assert not any(o.enable_cpu_mem_arena for o in _session_options(without))


def _listing() -> str:
    """An `ls -l` listing of our own: the rows rapidocr's direction classifier turns over."""
    names = ["array", "call", "control", "ffi", "lambda", "literal", "match", "operator", "postfix", "reference"]
    rows = [f"-rw-r--r-- 1 root root {size:>5} Apr 30 09:56 {name}.{ext}"
            for k, name in enumerate(names) for ext, size in (("c", 12000 + 1379 * k), ("h", 262 + 97 * k))]
    return "total 244\n" + "\n".join(rows) + "\n"


@pytest.mark.slow
def test_without_the_direction_classifier_upright_listing_rows_read_and_are_cached_apart(monkeypatch, tmp_path):
    text = _listing()
    result = render_window("listing.txt", 1, text, 3, "qwen3", "qwen3.5", fonts=[14.0],
                           numbers=[None] * text.count("\n"))
    with_cls = ocr.ocr_page_accuracy(result, text, 0)
    key = ocr.OcrCache(tmp_path).key(result.pages[0])

    for name in ("OCR_PROTOCOL", "RAPIDOCR_LIMITS"):
        monkeypatch.setattr(ocr, name, getattr(ocr, name))  # restored after the test
    ocr.read_without_direction_classifier()
    try:
        without = ocr.ocr_page_accuracy(result, text, 0)
        assert ocr.OcrCache(tmp_path).key(result.pages[0]) != key and "no direction classifier" in ocr.protocol()
    finally:
        ocr._engine.cache_clear()
    assert without > 0.98 > 0.9 > with_cls  # .69 with it (rapidocr 3), every row read without
