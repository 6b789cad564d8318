"""`make results`: Snakemake's default target, with where it stands, what is left, and what
it cost.

Snakemake prints "N of M steps (P%) done" after each job; this adds an estimate of the time
left (the mean seconds a step so far, times the steps left), names a stale lock (a run that
was killed) in one line with the command that clears it, and prints the CPU seconds of
Snakemake and every job at the end (user + system of all its descendants).

    python -m swevis.results_run SNAKEMAKE [ARGS...]
"""

from __future__ import annotations

import re
import resource
import subprocess
import sys
import time
from typing import TextIO

STEPS = re.compile(r"\b(\d+) of (\d+) steps \(\S+\) done")
LOCKED = "Directory cannot be locked"


def estimate(done: int, total: int, elapsed: float) -> str:
    """"about N min left" from the mean time a step so far (the steps differ; it is a guide)."""
    if done <= 0 or done >= total:
        return ""
    left = elapsed / done * (total - done)
    return f"about {left / 60:.0f} min left" if left >= 90 else f"about {left:.0f} s left"


def stale_lock_line(snakemake: str) -> str:
    return (f"results are locked: an earlier run was killed, or one is still running here; "
            f"if none is, clear the lock with `{snakemake} --unlock` and run make results again")


def follow(stream: TextIO, out: TextIO, snakemake: str, started: float) -> bool:
    """Copy Snakemake's output to `out`, adding the estimate after each progress line.
    Returns whether Snakemake said the folder is locked."""
    locked = False
    for line in stream:
        out.write(line)
        m = STEPS.search(line)
        if m:
            left = estimate(int(m.group(1)), int(m.group(2)), time.monotonic() - started)
            if left:
                out.write(f"make results: {m.group(1)} of {m.group(2)} jobs done, {left}\n")
        locked = locked or LOCKED in line
        out.flush()
    if locked:
        out.write(f"make results: {stale_lock_line(snakemake)}\n")
    return locked


def cpu_seconds_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    cmd = list(sys.argv[1:] if argv is None else argv)
    if not cmd:
        sys.stderr.write("usage: python -m swevis.results_run SNAKEMAKE [ARGS...]\n")
        return 2
    started = time.monotonic()
    cpu_before = cpu_seconds_of_children()
    proc = subprocess.Popen(cmd, stderr=subprocess.STDOUT, stdout=subprocess.PIPE, text=True, bufsize=1)
    try:
        follow(proc.stdout, sys.stderr, cmd[0], started)
        code = proc.wait()
    except KeyboardInterrupt:  # Snakemake got the same SIGINT and stops its jobs
        code = proc.wait()
    cpu = cpu_seconds_of_children() - cpu_before
    sys.stderr.write(f"make results: {cpu:,.0f} CPU s (user + system of Snakemake and every job), "
                     f"{time.monotonic() - started:,.0f} s wall, exit {code}\n")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
