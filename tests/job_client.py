"""`python -S -I tests/job_client.py SCRIPT [ARGS]`: a Python script job of a test's Snakemake
run, run by the job zygote (tests/job_zygote.py) at SWEVIS_TEST_JOB_ZYGOTE.

It hands the zygote the script, this folder, this environment and its standard streams, waits,
and exits with the job's exit code; it adds the job's CPU seconds to the file at
SWEVIS_TEST_JOB_CPU (the forked Snakemake run counts them, tests/snakemake_fork.py). Where no
zygote answers it runs the job as `python SCRIPT` would. Killed, it closes the connection,
and the zygote kills the job. Started without site packages: only the standard library."""

import json
import os
import socket
import sys


def main() -> None:
    args = sys.argv[1:]
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(os.environ["SWEVIS_TEST_JOB_ZYGOTE"])
    except (KeyError, OSError):
        os.execv(sys.executable, [sys.executable, *args])
    request = {"script": args[0], "args": args[1:], "cwd": os.getcwd(), "env": dict(os.environ)}
    socket.send_fds(conn, [json.dumps(request).encode()], [0, 1, 2])
    reply = b""
    while chunk := conn.recv(4096):
        reply += chunk
    if not reply:
        sys.exit("job_client: the job zygote ended without the job's exit code")
    result = json.loads(reply)
    if os.environ.get("SWEVIS_TEST_JOB_CPU"):
        with open(os.environ["SWEVIS_TEST_JOB_CPU"], "a") as fh:
            fh.write(f"{result['cpu']}\n")
    sys.exit(result["code"])


if __name__ == "__main__":
    main()
