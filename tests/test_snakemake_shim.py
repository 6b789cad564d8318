"""The docs tests' `snakemake` shim (tests/snakemake_shim.py) runs as the `snakemake` command:
the same exit code, standard output and error (but for the run's date and random id; the
real command is started by its absolute path, which the shimmed run has as its argv[0]) on a
dry run and on a failing command; a real run's Python script jobs go through the job zygote,
and the run's and the jobs' CPU seconds reach the file the docs test counts."""

import os
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
import snakemake_fork
import snakemake_shim
from test_docs import VENV

SNAKEFILE = """\
rule all:
    input: "made.txt"

rule make:
    output: "made.txt"
    script: "job.py"

rule broken:
    output: "broken.txt"
    script: "broken.py"
"""
JOB = 'open(snakemake.output[0], "w").write("made\\n")\nprint("the job ran")\n'
BROKEN = 'raise ValueError("a job that fails")\n'


@pytest.fixture
def workflow(tmp_path: Path) -> Iterator[tuple[Path, dict[str, str]]]:
    """A folder with a small Snakefile and its shimmed `.venv`, and the environment the docs
    test gives a block, with both zygotes whatever SWEVIS_TEST_JOB_FORK says (they must serve:
    else the shim only starts the real command); the shimmed runs' CPU seconds count in the
    test's."""
    for name, text in {"Snakefile": SNAKEFILE, "job.py": JOB, "broken.py": BROKEN}.items():
        (tmp_path / name).write_text(text)
    snakemake_shim.install(tmp_path / ".venv", VENV)
    sockets = {snakemake_shim.ZYGOTE_VARIABLE: snakemake_fork.zygote(snakemake_shim.PRELOAD),
               "SWEVIS_TEST_JOB_ZYGOTE": snakemake_fork.zygote()}
    if None in sockets.values():
        pytest.fail("a zygote does not serve here (its reason is in the warnings)")
    yield tmp_path, {**os.environ, **snakemake_shim.environment(tmp_path / "cpu"), **sockets}
    snakemake_fork.count_cpu(str(tmp_path / "cpu"))


def unstamped(text: str) -> str:
    """The output without what differs from run to run: the date, the time and the run's id."""
    text = re.sub(r"(Date|Workflow ID): .*", r"\1: -", text)
    return re.sub(r"\[\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\]", "[-]", text)


def snakemake(command: str, folder: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([command, *args], cwd=folder, env=env, capture_output=True, text=True, timeout=300)


def cpu_lines(folder: Path) -> list[float]:
    path = folder / "cpu"
    return [float(line) for line in path.read_text().split()] if path.exists() else []


@pytest.mark.parametrize("args", [("-n", "--cores", "1"), ("--cores", "1", "missing.txt")], ids=["dry-run", "fails"])
def test_the_shim_answers_as_the_command(workflow, args):
    folder, env = workflow
    real = snakemake(str(VENV / "bin" / "snakemake"), folder, env, *args)
    shimmed = snakemake(".venv/bin/snakemake", folder, env, *args)
    assert shimmed.returncode == real.returncode == (0 if "-n" in args else 1)
    assert unstamped(shimmed.stdout) == unstamped(real.stdout)
    assert unstamped(shimmed.stderr) == unstamped(real.stderr)
    assert "Job stats" in real.stdout if "-n" in args else "MissingRuleException" in real.stderr
    assert len(cpu_lines(folder)) == 1, "the shimmed run was not forked from the zygote"


def test_a_real_run_forks_its_script_jobs_and_counts_their_cpu(workflow):
    folder, env = workflow
    made = snakemake(".venv/bin/snakemake", folder, env, "--cores", "1")
    assert made.returncode == 0, made.stderr[-2000:]
    assert (folder / "made.txt").read_text() == "made\n" and "the job ran" in made.stdout
    assert len(cpu_lines(folder)) == 2 and all(seconds > 0 for seconds in cpu_lines(folder))  # the run, its job
    broken = snakemake(".venv/bin/snakemake", folder, env, "--cores", "1", "broken.txt")
    assert broken.returncode == 1 and "ValueError: a job that fails" in broken.stderr
    assert len(cpu_lines(folder)) == 4
