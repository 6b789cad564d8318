"""A killed `make results` resumes to the same tables (docs/running.md): the tiny study is
started the way `make results` starts a study (swevis.results_run around the snakemake
command, from the project's folder, so its default profile applies), its whole process group
is SIGKILLed once an agent cell is done and another has made a run of its two (so an agent job
dies mid-cell), and the rerun meets the lock the kill left, clears it
as the one line it prints says, and ends with the tables of the uninterrupted first run.

It runs three of the study's agent cells and its tables again in the tiny study's own folder,
from its tasks, indexes and pre-localizations (tiny_study_folder): a run's prompts name its
workspace by absolute path, so only there are the token counts the first run's. LET's two
cells, the dearest to run, are put back from the first run, up to date: the tables are the
whole study's all the same, and three cells, two running at a time, leave one to be made
whichever is mid-cell at the kill."""

import os
import re
import shutil
import signal
import subprocess
import sys

import pytest
import snakemake_fork
from helpers import PROJECT_ROOT, SNAKEMAKE, TINY_STUDY, TINY_TARGETS, study_tables

from swevis.results_run import stale_lock_line

KEPT = "qwen3.5/let-normal"  # LET's two cells (text, r3), put back from the first run
CELLS = 3  # the agent cells made again: mini text, plb text and r3
CELL_DONE = "(Rule: run_condition)"
RUN_DONE = re.compile(r"swevis\.script: .* results/runs/\S+: ")  # a cell's line for each run it made


def make_results(study, *extra: str) -> list[str]:
    """`make results`'s command on `study`, to TINY_TARGETS."""
    snakemake = [SNAKEMAKE, "--snakefile", str(PROJECT_ROOT / "Snakefile"), "--directory", str(study)]
    return [sys.executable, "-m", "swevis.results_run", *snakemake, "--cores", "2", *extra, *TINY_TARGETS]


def put_back_kept_cells(study, first) -> None:
    """The first run's KEPT cells into `study`: their runs, grades, summaries and logs, mtimes
    kept (Snakemake's records of them are in the folder already), so they are up to date."""
    for made in ("runs", "logs/runs", "logs/harness", "logs/summaries"):
        shutil.copytree(first / "results" / made / KEPT, study / "results" / made / KEPT, symlinks=True)


def cells_finished(lines: list[str]) -> int:
    return sum(1 for line in lines if line.startswith("Finished jobid") and CELL_DONE in line)


def mid_cell(lines: list[str]) -> bool:
    """A cell is finished and another is half done (each cell runs the study's two instances)."""
    done = cells_finished(lines)
    return done >= 1 and sum(1 for line in lines if RUN_DONE.search(line)) > 2 * done


@pytest.mark.slow
@pytest.mark.xdist_group("tiny_study")
def test_a_killed_make_results_resumes_to_the_uninterrupted_runs_tables(tiny_study_folder):
    study, first = tiny_study_folder  # the tiny study's folder up to its agents; its first run set aside
    (study / "config.yaml").write_text(TINY_STUDY)
    put_back_kept_cells(study, first)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as the Makefile runs it
    run = subprocess.Popen(make_results(study), cwd=PROJECT_ROOT, env=env, stderr=subprocess.PIPE,
                           stdout=subprocess.DEVNULL, text=True, bufsize=1, start_new_session=True)
    before_kill: list[str] = []
    for line in run.stderr:
        before_kill.append(line)
        if mid_cell(before_kill):
            os.killpg(run.pid, signal.SIGKILL)  # Snakemake and every job it started
            break
    before_kill += run.stderr.readlines()
    run.wait()
    assert run.returncode == -signal.SIGKILL, "".join(before_kill)[-4000:]
    done_before = cells_finished(before_kill)
    assert 1 <= done_before < CELLS, "".join(before_kill)[-4000:]

    locked = subprocess.run(make_results(study), cwd=PROJECT_ROOT, env=env, capture_output=True, text=True)
    assert locked.returncode != 0 and f"make results: {stale_lock_line(SNAKEMAKE)}" in locked.stderr, locked.stderr[-4000:]
    # the command that line names, forked (tests/snakemake_fork.py): Snakemake's own main on its arguments
    unlock = snakemake_fork.run(["--snakefile", str(PROJECT_ROOT / "Snakefile"), "--directory", str(study), "--unlock"],
                                env=env, cwd=PROJECT_ROOT)
    assert unlock.returncode == 0, unlock.stderr[-4000:]

    resumed = subprocess.run(make_results(study), cwd=PROJECT_ROOT, env=env, capture_output=True, text=True)
    assert resumed.returncode == 0, resumed.stderr[-4000:]
    assert cells_finished(resumed.stderr.splitlines()) == CELLS - done_before  # finished cells are kept
    assert study_tables(study) == study_tables(first)
