"""The tiny study, run once a worker and copied per test: the end-to-end test and the report's
browser test both start from it (each took its own identical run before)."""

import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import TINY_STUDY, TINY_TARGETS, run_snakemake


@pytest.fixture(scope="session")
def tiny_study_run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """The tiny study's first run to Tables 1 and 3: (its folder, the run). Use tiny_study,
    which copies it; the tests that do are in one xdist group, so one worker runs it once."""
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
