"""`make results`'s wrapper (swevis.results_run): Snakemake's output passed through with an
estimate after each progress line, a stale lock named in one line with its command, and the
CPU seconds of the run at the end."""

import io
import sys
from pathlib import Path

import pytest
from helpers import PROJECT_ROOT

from swevis.results_run import estimate, follow, main, stale_lock_line


def test_the_estimate_is_the_mean_step_time_times_the_steps_left():
    assert estimate(10, 40, 100.0) == "about 5 min left"
    assert estimate(30, 40, 60.0) == "about 20 s left"
    assert estimate(0, 40, 5.0) == "" and estimate(40, 40, 500.0) == ""


def test_progress_lines_get_the_jobs_left_and_an_estimate():
    out = io.StringIO()
    locked = follow(io.StringIO("rule tables:\n2 of 8 steps (25%) done\n"), out, "snakemake", started=0.0)
    lines = out.getvalue().splitlines()
    assert not locked
    assert lines[:2] == ["rule tables:", "2 of 8 steps (25%) done"]
    assert lines[2].startswith("make results: 2 of 8 jobs done, about ") and lines[2].endswith(" left")


def test_a_stale_lock_is_named_in_one_line_with_the_command_that_clears_it():
    text = "Error: Directory cannot be locked. Please make sure that no other Snakemake process\n"
    out = io.StringIO()
    assert follow(io.StringIO(text), out, ".venv/bin/snakemake", started=0.0)
    last = out.getvalue().splitlines()[-1]
    assert last.startswith("make results: results are locked") and "`.venv/bin/snakemake --unlock`" in last


def test_the_run_ends_with_its_cpu_seconds_and_keeps_the_exit_code(capfd):
    burn = "import sys; sum(range(3_000_000)); print('1 of 1 steps (100%) done'); sys.exit(3)"
    assert main([sys.executable, "-c", burn]) == 3
    err = capfd.readouterr().err.splitlines()
    assert err[0] == "1 of 1 steps (100%) done"
    assert err[-1].startswith("make results: ") and " CPU s (user + system of Snakemake and every job)" in err[-1]
    assert err[-1].endswith("exit 3")


@pytest.mark.slow
def test_a_lock_left_by_a_killed_snakemake_is_named_with_its_command(tmp_path, capfd):
    """A lock as a killed run leaves it (Snakemake's lock file naming an output of this run)."""
    (tmp_path / "config.yaml").write_text("tasks: {source: bundled, instance_ids: [swevis-samples__tabulon-305]}\n")
    locks = tmp_path / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    (locks / "0.output.lock").write_text("results/instances.jsonl\n")
    snakemake = str(Path(sys.executable).parent / "snakemake")
    cmd = [snakemake, "-s", str(PROJECT_ROOT / "Snakefile"), "-d", str(tmp_path), "--cores", "1", "results/instances.jsonl"]
    assert main(cmd) == 1
    err = capfd.readouterr().err.splitlines()
    assert err[-2] == f"make results: {stale_lock_line(snakemake)}"
    assert not (tmp_path / "results" / "instances.jsonl").exists()
