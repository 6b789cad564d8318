"""The whole chain through Snakemake on a tiny config: tasks -> index -> pre-localization ->
agents (playback) -> local harness -> summaries -> tables; and rerunning one deleted condition."""

import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import polars as pl
import pytest
from helpers import TINY_TARGETS
from helpers import run_snakemake as snakemake

from swevis.paths import eval_path


def finished_rules(proc: subprocess.CompletedProcess) -> Counter:
    return Counter(re.findall(r"Finished jobid: \d+ \(Rule: (\w+)\)", proc.stdout + proc.stderr))


@pytest.mark.slow
@pytest.mark.xdist_group("tiny_study")
def test_tiny_matrix_end_to_end_and_rerun_one_condition(tiny_study):
    study, first = tiny_study  # a copy of the study after its first run, to Tables 1 and 3 (conftest.py)
    done = finished_rules(first)
    assert done["run_condition"] == 5 and done["evaluate_condition"] == 5 and done["prelocalize"] == 2
    assert "run_agent" not in done  # one job per cell (agents.jobs: cell)
    table = pl.read_csv(study / "results" / "table1.csv")
    assert set(table["backend"]) == {"playback"}
    plb = table.filter((pl.col("agent") == "plb") & (pl.col("scope") == "normal")).row(0, named=True)
    assert plb["acc_mini"] == plb["acc_text"] == plb["acc_r3"] == 100.0
    long = pl.read_csv(study / "results" / "table1_long.csv")
    tokens = {
        (r["agent"], r["column"]): r["mean"]
        for r in long.filter((pl.col("metric") == "prompt_tokens") & (pl.col("scope") == "normal")).iter_rows(named=True)
    }
    assert tokens[("plb", "r3")] < tokens[("plb", "text")] < tokens[("mini", "mini")]

    # delete one condition: exactly its jobs and the tables run again
    shutil.rmtree(study / "results" / "runs" / "qwen3.5" / "plb-normal" / "r3")
    second = snakemake(study, *TINY_TARGETS)
    assert second.returncode == 0, second.stderr[-4000:]
    assert finished_rules(second) == Counter(
        {"run_condition": 1, "evaluate_condition": 1, "summarize_condition": 1, "tables": 1}
    )
    log = (study / "results" / "logs" / "runs" / "qwen3.5" / "plb-normal" / "r3.log").read_text()
    assert "2 runs made, 0 current" in log
    # and an up-to-date rerun does nothing
    third = snakemake(study, *TINY_TARGETS)
    assert third.returncode == 0 and "Nothing to be done" in third.stdout + third.stderr

    # delete one run's folder: its cell's job makes that run only, once
    cell = study / "results" / "runs" / "qwen3.5" / "let-normal" / "text"
    kept = (cell / "swevis-samples__tabulon-305" / "traj.json").stat().st_mtime_ns
    shutil.rmtree(cell / "swevis-samples__ledgerkit-117")
    one = snakemake(study, *TINY_TARGETS)
    assert one.returncode == 0, one.stderr[-4000:]
    assert finished_rules(one) == Counter(
        {"run_condition": 1, "evaluate_condition": 1, "summarize_condition": 1, "tables": 1}
    )
    log = (study / "results" / "logs" / "runs" / "qwen3.5" / "let-normal" / "text.log").read_text()
    assert log.rstrip().splitlines()[-1].endswith("1 runs made, 1 current")
    assert (cell / "swevis-samples__ledgerkit-117" / "traj.json").exists()
    assert (cell / "swevis-samples__tabulon-305" / "traj.json").stat().st_mtime_ns == kept
    again = snakemake(study, *TINY_TARGETS)
    assert again.returncode == 0 and "Nothing to be done" in again.stdout + again.stderr

    # snakemake --report on a few targets: their views (rules/report.smk) are built, then
    # bundled with their captions, which name the backend
    views = ["results/report/table1.html", "results/report/table3.html"]
    report = snakemake(study, "--report-after-run", "--report", "report.html", *views)
    assert report.returncode == 0, report.stderr[-2000:]
    assert finished_rules(report) == Counter({"report_view_table1": 1, "report_view_table3": 1})
    html = (study / "report.html").read_text(errors="replace")
    assert "table1.html" in html and "qwen3.5 = playback" in html and "Table 3" in html


@pytest.mark.slow
def test_repeats_run_in_their_own_folders_and_reach_the_tables(tmp_path: Path):
    (tmp_path / "config.yaml").write_text(
        "tasks: {source: bundled, instance_ids: [swevis-samples__tabulon-305]}\n"
        "models:\n  qwen3.5: {backend: playback, model_id: q, tokenizer: qwen3, image_family: qwen3.5}\n"
        "agents:\n  repeats: 2\n  matrix:\n    - {agent: mini, scope: normal, conditions: [text]}\n"
        "    - {agent: plb, scope: normal, conditions: [text]}\n"
    )
    proc = snakemake(tmp_path, "results/table1_long.csv")
    assert proc.returncode == 0, proc.stderr[-4000:]
    run = tmp_path / "results" / "runs" / "qwen3.5" / "plb-normal" / "text" / "swevis-samples__tabulon-305"
    for repeat, folder in enumerate((run, run / "repeat-1")):
        assert (folder / "traj.json").exists() and eval_path(run.parent, run.name, repeat).exists()
    assert '"repeat": 1' in (run / "repeat-1" / "traj.json").read_text()
    long = pl.read_csv(tmp_path / "results" / "table1_long.csv")
    cell = long.filter(
        (pl.col("agent") == "plb") & (pl.col("scope") == "normal") & (pl.col("column") == "text") & (pl.col("metric") == "accuracy")
    )
    assert cell["repeats"].to_list() == [2] and cell["n_runs"].to_list() == [2] and cell["n"].to_list() == [1]
    assert cell["sd_repeats"].to_list() == [0.0]  # playback repeats are identical
