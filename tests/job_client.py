"""`python -S -I tests/job_client.py SCRIPT [ARGS]`: a Python script job of a test's Snakemake
run, run by the job zygote (tests/job_zygote.py) at SWEVIS_TEST_JOB_ZYGOTE.

It hands the zygote the script, this folder, this environment and its standard streams, passes
on the SIGINT, SIGTERM and SIGHUP it gets, waits, and ends as the job ended (its exit code, or
killed by the same signal); it adds the job's CPU seconds to the file at SWEVIS_TEST_JOB_CPU
(the forked Snakemake run counts them, tests/snakemake_fork.py). Where no zygote answers it
runs the job as `python SCRIPT` would. Killed outright, it closes the connection, and the
zygote stops the job. Started without site packages: only the standard library."""

import json
import os
import signal
import socket
import sys

PASSED_ON = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def main(args: list[str], zygote_variable: str = "SWEVIS_TEST_JOB_ZYGOTE", **extra: str) -> None:
    """`python SCRIPT ARGS` (`args`) through the zygote at the variable's socket; `extra`: the
    request's optional fields (prelude: tests/job_zygote.py)."""
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(os.environ[zygote_variable])
    except (KeyError, OSError):
        os.execv(sys.executable, [sys.executable, *args])
    request = {"script": args[0], "args": args[1:], "cwd": os.getcwd(), "env": dict(os.environ), **extra}
    socket.send_fds(conn, [json.dumps(request).encode() + b"\n"], [0, 1, 2])
    for number in PASSED_ON:
        signal.signal(number, lambda got, _frame: conn.send(bytes([got])))
    reply = b""
    while chunk := conn.recv(4096):
        reply += chunk
    if not reply:
        sys.exit("job_client: the job zygote ended without the job's exit status")
    result = json.loads(reply)
    if os.environ.get("SWEVIS_TEST_JOB_CPU"):
        with open(os.environ["SWEVIS_TEST_JOB_CPU"], "a") as fh:
            fh.write(f"{result['cpu']}\n")
    if result["status"] < 0:  # killed by a signal: end the same way
        signal.signal(-result["status"], signal.SIG_DFL)
        os.kill(os.getpid(), -result["status"])
    sys.exit(result["status"])


if __name__ == "__main__":
    main(sys.argv[1:])
