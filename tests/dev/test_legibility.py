"""swevis_dev.legibility (benchmarks/bench_legibility.py): it refuses windows of SWE-bench
Verified repositories, a guard table of other windows than the renderer's, and a guard table
inside the package (the shipped table is reviewed, not written by a benchmark)."""

import pytest

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
