"""The held-out localization set (benchmarks/heldout_localization/): cases written without
looking at the localizer, never used to tune it. Its data must be valid, and D_loc must beat
BM25 alone at the file level there too. The symbol and span numbers are reported by
benchmarks/bench_localize.py, not asserted: on nine cases they say how far the tuned
constants carry, which a test must not turn into a tuning target."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from swevis.index import build_index, open_index
from swevis.localize.coverage import gold_hunks, gold_symbols
from swevis.localize.evaluate import evaluate_instance, summarize

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from bench_localize import HELDOUT, heldout_rows  # noqa: E402

ROWS = heldout_rows(HELDOUT)


def test_the_set_has_cases_over_every_bundled_repo():
    assert len(ROWS) >= 9
    assert {r["repo"] for r in ROWS} == {"ledgerkit", "stratconf", "tabulon"}
    assert all(r["problem_statement"].strip() and gold_hunks(r["patch"]) for r in ROWS)


@pytest.mark.parametrize("row", ROWS, ids=[r["instance_id"] for r in ROWS])
def test_gold_patch_applies_to_its_repo(row, tmp_path):
    repo = tmp_path / row["repo"]
    shutil.copytree(row["repo_dir"], repo)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (tmp_path / "gold.diff").write_text(row["patch"])
    proc = subprocess.run(["git", "-C", str(repo), "apply", "--check", str(tmp_path / "gold.diff")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module")
def indexes(tmp_path_factory):
    root = tmp_path_factory.mktemp("heldout-index")
    out = {}
    for repo_dir in sorted({r["repo_dir"] for r in ROWS}):
        db = root / (Path(repo_dir).name + ".sqlite")
        build_index(repo_dir, db)
        out[repo_dir] = open_index(db)
    yield out
    for idx in out.values():
        idx.close()


def test_gold_symbols_resolve_and_dloc_beats_bm25_on_files(indexes):
    per = []
    for row in ROWS:
        idx = indexes[row["repo_dir"]]
        assert all(names for _, names in gold_symbols(idx, row["patch"])), row["instance_id"]
        per.extend(evaluate_instance(idx, row))
    files = {r["k"]: r for r in summarize(per) if r["level"] == "file"}
    assert files[5]["dloc"] == 1.0
    assert all(files[k]["dloc"] >= files[k]["bm25"] for k in files)
    assert files[1]["dloc"] > files[1]["bm25"]
