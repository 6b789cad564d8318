"""One job per cell (agents.jobs: cell, the default) builds the same tables as one job per run
(agents.jobs: run, the workflow before it): the runs are the same runs, in one process.

The per-cell tables are the tiny study's, built once a worker (conftest.py); the per-run ones
are built in that study's own folder from its tasks, indexes and pre-localizations (every run
and table made anew), its first run set aside meanwhile: a run's
prompts name its workspace by absolute path, so the token counts of a study depend on where
its folder is. The tiny study's cells hold what one process could carry from run to run: two
instances a cell, a pre-localization, pages drawn, LET's two stages."""

import pytest
from helpers import TINY_STUDY, TINY_TARGETS
from helpers import run_snakemake as snakemake
from helpers import study_tables as tables


@pytest.mark.slow
@pytest.mark.xdist_group("tiny_study")
def test_one_job_per_cell_builds_the_tables_one_job_per_run_builds(tiny_study_folder):
    study, first = tiny_study_folder  # the tiny study's folder up to its agents; its first run set aside
    per_cell = tables(first)
    (study / "config.yaml").write_text(TINY_STUDY.replace("agents:\n", "agents:\n  jobs: run\n", 1))
    proc = snakemake(study, *TINY_TARGETS)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "(Rule: run_agent)" in proc.stdout + proc.stderr and "(Rule: run_condition)" not in proc.stdout + proc.stderr
    per_run = tables(study)
    assert {"table1.csv", "table1_long.csv", "table3.csv"} <= set(per_cell)
    assert per_cell == per_run
