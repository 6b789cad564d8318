"""The job zygote: a process that has imported what the workflow's job scripts import, and
forks a copy of itself for each Python script job of the tests' Snakemake runs.

Why: a script job is a fresh `python` that imports Snakemake's script support and the swevis
modules its script needs (0.3 to 0.6 CPU s, docs/measurements.md) before it does its work,
and the suite's Snakemake runs start several hundred of them. tests/snakemake_fork.py starts
one zygote a test worker and points its forked Snakemake runs' Python script jobs at
tests/job_client.py, which hands the zygote the job's script, working folder, environment
and standard streams and exits with the job's exit code. What a job runs is unchanged: a
copy runs Snakemake's generated script as `python SCRIPT` would (as `__main__`, its folder
first on sys.path, the job's whole environment), and its exit handlers run.

One connection, one job: the zygote forks a watcher, the watcher forks the job and reports
its exit status and CPU seconds on the connection; if the client goes away first (Snakemake
killed the job), the watcher kills the job. A module whose import leaves a thread running is
not preloaded (a fork copies only the forking thread): the jobs that need it import it.

    python tests/job_zygote.py SOCKET   (prints "ready" once it listens)
"""

from __future__ import annotations

import atexit
import importlib
import json
import os
import re
import resource
import runpy
import select
import signal
import socket
import sys
import traceback
from pathlib import Path

_WORKFLOW = Path(__file__).resolve().parents[1]


def script_imports() -> list[str]:
    """The swevis modules the workflow's job scripts (scripts/*.py) import at their top, and
    Snakemake's script support, which every script's preamble imports."""
    found = {"snakemake.script"}
    for path in sorted((_WORKFLOW / "scripts").glob("*.py")):
        found.update(re.findall(r"^(?:from|import) (swevis[\w.]*)", path.read_text(), re.M))
    return sorted(found)


def threads() -> int:
    """The threads of this process, as the kernel counts them (a library's native threads too)."""
    return len(os.listdir("/proc/self/task"))


def run_job(request: dict) -> None:
    """In the job's copy: become `python SCRIPT` in the job's folder and environment, run it, exit."""
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    script = request["script"]
    sys.argv = [script, *request["args"]]
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if not isinstance(exc.code, int | None):
            print(exc.code, file=sys.stderr)
    except BaseException:  # noqa: BLE001  as the interpreter does: the traceback, exit code 1
        traceback.print_exc()
        code = 1
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


def watch(conn: socket.socket) -> None:
    """In the watcher: read the job's request and streams, fork the job, report how it ended."""
    message, fds, _flags, _addr = socket.recv_fds(conn, 1 << 20, 3)
    request = json.loads(message)
    pid = os.fork()
    if pid == 0:
        conn.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        run_job(request)
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(pid)
    ready, _, _ = select.select([conn, pidfd], [], [])
    if pidfd not in ready:  # the client is gone: Snakemake stopped the job
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    code = os.waitstatus_to_exitcode(status)
    try:
        conn.sendall(json.dumps({"code": code if code >= 0 else 128 - code,
                                 "cpu": usage.ru_utime + usage.ru_stime}).encode())
    except OSError:
        pass
    os._exit(0)


def starts_no_thread(name: str) -> bool:
    """Whether importing `name` here leaves this process with one thread (polars, for one,
    starts its pool on import): tried in a forked copy, so a refused module is never imported."""
    pid = os.fork()
    if pid == 0:
        try:
            importlib.import_module(name)
            os._exit(0 if threads() == 1 else 1)
        except BaseException:  # noqa: BLE001  any failure: not preloaded
            os._exit(1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


def serve(path: str) -> None:
    for name in script_imports():
        if starts_no_thread(name):
            importlib.import_module(name)
    if threads() != 1:
        print(f"not serving: the preloaded modules left {threads()} threads", flush=True)
        return
    signal.signal(signal.SIGTERM, stop)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    print("ready", flush=True)
    while True:
        conn, _ = server.accept()
        if os.fork() == 0:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            server.close()
            watch(conn)
        conn.close()
        reap(os.WNOHANG)


def reap(options: int) -> None:
    """Wait for the watchers that ended (os.WNOHANG), so that their jobs' CPU
    seconds count in this process's children's and, once the test worker waits for this
    process, in the worker's."""
    try:
        while os.waitpid(-1, options)[0]:
            pass
    except ChildProcessError:
        pass


def stop(_signum, _frame) -> None:
    """On SIGTERM: reap the watchers that ended and exit (one still running is left to end alone)."""
    reap(os.WNOHANG)
    os._exit(0)


if __name__ == "__main__":
    serve(sys.argv[1])
