"""Imported by a test's Snakemake run before its main (snakemake_fork.run(prelude=...)): the
SLURM executor asks for job states at most every POLL_S seconds.

Why: snakemake-executor-plugin-slurm (2.8) waits 10 s longer before each status check that
finds every job still running (up to 180 s) and has no setting for that back-off. Each job of
tests/engines/test_slurm.py's chain takes a few seconds, so a job that finished just after a
check waited 10-30 s to be seen, and the nine jobs, one after another, most of the test's
140 s. What SLURM runs, and how the plugin reads the states (squeue), stay the same."""

from snakemake_executor_plugin_slurm import Executor
from snakemake_interface_executor_plugins.executors.remote import RemoteExecutor

POLL_S = 2
_BASE = RemoteExecutor.next_seconds_between_status_checks


def _capped(self, value) -> None:
    _BASE.fset(self, value if value is None else min(value, POLL_S))


Executor.next_seconds_between_status_checks = property(_BASE.fget, _capped)
