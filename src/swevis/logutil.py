"""Logging set-up shared by the CLI and the Snakemake script adapters."""

from __future__ import annotations

import atexit
import logging
import os
import signal
import sys
from contextlib import contextmanager
from pathlib import Path

from swevis.errors import InfrastructureError, SwevisError


def setup_logging(log_path: str | Path | None = None, level: int = logging.INFO) -> None:
    """Log to stderr and, when a rule gives one, to its `log:` file (created with its folder)."""
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    if log_path:
        Path(log_path).parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(log_path, mode="w"))
    logging.basicConfig(
        level=level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
        handlers=handlers,
        force=True,
    )


def _exit_on_sigterm(signum: int, frame: object) -> None:
    logging.getLogger("swevis.script").error("terminated (signal %d): cleaning up, no output written", signum)
    raise SystemExit(128 + signum)


@contextmanager
def script_logging(log_path: str | Path | None):
    """For Snakemake `script:` adapters: log to the rule's log file, and record a failure
    there too (the traceback otherwise reaches only Snakemake's console). An
    InfrastructureError ends the script with exit 1 and its one-line reason as the log's
    last line: the job fails, writes no output, and the next run retries it.

    SIGTERM (Snakemake cancelling a job, a cluster's scancel) becomes SystemExit, so the
    script's own clean-up runs: an agent's container is removed, a checkout's lock freed."""
    setup_logging(log_path)
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    try:
        yield logging.getLogger("swevis.script")
    except InfrastructureError as exc:  # one line, last in the log; exit 1 fails the job, no traceback
        reason = " ".join(str(exc).split())
        logging.getLogger("swevis.script").error("infrastructure failure (no output written; the next run retries): %s", reason)
        raise SystemExit(1) from None
    except SwevisError as exc:  # a user error: one line, not a traceback
        logging.getLogger("swevis.script").error("error: %s", " ".join(str(exc).split()))
        raise SystemExit(2) from None
    except Exception as exc:
        logging.getLogger("swevis.script").error("failed: %s", exc, exc_info=True)
        raise


def exit_without_teardown() -> None:
    """End a finished job's interpreter at once, with exit code 0: the exit handlers run (log
    files flushed, temporary folders removed) but not the teardown of every module and object,
    which no output depends on and which costs a short job about 0.1 CPU s
    (docs/measurements.md). Call it last, once every output is written and closed."""
    atexit._run_exitfuncs()  # CPython's own call at exit; os._exit alone would skip the handlers
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)
