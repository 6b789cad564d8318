"""swevis_dev.symbol_coverage (benchmarks/bench_symbol_coverage.py): changed lines inside
symbols, and innermost definitions (by its reference list, not the extractor's) the index names."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

from swevis_dev import symbol_coverage as bench

PAIRS = Path(__file__).parents[1] / "fixtures" / "index" / "coverage"


def test_every_fixture_fix_is_covered_by_the_index():
    for path, before, after in bench.pair_fixes(PAIRS):
        counts = defaultdict(int)
        bench.measure_fix(path, before, after, counts)
        assert counts["lines"] > 0 and counts["defs"] > 0, path
        assert (counts["lines_in"], counts["defs_named"]) == (counts["lines"], counts["defs"]), path


def test_a_change_outside_every_symbol_and_an_unnamed_definition_count_against_the_index():
    counts = defaultdict(int)
    before = b"const x = 1;\nfoo(function () {\n  return 1;\n});\n"
    after = b"const x = 2;\nfoo(function () {\n  return 2;\n});\n"
    bench.measure_fix("a.js", before, after, counts)
    # line 1 is in no symbol and no definition; an anonymous callback is no reference definition;
    # the lines outside every symbol are counted by the top-level statement they are in
    assert dict(counts) == {"lines": 4, "lines_in": 0, "outside: lexical_declaration: number": 2,
                            "outside: expression_statement: call of foo": 2}
    counts = defaultdict(int)  # a list of exported names is no table: no definition, no symbol
    bench.measure_fix("a.js", b"module.exports = { a };\n", b"module.exports = { a, b };\n", counts)
    assert dict(counts) == {"lines": 2, "lines_in": 0, "outside: expression_statement: object": 2}
    counts = defaultdict(int)
    bench.measure_fix("a.py", b"def f():\n    return 1\n", b"def f():\n    return 2\n", counts)
    assert dict(counts) == {"lines": 2, "lines_in": 2, "defs": 2, "defs_named": 2}


def test_the_statements_outside_every_symbol_are_listed_by_kind(tmp_path, capsys):
    (tmp_path / "m.before.js").write_text("const a = require('a');\n// old\nsettings.n = 1;\n")
    (tmp_path / "m.after.js").write_text("const a = require('b');\n// new\nsettings.n = 2;\n")
    assert bench.main(["--pairs", str(tmp_path), "--outside", "2"]) == 0
    out = capsys.readouterr().out
    assert "| javascript | 1 | 6 | 0.0% | 0 | 0.0% |" in out
    assert out.endswith("| javascript | comment | 2 |\n| javascript | expression_statement: number | 2 |\n")
