"""Snakemake runs for the tests, forked from a process that has imported Snakemake already.

Why: a `snakemake` process spends about 1.1 of its 1.9 CPU seconds importing Snakemake and its
plugins before it reads the Snakefile, and the suite starts well over a hundred of them. The
standard library's forkserver (multiprocessing) imports snakemake.cli (and the swevis modules
the Snakefile imports) once per test worker and forks a fresh copy of itself for each run; the copy takes the run's arguments, working
folder and whole environment, writes its output to files and exits with Snakemake's code, as
the `snakemake` command would. SWEVIS_TEST_FORK=0 runs the command instead. A forked run's
Python script jobs are forked too, from the job zygote (tests/job_zygote.py); under
SWEVIS_TEST_JOB_FORK=0 each starts its own Python.

Runs of one test worker take turns (a lock): CPython 3.11's forkserver loses exit codes when
processes are started and joined from several threads at once (37 of 200 trivial processes
started from two threads came back 255, its "status lost" code; none one at a time).
"""

from __future__ import annotations

import importlib
import multiprocessing
import os
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
import warnings
from pathlib import Path

from job_zygote import swevis_imports

SNAKEMAKE = str(Path(sys.executable).parent / "snakemake")
_WORKFLOW = Path(__file__).resolve().parents[1]


def workflow_imports() -> list[str]:
    """The swevis modules the Snakefile and rules/*.smk import at their top: every run imports
    them again while parsing (0.6 of a dry run's 1.3 CPU s after Snakemake's own imports), so
    the forkserver imports them once too. Importing them runs nothing else (no config is read)."""
    return swevis_imports([_WORKFLOW / "Snakefile", *sorted((_WORKFLOW / "rules").glob("*.smk"))])


JOB_ZYGOTE_VARIABLE = "SWEVIS_TEST_JOB_ZYGOTE"  # the job zygote's socket, for tests/job_client.py
_JOB_CLIENT = shlex.join([sys.executable, "-S", "-I", str(Path(__file__).with_name("job_client.py"))])
_zygotes: dict[tuple[str, ...], tuple[subprocess.Popen, str, bool]] = {}  # preload -> process, socket, serving
_ZYGOTE_START = threading.Lock()
_WORKER_ENV = dict(os.environ)  # at import: conftest imports this before any test runs
# what a forked run starts with: Snakemake's command line, the Snakefile's imports, the warm-up
SNAKEMAKE_PRELOAD = ["snakemake.cli", "snakemake_fork", *workflow_imports(), "snakemake_warm"]
_CONTEXT = multiprocessing.get_context("forkserver")
_CONTEXT.set_forkserver_preload(SNAKEMAKE_PRELOAD)
_ONE_AT_A_TIME = threading.Lock()

# CPU seconds (user + system) of this process's forked Snakemake runs and their jobs, summed:
# the forkserver, not this process, waits for them, so getrusage(RUSAGE_CHILDREN) here misses
# them until the forkserver stops. conftest.py's --cpu-durations reads it per test.
forked_cpu_seconds = 0.0


def cpu_seconds(*whos: int) -> float:
    """User + system CPU seconds of getrusage over `whos` (RUSAGE_SELF, RUSAGE_CHILDREN)."""
    return sum(u.ru_utime + u.ru_stime for u in map(resource.getrusage, whos))


def _ensure_forkserver() -> None:
    """Start the forkserver with tests/ on PYTHONPATH: CPython 3.11's forkserver ignores the
    sys.path it is handed and imports its preload with the interpreter's own, where a module
    of tests/ (snakemake_fork, snakemake_warm) is not found and silently left out. Its
    forked copies take the caller's environment (_main), so the variable goes no further."""
    from multiprocessing import forkserver

    before = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).parent), before]))
    try:
        forkserver.ensure_running()
    finally:
        if before is None:
            del os.environ["PYTHONPATH"]
        else:
            os.environ["PYTHONPATH"] = before


def _main(args: list[str], env: dict[str, str], cwd: str, out: str, err: str, prelude: str | None = None) -> None:
    """In the forked copy: Snakemake's command line on `args`, output to the two files
    (`prelude`: a module imported first, e.g. tests/slurm_poll.py), and its CPU seconds with
    its jobs' to a third beside them (`cpu`), for the caller to count."""
    try:
        _snakemake_main(args, env, cwd, out, err, prelude)
    finally:
        _cancel_rate_limiter_wakeups()
        Path(out).with_name("cpu").write_text(repr(cpu_seconds(resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)))


def script_jobs_through_the_zygote(cpu_file: str) -> None:
    """In the forked copy: Python script jobs (no conda, container or modules) run through
    tests/job_client.py, which the job zygote serves; their CPU seconds go to `cpu_file`."""
    from snakemake.script import PythonScript

    direct = PythonScript.execute_script
    os.environ["SWEVIS_TEST_JOB_CPU"] = cpu_file

    def execute_script(self, fname, edit=False):
        if self.container_img is not None or self.conda_env is not None or self.env_modules is not None:
            return direct(self, fname, edit)
        self._execute_cmd("{py_exec} {fname:q}", py_exec=_JOB_CLIENT, fname=fname, is_python_script=True)

    PythonScript.execute_script = execute_script


def take_this_folder() -> None:
    """In a forked copy, in the run's folder: what Snakemake took from the folder it was
    imported in (the Workflow's run directory, in its banner and run metadata) is this one's,
    as in a `snakemake` started here."""
    from snakemake.workflow import Workflow

    Workflow._rundir = str(Path.cwd().absolute())


def as_a_run_here(cpu_file: str) -> None:
    """In a forked copy, in the run's folder and environment: the run's folder is its own
    (take_this_folder), and its Python script jobs go through the job zygote where the
    environment names one, their CPU seconds to `cpu_file`. A forked run and a docs test's
    shimmed one (tests/snakemake_shim.py) start so."""
    take_this_folder()
    if JOB_ZYGOTE_VARIABLE in os.environ:
        script_jobs_through_the_zygote(cpu_file)


def _cancel_rate_limiter_wakeups() -> None:
    """Cancel the timers Snakemake's job-rate limiter leaves behind. Why: after each scheduling
    round of a real run it starts a threading.Timer that wakes the scheduler one timespan later
    (the profile's max-jobs-per-timespan: 5 s), and on exit the process (multiprocessing joins
    its threads) waited for the last of them, up to 5 s after its last job, its scheduler long
    returned: a forked run of two `touch` jobs took 5.5 s wall, 0.6 s with them cancelled. The
    `snakemake` command waits the same; nothing it makes changes."""
    for thread in threading.enumerate():
        if isinstance(thread, threading.Timer):
            thread.cancel()


def _snakemake_main(args: list[str], env: dict[str, str], cwd: str, out: str, err: str, prelude: str | None) -> None:
    if prelude:
        importlib.import_module(prelude)
    os.environ.clear()
    os.environ.update(env)
    os.chdir(cwd)
    as_a_run_here(os.path.join(os.path.dirname(out), "jobcpu"))
    for fd, path in ((1, out), (2, err)):
        os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
    sys.argv = [SNAKEMAKE, *args]
    from snakemake.cli import main

    main(args)  # exits: multiprocessing makes its SystemExit the exit code


def run(
    args: list[str], env: dict[str, str], timeout: float | None = None, cwd: str | Path | None = None,
    prelude: str | None = None,
) -> subprocess.CompletedProcess:
    """`snakemake *args` in `cwd` (default: this one) with `env` as its whole environment: its
    code, stdout and stderr. `prelude`: a module of tests/ the run imports before Snakemake's main."""
    cmd = [SNAKEMAKE, *args]
    cwd = str(cwd or os.getcwd())
    if os.environ.get("SWEVIS_TEST_FORK") == "0":
        if prelude:
            start = f"import sys; sys.path.insert(0, {str(Path(__file__).parent)!r}); import {prelude}; "
            cmd = [sys.executable, "-c", start + "from snakemake.cli import main; main(sys.argv[1:])", *args]
        return subprocess.run(cmd, check=False, capture_output=True, text=True, env=env, timeout=timeout, cwd=cwd)
    env = {**env, JOB_ZYGOTE_VARIABLE: jobs} if (jobs := job_zygote()) else env
    with tempfile.TemporaryDirectory(prefix="swevis-snakemake-") as folder:
        out, err = os.path.join(folder, "stdout"), os.path.join(folder, "stderr")
        proc = _CONTEXT.Process(target=_main, args=(list(args), dict(env), cwd, out, err, prelude))
        with _ONE_AT_A_TIME:
            _ensure_forkserver()
            proc.start()
            proc.join(timeout)
            if proc.exitcode is None:
                proc.kill()
                proc.join()
                raise subprocess.TimeoutExpired(cmd, timeout)
        count_cpu(os.path.join(folder, "cpu"))
        count_cpu(os.path.join(folder, "jobcpu"))
        return subprocess.CompletedProcess(cmd, proc.exitcode, _read(out), _read(err))


def count_cpu(path: str) -> None:
    """Add the CPU seconds in the file at `path` (one number a line; none without the file) to
    forked_cpu_seconds: runs and jobs this process does not wait for wrote them."""
    global forked_cpu_seconds
    forked_cpu_seconds += sum(float(line) for line in _read(path).split())


def job_zygote() -> str | None:
    """The socket of this worker's job zygote; None under SWEVIS_TEST_JOB_FORK=0 (each script
    job starts its own Python) or where it does not serve."""
    return None if os.environ.get("SWEVIS_TEST_JOB_FORK") == "0" else zygote()


def zygote(modules: tuple[str, ...] = ()) -> str | None:
    """The socket of this worker's zygote (tests/job_zygote.py) that preloads `modules` (none:
    the job scripts' imports), started on first use in the environment the worker started
    with (a test's own variables are not what its modules are imported under) and numpy's one
    OpenBLAS thread (a job of one thread gets one). None where it does not serve (a warning
    says why)."""
    with _ZYGOTE_START:
        if modules not in _zygotes:
            _zygotes[modules] = _start_zygote(modules)
    _, path, serving = _zygotes[modules]
    return path if serving else None


def _start_zygote(modules: tuple[str, ...] = ()) -> tuple[subprocess.Popen, str, bool]:
    folder = tempfile.mkdtemp(prefix="swevis-zygote-")
    path = os.path.join(folder, "socket")
    env = {"OPENBLAS_NUM_THREADS": "1", **_WORKER_ENV}
    if os.environ.get("SWEVIS_CACHE_DIR"):  # the session's user cache (conftest.py), set after this module's import
        env["SWEVIS_CACHE_DIR"] = os.environ["SWEVIS_CACHE_DIR"]
    proc = subprocess.Popen([sys.executable, str(Path(__file__).with_name("job_zygote.py")), path, *modules],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    first = ""
    while line := proc.stdout.readline():  # mini-swe-agent's banner comes first
        if line.startswith(("ready", "not serving")):
            first = line.strip()
            break
    if first != "ready":
        name = "the Snakemake zygote" if "snakemake.cli" in modules else "the job zygote"
        warnings.warn(f"{name}: {first or 'ended before it served'}; what it would run starts its own Python",
                      stacklevel=2)
    return proc, path, first == "ready"


def stop_zygote() -> None:
    """Stop this worker's job zygotes (one ends when its standard input closes, as it does when
    the worker dies) and wait for them, so their jobs' CPU counts in this process's children's."""
    for proc, path, _ in _zygotes.values():
        proc.stdin.close()
        proc.wait()
        shutil.rmtree(os.path.dirname(path), ignore_errors=True)
    _zygotes.clear()


def _read(path: str) -> str:
    return Path(path).read_text(errors="replace") if os.path.exists(path) else ""
