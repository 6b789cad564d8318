"""The `snakemake` of a docs test's copy of the workflow: the command forked from a zygote that
has imported Snakemake, not started afresh.

Why: tests/test_docs.py runs each documented block in a fresh copy of the workflow, and about
30 of its commands (make's recipes too) start `.venv/bin/snakemake`, a new Python that spends
about 1.4 CPU s importing Snakemake and its plugins and 0.6 the Snakefile's swevis imports
before it reads the Snakefile. install() makes the copy's `.venv` a folder of links to the
repository's entries but for `bin/snakemake`, a shim: tests/job_client.py hands the run (the
real entry point and its arguments, the folder, the whole environment and the three standard
streams) to a zygote (tests/job_zygote.py) that has preloaded what a forked run of
tests/snakemake_fork.py starts with; its forked copy runs the entry point as `python
.venv/bin/snakemake` would, and the shim ends as the run ended (its exit code, or its signal;
SIGINT, SIGTERM and SIGHUP are passed on). A run's Python script jobs go through the job
zygote, as a forked run's do (SWEVIS_TEST_JOB_FORK=0: each starts its own Python). The run's
and its jobs' CPU seconds go to the file at SWEVIS_TEST_JOB_CPU, which the test counts
(snakemake_fork.count_cpu). SWEVIS_TEST_FORK=0 links `.venv` whole: the real command runs.

What differs from the command: as in a forked run, the preloaded modules were imported in the
test worker's environment (its HOME, not the block's) and every run of a zygote has its
string-hash seed; sys.argv[0] is the entry point's absolute path, not the path typed (runpy
sets it; Snakemake's banner shows it as its Command); the block's environment holds the
zygotes' sockets and the CPU file's path; and the copy's `.venv` is a folder of links, not one.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import snakemake_fork

ZYGOTE_VARIABLE = "SWEVIS_TEST_SNAKEMAKE_ZYGOTE"
# what the zygote imports: a forked run's start, and this module (the runs' prelude)
PRELOAD = (*snakemake_fork.SNAKEMAKE_PRELOAD, "snakemake_shim")
SHIM = '''#!{python} -SI
"""`snakemake`, run by the Snakemake zygote of the tests (tests/snakemake_shim.py)."""
import sys
sys.path.insert(0, {tests!r})
import job_client
job_client.main([{snakemake!r}, *sys.argv[1:]], {variable!r}, prelude="snakemake_shim:before_run")
'''


def enabled() -> bool:
    """Whether a docs test's copy gets the shim (SWEVIS_TEST_FORK=0: the real command)."""
    return os.environ.get("SWEVIS_TEST_FORK") != "0"


def install(venv: Path, real: Path) -> None:
    """Make `venv` the virtual environment `real` with the shim as its bin/snakemake: links to
    `real`'s entries, its bin a folder of links but for snakemake. A Python started from it
    finds the pyvenv.cfg beside its bin, as it did through a link to `real`."""
    venv.mkdir()
    for entry in real.iterdir():
        if entry.name != "bin":
            (venv / entry.name).symlink_to(entry)
    (venv / "bin").mkdir()
    for entry in (real / "bin").iterdir():
        if entry.name != "snakemake":
            (venv / "bin" / entry.name).symlink_to(entry)
    shim = venv / "bin" / "snakemake"
    shim.write_text(SHIM.format(python=sys.executable, tests=str(Path(__file__).parent),
                                snakemake=str(real / "bin" / "snakemake"), variable=ZYGOTE_VARIABLE))
    shim.chmod(0o755)


def environment(cpu_file: Path) -> dict[str, str]:
    """The variables a block's commands need for the shim: the zygotes' sockets (none where
    one does not serve: the shim then starts the real command) and the file for the CPU
    seconds of the runs and their jobs."""
    sockets = {ZYGOTE_VARIABLE: snakemake_fork.zygote(PRELOAD), snakemake_fork.JOB_ZYGOTE_VARIABLE: snakemake_fork.job_zygote()}
    return {"SWEVIS_TEST_JOB_CPU": str(cpu_file), **{name: path for name, path in sockets.items() if path}}


def before_run() -> None:
    """In the zygote's copy, before Snakemake's entry point runs: as a forked run starts
    (snakemake_fork.as_a_run_here), its script jobs' CPU seconds to the block's CPU file."""
    snakemake_fork.as_a_run_here(os.environ["SWEVIS_TEST_JOB_CPU"])
