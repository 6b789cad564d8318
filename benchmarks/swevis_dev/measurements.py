"""The measured times of a checkout (`make measurements`, benchmarks/measure.py): the default
target run from nothing, `make test` and the fast lane, timed and written as one page.

The figures depend on the machine, its load and the code, so no page states them by hand:
`measure` runs the three commands and writes docs/measurements-generated.md, the only place
they are stated; `dry_run` plans the same work and writes nothing. Every function takes the
checkout's root: the commands run its Snakefile, its .venv and its `make test`, which an
installed package cannot find on its own.
"""

from __future__ import annotations

import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from swevis_dev.rule_times import per_rule, read_jobs, render_table, run_span

FAST_LANE = ["-m", "not slow"]


@dataclass(frozen=True)
class Timed:
    """One command's wall seconds, the CPU seconds of the processes it waited for, its exit status."""

    wall_s: float
    cpu_s: float
    returncode: int


@dataclass(frozen=True)
class Outcomes:
    """pytest's counts from its JUnit XML, and its slowest tests (name, seconds)."""

    tests: int
    failures: int
    errors: int
    skipped: int
    slowest: tuple[tuple[str, float], ...] = ()

    @property
    def passed(self) -> int:
        return self.tests - self.failures - self.errors - self.skipped


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> Timed:
    """Run `command`; its CPU seconds are what this process's finished children used meanwhile."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    returncode = subprocess.run(command, cwd=cwd, env=env).returncode
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Timed(wall, cpu, returncode)


def run_environment() -> dict[str, str]:
    """This environment without PYTHONDONTWRITEBYTECODE, as the Makefile runs the suite and the workflow."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def venv_bin(root: Path) -> Path:
    """The checkout's virtual environment's bin folder, which `make install` fills."""
    return root / ".venv" / "bin"


def workflow_command(root: Path, work: Path, cores: int, dry_run: bool) -> list[str]:
    """The default target of the checkout's Snakefile, run in `work` (which holds config.yaml)."""
    command = [str(venv_bin(root) / "snakemake"), "--snakefile", str(root / "Snakefile"), "--directory", str(work),
               "--cores", str(cores)]
    return command + (["-n", "--quiet"] if dry_run else [])


def suite_command(root: Path, workers: int, lane: list[str]) -> list[str]:
    """`make test` itself, or the fast lane's pytest command as the README gives it."""
    if lane:
        return [str(venv_bin(root) / "python"), "-m", "pytest", *lane, "-n", str(workers)]
    return ["make", "--no-print-directory", "test", f"TEST_WORKERS={workers}"]


def outcomes(junit: Path, slowest: int = 5) -> Outcomes:
    """The counts and the `slowest` tests of a JUnit XML file, whether its root is testsuites or testsuite."""
    root = ET.parse(junit).getroot()
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    cases = [(f"{c.get('classname', '')}::{c.get('name', '')}", float(c.get("time", 0))) for c in suite.iter("testcase")]
    cases.sort(key=lambda case: -case[1])
    return Outcomes(*(int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped")), tuple(cases[:slowest]))


def machine(root: Path) -> dict[str, str]:
    """What the page says of where it was measured: cores, memory, system, Python, load, commit."""
    memory = "unknown memory"
    meminfo = Path("/proc/meminfo")
    if meminfo.is_file():
        kib = next(int(line.split()[1]) for line in meminfo.read_text().splitlines() if line.startswith("MemTotal:"))
        memory = f"{kib / 2**20:.1f} GiB memory"
    return {
        "cores": f"{os.cpu_count()} cores",
        "memory": memory,
        "system": f"{platform.system()} {platform.machine()}, Python {platform.python_version()}",
        "load": f"{os.getloadavg()[0]:.1f}",
        "commit": commit(root),
    }


def commit(root: Path) -> str:
    """The checked-out commit, and whether the work tree differs from it."""
    if not (root / ".git").exists():
        return "not a git checkout"
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=root, capture_output=True, text=True)
    if head.returncode != 0:
        return "unknown (git rev-parse failed)"
    status = subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout
    return head.stdout.strip() + (" with uncommitted changes" if status.strip() else "")


def page(where: dict[str, str], cores: int, workers: int, results: Timed, rules: str,
         suite: tuple[Timed, Outcomes], fast: tuple[Timed, Outcomes]) -> str:
    """The generated page: every figure once, with the command that measured it."""
    return f"""# Measured times

<!-- generated by `make measurements` (benchmarks/measure.py); do not edit -->

What `make measurements` measured on one machine, at one commit, with nothing else meant to
run beside it; it writes this page anew each time. Why the run and the suite take the time
they take, and what makes a run reproducible: [measurements.md](measurements.md).

**Machine**: {where['cores']}, {where['memory']}, {where['system']}; load average
{where['load']} at the start. **Commit**: {where['commit']}.

## `make results`

The default target from an empty folder, as a fresh clone's `make results` builds it
(`snakemake --cores {cores}` with the embedded `config.yaml`): **{results.wall_s:,.0f} s**
wall, {results.cpu_s:,.0f} CPU s (user + system of Snakemake and every job).

Per rule, from the jobs' benchmark files (`.venv/bin/python benchmarks/bench_rules.py
results` on that folder). Snakemake samples a job's CPU every 0.5 s, so short jobs read low
and the rules' sum stays below the run's CPU seconds:

{rules}

## `make test`

{_suite_line(f"`make test TEST_WORKERS={workers}` (`pytest -n {workers} --dist loadgroup`)", *suite)} Tests that need
Docker, SLURM or a browser skip where none answers; they are among the skipped. The slowest:

{_slowest(suite[1])}

{_suite_line(f'The fast lane, `.venv/bin/python -m pytest -m "not slow" -n {workers}`', *fast)}
"""


def _suite_line(what: str, run: Timed, counts: Outcomes) -> str:
    return (f"{what}: {counts.tests:,} tests ({counts.passed:,} passed, {counts.skipped:,} skipped) in "
            f"**{run.wall_s:,.0f} s** wall, {run.cpu_s:,.0f} CPU s.")


def _slowest(counts: Outcomes) -> str:
    rows = [f"| `{name}` | {seconds:,.0f} |" for name, seconds in counts.slowest]
    return "\n".join(["| test | wall s |", "|---|--:|", *rows])


def measure(root: Path, cores: int, workers: int, out: Path) -> int:
    """Time the default target from nothing, `make test` and the fast lane, and write the page to
    `out`; a failed job or a failing test writes no page (exit status 1)."""
    env, where = run_environment(), machine(root)
    with tempfile.TemporaryDirectory(prefix="swevis-measure-") as scratch:
        scratch = Path(scratch)
        work = scratch / "work"
        work.mkdir()
        shutil.copy2(root / "config.yaml", work / "config.yaml")
        results = timed(workflow_command(root, work, cores, dry_run=False), work, env)
        if results.returncode != 0:
            print(f"measure: the workflow run failed (exit status {results.returncode}); no page written", file=sys.stderr)
            return 1
        jobs = read_jobs(work / "results")
        rules = render_table(per_rule(jobs), run_span(jobs))
        runs = {}
        for name, lane in (("suite", []), ("fast lane", FAST_LANE)):
            junit = scratch / f"{name.replace(' ', '-')}.xml"  # pytest reads PYTEST_ADDOPTS under make too
            run = timed(suite_command(root, workers, lane), root, {**env, "PYTEST_ADDOPTS": f"--junitxml={junit}"})
            if run.returncode != 0:
                print(f"measure: the {name} failed (exit status {run.returncode}); no page written", file=sys.stderr)
                return 1
            runs[name] = (run, outcomes(junit))
    out.write_text(page(where, cores, workers, results, rules, runs["suite"], runs["fast lane"]))
    print(f"measure: wrote {out}")
    return 0


def dry_run(root: Path, cores: int) -> int:
    """Plan the same work: the workflow's dry run in an empty folder, and the suite's and the
    fast lane's collection. Writes nothing. One collection serves both: pytest collects every
    test before the fast lane's -m deselects the slow ones, and says `fast/suite tests
    collected`, so a second collection would import the same modules again (about 13 CPU s)."""
    env = run_environment()
    with tempfile.TemporaryDirectory(prefix="swevis-measure-") as scratch:
        work = Path(scratch)
        shutil.copy2(root / "config.yaml", work / "config.yaml")
        plan = subprocess.run(workflow_command(root, work, cores, dry_run=True), cwd=work, env=env)
    if plan.returncode != 0:
        print(f"measure: the workflow's dry run failed (exit status {plan.returncode})", file=sys.stderr)
        return 1
    collect = subprocess.run([str(venv_bin(root) / "python"), "-m", "pytest", "--collect-only", "-q", *FAST_LANE],
                             cwd=root, env=env, capture_output=True, text=True)
    if collect.returncode != 0:
        print(f"measure: collecting the suite failed:\n{collect.stdout[-2000:]}{collect.stderr[-2000:]}", file=sys.stderr)
        return 1
    print(f"measure: the fast lane and the suite collect: {collect.stdout.strip().splitlines()[-1]}")
    return 0
