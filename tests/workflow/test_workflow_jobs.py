"""One job per cell (agents.jobs: cell, the default) builds the same tables as one job per run
(agents.jobs: run, the workflow before it): the runs are the same runs, in one process.

Both are built in the same folder in turn: a run's prompts name its workspace by absolute
path, so the token counts of a study depend on where its folder is. The study is the tiny
study's two instances in three of its cells, mini's text and PLB's and LET's r3 (a
pre-localization, pages drawn, LET's two stages): what one process could carry from run to
run is there."""

import csv
import shutil
from pathlib import Path

import pytest
from helpers import TINY_STUDY, TINY_TARGETS
from helpers import run_snakemake as snakemake

STUDY = TINY_STUDY.replace("scope: normal, conditions: [text, r3]", "scope: normal, conditions: [r3]")
# columns that say when or with what a table was made, not what it measured
VOLATILE = ("config_hash", "created", "git_commit", "swevis_version", "wall_time_s", "duration_s")


def table_rows(path: Path) -> list[dict]:
    with open(path, newline="") as fh:
        return [{k: v for k, v in row.items() if k not in VOLATILE} for row in csv.DictReader(fh)]


def build(study: Path, jobs: str) -> dict[str, list[dict]]:
    """The tiny study's tables with agents.jobs `jobs`, built from nothing in `study`."""
    for made in ("results", ".snakemake", ".swevis-cache"):
        shutil.rmtree(study / made, ignore_errors=True)
    (study / "config.yaml").write_text(STUDY.replace("agents:\n", f"agents:\n  jobs: {jobs}\n", 1))
    proc = snakemake(study, *TINY_TARGETS)
    assert proc.returncode == 0, proc.stderr[-4000:]
    rule = {"cell": "run_condition", "run": "run_agent"}[jobs]
    assert f"(Rule: {rule})" in proc.stdout + proc.stderr
    return {p.name: table_rows(p) for p in sorted((study / "results").glob("*.csv"))}


@pytest.mark.slow
def test_one_job_per_cell_builds_the_tables_one_job_per_run_builds(tmp_path):
    study = tmp_path / "study"
    study.mkdir()
    per_run = build(study, "run")
    per_cell = build(study, "cell")
    assert {"table1.csv", "table1_long.csv", "table3.csv"} <= set(per_cell)
    assert per_cell == per_run
