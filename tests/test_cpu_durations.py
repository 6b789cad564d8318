"""The --cpu-durations option (tests/cpu_durations.py): a forked Snakemake run's CPU is counted
for the test that ran it, and each worker's idle time is what its timeline leaves between tests."""

import os
import sys

import pytest
import snakemake_fork
from cpu_durations import worker_timeline

BUSY = "rule all:\n    shell: 'python -c \"import time; t = time.process_time()\\nwhile time.process_time() - t < 0.4: pass\"'\n"


@pytest.mark.slow  # starts the worker's forkserver when no test did before
def test_a_forked_runs_cpu_with_its_jobs_is_counted(tmp_path):
    (tmp_path / "Snakefile").write_text(BUSY.replace("python", sys.executable))
    before = snakemake_fork.forked_cpu_seconds
    proc = snakemake_fork.run(["-s", str(tmp_path / "Snakefile"), "-d", str(tmp_path), "--cores", "1"], env=dict(os.environ))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert snakemake_fork.forked_cpu_seconds - before >= 0.4  # the job's busy loop, waited by the forked run


def test_each_workers_idle_time_is_its_gaps_and_its_wait_after_its_last_test():
    measured = [
        {"worker": "gw0", "start": 0.0, "stop": 10.0, "cpu": 9.0},
        {"worker": "gw1", "start": 0.0, "stop": 2.0, "cpu": 2.0},
        {"worker": "gw1", "start": 3.0, "stop": 6.0, "cpu": 1.0},
    ]
    assert worker_timeline(measured) == [
        "span 10.0 wall s from the first test's start to the last one's end",
        "worker gw0: 1 tests, 9.0 CPU s, busy 10.0 s, idle 0.0 s (0.0 s of it after its last test)",
        "worker gw1: 2 tests, 3.0 CPU s, busy 5.0 s, idle 5.0 s (4.0 s of it after its last test)",
    ]
