"""benchmarks/bench_symbol_coverage.py: changed lines inside symbols, and innermost definitions
(by its reference list, not the extractor's) the index names."""

from __future__ import annotations

import importlib.util
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).parents[2]
PAIRS = ROOT / "tests" / "fixtures" / "index" / "coverage"


def _bench():
    spec = importlib.util.spec_from_file_location("bench_symbol_coverage", ROOT / "benchmarks" / "bench_symbol_coverage.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_fixture_fix_is_covered_by_the_index():
    bench = _bench()
    for path, before, after in bench.pair_fixes(PAIRS):
        counts = defaultdict(int)
        bench.measure_fix(path, before, after, counts)
        assert counts["lines"] > 0 and counts["defs"] > 0, path
        assert (counts["lines_in"], counts["defs_named"]) == (counts["lines"], counts["defs"]), path


def test_a_change_outside_every_symbol_and_an_unnamed_definition_count_against_the_index():
    bench = _bench()
    counts = defaultdict(int)
    before = b"const x = 1;\nfoo(function () {\n  return 1;\n});\n"
    after = b"const x = 2;\nfoo(function () {\n  return 2;\n});\n"
    bench.measure_fix("a.js", before, after, counts)
    # line 1 is in no symbol and no definition; an anonymous callback is no reference definition
    assert dict(counts) == {"lines": 4, "lines_in": 0}
    counts = defaultdict(int)
    bench.measure_fix("a.py", b"def f():\n    return 1\n", b"def f():\n    return 2\n", counts)
    assert dict(counts) == {"lines": 2, "lines_in": 2, "defs": 2, "defs_named": 2}
