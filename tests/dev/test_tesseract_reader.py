"""swevis_dev.tesseract_reader (benchmarks/bench_tesseract_reader.py): its tuning windows are
neither SWE-bench Verified repositories nor the frontier's, its setting names build the reader's
settings, and its guard is the smallest size from which every median clears the threshold."""

import pytest

from swevis.config import schema_defaults
from swevis.render import tesseract
from swevis.render.guards import smallest_clearing
from swevis_dev import tesseract_reader as bench


def test_tuning_windows_are_not_the_frontiers_nor_verified_repositories():
    frontier = set(schema_defaults("single_read")["ocr"]["frontier_packages"])
    assert not set(bench.PACKAGES) & (frontier | bench.VERIFIED_PACKAGES)
    bench.check_packages(bench.PACKAGES)
    for bad in (["click", "jinja2"], ["sympy"]):
        with pytest.raises(SystemExit, match="Verified repositories or the frontier"):
            bench.check_packages(bad)


def test_setting_names_change_the_shipped_setting_word_by_word():
    assert bench.read_settings("read") == tesseract.READ
    s = bench.read_settings("s4+bicubic+otsu+psm4+oem1+dpi300+nodict+darkest+ascii+gamma2+sharpen50+wordy")
    assert (s.scale, s.resample, s.levels, s.psm, s.oem, s.dpi) == (4, "bicubic", "otsu", 4, 1, 300)
    assert (s.dictionaries, s.grey, s.charset, s.gamma, s.sharpen, s.line_y) == (False, "darkest", "ascii", 2.0, 50, False)
    assert bench.read_settings("any+luma+levels-none+dict+liney+gamma1") == tesseract.ReadSettings(
        **{**tesseract.READ.__dict__, "charset": "any", "grey": "luma", "levels": "none", "dictionaries": True,
           "line_y": True, "gamma": 1.0})
    latin = bench.read_settings("langLatin", "/models")
    assert (latin.lang, latin.tessdata_dir) == ("Latin", "/models") and bench.read_settings("read").tessdata_dir is None
    with pytest.raises(SystemExit, match="unknown setting word 'sauvola'"):
        bench.read_settings("s4+sauvola")


def test_the_guard_is_the_smallest_size_from_which_every_median_clears():
    assert smallest_clearing({5.75: 0.94, 6.0: 0.92, 6.5: 0.95, 7.0: 0.96}, 0.93) == 6.5
    assert smallest_clearing({7.0: 0.96, 5.75: 0.94}, 0.93) == 5.75  # sizes in any order
    assert smallest_clearing({5.75: 0.94, 7.0: 0.90}, 0.93) is None
    assert smallest_clearing({5.75: 0.94, 6.0: None, 7.0: 0.96}, 0.93) == 5.75  # an unread size says nothing


@pytest.mark.parametrize("word", ["gammax", "s0", "gamma0"])
def test_a_bad_setting_value_is_one_line_before_any_page_is_read(word, monkeypatch):
    monkeypatch.setattr(bench.tesseract, "available", lambda: True)
    monkeypatch.setattr("sys.argv", ["bench_tesseract_reader.py", "--settings", f"read+{word}"])
    monkeypatch.setattr(bench, "package_windows", lambda *a: pytest.fail("read pages before checking the settings"))
    with pytest.raises(SystemExit, match=f"bad setting 'read\\+{word}': "):
        bench.main()


def test_a_tessdata_folder_without_the_tsv_config_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setattr(bench.tesseract, "available", lambda: True)
    monkeypatch.setattr("sys.argv", ["bench_tesseract_reader.py", "--tessdata-dir", str(tmp_path)])
    monkeypatch.setattr(bench, "package_windows", lambda *a: pytest.fail("read pages before checking the folder"))
    with pytest.raises(SystemExit, match="no configs/tsv there"):
        bench.main()


@pytest.mark.skipif(not tesseract.available(), reason="needs the tesseract program (Debian: tesseract-ocr)")
def test_a_model_that_is_not_installed_is_one_line_before_any_page_is_read(monkeypatch):
    bench.check_model(tesseract.READ)  # eng, installed with tesseract-ocr
    monkeypatch.setattr("sys.argv", ["bench_tesseract_reader.py", "--settings", "langNoSuchModel"])
    monkeypatch.setattr(bench, "package_windows", lambda *a: pytest.fail("read pages before checking the model"))
    with pytest.raises(SystemExit, match="no Tesseract model 'NoSuchModel'"):
        bench.main()
