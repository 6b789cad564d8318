"""swevis_dev.legibility (benchmarks/bench_legibility.py): it refuses windows of SWE-bench
Verified repositories, a guard table of other windows than the renderer's, and a guard table
inside the package (the shipped table is reviewed, not written by a benchmark)."""

import json
from argparse import Namespace
from importlib.resources import files
from pathlib import Path

import pytest

import swevis
from swevis_dev import legibility


@pytest.mark.parametrize("argv, message", [
    (["--packages", "click", "matplotlib"], "matplotlib are SWE-bench Verified repositories"),
    (["--packages", "click", "--write-guards", "table.json"], "--write-guards: the renderer's table is measured on"),
])
def test_bench_legibility_refuses_verified_packages_and_a_guard_table_of_other_windows(argv, message, monkeypatch):
    monkeypatch.setattr("sys.argv", ["bench_legibility.py", *argv])
    monkeypatch.setattr(legibility, "package_windows", lambda *a: pytest.fail("drew windows before checking"))
    with pytest.raises(SystemExit, match=message):
        legibility.main()


def test_a_guard_table_inside_the_package_is_refused_before_any_window_is_drawn(monkeypatch):
    shipped = Path(swevis.__file__).resolve().parent / "data" / "legibility_guards.json"
    monkeypatch.setattr("sys.argv", ["bench_legibility.py", "--write-guards", str(shipped)])
    monkeypatch.setattr(legibility, "package_windows", lambda *a: pytest.fail("drew windows before checking"))
    with pytest.raises(SystemExit, match="inside the swevis package; write the table elsewhere"):
        legibility.main()


def test_guards_merge_into_a_copy_of_the_shipped_table_and_runs_add_up(tmp_path):
    shipped_text = files("swevis").joinpath("data", "legibility_guards.json").read_text()
    shipped = json.loads(shipped_text)
    out = tmp_path / "out" / "legibility_guards.json"
    args = Namespace(modes=["bicubic"], line_height=1.2, threshold=0.93, window_list=[{}] * 2,
                     packages=legibility.PACKAGES, seed=1)
    rows = [{"font": "DejaVu Sans Mono", "mode": "bicubic", "size_px": size, "rapidocr": acc, "cell_px2": 20.0}
            for size, acc in [(5.5, 0.90), (6.0, 0.95), (6.5, 0.96)]]
    legibility.write_guards(out, ["DejaVu Sans Mono"], args, rows)
    table = json.loads(out.read_text())
    mine = [r for r in table["rows"] if r["font_mode"] == "supersample-bicubic" and r["line_height"] == 1.2]
    assert [(r["min_font_px"], r["windows"]) for r in mine] == [(6.0, 2)]
    assert len(table["rows"]) == len(shipped["rows"])  # the shipped row of that drawing replaced, the others kept
    args.modes = ["aa+lh1.3"]
    legibility.write_guards(out, ["DejaVu Sans Mono"], args, [{**r, "mode": "aa+lh1.3"} for r in rows])
    table = json.loads(out.read_text())
    assert len(table["rows"]) == len(shipped["rows"]) + 1 and (6.0, 2) in {
        (r["min_font_px"], r["windows"]) for r in table["rows"] if r["font_mode"] == "supersample-bicubic"}
    assert files("swevis").joinpath("data", "legibility_guards.json").read_text() == shipped_text
