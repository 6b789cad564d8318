"""`pytest --cpu-durations=N`: each test's CPU seconds, its children's included, and each
worker's timeline (busy, idle while the other worker still ran).

Why: on a shared machine wall seconds measure the other work as much as the tests; CPU
seconds do not, and they say which tests to make cheaper. The suite's wall time on two
workers is the longer worker's, so the summary also says how long each worker sat idle
before the last test ended. conftest.py imports these hooks; without the option they do
nothing.

A test's CPU seconds: getrusage SELF + CHILDREN of its worker over its setup, call and
teardown (a session or module fixture counts in the test that builds or ends it), plus the
Snakemake runs it forked (snakemake_fork.forked_cpu_seconds: the forkserver, not the
worker, waits for them). Work done by an engine's daemons (Docker containers, SLURM jobs)
is not the test's process tree and is not counted.
"""

from __future__ import annotations

import os
import resource
import time

import pytest
import snakemake_fork

_started: dict[str, tuple[float, float]] = {}
_measured: list[dict] = []


def pytest_addoption(parser):
    parser.addoption("--cpu-durations", type=int, default=None, metavar="N",
                     help="show the N tests with the most CPU seconds (children included; 0 for all) "
                          "and each worker's busy and idle seconds")


def _cpu_now() -> float:
    own = snakemake_fork.cpu_seconds(resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    return own + snakemake_fork.forked_cpu_seconds


def pytest_runtest_logstart(nodeid, location):
    _started[nodeid] = (time.time(), _cpu_now())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.when == "teardown" and item.config.getoption("cpu_durations") is not None:
        start, cpu = _started.pop(item.nodeid, (call.start, _cpu_now()))
        report.user_properties.append(("cpu_durations", {
            "worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "start": start, "stop": time.time(),
            "cpu": _cpu_now() - cpu,
        }))
    return report


def pytest_runtest_logreport(report):
    """On the controller (or the only process): collect what the workers measured."""
    if report.when == "teardown":
        for name, value in report.user_properties:
            if name == "cpu_durations":
                _measured.append({"nodeid": report.nodeid, **value})


def pytest_terminal_summary(terminalreporter, config):
    count = config.getoption("cpu_durations")
    if count is None or not _measured:
        return
    write = terminalreporter.write_line
    terminalreporter.write_sep("=", "CPU seconds (children included)")
    ranked = sorted(_measured, key=lambda m: -m["cpu"])
    for m in ranked[:count or None]:
        write(f"{m['cpu']:8.1f} CPU s {m['stop'] - m['start']:7.1f} wall s  {m['worker']:>5}  {m['nodeid']}")
    write(f"{sum(m['cpu'] for m in _measured):8.1f} CPU s in {len(_measured)} tests")
    for line in worker_timeline(_measured):
        write(line)


def worker_timeline(measured: list[dict]) -> list[str]:
    """One line a worker: tests, CPU s, busy wall s, and idle wall s (gaps between its tests
    and the wait after its last one until the last test anywhere ended)."""
    first = min(m["start"] for m in measured)
    last = max(m["stop"] for m in measured)
    lines = [f"span {last - first:.1f} wall s from the first test's start to the last one's end"]
    for worker in sorted({m["worker"] for m in measured}):
        mine = sorted((m for m in measured if m["worker"] == worker), key=lambda m: m["start"])
        busy = sum(m["stop"] - m["start"] for m in mine)
        tail = last - mine[-1]["stop"]
        lines.append(f"worker {worker}: {len(mine)} tests, {sum(m['cpu'] for m in mine):.1f} CPU s, "
                     f"busy {busy:.1f} s, idle {last - first - busy:.1f} s ({tail:.1f} s of it after its last test)")
    return lines
