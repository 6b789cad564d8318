"""The job zygote: a process that has imported what the workflow's job scripts import, and
forks a copy of itself for each Python script job of the tests' Snakemake runs.

Why: a script job is a fresh `python` that imports Snakemake's script support and the swevis
modules its script needs (docs/measurements.md: about 0.5 to 0.7 CPU s for the scripts that run
most) before it does its work, and the suite's Snakemake runs start several hundred of them.
tests/snakemake_fork.py starts one zygote a test worker and points its forked Snakemake runs'
Python script jobs at tests/job_client.py, which hands the zygote the job's script, working
folder, environment and standard streams, passes on the signals it gets, and ends as the job
ended. A copy runs Snakemake's generated script as `python SCRIPT` would: as `__main__`, its
folder first on sys.path, in the job's whole environment (plus what the preloaded modules set
in it at import), an uncaught exception through sys.excepthook, non-daemon threads waited for,
exit handlers run. What differs: modules imported here read the worker's environment at their
import (and the Qwen3 tokenizer is loaded from the session's cache), every job of a zygote has
its string-hash seed, and a rule's benchmark record measures the client (docs/measurements.md).

One connection, one job: the zygote forks a watcher, the watcher forks the job, passes it the
client's signals and reports its exit status and CPU seconds on the connection; if the client
goes away first (killed outright), the watcher stops the job (SIGTERM, then SIGKILL after
GRACE_S). A module whose import leaves a thread running is not preloaded (a fork copies only
the forking thread): the jobs that need it import it. The zygote ends when its standard input
closes (the test worker stopped it, or died).

Named MODULEs are preloaded instead of the scripts' imports, all of them (one that leaves a
thread makes the zygote not serve): tests/snakemake_shim.py's zygote preloads Snakemake's and
runs the `snakemake` command. A request may name a prelude (`module:function`, called in the
job's copy before the script runs).

    python tests/job_zygote.py SOCKET [MODULE...]   (prints "ready" once it listens)
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
import threading
from pathlib import Path

_WORKFLOW = Path(__file__).resolve().parents[1]
GRACE_S = 5.0  # between SIGTERM and SIGKILL for a job whose client is gone


def swevis_imports(paths: list[Path]) -> list[str]:
    """The swevis modules these files import at their top (a line starting `from swevis...` or
    `import swevis...`), sorted."""
    found = set()
    for path in paths:
        found.update(re.findall(r"^(?:from|import) (swevis[\w.]*)", path.read_text(), re.M))
    return sorted(found)


def script_imports() -> list[str]:
    """What the workflow's job scripts (scripts/*.py) import at their top, Snakemake's script
    support, which every script's preamble imports, and tests/job_warm.py (the agent jobs'
    tokenizer, loaded)."""
    return ["snakemake.script", *swevis_imports(sorted((_WORKFLOW / "scripts").glob("*.py"))), "job_warm"]


# jemalloc's background purging thread (pyarrow's allocator: Snakemake's SLURM plugin imports
# pandas, which imports pyarrow). jemalloc's fork handlers hold its locks across a fork and
# leave the child without the thread (it purges inline), so forking with it is safe.
FORK_SAFE_THREADS = {"jemalloc_bg_thd"}


def threads() -> int:
    """The threads of this process that a fork would leave behind, as the kernel counts them
    (a library's native threads too; not FORK_SAFE_THREADS)."""
    names = [Path(f"/proc/self/task/{task}/comm").read_text().strip() for task in os.listdir("/proc/self/task")]
    return sum(name not in FORK_SAFE_THREADS for name in names)


def run_job(request: dict, preload_env: dict[str, str]) -> None:
    """In the job's copy: become `python SCRIPT` in the job's folder and environment, run it, exit."""
    os.environ.clear()
    os.environ.update(request["env"])
    for name, value in preload_env.items():
        os.environ.setdefault(name, value)
    os.chdir(request["cwd"])
    script = os.path.abspath(request["script"])
    sys.argv = [request["script"], *request["args"]]
    sys.path[0] = os.path.dirname(script)
    code = 0
    try:
        if request.get("prelude"):  # "module:function", preloaded: adjusts the copy before the script runs
            module, _, function = request["prelude"].partition(":")
            getattr(importlib.import_module(module), function)()
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 1
        if code == 1 and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException as exc:  # noqa: BLE001  as the interpreter: sys.excepthook, exit code 1
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code.co_filename != script:
            tb = tb.tb_next  # from the script's own frame, as `python SCRIPT` prints it
        sys.excepthook(type(exc), exc, tb or exc.__traceback__)
        code = 1
    threading._shutdown()  # CPython's own steps at exit: non-daemon threads, then the exit handlers
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


def read_request(conn: socket.socket) -> tuple[dict, list[int]]:
    """The client's request (one line of JSON) and its three standard streams."""
    data, fds, _flags, _addr = socket.recv_fds(conn, 1 << 16, 3)
    while not data.endswith(b"\n"):
        more = conn.recv(1 << 16)
        if not more:
            raise ConnectionError("the client left before its request ended")
        data += more
    return json.loads(data), fds


def supervise(conn: socket.socket, pid: int) -> int:
    """Pass the client's signals (one byte each) to the job until it ends; stop it if the
    client goes away. The job's wait status."""
    pidfd = os.pidfd_open(pid)
    while pidfd not in select.select([conn, pidfd], [], [])[0]:
        received = conn.recv(64)
        for number in received:
            os.kill(pid, number)
        if not received:  # the client is gone
            os.kill(pid, signal.SIGTERM)
            if not select.select([pidfd], [], [], GRACE_S)[0]:
                os.kill(pid, signal.SIGKILL)
            break
    return os.waitpid(pid, 0)[1]


def watch(conn: socket.socket, preload_env: dict[str, str]) -> None:
    """In the watcher: read the job's request and streams, fork the job, report how it ended."""
    request, fds = read_request(conn)
    pid = os.fork()
    if pid == 0:
        conn.close()
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        run_job(request, preload_env)
    for fd in fds:
        os.close(fd)
    try:
        status = supervise(conn, pid)
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    usage = [resource.getrusage(who) for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)]
    reply = {"status": os.waitstatus_to_exitcode(status), "cpu": sum(u.ru_utime + u.ru_stime for u in usage)}
    try:
        conn.sendall(json.dumps(reply).encode())
    except OSError:
        pass
    os._exit(0)


def preload(modules: list[str]) -> dict[str, str] | None:
    """Import `modules` (none named: what the job scripts import, each where it starts no
    thread); the variables those imports set in os.environ (a job's environment gets them
    too), or None where this process cannot serve (it says why)."""
    before = dict(os.environ)
    for name in modules or script_imports():
        if modules or starts_no_thread(name):
            importlib.import_module(name)
    try:
        os.close(os.pidfd_open(os.getpid()))
    except (AttributeError, OSError) as exc:  # Linux before 5.3
        print(f"not serving: no pidfd_open here ({exc})", flush=True)
        return None
    if threads() != 1:
        print(f"not serving: the preloaded modules left {threads()} threads", flush=True)
        return None
    return {k: v for k, v in os.environ.items() if before.get(k) != v}


def starts_no_thread(name: str) -> bool:
    """Whether importing `name` here leaves this process with one thread (polars, for one,
    starts its pool on import): tried in a forked copy, so a refused module is never imported."""
    pid = os.fork()
    if pid == 0:
        os.dup2(os.open(os.devnull, os.O_WRONLY), 2)  # a refused import's noise stays out of the log
        try:
            importlib.import_module(name)
            os._exit(0 if threads() == 1 else 1)
        except BaseException:  # noqa: BLE001  any failure: not preloaded
            os._exit(1)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0


def serve(path: str, modules: list[str]) -> None:
    preload_env = preload(modules)
    if preload_env is None:
        return
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(64)
    print("ready", flush=True)
    while server in select.select([server, sys.stdin], [], [])[0]:
        conn, _ = server.accept()
        if os.fork() == 0:
            server.close()
            watch(conn, preload_env)
        conn.close()
        reap()
    reap()


def reap() -> None:
    """Wait for the watchers that ended, so that their jobs' CPU seconds count in this
    process's children's and, once the test worker waits for this process, in the worker's."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


if __name__ == "__main__":
    serve(sys.argv[1], sys.argv[2:])
