"""Tesseract as the second OCR reader: its TSV parsed into page-px words, the page upscaled
without new information, a clear error and a skip where the program is absent, and a real
read of a rendered page where it is installed."""

import dataclasses
import hashlib
import io
import shutil
import subprocess

import numpy as np
import pytest
from PIL import Image

from swevis.errors import SwevisError
from swevis.render import ocr, render_window, tesseract
from swevis.render.ocr import OcrCache, available_readers, ocr_page_accuracy

NOT_INSTALLED = "tesseract-ocr is not installed here (Debian: apt-get install tesseract-ocr; .ci/run installs it)"
needs_tesseract = pytest.mark.skipif(not tesseract.available(), reason=NOT_INSTALLED)

TSV = (
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n"
    "1\t1\t0\t0\t0\t0\t0\t0\t900\t300\t-1\t\n"
    "2\t1\t1\t0\t0\t0\t30\t30\t600\t60\t-1\t\n"
    "4\t1\t1\t1\t1\t0\t30\t30\t600\t60\t-1\t\n"
    "5\t1\t1\t1\t1\t1\t30\t30\t90\t30\t91.5\tdef\n"
    "5\t1\t1\t1\t1\t2\t150\t36\t120\t24\t88.0\tfoo(x):\n"
    "5\t1\t1\t1\t1\t3\t300\t36\t30\t24\t10.0\t \n"
    "5\t1\t1\t1\t2\t1\t60\t90\t150\t30\t75.25\treturn\n"
)

CODE = (
    "def parse_header(line, sep=':'):\n"
    "    name, value = line.split(sep, 1)\n"
    "    return name.strip().lower(), value.strip()\n"
    "\n"
    "class Reader:\n"
    "    def __init__(self, stream):\n"
    "        self.stream = stream\n"
    "        self.count = 0\n"
)


def test_tsv_words_are_level_5_rows_with_text_mapped_back_to_page_pixels():
    """Each word at its box's centre; with line_y at its line's y (the level-4 row: 30 + 60 / 2
    = 60 upscaled px) and its own x."""
    words = tesseract.parse_tsv(TSV, scale=3)
    assert words == [(15.0, 25.0, "def"), (16.0, 70.0, "foo(x):"), (35.0, 45.0, "return")]
    assert tesseract.parse_tsv(TSV, scale=1)[0] == (45.0, 75.0, "def")
    lines = tesseract.parse_tsv(TSV, scale=3, line_y=True)
    assert lines == [(20.0, 25.0, "def"), (20.0, 70.0, "foo(x):"), (35.0, 45.0, "return")]  # line 2: no level-4 row
    assert tesseract.parse_tsv("", 3) == []
    assert tesseract.parse_tsv(TSV.splitlines()[0] + "\n", 3) == []  # a blank page: the header alone


def test_a_malformed_tsv_is_a_clear_error_not_a_skip():
    with pytest.raises(SwevisError, match="malformed TSV row"):
        tesseract.parse_tsv(TSV + "5\t1\t1\n", 3)
    with pytest.raises(SwevisError, match="unexpected TSV header"):
        tesseract.parse_tsv("Error opening data file\n", 3)


def test_upscaling_is_greyscale_and_adds_no_information():
    """3x larger and grey; brought back down to the page's size it is the page again (within
    rounding), so the reader sees the same pixels interpolated, nothing new."""
    page = render_window("x.py", 1, CODE, 1, "qwen3", "qwen3.5", fonts=[7.0]).pages[0]
    big = tesseract.upscale(page)
    assert big.mode == "L" and big.size == (page.width * 3, page.height * 3)
    back = big.resize(page.size, Image.Resampling.BOX)
    diff = np.abs(np.asarray(page.convert("L"), dtype=int) - np.asarray(back, dtype=int))
    assert diff.max() <= 48 and diff.mean() < 2.0


def test_a_word_of_quotes_stays_in_its_row():
    """A docstring's quotes sit high in their line: at their own box's y they would start a row
    of their own in swevis.render.ocr's reading order; at their line's y they stay in it."""
    head = TSV.splitlines()[0]
    tsv = "\n".join([head, "4\t1\t1\t1\t1\t0\t0\t0\t300\t60\t-1\t",
                     "5\t1\t1\t1\t1\t1\t0\t0\t30\t12\t80\t\"\"\"", "5\t1\t1\t1\t1\t2\t60\t20\t90\t30\t90\tDocs"])
    lines = ocr._rows_in_order(tesseract.parse_tsv(tsv, 3, line_y=True), line_height=12)
    assert lines == '"""' + " Docs"
    assert ocr._rows_in_order(tesseract.parse_tsv(tsv, 3), line_height=12) == '"""\nDocs'


def test_read_settings_become_tesseract_options_and_the_protocol():
    s = tesseract.ReadSettings(psm=4, oem=1, dpi=300, dictionaries=False, charset="ascii")
    args = s.args()
    assert args[:6] == ["--psm", "4", "--oem", "1", "--dpi", "300"]
    assert "load_system_dawg=0" in args and "load_freq_dawg=0" in args
    whitelist = next(a for a in args if a.startswith("tessedit_char_whitelist="))
    assert " " in whitelist and "`" in whitelist and "\u201c" not in whitelist  # ASCII with the space, no curly quote
    assert tesseract.ReadSettings(charset="any").args() == ["--psm", "6"]
    assert tesseract.ReadSettings() == tesseract.READ  # the defaults are the shipped reader
    other = tesseract.ReadSettings(charset="any", lang="Latin", tessdata_dir="/models")
    assert other.args() == ["--psm", "6", "-l", "Latin", "--tessdata-dir", "/models"]
    assert "-l Latin" in tesseract.protocol(other) and "-l" not in tesseract.READ.args()
    assert tesseract.protocol(s) != tesseract.protocol(tesseract.ReadSettings()) and "<printable ASCII>" in s.describe()
    with pytest.raises(SwevisError, match="bad read settings"):
        tesseract.ReadSettings(levels="sauvola")
    with pytest.raises(SwevisError, match="a model name"):
        tesseract.ReadSettings(lang="")


def test_otsu_splits_a_two_level_histogram_between_its_levels():
    hist = [0] * 256
    hist[40], hist[220] = 300, 2000
    assert 40 <= tesseract.otsu_threshold(hist) < 220
    page = Image.new("L", (20, 10), 230)
    page.paste(60, (5, 3, 12, 7))
    binary = tesseract.prepare(page, tesseract.ReadSettings(scale=2, levels="otsu"))
    assert set(np.unique(np.asarray(binary))) == {0, 255} and binary.size == (40, 20)


def test_the_shipped_setting_is_what_the_program_is_given(monkeypatch):
    """tesseract_words sends READ's options and READ's prepared page, and maps boxes back by
    READ's scale."""
    seen = {}

    def run(cmd, input, **kw):
        seen["cmd"], seen["image"] = cmd, Image.open(io.BytesIO(input))
        body = f"4\t1\t1\t1\t1\t0\t0\t0\t{30 * tesseract.READ.scale}\t{9 * tesseract.READ.scale}\t-1\t\n"
        word = f"5\t1\t1\t1\t1\t1\t0\t0\t{30 * tesseract.READ.scale}\t{9 * tesseract.READ.scale}\t90\tdef\n"
        return subprocess.CompletedProcess(cmd, 0, (TSV.splitlines()[0] + "\n" + body + word).encode(), b"")

    monkeypatch.setattr(tesseract, "available", lambda: True)
    monkeypatch.setattr(subprocess, "run", run)
    page = render_window("x.py", 1, CODE, 1, "qwen3", "qwen3.5", fonts=[7.0]).pages[0]
    assert tesseract.tesseract_words(page) == [(4.5, 15.0, "def")]
    assert seen["cmd"][:3] == ["tesseract", "stdin", "stdout"] and seen["cmd"][-1] == "tsv"
    assert seen["cmd"][3:-1] == tesseract.READ.args()
    assert seen["image"].mode == "L" and seen["image"].size == (page.width * tesseract.READ.scale, page.height * tesseract.READ.scale)
    assert np.array_equal(np.asarray(seen["image"]), np.asarray(tesseract.prepare(page)))


def test_without_the_program_the_reader_says_how_to_install_it(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name, *a, **k: None)
    assert not tesseract.available() and available_readers() == ["rapidocr"]
    with pytest.raises(SwevisError, match="apt-get install tesseract-ocr"):
        tesseract.tesseract_words(Image.new("RGB", (64, 32), "white"))


def test_an_unknown_reader_is_a_clear_error():
    with pytest.raises(SwevisError, match="unknown OCR reader 'easyocr'"):
        ocr.reader_words(Image.new("RGB", (8, 8)), "easyocr")


def test_the_cache_keeps_each_readers_words_apart_and_rapidocr_keys_unchanged(tmp_path, monkeypatch):
    monkeypatch.setattr(tesseract, "tesseract_version", lambda: "5.3.0")
    image = Image.new("RGB", (40, 20), "white")
    cache = OcrCache(tmp_path)
    buf = io.BytesIO()
    image.save(buf, format="PNG", optimize=False)
    old = hashlib.sha256(buf.getvalue())
    old.update(f"\0{ocr.protocol()}\0onnxruntime {ocr._onnxruntime_version()}".encode())
    assert cache.key(image) == cache.key(image, "rapidocr") == old.hexdigest()  # entries already stored stay valid
    assert cache.key(image, "tesseract") != cache.key(image)
    monkeypatch.setattr(tesseract, "tesseract_words", lambda im, settings=None: [(1.0, 2.0, "tess")])
    monkeypatch.setattr(ocr, "ocr_words", lambda im: [(1.0, 2.0, "rapid")])
    assert cache.words(image, "tesseract") == [(1.0, 2.0, "tess")] and cache.words(image) == [(1.0, 2.0, "rapid")]
    assert OcrCache(tmp_path).words(image, "tesseract") == [(1.0, 2.0, "tess")] and cache.misses == 2


@needs_tesseract
def test_tesseract_reads_a_rendered_page_upscaled_and_not_at_send_size(monkeypatch):
    """A real read: at 7 px Tesseract reads the upscaled page well; without the upscaling (scale
    1) it reads far less, which is why the protocol upscales."""
    res = render_window("x.py", 1, CODE, 1, "qwen3", "qwen3.5", fonts=[7.0])
    upscaled = ocr_page_accuracy(res, CODE, 0, reader="tesseract")
    assert upscaled >= 0.85
    monkeypatch.setattr(tesseract, "READ", dataclasses.replace(tesseract.READ, scale=1))  # the page at send size
    assert ocr_page_accuracy(res, CODE, 0, reader="tesseract") < upscaled - 0.2
    assert tesseract.tesseract_version()[0].isdigit() and "tesseract" in ocr.protocol("tesseract")


QUOTED = ('def describe(name, kind="file"):\n    """Return `name` as "quoted" text for the user\'s log."""\n'
          '    label = f"{kind}: \'{name}\'"\n    return "``" + label + "``"\n')


@needs_tesseract
def test_the_shipped_setting_reads_code_quotes_as_ascii():
    """A real read: with Tesseract's whole alphabet its book-trained prior writes curly quotes
    for a code page's straight ones; the shipped setting (printable ASCII) cannot."""
    page = render_window("x.py", 1, QUOTED, 1, "qwen3", "qwen3.5", fonts=[7.0]).pages[0]
    shipped = "".join(t for _, _, t in tesseract.tesseract_words(page))
    whole = "".join(t for _, _, t in tesseract.tesseract_words(page, dataclasses.replace(tesseract.READ, charset="any")))
    assert tesseract.READ.charset == "ascii" and shipped.isascii() and "describe" in shipped
    assert not whole.isascii()


def test_gamma_darkens_the_strokes_it_is_given():
    page = render_window("x.py", 1, CODE, 1, "qwen3", "qwen3.5", fonts=[7.0]).pages[0]
    plain = np.asarray(tesseract.prepare(page, tesseract.ReadSettings(gamma=1.0)), dtype=float)
    dark = np.asarray(tesseract.prepare(page, tesseract.ReadSettings(gamma=2.0)), dtype=float)
    assert tesseract.READ.gamma == 2.0
    assert (dark <= plain).all() and dark.mean() < plain.mean() and (dark[plain == 255] == 255).all()
