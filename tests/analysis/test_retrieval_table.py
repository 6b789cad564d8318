"""Retrieval precision and recall: the run rows' columns (swevis.analysis.load) and
results/table_retrieval.csv (swevis.analysis.retrieval)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from helpers import indexed_repo

from swevis.analysis.load import (
    RETRIEVAL_COLUMNS,
    SUMMARY_FORMAT,
    AnalysisInputError,
    condition_summary,
    records_retrieval,
    rows_frame,
)
from swevis.analysis.retrieval import build_retrieval_table, retrieval_table
from swevis.paths import ConditionKey, ResultsLayout, RunKey

COVERAGE = {"coverage_high": 0.8, "coverage_mid": 0.3}
BOOTSTRAP = {"resamples": 200, "level": 0.95, "seed": 3}
# line 11 removed (inside f) and a pure addition after line 50 (inside g)
PATCH = (
    "diff --git a/pkg/mod.py b/pkg/mod.py\n--- a/pkg/mod.py\n+++ b/pkg/mod.py\n"
    "@@ -10,3 +10,3 @@\n ctx\n-old = 1\n+new = 1\n ctx\n"
    "@@ -50,2 +50,3 @@\n ctx\n+added = 2\n ctx\n"
)
MOD = "\n".join(
    ["def f():" if i == 9 else "def g():" if i == 48 else "    x = 1" if 10 <= i <= 12 or 49 <= i <= 52 else "Y = 0"
     for i in range(1, 61)]
) + "\n"
INSTANCES = [{"instance_id": "acme__widgets-1", "repo": "acme/widgets", "base_commit": "abc", "patch": PATCH}]


def write_run(root: Path, agent: str, viewed: list, committed: list, iid: str = "acme__widgets-1", repeat: int = 0,
              steps: list | None = None) -> Path:
    """A fabricated traj.json and eval.json of one run; returns its condition folder."""
    layout = ResultsLayout(str(root))
    key = RunKey("q", agent, "normal", "text", iid, repeat)
    run = Path(layout.run_dir(key))
    run.mkdir(parents=True, exist_ok=True)
    traj = {
        "format": "swevis-traj-1", "instance_id": iid, "model": "q", "model_id": "q", "backend": "playback",
        "agent": agent, "scope": "normal", "condition": "text", "repeat": repeat, "exit_status": "submitted",
        "steps": steps or [], "phases": {}, "totals": {"prompt_tokens": 10, "completion_tokens": 1},
        "evidence": {"viewed_windows": viewed, "committed_snippets": committed},
    }
    (run / "traj.json").write_text(json.dumps(traj))
    ev = Path(layout.eval_record(key))
    ev.parent.mkdir(parents=True, exist_ok=True)
    ev.write_text(json.dumps({"instance_id": iid, "resolved": False}))
    return Path(layout.condition_dir(ConditionKey("q", agent, "normal", "text")))


def test_the_registry_says_which_agents_record_a_retrieved_context():
    assert records_retrieval("let") and records_retrieval("let-mem") and records_retrieval("prometheus")
    assert not records_retrieval("mini") and not records_retrieval("plb") and not records_retrieval("nosuch")


def test_run_rows_carry_retrieval_columns_from_the_evidence(tmp_path):
    cdir = write_run(tmp_path, "let", [["pkg/mod.py", 1, 20]], [["pkg/mod.py", 45, 55], ["pkg/other.py", 1, 5]])
    s = condition_summary(cdir, INSTANCES, **COVERAGE)
    row = s["rows"][0]
    assert (row["retrieval_files_precision"], row["retrieval_files_recall"]) == (0.5, 1.0)
    # lines: 20 + 11 + 5 retrieved, gold 11 and 50 (the line before the addition) both in
    assert row["retrieval_lines_precision"] == pytest.approx(2 / 36) and row["retrieval_lines_recall"] == 1.0
    assert row["retrieval_symbols_precision"] is None  # no index given
    assert row["evidence_coverage"] == 1.0  # kept beside them
    assert s["retrieval"]["retrieval_lines_recall"] == 1.0
    assert set(rows_frame(s["rows"]).columns) >= set(RETRIEVAL_COLUMNS)


def test_prometheus_runs_are_measured_and_mini_runs_are_not(tmp_path):
    cdir = write_run(tmp_path, "prometheus", [], [["pkg/mod.py", 11, 11]])
    row = condition_summary(cdir, INSTANCES, **COVERAGE)["rows"][0]
    assert row["retrieval_lines_precision"] == 1.0 and row["retrieval_lines_recall"] == 0.5
    cdir = write_run(tmp_path, "mini", [["pkg/mod.py", 1, 60]], [])
    s = condition_summary(cdir, INSTANCES, **COVERAGE)
    assert all(s["rows"][0][c] is None for c in RETRIEVAL_COLUMNS) and s["retrieval"] is None


def test_prometheus_context_units_are_its_retrieved_context(tmp_path):
    """The spans Prometheus's retrieval stage `remember`s are its context units and count as
    retrieved; a remember of another stage, or one the agent got wrong, does not."""
    def remember(phase, body, format_error=False):
        return {"phase": phase, "tool": "remember", "action": f"remember <<'S'\n{body}\nS",
                "format_error": format_error, "observation": {"kind": "text"}}

    steps = [remember("retrieve", '["pkg/mod.py:10-12"]'), remember("retrieve", "pkg/mod.py:49-51\npkg/other.py:1-1"),
             remember("generate", '["pkg/far.py:1-9"]'), remember("retrieve", "not a span", format_error=True)]
    cdir = write_run(tmp_path, "prometheus", [], [], steps=steps)
    row = condition_summary(cdir, INSTANCES, **COVERAGE)["rows"][0]
    assert (row["retrieval_files_precision"], row["retrieval_files_recall"]) == (0.5, 1.0)
    assert row["retrieval_lines_recall"] == 1.0 and row["retrieval_lines_precision"] == pytest.approx(2 / 7)


def test_an_empty_evidence_has_no_precision(tmp_path):
    cdir = write_run(tmp_path, "let", [], [])
    row = condition_summary(cdir, INSTANCES, **COVERAGE)["rows"][0]
    assert row["retrieval_files_precision"] is None and row["retrieval_files_recall"] == 0.0


def test_the_symbol_level_reads_the_instances_index(tmp_path):
    _, idx = indexed_repo(tmp_path / "src", {"pkg/mod.py": MOD})
    idx.close()
    db = tmp_path / "index" / "acme__widgets@abc.sqlite"
    db.parent.mkdir()
    (tmp_path / "src" / "i.sqlite").rename(db)
    cdir = write_run(tmp_path / "results", "let", [["pkg/mod.py", 9, 12]], [])
    row = condition_summary(cdir, INSTANCES, **COVERAGE, indexes=[db])["rows"][0]
    # f holds line 11, g line 50: the window sees f only
    assert row["retrieval_symbols_precision"] == 1.0 and row["retrieval_symbols_recall"] == 0.5
    with pytest.raises(AnalysisInputError, match="acme__widgets-1: no index database acme__widgets@abc.sqlite"):
        condition_summary(cdir, INSTANCES, **COVERAGE, indexes=[])


def _summary(agent: str, rows: list[dict]) -> dict:
    return {"format": SUMMARY_FORMAT, "condition_dir": f"runs/q/{agent}-normal/text", "model": "q", "agent": agent,
            "scope": "normal", "condition": "text", "backend": ["playback"], "rows": rows}


def _run(iid: str, repeat: int = 0, **values) -> dict:
    return {"instance_id": iid, "repeat": repeat, **dict.fromkeys(RETRIEVAL_COLUMNS), **values}


DLOC = pl.DataFrame([
    {"instance_id": iid, "k": k, "level": level, "dloc": 1.0, "bm25": 0.0, "n_gold_hunks": 1,
     "dloc_precision": p, "dloc_recall": r, "bm25_precision": None, "bm25_recall": 0.0}
    for iid, k, level, p, r in [
        ("a", 1, "file", 1.0, 1.0), ("a", 1, "symbol", 0.5, 1.0), ("a", 1, "span", 0.1, 0.5),
        ("b", 1, "file", None, 0.0), ("b", 1, "symbol", None, 0.0), ("b", 1, "span", None, 0.0),
        ("a", 5, "file", 0.2, 1.0), ("a", 5, "symbol", 0.2, 1.0), ("a", 5, "span", 0.05, 1.0),
        ("b", 5, "file", 0.4, 1.0), ("b", 5, "symbol", 0.2, 0.5), ("b", 5, "span", 0.01, 0.5),
    ]
])


def test_the_table_has_a_row_per_retrieving_condition_and_per_dloc_cut_off():
    let = _summary("let", [
        _run("a", 0, retrieval_files_precision=1.0, retrieval_files_recall=1.0, retrieval_lines_recall=0.5),
        _run("a", 1, retrieval_files_precision=0.5, retrieval_files_recall=1.0, retrieval_lines_recall=1.0),
        _run("b", 0, retrieval_files_precision=None, retrieval_files_recall=0.0, retrieval_lines_recall=0.0),
    ])
    mini = _summary("mini", [_run("a")])
    t = retrieval_table([mini, let], DLOC, BOOTSTRAP)
    assert t["agent"].to_list() == ["let", "D_loc", "D_loc"] and t["k"].to_list() == [None, 1, 5]
    r = t.row(0, named=True)
    # files precision: a averages its repeats (0.75), b retrieved nothing (left out)
    assert r["files_precision"] == 0.75 and r["files_precision_ci_low"] == r["files_precision_ci_high"] == 0.75
    assert r["files_recall"] == 0.5 and r["lines_recall"] == pytest.approx((0.75 + 0.0) / 2)
    assert r["files_recall_ci_low"] <= 0.5 <= r["files_recall_ci_high"] and r["files_recall_ci_low"] < r["files_recall_ci_high"]
    assert (r["n"], r["n_runs"], r["n_empty_runs"]) == (2, 3, 1) and r["symbols_recall"] is None
    d1, d5 = t.row(1, named=True), t.row(2, named=True)
    assert d1["backend"] == "offline" and d1["model"] is None and d1["files_precision"] == 1.0 and d1["n_empty_runs"] == 1
    assert d1["lines_recall"] == 0.25 and d1["symbols_precision"] == 0.5
    assert d5["files_precision"] == pytest.approx(0.3) and d5["lines_precision"] == pytest.approx(0.03)
    assert d5["symbols_recall"] == 0.75 and d5["n"] == 2


def test_the_table_is_written_from_files_and_names_an_old_summary(tmp_path):
    let = _summary("let", [_run("a", 0, retrieval_files_precision=1 / 3, retrieval_files_recall=1.0)])
    (tmp_path / "s.json").write_text(json.dumps(let))
    DLOC.write_csv(tmp_path / "loc.csv")
    out = tmp_path / "table_retrieval.csv"
    build_retrieval_table([tmp_path / "s.json"], tmp_path / "loc.csv", BOOTSTRAP, out)
    written = pl.read_csv(out)
    assert written.height == 3 and written["files_precision"][0] == 0.333  # 3 decimals, as a share
    old = {**let, "rows": [{"instance_id": "a", "repeat": 0}]}
    with pytest.raises(AnalysisInputError, match="runs/q/let-normal/text: summary rows lack retrieval_files_precision"):
        retrieval_table([old], DLOC, BOOTSTRAP)
    (tmp_path / "empty.csv").write_text("")
    assert build_retrieval_table([], tmp_path / "empty.csv", BOOTSTRAP, out).height == 0


def test_d_loc_rows_count_the_studys_instances_only(tmp_path):
    """localization_instances.csv also holds the localized sets' rows (tasks.localized_sets):
    the retrieval table's D_loc rows keep the study's."""
    tagged = pl.concat([
        DLOC.with_columns(pl.lit("study").alias("sample")),
        DLOC.with_columns(pl.lit("polyglot").alias("sample"), pl.lit("0.0").cast(pl.Float64).alias("dloc_precision"),
                          ("x" + pl.col("instance_id")).alias("instance_id")),
    ])
    tagged.write_csv(tmp_path / "loc.csv")
    DLOC.write_csv(tmp_path / "plain.csv")
    out = tmp_path / "table_retrieval.csv"
    with_sets = build_retrieval_table([], tmp_path / "loc.csv", BOOTSTRAP, out)
    assert with_sets.equals(build_retrieval_table([], tmp_path / "plain.csv", BOOTSTRAP, out))
    assert with_sets["n_runs"].to_list() == [2, 2]
