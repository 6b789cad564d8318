"""The tiny study, run once a worker and copied per test: the end-to-end test, the report's
browser test and the sample-growth tests start from it (each took its own run before); the
jobs and the killed-run tests run its agent cells again in its folder, from its tasks, indexes
and pre-localizations."""

import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import TINY_STUDY, TINY_TARGETS, run_snakemake


@pytest.fixture(scope="session")
def tiny_study_run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """The tiny study's first run to Tables 1 and 3: (its folder, the run). Use tiny_study,
    which copies it, or tiny_study_folder; the tests that do are in one xdist group, so one
    worker runs it once and they take turns."""
    work = tmp_path_factory.mktemp("tiny-study")
    (work / "config.yaml").write_text(TINY_STUDY)
    return work, run_snakemake(work, *TINY_TARGETS)


@pytest.fixture
def tiny_study(tiny_study_run, tmp_path) -> tuple[Path, subprocess.CompletedProcess]:
    """A copy of the tiny study after its first run (results and Snakemake's records, mtimes
    kept, so it is up to date where it was), and that run."""
    base, first = tiny_study_run
    assert first.returncode == 0, (first.stdout + first.stderr)[-4000:]
    work = tmp_path / "study"
    shutil.copytree(base, work, symlinks=True)
    return work, first


# what the tiny study's agent cells made and what is made from it: every run, its grade and
# summary, their logs and the tables (results/*.csv); the tasks, checkouts, indexes,
# pre-localizations and the environments' validation stay
AGENT_OUTPUTS = ("runs", "logs/runs", "logs/harness", "logs/summaries", "logs/analysis")


@pytest.fixture
def tiny_study_folder(tiny_study_run, tmp_path) -> tuple[Path, Path]:
    """(the tiny study's own folder up to its agents, its first run moved aside), put back after
    the test: for a test that runs the study's agent cells again at the same absolute path (a
    run's prompts name its workspace, so token counts depend on the folder's path). The folder
    holds a copy of the first run without AGENT_OUTPUTS and tables, so the test builds every
    cell and table anew but not the tasks, indexes and pre-localizations the cells read. The
    group's tests take turns."""
    base, first = tiny_study_run
    assert first.returncode == 0, (first.stdout + first.stderr)[-4000:]
    kept = tmp_path / "tiny-study-first-run"
    base.rename(kept)  # one pytest temporary root: a rename, mtimes and all
    shutil.copytree(kept, base, symlinks=True)
    for made in AGENT_OUTPUTS:
        shutil.rmtree(base / "results" / made)  # each is there: a missing one fails, not passes
    for table in (base / "results").glob("*.csv"):
        table.unlink()
    try:
        yield base, kept
    finally:
        shutil.rmtree(base)
        kept.rename(base)
