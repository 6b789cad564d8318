"""Logging set-up shared by the CLI and the Snakemake script adapters."""

from __future__ import annotations

import logging
import sys
from pathlib import Path


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
