"""Every run of one cell (model x agent x scope x condition) in one process.

A job per run paid a fresh interpreter, the imports and the tokenizer each time, and
Snakemake its per-job bookkeeping: most of an agent job's CPU on the embedded default.
One job per cell pays them once. It keeps a run's own granularity: each run keeps its folder,
traj.json and patch.diff, and its journal (a killed job resumes the run it was in, paying
only for the missing calls); a run whose files are there, made with the same settings and
newer than its own inputs, is not run again (`run_is_current`), so a grown sample, one
deleted run folder or one edited demonstration reruns those runs only.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
from pathlib import Path
from typing import Any, Callable

from swevis.errors import InfrastructureError
from swevis.fsutil import write_atomic

log = logging.getLogger(__name__)

# Beside traj.json: the digest of what the run was made with (run_stamp).
STAMP_NAME = "run-stamp.json"
OUTPUT_NAMES = ("traj.json", "patch.diff")


def run_stamp(settings: dict[str, Any], instance_digest: str, repeat: int) -> str:
    """The digest of what one run depends on besides its input files: the cell's settings
    (the params a per-run job took), its instance row's digest and its repeat. Keys sorted:
    reordering keys in a config file reruns nothing."""
    payload = json.dumps({"settings": settings, "instance": instance_digest, "repeat": repeat}, sort_keys=True,
                         default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


def run_is_current(out_dir: str | Path, stamp: str, inputs: list[str]) -> bool:
    """Whether the run in `out_dir` is done and up to date: both outputs there, its stamp the
    same, and no input newer than its oldest output (Snakemake's mtime rule, per run)."""
    out = Path(out_dir)
    try:
        oldest = min((out / name).stat().st_mtime for name in OUTPUT_NAMES)
        recorded = json.loads((out / STAMP_NAME).read_text())["stamp"]
    except (OSError, ValueError, KeyError, TypeError):
        return False
    if recorded != stamp:
        return False
    return all(os.stat(path).st_mtime <= oldest for path in inputs)


def write_stamp(out_dir: str | Path, stamp: str) -> None:
    write_atomic(Path(out_dir) / STAMP_NAME, json.dumps({"stamp": stamp}))


def run_cell(runs: list[dict[str, Any]], run_one: Callable[[dict[str, Any]], None]) -> dict[str, list[str]]:
    """Run each of `runs` (dicts with out_dir, stamp and inputs) that is not current, with
    `run_one`; stamp each finished run. An infrastructure failure of one run does not stop
    the others: the job fails at the end, naming them, and the next job retries only those.
    Returns the out_dirs run, skipped and failed."""
    done: dict[str, list[str]] = {"ran": [], "current": [], "failed": []}
    reasons = []
    for run in runs:
        out_dir = run["out_dir"]
        if run_is_current(out_dir, run["stamp"], run["inputs"]):
            done["current"].append(out_dir)
            continue
        try:
            run_one(run)
        except InfrastructureError as exc:
            log.error("%s: %s", out_dir, " ".join(str(exc).split()))
            done["failed"].append(out_dir)
            reasons.append(f"{out_dir}: {exc}")
            continue
        write_stamp(out_dir, run["stamp"])
        done["ran"].append(out_dir)
    if reasons:
        raise InfrastructureError(f"{len(reasons)} of {len(runs)} runs failed: " + "; ".join(reasons))
    return done
